package record

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/resource"
)

// instantPod makes a pod requesting cpu (whole CPUs) created at created
// seconds; bound to node when set; started and ended at those seconds when
// positive.
func instantPod(name string, cpu int64, created float64, node string, started, ended float64, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name),
			CreationTimestamp: stamp(at(created)), Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: v1.PodSpec{SchedulerName: "spindle", NodeName: node, RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "c",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: *apiresource.NewQuantity(cpu, apiresource.DecimalSI),
				v1.ResourceMemory: apiresource.MustParse("1Gi")}}}}},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
	if started > 0 {
		st := stamp(at(started))
		p.Status.Phase = v1.PodRunning
		cs := v1.ContainerStatus{Name: "c", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: st}}}
		if ended > 0 {
			p.Status.Phase = v1.PodSucceeded
			cs.State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{StartedAt: st, FinishedAt: stamp(at(ended))}}
		}
		p.Status.ContainerStatuses = []v1.ContainerStatus{cs}
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func TestAtInstant(t *testing.T) {
	cpu := func(n int64) resource.Vector {
		return resource.Vector{resource.VCores: n * 1000, resource.Memory: 1024}
	}
	pods := []*v1.Pod{
		// A Job of two pods, one running, one pending, named by its
		// CronJob's serial: its history name drops the serial.
		instantPod("etl-1-b", 1, 20, "", 0, 0, batchJob("etl-28000001", "u1")),
		instantPod("etl-1-a", 2, 10, "n1", 11, 0, batchJob("etl-28000001", "u1")),
		// A Spark application: its driver is the AM.
		instantPod("pi-driver", 1, 5, "n2", 6, 0, sparkDriver("spark-1")),
		instantPod("pi-exec-1", 1, 7, "", 0, 0, sparkExec("spark-1", 1)),
		// Another, listed executor first: the estimate on its driver is
		// the job's.
		instantPod("pi2-exec-1", 1, 7, "", 0, 0, sparkExec("spark-2", 1)),
		instantPod("pi2-driver", 1, 5, "", 0, 0, sparkDriver("spark-2"), func(p *v1.Pod) { p.Annotations["spindle.io/estimate"] = "90s" }),
		// A finished lone pod with an estimate.
		instantPod("lone", 1, 1, "n1", 2, 30, func(p *v1.Pod) { p.Annotations["spindle.io/estimate"] = "40s" }),
		// Load from outside: another scheduler's, a daemonset's (on n1),
		// a finished one (nothing), a pending one (nothing).
		instantPod("other", 3, 1, "n2", 2, 0, schedulerName("default-scheduler")),
		instantPod("agent", 1, 1, "n1", 2, 0, daemonset()),
		instantPod("gone", 5, 1, "n1", 2, 10, schedulerName("default-scheduler")),
		instantPod("later", 5, 1, "", 0, 0, schedulerName("default-scheduler")),
		// A running lone pod that restarts always: a service.
		instantPod("svc", 2, 1, "n2", 2, 0, func(p *v1.Pod) { p.Spec.RestartPolicy = v1.RestartPolicyAlways }),
	}
	inst, err := AtInstant(pods, Options{Schedulers: []string{"spindle"}})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		key, name string
		pods      []string
		running   int
		pending   int
		am        int
	}
	wants := []want{
		{key: "ns/job/etl-28000001", name: "etl", pods: []string{"ns/etl-1-a", "ns/etl-1-b"}, running: 1, pending: 1},
		{key: "ns/spark-1", name: "pi", pods: []string{"ns/pi-driver", "ns/pi-exec-1"}, running: 1, pending: 1, am: 1},
		{key: "ns/spark-2", name: "pi", pods: []string{"ns/pi2-driver", "ns/pi2-exec-1"}, pending: 2, am: 1},
		{key: "pod:ns/lone", pods: []string{"ns/lone"}},
	}
	if len(inst.Jobs) != len(wants) {
		t.Fatalf("%d jobs, want %d: %+v", len(inst.Jobs), len(wants), inst.Jobs)
	}
	for i, w := range wants {
		j := inst.Jobs[i]
		if j.Key != w.key || j.Name != w.name {
			t.Errorf("job %d: key %q name %q, want %q %q", i, j.Key, j.Name, w.key, w.name)
		}
		var names []string
		running, pending, am := 0, 0, 0
		for _, p := range j.Pods {
			names = append(names, p.Name)
			running += btoi(p.Running())
			pending += btoi(p.Pending())
			am += btoi(p.AM)
		}
		if len(names) != len(w.pods) || running != w.running || pending != w.pending || am != w.am {
			t.Errorf("job %s: pods %v (running %d, pending %d, AM %d), want %v (%d, %d, %d)", j.Key, names, running, pending, am, w.pods, w.running, w.pending, w.am)
			continue
		}
		for k := range names {
			if names[k] != w.pods[k] {
				t.Errorf("job %s: pods %v, want %v (creation order)", j.Key, names, w.pods)
			}
		}
	}
	etl := inst.Jobs[0].Pods[0]
	if etl.Request != cpu(2) || !etl.Started.Equal(at(11)) || etl.Node != "n1" {
		t.Errorf("etl's running pod: %+v", etl)
	}
	if e := inst.Jobs[2].Hints.Estimate; e != 90_000_000 {
		t.Errorf("spark-2's estimate %v, want its driver's 90 s", e)
	}
	lone := inst.Jobs[3]
	if lone.Hints.Estimate != 40_000_000 || !lone.Pods[0].Ended.Equal(at(30)) || lone.Pods[0].EndUnknown {
		t.Errorf("lone pod: hints %+v, pod %+v", lone.Hints, lone.Pods[0])
	}
	wantOut := map[string]resource.Vector{"n1": cpu(1), "n2": cpu(3).Add(cpu(2))}
	if len(inst.Outside) != len(wantOut) {
		t.Errorf("outside load %v, want %v", inst.Outside, wantOut)
	}
	for n, v := range wantOut {
		if inst.Outside[n] != v {
			t.Errorf("outside load on %s: %v, want %v", n, inst.Outside[n], v)
		}
	}
}

func TestAtInstantBadInput(t *testing.T) {
	refused := instantPod("neg", 1, 1, "", 0, 0)
	refused.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = apiresource.MustParse("-1")
	noTime := instantPod("notime", 1, 1, "", 0, 0)
	noTime.CreationTimestamp = metav1.Time{}
	inst, err := AtInstant([]*v1.Pod{refused, noTime, nil}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(inst.Jobs) != 0 || inst.Refused != 1 || inst.Unnamed != 2 {
		t.Errorf("jobs %d refused %d unnamed %d, want 0, 1, 2", len(inst.Jobs), inst.Refused, inst.Unnamed)
	}
	if _, err := AtInstant(nil, Options{Running: "sometimes"}); err == nil {
		t.Error("a bad option is accepted")
	}
}
