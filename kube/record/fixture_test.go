package record

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/workload"
)

// t0 is the fixtures' time 0, on a whole second.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// stamp is what the apiserver writes for a time: the second it falls in.
func stamp(t time.Time) metav1.Time { return metav1.NewTime(t.Truncate(time.Second)) }

func node(name, cpu, mem string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU: apiresource.MustParse(cpu), v1.ResourceMemory: apiresource.MustParse(mem), v1.ResourcePods: apiresource.MustParse("110")}}}
}

type podOpt func(*v1.Pod)

func withLabels(kv ...string) podOpt {
	return func(p *v1.Pod) {
		for i := 0; i < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func sparkDriver(app string) podOpt {
	return withLabels(podmap.LabelSparkApp, app, podmap.LabelSparkRole, "driver", "spark-app-name", "pi")
}

func sparkExec(app string, id int) podOpt {
	return withLabels(podmap.LabelSparkApp, app, podmap.LabelSparkRole, "executor", "spark-exec-id", fmt.Sprint(id), "spark-app-name", "pi")
}

func batchJob(name, uid string) podOpt {
	return withLabels(podmap.LabelBatchJobName, name, podmap.LabelBatchControllerUID, uid)
}

func schedulerName(n string) podOpt { return func(p *v1.Pod) { p.Spec.SchedulerName = n } }

func priority(n int32) podOpt { return func(p *v1.Pod) { p.Spec.Priority = &n } }

func daemonset() podOpt {
	yes := true
	return func(p *v1.Pod) {
		p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds", Controller: &yes})
	}
}

func noRequests() podOpt { return func(p *v1.Pod) { p.Spec.Containers[0].Resources.Requests = nil } }

// fake is a pod's life as a watch reports it: each step changes the object
// and is reported at a time, with the apiserver's one-second stamps.
type fake struct {
	t   *testing.T
	r   *Recorder
	pod map[string]*v1.Pod
}

func newFake(t *testing.T, opt Options, nodes ...*v1.Node) (*fake, *bytes.Buffer) {
	var buf bytes.Buffer
	s, err := workload.NewStreamer(&buf, workload.YAML)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRecorder(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		r.Node(n)
	}
	return &fake{t: t, r: r, pod: map[string]*v1.Pod{}}, &buf
}

func (f *fake) report(now time.Time, p *v1.Pod) {
	f.t.Helper()
	if err := f.r.Pod(now, p.DeepCopy()); err != nil {
		f.t.Fatal(err)
	}
}

// create makes a pod (namespace ns) requesting cpu and mem, created at now.
func (f *fake) create(now time.Time, ns, name, cpu, mem string, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + ns + "-" + name),
			CreationTimestamp: stamp(now), Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: v1.PodSpec{SchedulerName: "default-scheduler", Containers: []v1.Container{{Name: "c",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse(cpu), v1.ResourceMemory: apiresource.MustParse(mem)}}}}},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
	for _, o := range opts {
		o(p)
	}
	f.pod[ns+"/"+name] = p
	f.report(now, p)
	return p
}

func (f *fake) get(key string) *v1.Pod {
	p := f.pod[key]
	if p == nil {
		f.t.Fatalf("no pod %s", key)
	}
	return p
}

func (f *fake) bind(now time.Time, key, node string) {
	p := f.get(key)
	p.Spec.NodeName = node
	p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: stamp(now)})
	f.report(now, p)
}

func (f *fake) run(now time.Time, key string) {
	p := f.get(key)
	p.Status.Phase = v1.PodRunning
	st := stamp(now)
	p.Status.StartTime = &st
	p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: st}}}}
	f.report(now, p)
}

func (f *fake) end(now time.Time, key string, phase v1.PodPhase) {
	p := f.get(key)
	started := stamp(now)
	if cs := p.Status.ContainerStatuses; len(cs) > 0 && cs[0].State.Running != nil {
		started = cs[0].State.Running.StartedAt
	}
	p.Status.Phase = phase
	p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
		StartedAt: started, FinishedAt: stamp(now)}}}}
	f.report(now, p)
}

func (f *fake) delete(now time.Time, key string) {
	f.t.Helper()
	if err := f.r.PodDeleted(now, f.get(key).DeepCopy()); err != nil {
		f.t.Fatal(err)
	}
	delete(f.pod, key)
}

// never is a time of success for a pod that does not end.
const never = -1e18

// life runs a pod through bound, running and succeeded at the given times.
func (f *fake) life(key, node string, bound, running, done float64) {
	f.bind(at(bound), key, node)
	f.run(at(running), key)
	if done != never {
		f.end(at(done), key, v1.PodSucceeded)
	}
}

// close ends the recording and parses what it wrote.
func (f *fake) close(end time.Time, buf *bytes.Buffer) (*workload.Workload, *Summary) {
	f.t.Helper()
	s, err := f.r.Close(end)
	if err != nil {
		f.t.Fatalf("close: %v\n%s", err, buf.String())
	}
	w, err := workload.Parse(buf.Bytes(), "recorded.yaml")
	if err != nil {
		f.t.Fatalf("the recording does not parse: %v\n%s", err, buf.String())
	}
	return w, s
}

func summaryText(s *Summary) string {
	var b strings.Builder
	s.Write(&b)
	return b.String()
}

func job(t *testing.T, w *workload.Workload, id string) *workload.Job {
	t.Helper()
	for i := range w.Jobs {
		if w.Jobs[i].ID == id {
			return &w.Jobs[i]
		}
	}
	var ids []string
	for _, j := range w.Jobs {
		ids = append(ids, j.ID)
	}
	t.Fatalf("no job %s in %v", id, ids)
	return nil
}

func parse(buf *bytes.Buffer) (*workload.Workload, error) {
	return workload.Parse(buf.Bytes(), "recorded.yaml")
}
