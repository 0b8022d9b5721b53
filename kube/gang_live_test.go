package kube

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
	"github.com/spindle-sched/spindle/kube/podmap"
)

// gangConvention shapes pod i of gang g as one scheduler's users write it.
type gangConvention struct {
	name  string
	shape func(p *v1.Pod, gang string, min int)
}

// The conventions, with the gang minimum where each declares it: Volcano's
// group annotation (the PodGroup's minMember repeated as
// spindle.io/min-members, since this test installs no Volcano CRD), YuniKorn's
// applicationId with its task groups, Kubernetes' schedulingGroup with a
// PodGroup object whose gang minCount is the minimum (served only with the
// GenericWorkload gate and the v1beta1 API on), spindle's own label.
var gangConventions = []gangConvention{
	{"volcano", func(p *v1.Pod, g string, min int) {
		p.Annotations[podmap.AnnotationVolcanoGroup] = g + "-podgroup"
		p.Annotations[podmap.AnnotationMinMembers] = fmt.Sprint(min)
	}},
	{"yunikorn", func(p *v1.Pod, g string, min int) {
		p.Labels[podmap.LabelApplicationID] = g
		p.Labels[podmap.LabelYuniKornQueue] = "root.default"
		// minResource is each member's, as YuniKorn sizes a placeholder.
		p.Annotations[podmap.AnnotationYuniKornTaskGroups] = fmt.Sprintf(`[{"name":"workers","minMember":%d,"minResource":{"cpu":"1","memory":"1Gi"}}]`, min)
		p.Annotations[podmap.AnnotationYuniKornTaskGroup] = "workers"
	}},
	{"podgroup", func(p *v1.Pod, g string, min int) {
		// The minimum is the PodGroup object's gang minCount (burst
		// creates it).
		name := g
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &name}
	}},
	{"spindle", func(p *v1.Pod, g string, min int) {
		p.Labels[podmap.LabelJob] = g
		p.Annotations[podmap.AnnotationMinMembers] = fmt.Sprint(min)
	}},
}

// Issue 38's deadlock test on a real control plane. Eight gangs of 4 pods
// of 1 CPU each, two per convention, are created in one burst, round robin
// (pod 0 of every gang, then pod 1, ...), on one 8-CPU node under -p fair.
// Like MPI or TensorFlow workers, a gang's pods finish only together: the
// test deletes a gang's pods once all 4 run, and never before. Without the
// minimum, fair spreads the 8 CPUs over the gangs, none gets 4, and nothing
// ever finishes (checked first, with the same pods minus the minimum);
// with it, gangs are admitted two at a time and all eight complete. The
// Kubernetes PodGroup convention needs the GenericWorkload gate (beta, off
// by default in 1.37), turned on here.
func TestLiveGangBurstCompletes(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Nodes: 1, NodeCPU: "8", NodeMemory: "64Gi", ControllerManager: true,
		ExtraArgs: map[string][]string{"kube-apiserver": {"--feature-gates=GenericWorkload=true", "--runtime-config=scheduling.k8s.io/v1beta1=true"}}})
	bin := buildSpindle(t)
	ctx := context.Background()
	cs := c.Client
	if _, err := c.Run("spindle", bin, "kube", "schedule", "--kubeconfig", c.Kubeconfig, "-p", "fair", "-a", "none", "--http-address", "off"); err != nil {
		t.Fatal(err)
	}
	const gangs, size = 8, 4
	burst := func(ns string, gang bool) {
		t.Helper()
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		zero := int64(0)
		for g := range gangs {
			if gangConventions[g%len(gangConventions)].name != "podgroup" {
				continue
			}
			pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("g%d", g)}}
			if gang {
				pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: size}
			} else {
				pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
			}
			if _, err := cs.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create PodGroup: %v", err)
			}
		}
		for i := range size {
			for g := range gangs {
				conv := gangConventions[g%len(gangConventions)]
				p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("g%d-%s-%d", g, conv.name, i), Labels: map[string]string{}, Annotations: map[string]string{}},
					Spec: v1.PodSpec{SchedulerName: "spindle", RestartPolicy: v1.RestartPolicyNever, TerminationGracePeriodSeconds: &zero,
						Containers: []v1.Container{{Name: "c", Image: "registry.invalid/fake:1", Resources: v1.ResourceRequirements{
							Requests: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("1"), v1.ResourceMemory: apiresource.MustParse("1Gi")}}}}}}
				conv.shape(p, fmt.Sprintf("g%d", g), size)
				if !gang {
					delete(p.Annotations, podmap.AnnotationMinMembers)
					delete(p.Annotations, podmap.AnnotationYuniKornTaskGroups)
				}
				out, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if conv.name == "podgroup" && (out.Spec.SchedulingGroup == nil || out.Spec.SchedulingGroup.PodGroupName == nil) {
					t.Fatalf("pod %s: the apiserver dropped spec.schedulingGroup (is GenericWorkload on?)", p.Name)
				}
			}
		}
	}

	// Without the minimum: partial gangs fill the node and none finishes.
	burst("nogang", false)
	liveWait(t, "8 pods bound without the minimum", func() (bool, error) {
		st, err := gangStates(cs, "nogang")
		return err == nil && st.bound == 8, err
	})
	time.Sleep(3 * time.Second)
	st, err := gangStates(cs, "nogang")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("without min members: %d pods bound, gangs with all %d running: %d", st.bound, size, len(st.complete))
	if len(st.complete) != 0 {
		t.Fatalf("without the minimum, %d gangs got all %d pods: the workload does not deadlock, so the test proves nothing", len(st.complete), size)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, "nogang", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	liveWait(t, "the partial gangs gone", func() (bool, error) {
		pods, err := cs.CoreV1().Pods("nogang").List(ctx, metav1.ListOptions{})
		return err == nil && len(pods.Items) == 0, err
	})

	// With it: every gang completes, each with its 4 pods running at once.
	burst("gangs", true)
	done := map[string]bool{}
	deadline := time.Now().Add(3 * time.Minute)
	for len(done) < gangs {
		if time.Now().After(deadline) {
			st, _ := gangStates(cs, "gangs")
			t.Fatalf("only %d of %d gangs completed in 3 minutes; now %d pods bound, per gang running %v\n%s",
				len(done), gangs, st.bound, st.running, localcluster.Tail(c.Dir+"/spindle.log", 40))
		}
		st, err := gangStates(cs, "gangs")
		if err != nil {
			t.Fatal(err)
		}
		// Bindings are in flight one by one, so a gang may be seen half
		// bound for a moment; but never are more gangs started than fit
		// whole (8 CPUs, gangs of 4): partial gangs side by side are
		// what deadlocks.
		started := 0
		for g, bound := range st.boundBy {
			if bound > 0 && !done[g] {
				started++
			}
		}
		if started > 2 {
			t.Fatalf("%d gangs have pods bound at once on 8 CPUs (gangs of 4): partial gangs; bound per gang %v", started, st.boundBy)
		}
		for _, g := range st.complete {
			done[g] = true
			for i := range size {
				name := fmt.Sprintf("%s-%d", g, i)
				if err := cs.CoreV1().Pods("gangs").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
					t.Fatalf("delete %s: %v", name, err)
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	if log := localcluster.Tail(c.Dir+"/spindle.log", 200); strings.Contains(log, "level=ERROR") {
		t.Errorf("the scheduler logged errors:\n%s", log)
	}
}

// gangStateCount is a namespace's gangs as the test sees them: pods bound
// in all, bound and running per gang (by the name's prefix "g<k>-<conv>"),
// and the gangs whose pods all run.
type gangStateCount struct {
	bound            int
	boundBy, running map[string]int
	complete         []string
}

func gangStates(cs kubernetes.Interface, ns string) (gangStateCount, error) {
	st := gangStateCount{boundBy: map[string]int{}, running: map[string]int{}}
	pods, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return st, err
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		g := p.Name[:strings.LastIndexByte(p.Name, '-')]
		if p.Spec.NodeName != "" {
			st.bound++
			st.boundBy[g]++
		}
		if p.Status.Phase == v1.PodRunning {
			st.running[g]++
		}
	}
	for g, n := range st.running {
		if n == 4 { // every gang here has 4 pods
			st.complete = append(st.complete, g)
		}
	}
	return st, nil
}
