// Package admission holds the admission controllers that decide which
// submitted jobs may start their ApplicationMaster, and the registry that
// builds one from a command-line spec ("none", "static:<vcores>",
// "autoadmin:key=value,..."), listed explicitly below.
package admission

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spindle-sched/spindle/admission/autoadmin"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Entry describes one controller; it has the shape of a policy's entry.
type Entry = params.Entry[sched.AdmissionFactory]

// autoadminQueues is how the reservations read the queue tree.
const autoadminQueues = "the reservation works across the cluster, not within a leaf: the deadlock it prevents is cluster-wide " +
	"(AMs of any queue can take the room every queue's tasks need), so C_R, the AMs counted against it and R_R are the whole cluster's, " +
	"while jobs wait for admission per leaf, in submission order across leaves: a job refused holds back the later jobs of its own leaf only"

// builtin lists every controller, in the order the listing shows them.
// Adding one is adding an entry here.
var builtin = params.NewRegistry("admission controller",
	Entry{Name: "none", Summary: "admit every job at once (YARN's default)", Queues: "ignored",
		Build: func(*params.Reader) (sched.AdmissionFactory, error) { return nil, nil }},
	Entry{Name: "static", Usage: "static:<vcores>",
		Summary: "keep <vcores> of the cluster for task containers: a job's AM is admitted only while AMs leave that much free (AutoAdmin's static reservation)",
		Queues:  autoadminQueues,
		Build:   buildStatic},
	autoadminEntry("autoadmin", autoadmin.Default(),
		"AutoAdmin (Yang et al. 2018): predict the reservation R_R for task containers from the average AM and task sizes "+
			"running (40 % floor, scale-up, 40 % while idle), and admit a job only while C_R − AMs − AM_J ≥ R_R (also on the nodes the job may use, when it may not use all); waiting jobs retried in order, each queue on its own. "+
			"By default R_R is kept in vcores and memory and a guard admits a job only if every task shape keeps a node with room beside the AMs "+
			"wherever they land (deadlock-free while every task ends on its own: not with reduces at slow-start unless hold_early=true; docs/autoadmin.md); "+
			"dims=vcores,guard=false is the paper's literal rule"),
	autoadminEntry("autoadmin+", autoadmin.Plus(),
		"AutoAdmin improved (docs/autoadmin.md): the same, with a cold start from the requests the jobs declare, "+
			"the cluster counted in whole containers per node with one task beside each AM, and the floor replaced by a bound that leaves a node room for the largest task; "+
			"the same guard, which also holds reduces started at slow-start like AMs (hold_early), so it never deadlocks on them"),
)

// Entries lists the controllers.
func Entries() []Entry { return builtin.Entries() }

// Registry returns the registry of every built-in admission controller.
func Registry() *params.Registry[sched.AdmissionFactory] { return builtin }

// Parse turns a spec into a factory. The empty spec means "none", whose
// factory is nil.
func Parse(spec string) (sched.AdmissionFactory, error) {
	if strings.TrimSpace(spec) == "" {
		spec = "none"
	}
	f, _, err := builtin.Parse(spec)
	return f, err
}

// autoadminEntry lists AutoAdmin under name with def as its defaults;
// every parameter can be overridden (name:key=value,...).
func autoadminEntry(name string, def autoadmin.Config, summary string) Entry {
	return Entry{Name: name, Summary: summary, Queues: autoadminQueues,
		Build: func(r *params.Reader) (sched.AdmissionFactory, error) {
			cfg := autoadmin.Params(r, def)
			return func(v *sched.View) (sched.Admission, error) { return autoadmin.New(v, cfg), nil }, nil
		}}
}

// maxStaticVCores bounds static's argument before it is turned into
// milli-vcores, so that no value can overflow.
const maxStaticVCores = 1e12

// buildStatic reads static's amount of vcores.
func buildStatic(r *params.Reader) (sched.AdmissionFactory, error) {
	arg, has := r.Arg("vcores kept for task containers, e.g. static:32")
	if !has {
		return nil, fmt.Errorf("static needs an amount: static:<vcores>, e.g. static:32")
	}
	vc, err := strconv.ParseFloat(arg, 64)
	if err != nil || vc < 0 || math.IsInf(vc, 0) || vc != vc {
		return nil, fmt.Errorf("static: %q is not a non-negative number of vcores", arg)
	}
	if vc > maxStaticVCores {
		return nil, fmt.Errorf("static: %s vcores is more than any cluster (at most %g)", arg, float64(maxStaticVCores))
	}
	milli := int64(math.Round(vc * resource.MilliPerVCore))
	return func(v *sched.View) (sched.Admission, error) {
		// A reservation larger than the cluster admits no job: refused
		// against the cluster the core is built on. A live scheduler
		// started before any node joined has no size to check yet.
		if total := v.Cluster().Capacity()[resource.VCores]; total > 0 && milli > total {
			return nil, fmt.Errorf("static:%s keeps more vcores for tasks than the cluster has (%s vcores): no job could be admitted",
				arg, resource.FormatVCores(total))
		}
		return &Static{v: v, Reserve: milli}, nil
	}, nil
}

// Static keeps a fixed amount of vcores for task containers: a waiting job
// is admitted only if, after its AM, the vcores not held by AMs still cover
// the reservation (C_R − TotalAMC_R − AM_J ≥ R_R, AutoAdmin's ARC with a
// constant R_R). Only admitted AMs count, whether or not they run yet.
type Static struct {
	v       *sched.View
	Reserve int64 // milli-vcores
	amHeld  int64 // milli-vcores of AMs admitted and not ended
}

// Admit applies the reservation.
func (s *Static) Admit(j *sched.Job) bool {
	total := s.v.Cluster().Capacity()[resource.VCores]
	am := j.Spec().AM[resource.VCores]
	if total-s.amHeld-am < s.Reserve {
		return false
	}
	s.amHeld += am
	return true
}

// JobAdopted counts the AM of a job admitted because its containers were
// found running (a live scheduler's restart), as Admit counts the jobs it
// lets in: its container's end returns it (ContainerChanged).
func (s *Static) JobAdopted(j *sched.Job) { s.amHeld += j.Spec().AM[resource.VCores] }

// ContainerChanged returns an AM's vcores to the pool when its container
// ends. A reservation for an AM that is cancelled never held anything: the
// job stays admitted and its AM still counts.
func (s *Static) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	if c.IsAM() && c.State().Terminal() && from != sched.Reserved && from != sched.New {
		s.amHeld -= c.Request()[resource.VCores]
	}
}

// WaitReason says why job j waits: the static reservation in the numbers
// Admit compares (sched.Explainer, shown on a live job's pending AM).
func (s *Static) WaitReason(j *sched.Job) string {
	total := s.v.Cluster().Capacity()[resource.VCores]
	am := j.Spec().AM[resource.VCores]
	return fmt.Sprintf("static reservation: %s of %s vcores kept for tasks; admitted AMs hold %s, this AM needs %s (admitted when %s − AMs − AM ≥ %s, in submission order)",
		resource.FormatVCores(s.Reserve), resource.FormatVCores(total), resource.FormatVCores(s.amHeld), resource.FormatVCores(am),
		resource.FormatVCores(total), resource.FormatVCores(s.Reserve))
}

// The core detects each optional interface by a type assertion, so a
// misspelt method would silently turn a hook off: these make it a compile
// error instead.
var (
	_ sched.Admission         = (*Static)(nil)
	_ sched.ContainerObserver = (*Static)(nil)
	_ sched.AdoptObserver     = (*Static)(nil)
	_ sched.Explainer         = (*Static)(nil)
)
