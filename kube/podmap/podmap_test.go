package podmap

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

func TestIdentify(t *testing.T) {
	yes := true
	jobOwner := []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "etl", UID: "u-1", Controller: &yes}}
	rsOwner := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5f", UID: "u-2", Controller: &yes}}
	notController := []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "etl", UID: "u-1"}}
	cases := []struct {
		name   string
		ns     string
		labels map[string]string
		owners []metav1.OwnerReference
		want   Identity
	}{
		{"lone pod, queue from namespace", "team-a", nil, nil, Identity{Job: "pod:team-a/p", Kind: KindLone, Lone: true, Queue: "team-a"}},
		{"spindle job task", "ns", map[string]string{LabelJob: "j1"}, nil, Identity{Job: "ns/j1", Kind: KindSpindle, Queue: "ns"}},
		{"spindle job AM with queue", "ns", map[string]string{LabelJob: "j1", LabelRole: "am", LabelQueue: "gold"}, nil, Identity{Job: "ns/j1", Kind: KindSpindle, AM: true, Queue: "gold", QueueFrom: "label spindle.io/queue"}},
		{"spark driver", "ns", map[string]string{LabelSparkApp: "spark-123", LabelSparkRole: "driver"}, nil, Identity{Job: "ns/spark-123", Kind: KindSpark, AM: true, Queue: "ns"}},
		{"spark executor", "ns", map[string]string{LabelSparkApp: "spark-123", LabelSparkRole: "executor"}, nil, Identity{Job: "ns/spark-123", Kind: KindSpark, Queue: "ns"}},
		{"spindle.io/job wins over spark", "ns", map[string]string{LabelJob: "mine", LabelSparkApp: "spark-123"}, nil, Identity{Job: "ns/mine", Kind: KindSpindle, Queue: "ns"}},
		{"role without a job is a lone pod", "ns", map[string]string{LabelSparkRole: "driver"}, nil, Identity{Job: "pod:ns/p", Kind: KindLone, Lone: true, Queue: "ns"}},
		{"batch Job by its labels", "ns", map[string]string{LabelBatchJobName: "etl", LabelBatchControllerUID: "u-1", LabelLegacyJobName: "etl", LabelLegacyControllerUID: "u-1"}, nil,
			Identity{Job: "ns/job/etl", Kind: KindBatchJob, UID: "u-1", Queue: "ns"}},
		{"batch Job by the older labels only", "ns", map[string]string{LabelLegacyJobName: "etl", LabelLegacyControllerUID: "u-1"}, nil,
			Identity{Job: "ns/job/etl", Kind: KindBatchJob, UID: "u-1", Queue: "ns"}},
		{"batch Job by its ownerReference", "ns", nil, jobOwner, Identity{Job: "ns/job/etl", Kind: KindBatchJob, UID: "u-1", Queue: "ns"}},
		{"a Job that is not the controller owns nothing", "ns", nil, notController, Identity{Job: "pod:ns/p", Kind: KindLone, Lone: true, Queue: "ns"}},
		{"a ReplicaSet's pod stays a lone pod", "ns", nil, rsOwner, Identity{Job: "pod:ns/p", Kind: KindLone, Lone: true, Queue: "ns"}},
		{"batch Job pod with a queue label", "ns", map[string]string{LabelBatchJobName: "etl", LabelQueue: "gold"}, nil, Identity{Job: "ns/job/etl", Kind: KindBatchJob, Queue: "gold", QueueFrom: "label spindle.io/queue"}},
		{"JobSet wins over its Jobs", "ns", map[string]string{LabelJobSetName: "train", LabelBatchJobName: "train-workers-0", LabelBatchControllerUID: "u-3"}, nil,
			Identity{Job: "ns/jobset/train", Kind: KindJobSet, Queue: "ns"}},
		{"JobSet leader as AM", "ns", map[string]string{LabelJobSetName: "train", LabelRole: "am"}, nil, Identity{Job: "ns/jobset/train", Kind: KindJobSet, AM: true, Queue: "ns"}},
		{"spark wins over a Job label", "ns", map[string]string{LabelSparkApp: "spark-9", LabelBatchJobName: "submitter"}, nil, Identity{Job: "ns/spark-9", Kind: KindSpark, Queue: "ns"}},
	}
	for _, c := range cases {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: c.ns, Labels: c.labels, OwnerReferences: c.owners}}
		if got := Identify(p); got != c.want {
			t.Errorf("%s: Identify = %+v, want %+v", c.name, got, c.want)
		}
	}
}

// Pods shaped as the gang schedulers' users write them: Spark with
// Volcano (spark.kubernetes.scheduler.volcano.podGroupTemplateFile puts
// the group annotation <appId>-podgroup on driver and executors), the
// Spark operator's spark-<app>-pg, YuniKorn's applicationId and
// app-id, Kubernetes' own schedulingGroup.
func TestIdentifyGangConventions(t *testing.T) {
	pg := func(name string) *v1.PodSchedulingGroup { return &v1.PodSchedulingGroup{PodGroupName: &name} }
	cases := []struct {
		name        string
		labels, ann map[string]string
		group       *v1.PodSchedulingGroup
		want        Identity
	}{
		{"Kubernetes PodGroup", nil, nil, pg("train"),
			Identity{Job: "ns/podgroup/train", Kind: KindPodGroup, Group: "train", Queue: "ns"}},
		{"empty podGroupName names nothing", nil, nil, pg(""),
			Identity{Job: "pod:ns/p", Kind: KindLone, Lone: true, Queue: "ns"}},
		{"Volcano group of a Spark driver", map[string]string{LabelSparkApp: "spark-1", LabelSparkRole: "driver"}, map[string]string{AnnotationVolcanoGroup: "spark-1-podgroup"}, nil,
			Identity{Job: "ns/volcano/spark-1-podgroup", Kind: KindVolcano, Group: "spark-1-podgroup", AM: true, Queue: "ns"}},
		{"Volcano group of a Spark executor", map[string]string{LabelSparkApp: "spark-1", LabelSparkRole: "executor"}, map[string]string{AnnotationVolcanoGroup: "spark-1-podgroup"}, nil,
			Identity{Job: "ns/volcano/spark-1-podgroup", Kind: KindVolcano, Group: "spark-1-podgroup", Queue: "ns"}},
		{"Volcano group wins over spindle.io/job", map[string]string{LabelJob: "mine"}, map[string]string{AnnotationVolcanoGroup: "g"}, nil,
			Identity{Job: "ns/volcano/g", Kind: KindVolcano, Group: "g", Queue: "ns"}},
		{"YuniKorn applicationId with its queue label", map[string]string{LabelApplicationID: "app-7", LabelYuniKornQueue: "root.sandbox"}, nil, nil,
			Identity{Job: "ns/yunikorn/app-7", Kind: KindYuniKorn, Queue: "root.sandbox", QueueFrom: "label yunikorn.apache.org/queue"}},
		{"YuniKorn app-id annotation, queue annotation", nil, map[string]string{LabelYuniKornApp: "app-8", LabelYuniKornQueue: "root.etl"}, nil,
			Identity{Job: "ns/yunikorn/app-8", Kind: KindYuniKorn, Queue: "root.etl", QueueFrom: "annotation yunikorn.apache.org/queue"}},
		{"YuniKorn label and annotation agreeing", map[string]string{LabelYuniKornApp: "a"}, map[string]string{LabelYuniKornApp: "a"}, nil,
			Identity{Job: "ns/yunikorn/a", Kind: KindYuniKorn, Queue: "ns"}},
		{"YuniKorn Spark driver (spark-app-selector too)", map[string]string{LabelSparkApp: "spark-2", LabelSparkRole: "driver", LabelApplicationID: "spark-2"}, nil, nil,
			Identity{Job: "ns/yunikorn/spark-2", Kind: KindYuniKorn, AM: true, Queue: "ns"}},
		{"spindle.io/queue wins over YuniKorn's", map[string]string{LabelApplicationID: "a", LabelQueue: "gold", LabelYuniKornQueue: "root.silver"}, nil, nil,
			Identity{Job: "ns/yunikorn/a", Kind: KindYuniKorn, Queue: "gold", QueueFrom: "label spindle.io/queue"}},
		{"YuniKorn queue on a lone pod", map[string]string{LabelYuniKornQueue: "root.adhoc"}, nil, nil,
			Identity{Job: "pod:ns/p", Kind: KindLone, Lone: true, Queue: "root.adhoc", QueueFrom: "label yunikorn.apache.org/queue"}},
		{"conflict: Volcano and YuniKorn name different groups", map[string]string{LabelApplicationID: "app-9"}, map[string]string{AnnotationVolcanoGroup: "pg-9"}, nil,
			Identity{Job: "ns/volcano/pg-9", Kind: KindVolcano, Group: "pg-9", Queue: "ns",
				Conflict: `conflicting groups: annotation scheduling.k8s.io/group-name names "pg-9" but label applicationId names "app-9"; remove one of them`}},
		{"conflict: Kubernetes and Volcano PodGroups differ", nil, map[string]string{AnnotationVolcanoGroup: "b"}, pg("a"),
			Identity{Job: "ns/podgroup/a", Kind: KindPodGroup, Group: "a", Queue: "ns",
				Conflict: `conflicting groups: spec.schedulingGroup.podGroupName names "a" but annotation scheduling.k8s.io/group-name names "b"; remove one of them`}},
		{"conflict: YuniKorn label and annotation differ", map[string]string{LabelYuniKornApp: "x"}, map[string]string{LabelYuniKornApp: "y"}, nil,
			Identity{Job: "ns/yunikorn/x", Kind: KindYuniKorn, Queue: "ns",
				Conflict: `conflicting groups: label yunikorn.apache.org/app-id names "x" but annotation yunikorn.apache.org/app-id names "y"; remove one of them`}},
		{"the same name in two conventions is no conflict", map[string]string{LabelApplicationID: "same"}, map[string]string{AnnotationVolcanoGroup: "same"}, nil,
			Identity{Job: "ns/volcano/same", Kind: KindVolcano, Group: "same", Queue: "ns"}},
	}
	for _, c := range cases {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: c.labels, Annotations: c.ann}}
		p.Spec.SchedulingGroup = c.group
		if got := Identify(p); got != c.want {
			t.Errorf("%s:\n got  %+v\n want %+v", c.name, got, c.want)
		}
	}
}

func rl(kv ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[v1.ResourceName(kv[i])] = apiresource.MustParse(kv[i+1])
	}
	return out
}

func podWith(containers ...v1.ResourceList) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	for _, r := range containers {
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: "c", Resources: v1.ResourceRequirements{Requests: r}})
	}
	return p
}

func TestPodRequest(t *testing.T) {
	withInit := podWith(rl("cpu", "250m", "memory", "100Mi"))
	withInit.Spec.InitContainers = []v1.Container{{Name: "i", Resources: v1.ResourceRequirements{Requests: rl("cpu", "2", "memory", "10Mi")}}}
	withOverhead := podWith(rl("cpu", "1"))
	withOverhead.Spec.Overhead = rl("cpu", "100m", "memory", "64Mi")
	cases := []struct {
		name string
		pod  *v1.Pod
		want resource.Vector
	}{
		{"fractional CPU exact", podWith(rl("cpu", "500m", "memory", "1Gi")), resource.Vector{500, 1024, 0, 0}},
		{"decimal memory rounds up", podWith(rl("cpu", "1", "memory", "1G")), resource.Vector{1000, 954, 0, 0}}, // 1e9 B = 953.67 MiB
		{"one byte over a MiB rounds up", podWith(rl("memory", "1048577")), resource.Vector{0, 2, 0, 0}},
		{"containers add up", podWith(rl("cpu", "100m"), rl("cpu", "150m", "memory", "1Mi")), resource.Vector{250, 1, 0, 0}},
		{"init container max", withInit, resource.Vector{2000, 100, 0, 0}},
		{"overhead counts", withOverhead, resource.Vector{1100, 64, 0, 0}},
		{"gpu and storage", podWith(rl("cpu", "1", "nvidia.com/gpu", "2", "ephemeral-storage", "1Gi")), resource.Vector{1000, 0, 2, 1024}},
		{"nothing requested is 1m", podWith(nil), resource.Vector{1, 0, 0, 0}},
	}
	for _, c := range cases {
		if got := PodRequest(c.pod); got != c.want {
			t.Errorf("%s: PodRequest = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestNodeCapacityRoundsDown(t *testing.T) {
	n := &v1.Node{Status: v1.NodeStatus{Allocatable: rl("cpu", "3500m", "memory", "1000000Ki", "nvidia.com/gpu", "1", "ephemeral-storage", "1G", "pods", "110")}}
	// 1000000 KiB = 976.5625 MiB; 1e9 B = 953.67 MiB.
	want := resource.Vector{3500, 976, 1, 953}
	if got := NodeCapacity(n); got != want {
		t.Fatalf("NodeCapacity = %v, want %v", got, want)
	}
	// The same quantity asked and offered: the request is never smaller
	// than what the node offers, so nothing is overcommitted.
	q := apiresource.MustParse("1000000Ki")
	if mibUp(q) < mibDown(q) || mibUp(q)-mibDown(q) != 1 {
		t.Fatalf("rounding: up %d, down %d", mibUp(q), mibDown(q))
	}
}

func TestReadHints(t *testing.T) {
	cases := []struct {
		name    string
		ann     map[string]string
		want    Hints
		wantErr string
	}{
		{"none", nil, Hints{}, ""},
		{"estimate and deadline", map[string]string{AnnotationEstimate: "2m", AnnotationDeadline: "600"}, Hints{Estimate: 2 * clock.Minute, Deadline: 600 * clock.Second}, ""},
		{"demand", map[string]string{AnnotationDemand: "cpu=8,memory=16Gi"}, Hints{Demand: resource.Vector{8000, 16384, 0, 0}}, ""},
		{"demand times", map[string]string{AnnotationDemand: "4*cpu=500m,memory=1G"}, Hints{Demand: resource.Vector{2000, 4 * 954, 0, 0}}, ""},
		{"spark executors", map[string]string{AnnotationSparkInstances: "10", AnnotationSparkCores: "2", AnnotationSparkMemory: "4g"},
			Hints{Demand: resource.Vector{20000, 10 * (4096 + 409), 0, 0}}, ""},
		{"spark small executors get 384m overhead", map[string]string{AnnotationSparkInstances: "2", AnnotationSparkMemory: "512m"},
			Hints{Demand: resource.Vector{2000, 2 * (512 + 384), 0, 0}}, ""},
		{"spark explicit overhead", map[string]string{AnnotationSparkInstances: "1", AnnotationSparkMemory: "1g", AnnotationSparkOverhead: "100m"},
			Hints{Demand: resource.Vector{1000, 1124, 0, 0}}, ""},
		{"demand annotation wins over spark", map[string]string{AnnotationDemand: "cpu=1", AnnotationSparkInstances: "10"}, Hints{Demand: resource.Vector{1000, 0, 0, 0}}, ""},
		{"bad estimate", map[string]string{AnnotationEstimate: "soon"}, Hints{}, AnnotationEstimate},
		{"negative deadline", map[string]string{AnnotationDeadline: "-5s"}, Hints{}, AnnotationDeadline},
		{"bad demand resource", map[string]string{AnnotationDemand: "cpus=1"}, Hints{}, `unknown resource "cpus"`},
		{"bad demand quantity", map[string]string{AnnotationDemand: "cpu=lots"}, Hints{}, AnnotationDemand},
		{"bad demand count", map[string]string{AnnotationDemand: "x*cpu=1"}, Hints{}, "count before"},
		{"bad spark instances", map[string]string{AnnotationSparkInstances: "many"}, Hints{}, AnnotationSparkInstances},
		{"bad spark memory", map[string]string{AnnotationSparkInstances: "1", AnnotationSparkMemory: "4x"}, Hints{}, AnnotationSparkMemory},
	}
	for _, c := range cases {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Annotations: c.ann}}
		got, err := ReadHints(p)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err = %v, want one mentioning %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: ReadHints = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

// The Spark example's declared demand reads as four 1-CPU executors.
func TestSparkExampleDemand(t *testing.T) {
	d, err := parseDemand("4*cpu=1,memory=2432Mi")
	if err != nil || d != (resource.Vector{4000, 4 * 2432, 0, 0}) {
		t.Fatalf("demand = %v, %v", d, err)
	}
	s, err := sparkDemand(map[string]string{AnnotationSparkInstances: "4", AnnotationSparkCores: "1", AnnotationSparkMemory: "2g"})
	if err != nil || s != d {
		t.Fatalf("spark demand = %v, %v; want %v", s, err, d)
	}
}

func TestNoRequests(t *testing.T) {
	withInit := podWith(nil)
	withInit.Spec.InitContainers = []v1.Container{{Name: "i", Resources: v1.ResourceRequirements{Requests: rl("cpu", "1")}}}
	withOverhead := podWith(nil)
	withOverhead.Spec.Overhead = rl("memory", "64Mi")
	withPodLevel := podWith(nil)
	withPodLevel.Spec.Resources = &v1.ResourceRequirements{Requests: rl("cpu", "1")}
	cases := []struct {
		name string
		pod  *v1.Pod
		want bool
	}{
		{"no containers' requests", podWith(nil, nil), true},
		{"a container requests", podWith(nil, rl("cpu", "10m")), false},
		{"an init container requests", withInit, false},
		{"overhead", withOverhead, false},
		{"pod-level resources", withPodLevel, false},
	}
	for _, c := range cases {
		if got := NoRequests(c.pod); got != c.want {
			t.Errorf("%s: NoRequests = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestHeld(t *testing.T) {
	if got := Held(podWith(nil)); got != (resource.Vector{}) {
		t.Errorf("a pod that requests nothing holds %v, want nothing", got)
	}
	if got := Held(podWith(rl("cpu", "1m"))); got != (resource.Vector{1, 0, 0, 0}) {
		t.Errorf("a pod that requests 1m holds %v, want 1m", got)
	}
	if got := Held(podWith(rl("cpu", "2", "memory", "1Gi"))); got != (resource.Vector{2000, 1024, 0, 0}) {
		t.Errorf("Held = %v, want 2 CPU and 1024 MiB", got)
	}
	// A request that overflows the core's counts (kube-scheduler v1.34
	// binds such pods) holds nothing rather than a wrapped-around amount.
	for _, r := range [][]string{{"cpu", "1e16"}, {"memory", "100E"}, {"memory", "8Ei"}} {
		if got := Held(podWith(rl(r...))); got != (resource.Vector{}) {
			t.Errorf("a pod requesting %s %s holds %v, want nothing", r[0], r[1], got)
		}
		if _, err := CheckedRequest(podWith(rl(r...))); err == nil {
			t.Errorf("CheckedRequest accepts %s %s", r[0], r[1])
		}
	}
}

// A job's priority is its first pod's spec.priority, resolved from its
// PriorityClass by the apiserver: it orders the job within its leaf.
func TestPriority(t *testing.T) {
	p := podWith(rl("cpu", "1"))
	if Priority(p) != 0 {
		t.Errorf("no priority: %d", Priority(p))
	}
	prio := int32(-5)
	p.Spec.Priority = &prio
	if Priority(p) != -5 {
		t.Errorf("priority %d, want -5", Priority(p))
	}
}

func TestAwaitsDriver(t *testing.T) {
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   bool
	}{
		{"spark executor", map[string]string{LabelSparkApp: "a", LabelSparkRole: "executor"}, true},
		{"spark driver", map[string]string{LabelSparkApp: "a", LabelSparkRole: "driver"}, false},
		{"executor grouped by spindle.io/job", map[string]string{LabelJob: "j", LabelSparkRole: "executor"}, true},
		{"executor labelled AM by spindle.io/role", map[string]string{LabelSparkApp: "a", LabelSparkRole: "executor", LabelRole: "am"}, false},
		{"executor role without an application: a lone pod", map[string]string{LabelSparkRole: "executor"}, false},
		{"spindle task (may have no AM)", map[string]string{LabelJob: "j", LabelRole: "task"}, false},
		{"batch Job pod", map[string]string{LabelBatchJobName: "etl"}, false},
	} {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: c.labels}}
		if got := AwaitsDriver(p); got != c.want {
			t.Errorf("%s: AwaitsDriver = %v, want %v", c.name, got, c.want)
		}
	}
}
