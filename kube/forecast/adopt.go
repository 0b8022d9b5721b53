package forecast

import (
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/sched"
)

// adopting wraps the options' admission controller so that the pinned
// jobs (the running containers, which arrive first, at time 0) are
// admitted because they run, not by the controller, as the live core
// admits a job whose container it finds running (sched.Core.Adopt): the
// controller hears of each as adopted (sched.AdoptObserver), and counts a
// running AM in what AMs hold, as it does live. Every other job is the
// controller's to admit. The core finds an admission controller's hooks by
// type assertion, so adoptAdmission implements every one and forwards each
// to the inner controller when it has it.
func adopting(inner sched.AdmissionFactory, pinned map[string]bool) sched.AdmissionFactory {
	if inner == nil {
		return nil // every job admitted, the pinned ones too
	}
	return func(v *sched.View) (sched.Admission, error) {
		a, err := inner(v)
		if err != nil {
			return nil, err
		}
		return &adoptAdmission{inner: a, pinned: pinned}, nil
	}
}

type adoptAdmission struct {
	inner  sched.Admission
	pinned map[string]bool // workload job IDs of the pinned jobs
}

// Admit admits a pinned job as adopted, and asks the inner controller
// about every other.
func (a *adoptAdmission) Admit(j *sched.Job) bool {
	if !a.pinned[j.Key()] {
		return a.inner.Admit(j)
	}
	if o, ok := a.inner.(sched.AdoptObserver); ok {
		o.JobAdopted(j)
	}
	return true
}

// JobAdopted forwards (no job of a simulation is adopted by the core).
func (a *adoptAdmission) JobAdopted(j *sched.Job) {
	if o, ok := a.inner.(sched.AdoptObserver); ok {
		o.JobAdopted(j)
	}
}

func (a *adoptAdmission) JobSubmitted(j *sched.Job) {
	if o, ok := a.inner.(sched.SubmitObserver); ok {
		o.JobSubmitted(j)
	}
}

func (a *adoptAdmission) JobAdmitted(j *sched.Job) {
	if o, ok := a.inner.(sched.AdmitObserver); ok {
		o.JobAdmitted(j)
	}
}

func (a *adoptAdmission) JobFinished(j *sched.Job) {
	if o, ok := a.inner.(sched.FinishObserver); ok {
		o.JobFinished(j)
	}
}

func (a *adoptAdmission) AsksChanged(j *sched.Job) {
	if o, ok := a.inner.(sched.AskObserver); ok {
		o.AsksChanged(j)
	}
}

func (a *adoptAdmission) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	if o, ok := a.inner.(sched.ContainerObserver); ok {
		o.ContainerChanged(c, from)
	}
}

func (a *adoptAdmission) NodeUpdated(n *cluster.Node) {
	if o, ok := a.inner.(sched.NodeObserver); ok {
		o.NodeUpdated(n)
	}
}

func (a *adoptAdmission) ClusterChanged(n *cluster.Node) {
	if o, ok := a.inner.(sched.ClusterObserver); ok {
		o.ClusterChanged(n)
	}
}

// TickEvery forwards; 0 (never ticked) when the inner controller does not
// tick.
func (a *adoptAdmission) TickEvery() clock.Duration {
	if o, ok := a.inner.(sched.Ticker); ok {
		return o.TickEvery()
	}
	return 0
}

func (a *adoptAdmission) Tick(now clock.Time) {
	if o, ok := a.inner.(sched.Ticker); ok {
		o.Tick(now)
	}
}

// TickChanged forwards; true (the core reconsiders) when the inner
// controller cannot say.
func (a *adoptAdmission) TickChanged() bool {
	if o, ok := a.inner.(sched.QuietTicker); ok {
		return o.TickChanged()
	}
	return true
}

func (a *adoptAdmission) WaitReason(j *sched.Job) string {
	if o, ok := a.inner.(sched.Explainer); ok {
		return o.WaitReason(j)
	}
	return ""
}

// Report forwards; an empty name, which runs skip, when the inner
// controller does not report.
func (a *adoptAdmission) Report() (string, any) {
	if o, ok := a.inner.(sched.Reporter); ok {
		return o.Report()
	}
	return "", nil
}

// adoptAdmission must expose every hook an admission controller may
// implement, or the core would silently not call the inner one's.
var (
	_ sched.Admission         = (*adoptAdmission)(nil)
	_ sched.AdoptObserver     = (*adoptAdmission)(nil)
	_ sched.SubmitObserver    = (*adoptAdmission)(nil)
	_ sched.AdmitObserver     = (*adoptAdmission)(nil)
	_ sched.FinishObserver    = (*adoptAdmission)(nil)
	_ sched.AskObserver       = (*adoptAdmission)(nil)
	_ sched.ContainerObserver = (*adoptAdmission)(nil)
	_ sched.NodeObserver      = (*adoptAdmission)(nil)
	_ sched.ClusterObserver   = (*adoptAdmission)(nil)
	_ sched.QuietTicker       = (*adoptAdmission)(nil)
	_ sched.Explainer         = (*adoptAdmission)(nil)
	_ sched.Reporter          = (*adoptAdmission)(nil)
)
