// Package podmap is how spindle reads Kubernetes pods and nodes: which job a
// pod belongs to and its role in it, what it requests and what a node
// offers, as the scheduling core counts them. The live scheduler (package
// kube), the recorder (kube/record) and the snapshot converter all map pods
// through it, so a recorded workload has the jobs the scheduler would have
// seen. docs/kube.md, "How pods become jobs", states the mapping.
package podmap

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// Labels and annotations the mapping reads. Nothing else on a pod is read
// beyond its spec (requests, placement constraints) and status.
const (
	LabelJob       = "spindle.io/job"
	LabelSparkApp  = "spark-app-selector"
	LabelRole      = "spindle.io/role"
	LabelSparkRole = "spark-role"
	LabelQueue     = "spindle.io/queue"

	// Gang conventions of other schedulers, read so that a manifest written
	// for them needs only schedulerName changed (docs/kube.md, "Gang and
	// queue conventions").
	//
	// AnnotationVolcanoGroup names the pod's Volcano PodGroup
	// (scheduling.volcano.sh) in the pod's namespace.
	AnnotationVolcanoGroup = "scheduling.k8s.io/group-name"
	// LabelYuniKornApp (label, else annotation) and LabelApplicationID
	// (label) name a YuniKorn application, in yunikorn-k8shim's order.
	LabelYuniKornApp   = "yunikorn.apache.org/app-id"
	LabelApplicationID = "applicationId"
	// LabelYuniKornQueue (label, else annotation) is the YuniKorn queue, a
	// dotted path from root ("root.sandbox").
	LabelYuniKornQueue = "yunikorn.apache.org/queue"
	// AnnotationYuniKornTaskGroups is YuniKorn's JSON list of task groups
	// (name, minMember, minResource) on the application's pods;
	// AnnotationYuniKornTaskGroup names the pod's own group; and
	// AnnotationYuniKornParams holds placeholderTimeoutInSeconds.
	AnnotationYuniKornTaskGroups = "yunikorn.apache.org/task-groups"
	AnnotationYuniKornTaskGroup  = "yunikorn.apache.org/task-group-name"
	AnnotationYuniKornParams     = "yunikorn.apache.org/schedulingPolicyParameters"

	// Set by other controllers on the pods they create.
	LabelJobSetName          = "jobset.sigs.k8s.io/jobset-name"
	LabelBatchJobName        = "batch.kubernetes.io/job-name"
	LabelBatchControllerUID  = "batch.kubernetes.io/controller-uid"
	LabelLegacyJobName       = "job-name"
	LabelLegacyControllerUID = "controller-uid"

	// AnnotationMinMembers on a job's first pod makes the job a gang of
	// that many pods (all or nothing), as a PodGroup's minMember does.
	AnnotationMinMembers = "spindle.io/min-members"

	AnnotationEstimate = "spindle.io/estimate"
	AnnotationDeadline = "spindle.io/deadline"
	AnnotationDemand   = "spindle.io/demand"

	// Spark configuration keys, read as annotations on the driver pod
	// (spark.kubernetes.driver.annotation.<key>=<value> puts them there).
	AnnotationSparkInstances = "spark.executor.instances"
	AnnotationSparkCores     = "spark.executor.cores"
	AnnotationSparkMemory    = "spark.executor.memory"
	AnnotationSparkOverhead  = "spark.executor.memoryOverhead"

	// ResourceGPU is the extended resource counted in the GPU dimension.
	ResourceGPU v1.ResourceName = "nvidia.com/gpu"
)

const mib = 1 << 20

// Kind says what grouped a pod into its job.
type Kind uint8

// The kinds, in the order the mapping tries them.
const (
	KindLone     Kind = iota // a pod of its own: a one-task job
	KindPodGroup             // spec.schedulingGroup.podGroupName (Kubernetes' scheduling.k8s.io PodGroup)
	KindVolcano              // annotation scheduling.k8s.io/group-name (a Volcano PodGroup)
	KindYuniKorn             // yunikorn.apache.org/app-id or applicationId (a YuniKorn application)
	KindSpindle              // spindle.io/job
	KindSpark                // spark-app-selector (Spark on Kubernetes)
	KindJobSet               // jobset.sigs.k8s.io/jobset-name (a JobSet's Jobs)
	KindBatchJob             // a batch/v1 Job: its labels, else its ownerReference
)

func (k Kind) String() string {
	switch k {
	case KindPodGroup:
		return "Kubernetes PodGroup"
	case KindVolcano:
		return "Volcano PodGroup"
	case KindYuniKorn:
		return "YuniKorn application"
	case KindSpindle:
		return "spindle.io/job"
	case KindSpark:
		return "spark"
	case KindJobSet:
		return "jobset"
	case KindBatchJob:
		return "batch job"
	}
	return "lone pod"
}

// Identity is where a pod belongs: its job and its role in it.
type Identity struct {
	// Job names the job: "namespace/podgroup/<name>" for a Kubernetes
	// PodGroup, "namespace/volcano/<name>" for a Volcano PodGroup,
	// "namespace/yunikorn/<app id>" for a YuniKorn application,
	// "namespace/value" of spindle.io/job or spark-app-selector,
	// "namespace/jobset/<name>" for a JobSet, "namespace/job/<name>" for a
	// batch Job, "pod:namespace/name" for a lone pod.
	Job  string
	Kind Kind
	// Group is the name of the group object the pod's convention points
	// at, in the pod's namespace: the PodGroup of KindPodGroup or
	// KindVolcano (whose minimum and queue live there). Empty otherwise.
	Group string
	// UID is the owning object's UID when the pod names it (a batch Job's
	// controller-uid): it tells apart two Jobs of one name created one
	// after the other. Empty otherwise.
	UID  string
	AM   bool
	Lone bool
	// Queue is the queue the pod names (QueueFrom says where), else its
	// namespace (QueueFrom empty).
	Queue     string
	QueueFrom string
	// Conflict, when not empty, says how the pod names two different
	// groups in two gang conventions (or in YuniKorn's label and
	// annotation): which one the user meant is unknowable, so the
	// scheduler holds the pod with these words rather than guess. Job is
	// still the first convention's, so that the pod is reported under it.
	Conflict string
}

// Identify maps a pod to its job. Pods of one namespace form one job when
// they share, in this order: a Kubernetes PodGroup
// (spec.schedulingGroup.podGroupName); a Volcano PodGroup (annotation
// scheduling.k8s.io/group-name); a YuniKorn application
// (yunikorn.apache.org/app-id label, else annotation, else the
// applicationId label); spindle.io/job; Spark's spark-app-selector; a
// JobSet's jobset.sigs.k8s.io/jobset-name; a batch/v1 Job's
// batch.kubernetes.io/job-name (or the older job-name, or an
// ownerReference to a batch/v1 Job). The job's AM is its pod labelled
// spark-role=driver or spindle.io/role=am; the other pods are its tasks.
// Any other pod is a one-task job. The queue is the pod's spindle.io/queue
// label, else YuniKorn's yunikorn.apache.org/queue (label, else
// annotation), else its namespace; a Volcano PodGroup's queue is in the
// PodGroup object, which the caller reads.
func Identify(p *v1.Pod) Identity {
	id := Identity{}
	l, a := p.Labels, p.Annotations
	switch {
	case l[LabelQueue] != "":
		id.Queue, id.QueueFrom = l[LabelQueue], "label "+LabelQueue
	case l[LabelYuniKornQueue] != "":
		id.Queue, id.QueueFrom = l[LabelYuniKornQueue], "label "+LabelYuniKornQueue
	case a[LabelYuniKornQueue] != "":
		id.Queue, id.QueueFrom = a[LabelYuniKornQueue], "annotation "+LabelYuniKornQueue
	default:
		id.Queue = p.Namespace
	}
	gangs := gangNames(p)
	for _, g := range gangs[1:] {
		if g.value != gangs[0].value {
			id.Conflict = fmt.Sprintf("conflicting groups: %s names %q but %s names %q; remove one of them", gangs[0].from, gangs[0].value, g.from, g.value)
			break
		}
	}
	switch g := gangs[0]; {
	case g.kind == KindPodGroup || g.kind == KindVolcano:
		dir := "podgroup"
		if g.kind == KindVolcano {
			dir = "volcano"
		}
		id.Job, id.Kind, id.Group = p.Namespace+"/"+dir+"/"+g.value, g.kind, g.value
	case g.kind == KindYuniKorn:
		id.Job, id.Kind = p.Namespace+"/yunikorn/"+g.value, KindYuniKorn
	case l[LabelJob] != "":
		id.Job, id.Kind = p.Namespace+"/"+l[LabelJob], KindSpindle
	case l[LabelSparkApp] != "":
		id.Job, id.Kind = p.Namespace+"/"+l[LabelSparkApp], KindSpark
	case l[LabelJobSetName] != "":
		id.Job, id.Kind = p.Namespace+"/jobset/"+l[LabelJobSetName], KindJobSet
	default:
		name, uid := batchJob(p)
		if name == "" {
			id.Job, id.Kind, id.Lone = "pod:"+p.Namespace+"/"+p.Name, KindLone, true
			return id
		}
		id.Job, id.Kind, id.UID = p.Namespace+"/job/"+name, KindBatchJob, uid
	}
	id.AM = l[LabelSparkRole] == "driver" || l[LabelRole] == "am"
	return id
}

// gangName is one group a pod names in one convention.
type gangName struct {
	kind  Kind
	from  string // the field, label or annotation, for messages
	value string
}

// gangNames lists the groups p names in the gang conventions, in
// Identify's order; a zero gangName (kind KindLone) when it names none, so
// that [0] is always there.
func gangNames(p *v1.Pod) []gangName {
	var out []gangName
	if g := p.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil && *g.PodGroupName != "" {
		out = append(out, gangName{KindPodGroup, "spec.schedulingGroup.podGroupName", *g.PodGroupName})
	}
	if v := p.Annotations[AnnotationVolcanoGroup]; v != "" {
		out = append(out, gangName{KindVolcano, "annotation " + AnnotationVolcanoGroup, v})
	}
	// YuniKorn's own order: its label, its annotation, applicationId.
	// Each one present must agree with the first.
	if v := p.Labels[LabelYuniKornApp]; v != "" {
		out = append(out, gangName{KindYuniKorn, "label " + LabelYuniKornApp, v})
	}
	if v := p.Annotations[LabelYuniKornApp]; v != "" {
		out = append(out, gangName{KindYuniKorn, "annotation " + LabelYuniKornApp, v})
	}
	if v := p.Labels[LabelApplicationID]; v != "" {
		out = append(out, gangName{KindYuniKorn, "label " + LabelApplicationID, v})
	}
	if len(out) == 0 {
		return []gangName{{}}
	}
	return out
}

// maxMinMembers bounds a gang's minimum: more pods than any cluster runs
// at once is a typo, not a gang.
const maxMinMembers = 1 << 20

// MinMembers returns the gang minimum p declares, and where: the
// spindle.io/min-members annotation, else the sum of the minMember of
// YuniKorn's task groups (annotation yunikorn.apache.org/task-groups,
// YuniKorn reserves every group's minimum before the application runs);
// 0 when p declares none. Errors name the annotation. A PodGroup
// object's minimum (Volcano's minMember, Kubernetes' gang minCount) is the
// caller's to read (VolcanoGroup).
func MinMembers(p *v1.Pod) (int, string, error) {
	g, err := PodGang(p)
	return g.MinMembers, g.From, err
}

// Gang is what a pod declares of its job's gang.
type Gang struct {
	// MinMembers is the minimum (0: none) and From where it was read.
	MinMembers int
	From       string
	// MinResources is YuniKorn's task groups' minMember × minResource
	// summed: the room the minimum needs in all (zero when not given).
	MinResources resource.Vector
	// Timeout is YuniKorn's placeholderTimeoutInSeconds (annotation
	// yunikorn.apache.org/schedulingPolicyParameters); 0 when not given.
	Timeout clock.Duration
}

// PodGang reads the gang p declares: MinMembers as MinMembers says, and,
// from YuniKorn's annotations, the task groups' minimum resources and the
// placeholder timeout. Errors name the annotation and the field.
func PodGang(p *v1.Pod) (Gang, error) {
	a := p.Annotations
	var g Gang
	if s, ok := a[AnnotationYuniKornParams]; ok {
		t, err := placeholderTimeout(s)
		if err != nil {
			return Gang{}, err
		}
		g.Timeout = t
	}
	if s, ok := a[AnnotationMinMembers]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > maxMinMembers {
			return Gang{}, fmt.Errorf("annotation %s: %q is not a count in [1, %d]", AnnotationMinMembers, s, maxMinMembers)
		}
		g.MinMembers, g.From = n, "annotation "+AnnotationMinMembers
	}
	s, ok := a[AnnotationYuniKornTaskGroups]
	if !ok {
		return g, nil
	}
	var groups []struct {
		Name        string            `json:"name"`
		MinMember   int64             `json:"minMember"`
		MinResource map[string]string `json:"minResource"`
	}
	if err := json.Unmarshal([]byte(s), &groups); err != nil {
		return Gang{}, fmt.Errorf("annotation %s: not a JSON list of task groups: %v", AnnotationYuniKornTaskGroups, err)
	}
	total := int64(0)
	var room resource.Vector
	for i, tg := range groups {
		if tg.MinMember <= 0 || tg.MinMember > maxMinMembers {
			return Gang{}, fmt.Errorf("annotation %s: task group %d (%q): minMember %d must be in [1, %d]", AnnotationYuniKornTaskGroups, i, tg.Name, tg.MinMember, maxMinMembers)
		}
		total += tg.MinMember
		rl := v1.ResourceList{}
		for name, q := range tg.MinResource {
			v, err := apiresource.ParseQuantity(q)
			if err != nil {
				return Gang{}, fmt.Errorf("annotation %s: task group %d (%q): minResource %s: %q is not a quantity", AnnotationYuniKornTaskGroups, i, tg.Name, name, q)
			}
			rl[v1.ResourceName(name)] = v
		}
		one, err := CheckedList(rl)
		if err != nil {
			return Gang{}, fmt.Errorf("annotation %s: task group %d (%q): minResource: %v", AnnotationYuniKornTaskGroups, i, tg.Name, err)
		}
		room = room.Add(one.Mul(tg.MinMember))
	}
	if total > maxMinMembers {
		return Gang{}, fmt.Errorf("annotation %s: minMember sums to %d, more than %d", AnnotationYuniKornTaskGroups, total, maxMinMembers)
	}
	if g.MinMembers == 0 {
		g.MinMembers, g.From = int(total), "annotation "+AnnotationYuniKornTaskGroups
	}
	g.MinResources = room
	return g, nil
}

// maxGangTimeout bounds a gang timeout: a day is longer than any gang
// should hold room for members that do not come.
const maxGangTimeout = 24 * 3600

// placeholderTimeout reads placeholderTimeoutInSeconds from YuniKorn's
// schedulingPolicyParameters ("placeholderTimeoutInSeconds=30
// gangSchedulingStyle=Hard"): space-separated key=value pairs.
func placeholderTimeout(s string) (clock.Duration, error) {
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		if k != "placeholderTimeoutInSeconds" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > maxGangTimeout {
			return 0, fmt.Errorf("annotation %s: placeholderTimeoutInSeconds %q is not a count of seconds in [1, %d]", AnnotationYuniKornParams, v, maxGangTimeout)
		}
		return clock.Duration(n) * clock.Second, nil
	}
	return 0, nil
}

// AwaitsDriver reports whether p is a Spark executor, which exists only
// because its driver created it: a driver of its job is on its way when
// the executor is seen first.
func AwaitsDriver(p *v1.Pod) bool {
	id := Identify(p)
	return p.Labels[LabelSparkRole] == "executor" && !id.Lone && !id.AM
}

// batchJob returns the name and UID of the batch/v1 Job that owns p, from
// the labels the Job controller puts on its pods (the current ones, else
// the older unprefixed ones) or else from p's controller ownerReference;
// "" when no Job owns p.
func batchJob(p *v1.Pod) (name, uid string) {
	l := p.Labels
	if name = l[LabelBatchJobName]; name == "" {
		name = l[LabelLegacyJobName]
	}
	if uid = l[LabelBatchControllerUID]; uid == "" {
		uid = l[LabelLegacyControllerUID]
	}
	if name != "" {
		return name, uid
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "Job" && (o.APIVersion == "batch/v1" || strings.HasPrefix(o.APIVersion, "batch/")) && o.Controller != nil && *o.Controller {
			return o.Name, string(o.UID)
		}
	}
	return "", ""
}

// Priority is the pod's spec.priority, which the priority admission
// plugin resolves from its PriorityClass (0 when it names none and no
// global default exists). A job takes its first pod's, its driver's when it
// has one: Spark gives driver and executors the same class. It orders the
// job within its leaf queue (sched.JobSpec.Priority).
func Priority(p *v1.Pod) int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// PodRequest is what the pod asks for, as the core counts it: CPU in
// milli-vcores (exact: Kubernetes quantities have milli resolution), memory
// and ephemeral storage in MiB rounded up, GPUs whole. Init containers,
// sidecars, pod-level resources and overhead count as kube-scheduler counts
// them (component-helpers' PodRequests). A pod that requests nothing is
// counted as 1m of CPU so that it still takes a place in the core's books.
func PodRequest(p *v1.Pod) resource.Vector {
	return requestVector(resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}))
}

// Held is what a pod holds of its node when the scheduler does not own it
// (a daemonset's, another scheduler's): its requests as PodRequest counts
// them, but nothing, not 1m of CPU, when it requests nothing, and nothing
// when CheckedRequest refuses them (no node can hold such a pod, and a
// count that wrapped around would make the node look emptier than it is).
func Held(p *v1.Pod) resource.Vector {
	if NoRequests(p) {
		return resource.Vector{}
	}
	v, err := CheckedRequest(p)
	if err != nil {
		return resource.Vector{}
	}
	return v
}

// NoRequests reports whether the pod requests nothing at all: no
// container, init container, pod-level resources or overhead names a
// request. PodRequest counts such a pod as 1m of CPU.
func NoRequests(p *v1.Pod) bool {
	for _, c := range p.Spec.Containers {
		if len(c.Resources.Requests) > 0 {
			return false
		}
	}
	for _, c := range p.Spec.InitContainers {
		if len(c.Resources.Requests) > 0 {
			return false
		}
	}
	return len(p.Spec.Overhead) == 0 && (p.Spec.Resources == nil || len(p.Spec.Resources.Requests) == 0)
}

func requestVector(rl v1.ResourceList) resource.Vector {
	v := listVector(rl)
	if v.IsZero() {
		v[resource.VCores] = 1
	}
	return v
}

// listVector counts rl in the core's units (requests rounded up).
func listVector(rl v1.ResourceList) resource.Vector {
	var v resource.Vector
	if q, ok := rl[v1.ResourceCPU]; ok {
		v[resource.VCores] = q.MilliValue()
	}
	if q, ok := rl[v1.ResourceMemory]; ok {
		v[resource.Memory] = mibUp(q)
	}
	if q, ok := rl[ResourceGPU]; ok {
		v[resource.GPU] = q.Value()
	}
	if q, ok := rl[v1.ResourceEphemeralStorage]; ok {
		v[resource.Disk] = mibUp(q)
	}
	return v
}

// NodeCapacity is the node's allocatable as the core counts it: memory and
// ephemeral storage in MiB rounded down, so that rounding requests up and
// capacity down never lets the core place more than the node has.
func NodeCapacity(n *v1.Node) resource.Vector {
	var v resource.Vector
	al := n.Status.Allocatable
	if q, ok := al[v1.ResourceCPU]; ok {
		v[resource.VCores] = max(capQuantity(v1.ResourceCPU, q).MilliValue(), 0)
	}
	if q, ok := al[v1.ResourceMemory]; ok {
		v[resource.Memory] = max(mibDown(*capQuantity(v1.ResourceMemory, q)), 0)
	}
	if q, ok := al[ResourceGPU]; ok {
		v[resource.GPU] = max(capQuantity(ResourceGPU, q).Value(), 0)
	}
	if q, ok := al[v1.ResourceEphemeralStorage]; ok {
		v[resource.Disk] = max(mibDown(*capQuantity(v1.ResourceEphemeralStorage, q)), 0)
	}
	return v
}

func mibUp(q apiresource.Quantity) int64 {
	b := q.Value() // bytes, rounded up to a whole byte
	return (b + mib - 1) / mib
}

func mibDown(q apiresource.Quantity) int64 { return q.Value() / mib }

// Hints are what the AM declares about its job.
type Hints struct {
	Estimate clock.Duration
	Deadline clock.Duration
	Demand   resource.Vector // the tasks' declared peak, without the AM
}

// ReadHints reads spindle.io/estimate, spindle.io/deadline and
// spindle.io/demand from the AM pod, or Spark's executor settings when
// spindle.io/demand is absent. Errors name the annotation.
func ReadHints(p *v1.Pod) (Hints, error) {
	var h Hints
	a := p.Annotations
	var err error
	if s, ok := a[AnnotationEstimate]; ok {
		if h.Estimate, err = positiveDuration(AnnotationEstimate, s); err != nil {
			return h, err
		}
	}
	if s, ok := a[AnnotationDeadline]; ok {
		if h.Deadline, err = positiveDuration(AnnotationDeadline, s); err != nil {
			return h, err
		}
	}
	if s, ok := a[AnnotationDemand]; ok {
		if h.Demand, err = parseDemand(s); err != nil {
			return h, fmt.Errorf("annotation %s: %w", AnnotationDemand, err)
		}
		return h, nil
	}
	if h.Demand, err = sparkDemand(a); err != nil {
		return h, err
	}
	return h, nil
}

func positiveDuration(name, s string) (clock.Duration, error) {
	d, err := clock.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("annotation %s: %w", name, err)
	}
	if d <= 0 {
		return 0, fmt.Errorf("annotation %s: %q must be positive", name, s)
	}
	return d, nil
}

// parseDemand reads "cpu=8,memory=16Gi[,nvidia.com/gpu=2][,ephemeral-storage=10Gi]"
// with an optional "N*" prefix on the whole list meaning N times it
// ("4*cpu=1,memory=2Gi": four executors of 1 CPU and 2 GiB each).
func parseDemand(s string) (resource.Vector, error) {
	s = strings.TrimSpace(s)
	times := int64(1)
	if n, rest, ok := strings.Cut(s, "*"); ok {
		k, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
		if err != nil || k <= 0 || k > 1<<20 {
			return resource.Vector{}, fmt.Errorf("%q: count before '*' must be a positive integer", s)
		}
		times, s = k, rest
	}
	rl := v1.ResourceList{}
	for _, part := range strings.Split(s, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || k == "" {
			return resource.Vector{}, fmt.Errorf("%q: want name=quantity, e.g. cpu=8,memory=16Gi", part)
		}
		switch name := v1.ResourceName(strings.TrimSpace(k)); name {
		case v1.ResourceCPU, v1.ResourceMemory, ResourceGPU, v1.ResourceEphemeralStorage:
			q, err := apiresource.ParseQuantity(strings.TrimSpace(val))
			if err != nil || q.Sign() < 0 {
				return resource.Vector{}, fmt.Errorf("%s: %q is not a non-negative quantity", name, val)
			}
			if err := checkQuantities(v1.ResourceList{name: q}); err != nil {
				return resource.Vector{}, fmt.Errorf("%s: %q is too large", name, val)
			}
			rl[name] = q
		default:
			return resource.Vector{}, fmt.Errorf("unknown resource %q (known: cpu, memory, nvidia.com/gpu, ephemeral-storage)", k)
		}
	}
	return requestVector(rl).Mul(times), nil
}

// sparkDemand derives the executors' peak from Spark's settings when the
// driver carries spark.executor.instances: instances × (cores, memory +
// overhead), the overhead defaulting as Spark's does to max(10%, 384 MiB).
func sparkDemand(a map[string]string) (resource.Vector, error) {
	s, ok := a[AnnotationSparkInstances]
	if !ok {
		return resource.Vector{}, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 || n > 1<<20 {
		return resource.Vector{}, fmt.Errorf("annotation %s: %q is not a count", AnnotationSparkInstances, s)
	}
	cores := int64(1)
	if s, ok := a[AnnotationSparkCores]; ok {
		if cores, err = strconv.ParseInt(strings.TrimSpace(s), 10, 64); err != nil || cores <= 0 {
			return resource.Vector{}, fmt.Errorf("annotation %s: %q is not a positive integer", AnnotationSparkCores, s)
		}
	}
	memMiB := int64(1024)
	if s, ok := a[AnnotationSparkMemory]; ok {
		if memMiB, err = sparkMiB(s); err != nil {
			return resource.Vector{}, fmt.Errorf("annotation %s: %w", AnnotationSparkMemory, err)
		}
	}
	over := max(memMiB/10, 384)
	if s, ok := a[AnnotationSparkOverhead]; ok {
		if over, err = sparkMiB(s); err != nil {
			return resource.Vector{}, fmt.Errorf("annotation %s: %w", AnnotationSparkOverhead, err)
		}
	}
	one := resource.Vector{resource.VCores: cores * resource.MilliPerVCore, resource.Memory: memMiB + over}
	return one.Mul(n), nil
}

// sparkMiB reads a JVM-style size as Spark does ("4g", "512m", "2048" = MiB).
func sparkMiB(s string) (int64, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k") || strings.HasSuffix(s, "kb"):
		mult, s = 1.0/1024, strings.TrimSuffix(strings.TrimSuffix(s, "b"), "k")
	case strings.HasSuffix(s, "m") || strings.HasSuffix(s, "mb"):
		mult, s = 1, strings.TrimSuffix(strings.TrimSuffix(s, "b"), "m")
	case strings.HasSuffix(s, "g") || strings.HasSuffix(s, "gb"):
		mult, s = 1024, strings.TrimSuffix(strings.TrimSuffix(s, "b"), "g")
	case strings.HasSuffix(s, "t") || strings.HasSuffix(s, "tb"):
		mult, s = 1024*1024, strings.TrimSuffix(strings.TrimSuffix(s, "b"), "t")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a size such as 4g or 512m", s)
	}
	return int64(math.Ceil(f * mult)), nil
}

// Terminal reports whether the pod has ended.
func Terminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}
