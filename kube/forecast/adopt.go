package forecast

import (
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
// to the inner controller when it has it (sched.Hooks).
func adopting(inner sched.AdmissionFactory, pinned map[string]bool) sched.AdmissionFactory {
	if inner == nil {
		return nil // every job admitted, the pinned ones too
	}
	return func(v *sched.View) (sched.Admission, error) {
		a, err := inner(v)
		if err != nil {
			return nil, err
		}
		return &adoptAdmission{Hooks: sched.Hooks[sched.Admission]{Inner: a}, pinned: pinned}, nil
	}
}

type adoptAdmission struct {
	sched.Hooks[sched.Admission]                 // every other hook, to the inner controller
	pinned                       map[string]bool // workload job IDs of the pinned jobs
}

// Admit admits a pinned job as adopted, and asks the inner controller
// about every other.
func (a *adoptAdmission) Admit(j *sched.Job) bool {
	if !a.pinned[j.Key()] {
		return a.Inner.Admit(j)
	}
	a.JobAdopted(j)
	return true
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
