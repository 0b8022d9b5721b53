package replay

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spindle-sched/spindle/kube/kwok"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// Labels and annotations the replayer puts on what it creates. The
// scheduler reads the job, role and queue labels and the estimate, deadline
// and demand annotations (all declared by the submitter); it must never read
// DurationAnnotation, which only kwok reads to end a task pod.
const (
	RunLabel        = "spindle.io/replay" // on nodes and pods: the replay run that owns them
	JobLabel        = "spindle.io/job"
	RoleLabel       = "spindle.io/role"
	QueueLabel      = "spindle.io/queue"
	RoleAM          = "am"
	RoleTask        = "task"
	JobIDAnnotation = "spindle.io/job-id" // the workload's job id, which need not be a valid label value
	EstimateAnnot   = "spindle.io/estimate"
	DeadlineAnnot   = "spindle.io/deadline"
	DemandAnnot     = "spindle.io/demand"
	PhaseAnnotation = "spindle.io/phase"
	DurationAnnot   = "spindle.io/replay-duration"
	// fakeImage is never pulled: kwok only pretends to run containers.
	fakeImage = "registry.invalid/spindle/replay:fake"
)

// FormatDemand writes a declared demand as the value of DemandAnnot:
// "cpu=<milli>m,memory=<MiB>Mi", the quantities Kubernetes users write.
func FormatDemand(v resource.Vector) string {
	return fmt.Sprintf("cpu=%dm,memory=%dMi", v[resource.VCores], v[resource.Memory])
}

// formatDuration writes d with millisecond precision in Go's duration
// syntax, which kwok's durationFrom parses.
func formatDuration(d time.Duration) string {
	d = d.Round(time.Millisecond)
	if d <= 0 {
		return "0s"
	}
	return d.String()
}

// dnsLabel turns an id into a lowercase RFC 1123 label fragment of at most
// max characters ("" when nothing usable is left).
func dnsLabel(id string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(id) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')
		if !ok {
			if b.Len() > 0 && !dash {
				b.WriteByte('-')
				dash = true
			}
			continue
		}
		b.WriteRune(r)
		dash = false
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > max {
		s = strings.TrimRight(s[:max], "-")
	}
	return s
}

// podObject is a driver or task pod of a job.
func (r *Replayer) podObject(j *jobState, name, role string, req resource.Vector) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: r.opt.Namespace,
			Labels: map[string]string{
				RunLabel:   r.run,
				JobLabel:   j.label,
				RoleLabel:  role,
				QueueLabel: j.queue,
			},
			Annotations: map[string]string{JobIDAnnotation: j.w.ID},
		},
		Spec: corev1.PodSpec{
			SchedulerName: r.opt.SchedulerName,
			RestartPolicy: corev1.RestartPolicyNever,
			// Only this run's nodes: the workload file defines the cluster.
			NodeSelector: r.nodeSelector(j),
			Tolerations:  tolerations(j),
			Containers: []corev1.Container{{
				Name:  role,
				Image: fakeImage,
				Resources: corev1.ResourceRequirements{
					Requests: kwok.Quantities(req),
					Limits:   kwok.Quantities(req),
				},
			}},
		},
	}
	zero := int64(0)
	p.Spec.TerminationGracePeriodSeconds = &zero
	return p
}

// driverPod is the job's driver, which carries the submitter's
// declarations (declare).
func (r *Replayer) driverPod(j *jobState) *corev1.Pod {
	name := fmt.Sprintf("%s-%s-driver-%d", r.run, j.slug, j.driverAttempt)
	p := r.podObject(j, name, RoleAM, j.w.AM)
	r.declare(p, j)
	return p
}

// declare puts on p what a submitter declares: the job's estimate,
// deadline (scaled to live time) and the tasks' peak demand (the largest
// phase, without the driver itself, as the scheduler reads it); never a
// task duration. A job with a driver declares it there; a job without one
// on every task pod, as a Job's pod template gives each of its pods the
// template's annotations: the scheduler and the recorder read a job's
// declarations from the first pod they see of it, which for such a job is
// a task's.
func (r *Replayer) declare(p *corev1.Pod, j *jobState) {
	if j.w.Estimate > 0 {
		p.Annotations[EstimateAnnot] = formatDuration(r.live(j.w.Estimate))
	}
	if j.w.Deadline > 0 {
		p.Annotations[DeadlineAnnot] = formatDuration(r.live(j.w.Deadline))
	}
	p.Annotations[DemandAnnot] = FormatDemand(j.demand.Sub(j.w.AM))
}

// taskPod is attempt a of task t of phase k; kwok ends it successfully
// after its (scaled) duration.
func (r *Replayer) taskPod(j *jobState, k, t, a int) *corev1.Pod {
	ph := &j.w.Phases[k]
	name := fmt.Sprintf("%s-%s-%d-%d-%d", r.run, j.slug, k, t, a)
	p := r.podObject(j, name, RoleTask, ph.Request)
	if j.w.AM.IsZero() {
		r.declare(p, j)
	}
	p.Annotations[PhaseAnnotation] = strconv.Itoa(k)
	p.Annotations[DurationAnnot] = formatDuration(r.live(ph.Duration(t)))
	return p
}

// nodeSelector keeps a job's pods on this run's nodes, and on its node
// pool when the workload gives it one (docs/node-pools.md).
func (r *Replayer) nodeSelector(j *jobState) map[string]string {
	sel := map[string]string{RunLabel: r.run}
	for k, v := range j.w.NodeSelector {
		sel[k] = v
	}
	return sel
}

// tolerations are the job's tolerations from the workload, as a pod's.
func tolerations(j *jobState) []corev1.Toleration {
	var out []corev1.Toleration
	for _, t := range j.w.Tolerations {
		op := corev1.TolerationOpEqual
		if t.Operator == workload.OpExists {
			op = corev1.TolerationOpExists
		}
		out = append(out, corev1.Toleration{Key: t.Key, Operator: op, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	return out
}
