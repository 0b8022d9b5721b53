package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

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

// podIdentity is where a pod belongs: its job and its role in it.
type podIdentity struct {
	Job   string // namespace/label value, or "pod:namespace/name" for a lone pod
	AM    bool
	Lone  bool
	Queue string
}

// identify maps a pod to its job: pods sharing spindle.io/job (else Spark's
// spark-app-selector) in one namespace form a job, its AM the pod labelled
// spark-role=driver or spindle.io/role=am; any other pod is a one-task job.
func identify(p *v1.Pod) podIdentity {
	id := podIdentity{Queue: p.Labels[LabelQueue]}
	if id.Queue == "" {
		id.Queue = p.Namespace
	}
	switch {
	case p.Labels[LabelJob] != "":
		id.Job = p.Namespace + "/" + p.Labels[LabelJob]
	case p.Labels[LabelSparkApp] != "":
		id.Job = p.Namespace + "/" + p.Labels[LabelSparkApp]
	default:
		id.Job = "pod:" + p.Namespace + "/" + p.Name
		id.Lone = true
		return id
	}
	id.AM = p.Labels[LabelSparkRole] == "driver" || p.Labels[LabelRole] == "am"
	return id
}

// podPriority is the pod's spec.priority, which the priority admission
// plugin resolves from its PriorityClass (0 when it names none and no
// global default exists). A job takes its first pod's, its driver's when it
// has one: Spark gives driver and executors the same class. It orders the
// job within its leaf queue (sched.JobSpec.Priority).
func podPriority(p *v1.Pod) int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// podRequest is what the pod asks for, as the core counts it: CPU in
// milli-vcores (exact: Kubernetes quantities have milli resolution), memory
// and ephemeral storage in MiB rounded up, GPUs whole. Init containers,
// sidecars, pod-level resources and overhead count as kube-scheduler counts
// them (component-helpers' PodRequests). A pod that requests nothing is
// counted as 1m of CPU so that it still takes a place in the core's books.
func podRequest(p *v1.Pod) resource.Vector {
	return requestVector(resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}))
}

func requestVector(rl v1.ResourceList) resource.Vector {
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
	if v.IsZero() {
		v[resource.VCores] = 1
	}
	return v
}

// nodeCapacity is the node's allocatable as the core counts it: memory and
// ephemeral storage in MiB rounded down, so that rounding requests up and
// capacity down never lets the core place more than the node has.
func nodeCapacity(n *v1.Node) resource.Vector {
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

// nodeSchedulable reports whether new pods may go to n: not cordoned and
// Ready.
func nodeSchedulable(n *v1.Node) bool {
	if n.Spec.Unschedulable {
		return false
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// placement is a pod's node-side constraints, evaluated with
// component-helpers exactly as kube-scheduler's NodeAffinity and
// TaintToleration filters evaluate them.
type placement struct {
	affinity    nodeaffinity.RequiredNodeAffinity
	tolerations []v1.Toleration
	class       string
}

func newPlacement(p *v1.Pod) *placement {
	pl := &placement{affinity: nodeaffinity.GetRequiredNodeAffinity(p), tolerations: p.Spec.Tolerations}
	pl.class = placementClass(p)
	return pl
}

// fits reports whether the pod may go to n by its nodeSelector, required
// node affinity and its tolerations of n's NoSchedule and NoExecute taints.
// A malformed affinity matches nothing.
func (pl *placement) fits(n *v1.Node) bool {
	ok, err := pl.affinity.Match(n)
	if err != nil || !ok {
		return false
	}
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(n.Spec.Taints, pl.tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	})
	return !untolerated
}

// placementClass names a pod's placement constraints so that pods with the
// same ones (and the same request) share an ask: empty when the pod has
// none, else a digest of their canonical JSON.
func placementClass(p *v1.Pod) string {
	var req *v1.NodeSelector
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		req = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if len(p.Spec.NodeSelector) == 0 && req == nil && len(p.Spec.Tolerations) == 0 {
		return ""
	}
	b, err := json.Marshal(struct {
		S map[string]string `json:"s,omitempty"`
		A *v1.NodeSelector  `json:"a,omitempty"`
		T []v1.Toleration   `json:"t,omitempty"`
	}{p.Spec.NodeSelector, req, p.Spec.Tolerations})
	if err != nil { // cannot happen for these types; keep such pods apart
		return "pod:" + p.Namespace + "/" + p.Name
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// jobHints are what the AM declares about its job.
type jobHints struct {
	Estimate clock.Duration
	Deadline clock.Duration
	Demand   resource.Vector // the tasks' declared peak, without the AM
}

// readHints reads spindle.io/estimate, spindle.io/deadline and
// spindle.io/demand from the AM pod, or Spark's executor settings when
// spindle.io/demand is absent. Errors name the annotation.
func readHints(p *v1.Pod) (jobHints, error) {
	var h jobHints
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

// terminal reports whether the pod has ended.
func terminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}
