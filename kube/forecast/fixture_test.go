package forecast

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/workload"
)

// now is every test snapshot's instant; times are seconds from it.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(s int) time.Time { return now.Add(time.Duration(s) * time.Second) }

const ours = "spindle"

func mkNode(name string, cpu int) *v1.Node {
	n := &v1.Node{}
	n.Name = name
	n.Status.Allocatable = v1.ResourceList{
		v1.ResourceCPU:    *apiresource.NewQuantity(int64(cpu), apiresource.DecimalSI),
		v1.ResourceMemory: apiresource.MustParse("64Gi"),
	}
	return n
}

// pb describes a test pod: its job (spindle.io/job), CPU, and life in
// seconds from now (created; started and ended when set).
type pb struct {
	job, name   string
	ns, queue   string
	cpu         int
	created     int
	node        string
	started     *int
	ended       *int
	scheduler   string
	estimate    string
	am          bool
	noJobLabel  bool
	failedPhase bool
	// batchUID, when set, makes the pod a batch Job's (named job, of that
	// controller UID) instead of a spindle.io/job one.
	batchUID string
	selector map[string]string
	tolerate string // a taint key the pod tolerates (Exists)
	gang     string // spindle.io/min-members
	replay   string // spindle.io/replay-duration, which no forecast may read
}

func ip(i int) *int { return &i }

func (b pb) pod() *v1.Pod {
	p := &v1.Pod{}
	p.Namespace = b.ns
	if p.Namespace == "" {
		p.Namespace = "team"
	}
	p.Name = b.name
	p.UID = types.UID("uid-" + p.Namespace + "-" + b.name)
	p.CreationTimestamp = metav1.NewTime(at(b.created))
	p.Labels = map[string]string{}
	switch {
	case b.batchUID != "":
		p.Labels["batch.kubernetes.io/job-name"] = b.job
		p.Labels["batch.kubernetes.io/controller-uid"] = b.batchUID
	case !b.noJobLabel:
		p.Labels["spindle.io/job"] = b.job
	}
	if b.queue != "" {
		p.Labels["spindle.io/queue"] = b.queue
	}
	if b.am {
		p.Labels["spindle.io/role"] = "am"
	}
	p.Annotations = map[string]string{}
	if b.estimate != "" {
		p.Annotations["spindle.io/estimate"] = b.estimate
	}
	if b.replay != "" {
		p.Annotations["spindle.io/replay-duration"] = b.replay
	}
	if b.gang != "" {
		p.Annotations["spindle.io/min-members"] = b.gang
	}
	p.Spec.SchedulerName = b.scheduler
	if p.Spec.SchedulerName == "" {
		p.Spec.SchedulerName = ours
	}
	p.Spec.RestartPolicy = v1.RestartPolicyNever
	p.Spec.NodeSelector = b.selector
	if b.tolerate != "" {
		p.Spec.Tolerations = []v1.Toleration{{Key: b.tolerate, Operator: v1.TolerationOpExists}}
	}
	p.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
		v1.ResourceCPU:    *apiresource.NewQuantity(int64(b.cpu), apiresource.DecimalSI),
		v1.ResourceMemory: apiresource.MustParse("1Gi"),
	}}}}
	p.Status.Phase = v1.PodPending
	if b.node != "" {
		p.Spec.NodeName = b.node
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(at(b.created))}}
	}
	if b.started != nil {
		st := metav1.NewTime(at(*b.started))
		p.Status.Phase = v1.PodRunning
		cs := v1.ContainerStatus{Name: "c", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: st}}}
		if b.ended != nil {
			p.Status.Phase = v1.PodSucceeded
			if b.failedPhase {
				p.Status.Phase = v1.PodFailed
			}
			cs.State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{StartedAt: st, FinishedAt: metav1.NewTime(at(*b.ended))}}
		}
		p.Status.ContainerStatuses = []v1.ContainerStatus{cs}
	}
	return p
}

// tasks makes n pods of one job alike, named job-0, job-1, ...
func tasks(n int, b pb) []pb {
	out := make([]pb, n)
	for i := range out {
		out[i] = b
		out[i].name = fmt.Sprintf("%s-%d", b.job, i)
	}
	return out
}

func pods(bs ...[]pb) []*v1.Pod {
	var out []*v1.Pod
	for _, l := range bs {
		for _, b := range l {
			out = append(out, b.pod())
		}
	}
	return out
}

func snapshot(nodes []*v1.Node, ps []*v1.Pod, h *History, queues ...workload.Queue) *Snapshot {
	return &Snapshot{Now: now, Nodes: nodes, Pods: ps, SchedulerName: ours, Queues: queues, History: h}
}

func factory(t testing.TB, spec string) sched.PolicyFactory {
	t.Helper()
	f, _, err := policy.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func admissionFactory(t testing.TB, spec string) sched.AdmissionFactory {
	t.Helper()
	f, err := admission.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func forecastOf(t testing.TB, s *Snapshot, spec string) *Result {
	t.Helper()
	r, err := Run(s, Options{PolicyName: spec, Policy: factory(t, spec)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func byKey(r *Result) map[string]Job {
	out := map[string]Job{}
	for _, j := range r.Jobs {
		out[j.Key] = j
	}
	return out
}
