// Package kubescript plays scripted scenarios (internal/datadriven files)
// against the Kubernetes driver: a fake apiserver (client-go's fake
// clientset, whose pods/binding sets spec.nodeName as the real one does)
// and a kube.Scheduler on it, stepped by hand (kube.Stepper). A scenario
// creates nodes and pods and changes them as a cluster would; after each
// command the scheduler settles, and the command prints the bindings it
// made. The listings (jobs, pods, events) show how pods map to the core's
// jobs and what the scheduler said about them, so that a file reads as the
// specification of the pod-to-job mapping (docs/kube.md).
//
// Commands, one handler each:
//
//	new [policy=P] [admission=A] [queues=q1,q2] [default=Q] [volcano]   (volcano: the apiserver serves Volcano's PodGroup CRD)
//	node name=N cpu=C mem=M [label=k:v,...] [taint=k:v:Effect] [unready] [cordon]   (creates or replaces)
//	pod name=NS/NAME cpu=C [mem=M] [job=J] [app=A] [role=driver|executor|am] [queue=Q]
//	    (job= sets spindle.io/job, app= spark-app-selector; role=am sets
//	    spindle.io/role, role=driver|executor spark-role)
//	    [scheduler=S] [node=N] [phase=P] [estimate=D] [deadline=D] [demand=SPEC] [select=k:v]
//	    [labels=k:v,...] [annotations=k:v,...] [podgroup=NAME]   (spec.schedulingGroup.podGroupName)
//	    [taskgroups=name:minMember,...]   (YuniKorn's task-groups annotation)
//	podgroup name=NS/NAME [min=N]   (a Kubernetes PodGroup; min= gives it a gang policy of minCount N)
//	volcanogroup name=NS/NAME [min=N] [queue=Q] [minres=cpu:C,memory:M] [priorityclass=P]   (a Volcano PodGroup; needs new volcano)
//	priorityclass name=P value=N
//	phase pod=NS/NAME Running|Succeeded|Failed · delete pod=NS/NAME · delete node=N
//	fail pod=NS/NAME [times=N] [conflict=NODE]   (the next N bindings of the pod fail)
//	hold pod=NS/NAME · release pod=NS/NAME      (a binding stays in flight)
//	stop · restart                               (the scheduler dies; a new one starts on the same apiserver)
//	advance by=DURATION · jobs · pods · events
//
// Regenerate a file's expected outputs with -rewrite and review the diff.
package kubescript

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/internal/datadriven"
	"github.com/spindle-sched/spindle/kube"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/sched"
)

var (
	podsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	// epoch is when the scenario's apiserver starts; pods are created a
	// second apart from it, and the scheduler's clock starts an hour later.
	epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Script is one scenario's apiserver and scheduler.
type Script struct {
	client    *fake.Clientset
	dynamic   *dynamicfake.FakeDynamicClient // nil without new volcano
	opts      kube.Options
	st        *kube.Stepper
	rec       *record.FakeRecorder
	decisions []string
	fails     map[string]failure
	created   int
}

type failure struct {
	times    int
	conflict string // bind the pod there first, then answer Conflict
}

type handler func(s *Script, c *datadriven.Case) ([]string, error)

// commands is the scenario language: one handler per command.
var commands = map[string]handler{
	"new":           cmdNew,
	"node":          cmdNode,
	"pod":           cmdPod,
	"podgroup":      cmdPodGroup,
	"volcanogroup":  cmdVolcanoGroup,
	"priorityclass": cmdPriorityClass,
	"phase":         cmdPhase,
	"delete":        cmdDelete,
	"fail":          cmdFail,
	"hold":          cmdHold,
	"release":       cmdRelease,
	"stop":          cmdStop,
	"restart":       cmdRestart,
	"advance":       cmdAdvance,
	"jobs":          cmdJobs,
	"pods":          cmdPods,
	"events":        cmdEvents,
}

// needsScheduler are the commands that talk to the scheduler itself.
var needsScheduler = map[string]bool{"hold": true, "release": true, "advance": true, "jobs": true}

// RunDir plays every file matching dir/*.txt as a subtest.
func RunDir(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files in %s: %v", dir, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s := &Script{}
			datadriven.RunFile(t, f, func(t *testing.T, c *datadriven.Case) string {
				out, err := s.Step(c)
				if err != nil {
					t.Fatal(err)
				}
				return out
			})
		})
	}
}

// Step runs one command, settles the scheduler and returns the bindings it
// made, then the command's own output. An error of the scenario itself (a
// command before new, a bad argument) or of the scheduler (a broken
// invariant) ends the scenario.
func (s *Script) Step(c *datadriven.Case) (string, error) {
	h, ok := commands[c.Cmd]
	if !ok {
		return "", fmt.Errorf("%s: unknown command %q", c.Pos, c.Cmd)
	}
	if c.Cmd != "new" && s.client == nil {
		return "", fmt.Errorf("%s: the scenario must start with new", c.Pos)
	}
	if needsScheduler[c.Cmd] && s.st == nil {
		return "", fmt.Errorf("%s: %s: no scheduler runs (stop without restart)", c.Pos, c.Cmd)
	}
	out, err := h(s, c)
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", c.Pos, c.Cmd, err)
	}
	if s.st != nil {
		if err := s.st.Settle(); err != nil {
			return "", fmt.Errorf("%s: after %s: %w", c.Pos, c.Cmd, err)
		}
	}
	// The bindings the step made come first, then the command's own
	// output; a listing settles the scheduler before it is taken.
	all := append(s.decisions, out...)
	s.decisions = nil
	return strings.Join(all, "\n"), nil
}

func cmdNew(s *Script, c *datadriven.Case) ([]string, error) {
	pf, _, err := policy.Parse(c.Get("policy", "fifo"))
	if err != nil {
		return nil, err
	}
	af, err := admission.Parse(c.Get("admission", "none"))
	if err != nil {
		return nil, err
	}
	*s = Script{client: fake.NewClientset(), fails: map[string]failure{}, rec: record.NewFakeRecorder(10000)}
	s.client.PrependReactor("create", "pods", s.bind)
	s.opts = kube.Options{Client: s.client, Policy: pf, PolicyName: c.Get("policy", "fifo"), Admission: af, Recorder: s.rec,
		BackoffInitial: time.Second, BackoffMax: 10 * time.Second, StatusEvery: time.Second, Check: true,
		Log: slog.New(slog.DiscardHandler),
		OnDecision: func(d kube.Decision) {
			line := fmt.Sprintf("bind %s to %s", d.Pod, d.Node)
			if d.Err != nil {
				line += ": " + d.Err.Error()
			}
			s.decisions = append(s.decisions, line)
		}}
	if c.Has("volcano") {
		s.dynamic = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{volcanoGVR: "PodGroupList"})
		s.opts.Dynamic = s.dynamic
	}
	if qs := c.List("queues"); qs != nil {
		var b strings.Builder
		if d := c.Get("default", ""); d != "" {
			fmt.Fprintf(&b, "default_queue: %s\n", d)
		}
		b.WriteString("queues:\n")
		for _, q := range qs {
			fmt.Fprintf(&b, "  - {name: %s, capacity: %g}\n", q, 1/float64(len(qs)))
		}
		cfg, err := kube.ParseConfig([]byte(b.String()))
		if err != nil {
			return nil, err
		}
		s.opts.Config = cfg
	}
	return nil, s.start()
}

func (s *Script) start() error {
	st, err := kube.NewStepper(s.opts, epoch.Add(time.Hour))
	if err != nil {
		return err
	}
	s.st = st
	return nil
}

// bind is the fake apiserver's pods/binding: it sets spec.nodeName, unless
// the scenario told it to fail.
func (s *Script) bind(a k8stesting.Action) (bool, runtime.Object, error) {
	ca, ok := a.(k8stesting.CreateAction)
	if !ok || ca.GetSubresource() != "binding" {
		return false, nil, nil
	}
	b := ca.GetObject().(*v1.Binding)
	key := b.Namespace + "/" + b.Name
	obj, err := s.client.Tracker().Get(podsGVR, b.Namespace, b.Name)
	if err != nil {
		return true, nil, err
	}
	p := obj.(*v1.Pod).DeepCopy()
	if f, ok := s.fails[key]; ok && f.times > 0 {
		f.times--
		s.fails[key] = f
		if f.conflict == "" {
			return true, nil, apierrors.NewInternalError(errors.New("etcd hiccup"))
		}
		p.Spec.NodeName = f.conflict
		if err := s.client.Tracker().Update(podsGVR, p, b.Namespace); err != nil {
			return true, nil, err
		}
		return true, nil, apierrors.NewConflict(podsGVR.GroupResource(), b.Name, fmt.Errorf("already assigned to %s", f.conflict))
	}
	if p.Spec.NodeName != "" {
		return true, nil, apierrors.NewConflict(podsGVR.GroupResource(), b.Name, fmt.Errorf("already assigned to %s", p.Spec.NodeName))
	}
	p.Spec.NodeName = b.Target.Name
	// The apiserver's binding sets PodScheduled=True, replacing a
	// PodScheduled=False the scheduler wrote while the pod waited.
	scheduled := v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue}
	if i := slices.IndexFunc(p.Status.Conditions, func(c v1.PodCondition) bool { return c.Type == v1.PodScheduled }); i >= 0 {
		p.Status.Conditions[i] = scheduled
	} else {
		p.Status.Conditions = append(p.Status.Conditions, scheduled)
	}
	return true, nil, s.client.Tracker().Update(podsGVR, p, b.Namespace)
}

func quantity(c *datadriven.Case, key, def string) (apiresource.Quantity, error) {
	q, err := apiresource.ParseQuantity(c.Get(key, def))
	if err != nil {
		return q, fmt.Errorf("%s=%s: %w", key, c.Get(key, def), err)
	}
	return q, nil
}

// pairs reads k:v,k2:v2.
func pairs(c *datadriven.Case, key string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range c.List(key) {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			return nil, fmt.Errorf("%s=%s: want key:value", key, kv)
		}
		out[k] = v
	}
	return out, nil
}

func cmdNode(s *Script, c *datadriven.Case) ([]string, error) {
	name := c.Get("name", "")
	if name == "" {
		return nil, errors.New("node needs name=")
	}
	cpu, err := quantity(c, "cpu", "4")
	if err != nil {
		return nil, err
	}
	mem, err := quantity(c, "mem", "8Gi")
	if err != nil {
		return nil, err
	}
	labels, err := pairs(c, "label")
	if err != nil {
		return nil, err
	}
	n := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       v1.NodeSpec{Unschedulable: c.Has("cordon")},
		Status: v1.NodeStatus{
			Allocatable: v1.ResourceList{v1.ResourceCPU: cpu, v1.ResourceMemory: mem, v1.ResourcePods: apiresource.MustParse("110")},
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
	if c.Has("unready") {
		n.Status.Conditions[0].Status = v1.ConditionFalse
	}
	for _, t := range c.List("taint") {
		parts := strings.Split(t, ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("taint=%s: want key:value:Effect", t)
		}
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: parts[0], Value: parts[1], Effect: v1.TaintEffect(parts[2])})
	}
	if _, err := s.client.Tracker().Get(nodesGVR, "", name); err == nil {
		return nil, s.client.Tracker().Update(nodesGVR, n, "")
	}
	return nil, s.client.Tracker().Create(nodesGVR, n, "")
}

func cmdPod(s *Script, c *datadriven.Case) ([]string, error) {
	ns, name, ok := strings.Cut(c.Get("name", ""), "/")
	if !ok {
		return nil, errors.New("pod needs name=NAMESPACE/NAME")
	}
	cpu, err := quantity(c, "cpu", "1")
	if err != nil {
		return nil, err
	}
	mem, err := quantity(c, "mem", "256Mi")
	if err != nil {
		return nil, err
	}
	s.created++
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(fmt.Sprintf("uid-%d", s.created)),
			CreationTimestamp: metav1.NewTime(epoch.Add(time.Duration(s.created) * time.Second)), Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: v1.PodSpec{SchedulerName: c.Get("scheduler", "spindle"), NodeName: c.Get("node", ""),
			Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: cpu, v1.ResourceMemory: mem}}}}},
		Status: v1.PodStatus{Phase: v1.PodPhase(c.Get("phase", string(v1.PodPending)))},
	}
	role := c.Get("role", "")
	if c.Has("job") {
		p.Labels[kube.LabelJob] = c.Get("job", "")
		if role == "am" {
			p.Labels[kube.LabelRole] = "am"
		}
	}
	if c.Has("app") {
		p.Labels[kube.LabelSparkApp] = c.Get("app", "")
	}
	if role == "driver" || role == "executor" {
		p.Labels[kube.LabelSparkRole] = role
	}
	if q := c.Get("queue", ""); q != "" {
		p.Labels[kube.LabelQueue] = q
	}
	for arg, ann := range map[string]string{"estimate": kube.AnnotationEstimate, "deadline": kube.AnnotationDeadline, "demand": kube.AnnotationDemand} {
		if v := c.Get(arg, ""); v != "" {
			p.Annotations[ann] = v
		}
	}
	if sel, err := pairs(c, "select"); err != nil {
		return nil, err
	} else if len(sel) > 0 {
		p.Spec.NodeSelector = sel
	}
	// Any other convention's words, as its users write them.
	for arg, m := range map[string]map[string]string{"labels": p.Labels, "annotations": p.Annotations} {
		kv, err := pairs(c, arg)
		if err != nil {
			return nil, err
		}
		for k, v := range kv {
			m[k] = v
		}
	}
	if tg, err := pairs(c, "taskgroups"); err != nil {
		return nil, err
	} else if len(tg) > 0 {
		// YuniKorn's task-groups annotation, as JSON, from name:minMember.
		var groups []string
		for name, n := range tg {
			groups = append(groups, fmt.Sprintf(`{"name":%q,"minMember":%s,"minResource":{"cpu":"1"}}`, name, n))
		}
		sort.Strings(groups)
		p.Annotations["yunikorn.apache.org/task-groups"] = "[" + strings.Join(groups, ",") + "]"
	}
	if g := c.Get("podgroup", ""); g != "" {
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &g}
	}
	return nil, s.client.Tracker().Create(podsGVR, p, ns)
}

func cmdPodGroup(s *Script, c *datadriven.Case) ([]string, error) {
	ns, name, ok := strings.Cut(c.Get("name", ""), "/")
	if !ok {
		return nil, errors.New("podgroup needs name=NAMESPACE/NAME")
	}
	g := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if c.Has("min") {
		var n int32
		if _, err := fmt.Sscan(c.Get("min", ""), &n); err != nil {
			return nil, fmt.Errorf("min=%s: not a count", c.Get("min", ""))
		}
		g.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: n}
	} else {
		g.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	}
	_, err := s.client.SchedulingV1beta1().PodGroups(ns).Create(s.ctx(), g, metav1.CreateOptions{})
	return nil, err
}

// volcanoGVR is Volcano's PodGroup resource, as the apiserver serves it.
var volcanoGVR = schema.GroupVersionResource{Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "podgroups"}

func cmdVolcanoGroup(s *Script, c *datadriven.Case) ([]string, error) {
	if s.dynamic == nil {
		return nil, errors.New("volcanogroup needs new volcano (the apiserver serving the CRD)")
	}
	ns, name, ok := strings.Cut(c.Get("name", ""), "/")
	if !ok {
		return nil, errors.New("volcanogroup needs name=NAMESPACE/NAME")
	}
	spec := map[string]any{}
	if c.Has("min") {
		var n int64
		if _, err := fmt.Sscan(c.Get("min", ""), &n); err != nil {
			return nil, fmt.Errorf("min=%s: not a count", c.Get("min", ""))
		}
		spec["minMember"] = n
	}
	if q := c.Get("queue", ""); q != "" {
		spec["queue"] = q
	}
	if pc := c.Get("priorityclass", ""); pc != "" {
		spec["priorityClassName"] = pc
	}
	if mr, err := pairs(c, "minres"); err != nil {
		return nil, err
	} else if len(mr) > 0 {
		m := map[string]any{}
		for k, v := range mr {
			m[k] = v
		}
		spec["minResources"] = m
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
		"metadata": map[string]any{"namespace": ns, "name": name}, "spec": spec}}
	_, err := s.dynamic.Resource(volcanoGVR).Namespace(ns).Create(s.ctx(), u, metav1.CreateOptions{})
	return nil, err
}

func cmdPriorityClass(s *Script, c *datadriven.Case) ([]string, error) {
	var v int32
	if _, err := fmt.Sscan(c.Get("value", ""), &v); err != nil {
		return nil, fmt.Errorf("value=%s: not a number", c.Get("value", ""))
	}
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: c.Get("name", "")}, Value: v}
	_, err := s.client.SchedulingV1().PriorityClasses().Create(s.ctx(), pc, metav1.CreateOptions{})
	return nil, err
}

func (s *Script) pod(key string) (*v1.Pod, error) {
	ns, name, _ := strings.Cut(key, "/")
	obj, err := s.client.Tracker().Get(podsGVR, ns, name)
	if err != nil {
		return nil, err
	}
	return obj.(*v1.Pod).DeepCopy(), nil
}

func cmdPhase(s *Script, c *datadriven.Case) ([]string, error) {
	p, err := s.pod(c.Get("pod", ""))
	if err != nil {
		return nil, err
	}
	var phase v1.PodPhase
	for _, a := range c.Args {
		if a.Vals == nil {
			phase = v1.PodPhase(a.Key)
		}
	}
	switch phase {
	case v1.PodRunning, v1.PodSucceeded, v1.PodFailed:
	default:
		return nil, fmt.Errorf("phase %q: want Running, Succeeded or Failed", phase)
	}
	p.Status.Phase = phase
	return nil, s.client.Tracker().Update(podsGVR, p, p.Namespace)
}

func cmdDelete(s *Script, c *datadriven.Case) ([]string, error) {
	if n := c.Get("node", ""); n != "" {
		return nil, s.client.Tracker().Delete(nodesGVR, "", n)
	}
	ns, name, ok := strings.Cut(c.Get("pod", ""), "/")
	if !ok {
		return nil, errors.New("delete needs pod=NAMESPACE/NAME or node=NAME")
	}
	return nil, s.client.Tracker().Delete(podsGVR, ns, name)
}

func cmdFail(s *Script, c *datadriven.Case) ([]string, error) {
	f := failure{times: 1, conflict: c.Get("conflict", "")}
	if n := c.Get("times", ""); n != "" {
		if _, err := fmt.Sscan(n, &f.times); err != nil {
			return nil, fmt.Errorf("times=%s: %w", n, err)
		}
	}
	s.fails[c.Get("pod", "")] = f
	return nil, nil
}

func cmdHold(s *Script, c *datadriven.Case) ([]string, error) {
	s.st.Hold(c.Get("pod", ""))
	return nil, nil
}

func cmdRelease(s *Script, c *datadriven.Case) ([]string, error) {
	s.st.Release(c.Get("pod", ""))
	return nil, nil
}

// cmdStop kills the scheduler: the apiserver keeps changing, and nothing
// schedules until restart.
func cmdStop(s *Script, _ *datadriven.Case) ([]string, error) {
	s.st = nil
	return nil, nil
}

// cmdRestart starts a new scheduler on the same apiserver, as when the
// process dies and starts again.
func cmdRestart(s *Script, _ *datadriven.Case) ([]string, error) {
	return nil, s.start()
}

func cmdAdvance(s *Script, c *datadriven.Case) ([]string, error) {
	d, err := time.ParseDuration(c.Get("by", ""))
	if err != nil {
		return nil, fmt.Errorf("by: %w", err)
	}
	return nil, s.st.Advance(d)
}

// cmdJobs lists the core's jobs in submission order: key, queue, state and
// the pods that map to it with what each is in the core.
func cmdJobs(s *Script, _ *datadriven.Case) ([]string, error) {
	if err := s.st.Settle(); err != nil {
		return nil, err
	}
	core := s.st.Scheduler().Core()
	if core == nil {
		return []string{"no core: no node has joined"}, nil
	}
	pods, err := s.client.CoreV1().Pods("").List(s.ctx(), metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	byJob := map[*sched.Job][]string{}
	for _, p := range pods.Items {
		key := p.Namespace + "/" + p.Name
		switch {
		case core.ContainerByKey(key) != nil:
			ct := core.ContainerByKey(key)
			byJob[ct.Job()] = append(byJob[ct.Job()], fmt.Sprintf("%s %s on %s", key, role(ct.IsAM()), s.st.Scheduler().NodeName(ct.Node().ID())))
		case core.AskedBy(key) != nil:
			j := core.AskedBy(key)
			byJob[j] = append(byJob[j], key+" asked")
		}
	}
	var out []string
	for _, j := range core.Jobs() {
		out = append(out, fmt.Sprintf("job %s queue=%s %v", j.Key(), j.Queue().Name(), j.State()))
		sort.Strings(byJob[j])
		for _, l := range byJob[j] {
			out = append(out, "  "+l)
		}
	}
	return out, nil
}

func (s *Script) ctx() context.Context { return context.Background() }

func role(am bool) string {
	if am {
		return "AM"
	}
	return "task"
}

// cmdPods lists every pod: where it is bound, its phase, and its
// PodScheduled=False message when it has one.
func cmdPods(s *Script, _ *datadriven.Case) ([]string, error) {
	pods, err := s.client.CoreV1().Pods("").List(s.ctx(), metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range pods.Items {
		node := p.Spec.NodeName
		if node == "" {
			node = "-"
		}
		line := fmt.Sprintf("pod %s/%s node=%s %s", p.Namespace, p.Name, node, p.Status.Phase)
		for _, cond := range p.Status.Conditions {
			if cond.Type == v1.PodScheduled && cond.Status == v1.ConditionFalse {
				line += ": " + cond.Message
			}
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out, nil
}

// cmdEvents lists the Events posted since the last listing.
func cmdEvents(s *Script, _ *datadriven.Case) ([]string, error) {
	var out []string
	for {
		select {
		case ev := <-s.rec.Events:
			out = append(out, ev)
		default:
			return out, nil
		}
	}
}
