package sched

import (
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
)

// Hooks hands each optional hook the core looks for on a policy or an
// admission controller (the observers, Ticker and QuietTicker, Explainer,
// Reporter) to Inner when Inner has it. The core finds hooks by type
// assertion, so a wrapper that embeds Hooks hides none of Inner's: it
// overrides only what it changes (a test's policy wrapper, the forecast's
// adopting admission controller).
type Hooks[T any] struct{ Inner T }

// JobSubmitted forwards.
func (h Hooks[T]) JobSubmitted(j *Job) {
	if o, ok := any(h.Inner).(SubmitObserver); ok {
		o.JobSubmitted(j)
	}
}

// JobAdmitted forwards.
func (h Hooks[T]) JobAdmitted(j *Job) {
	if o, ok := any(h.Inner).(AdmitObserver); ok {
		o.JobAdmitted(j)
	}
}

// JobAdopted forwards.
func (h Hooks[T]) JobAdopted(j *Job) {
	if o, ok := any(h.Inner).(AdoptObserver); ok {
		o.JobAdopted(j)
	}
}

// JobFinished forwards.
func (h Hooks[T]) JobFinished(j *Job) {
	if o, ok := any(h.Inner).(FinishObserver); ok {
		o.JobFinished(j)
	}
}

// AsksChanged forwards.
func (h Hooks[T]) AsksChanged(j *Job) {
	if o, ok := any(h.Inner).(AskObserver); ok {
		o.AsksChanged(j)
	}
}

// ContainerChanged forwards.
func (h Hooks[T]) ContainerChanged(c *Container, from ContainerState) {
	if o, ok := any(h.Inner).(ContainerObserver); ok {
		o.ContainerChanged(c, from)
	}
}

// NodeUpdated forwards.
func (h Hooks[T]) NodeUpdated(n *cluster.Node) {
	if o, ok := any(h.Inner).(NodeObserver); ok {
		o.NodeUpdated(n)
	}
}

// ClusterChanged forwards.
func (h Hooks[T]) ClusterChanged(n *cluster.Node) {
	if o, ok := any(h.Inner).(ClusterObserver); ok {
		o.ClusterChanged(n)
	}
}

// TickEvery forwards; 0 (never ticked) when Inner does not tick.
func (h Hooks[T]) TickEvery() clock.Duration {
	if o, ok := any(h.Inner).(Ticker); ok {
		return o.TickEvery()
	}
	return 0
}

// Tick forwards.
func (h Hooks[T]) Tick(now clock.Time) {
	if o, ok := any(h.Inner).(Ticker); ok {
		o.Tick(now)
	}
}

// TickChanged forwards; true (the core reconsiders) when Inner cannot
// say, as the core takes a Ticker that is not a QuietTicker.
func (h Hooks[T]) TickChanged() bool {
	if o, ok := any(h.Inner).(QuietTicker); ok {
		return o.TickChanged()
	}
	return true
}

// WaitReason forwards; "" when Inner does not explain.
func (h Hooks[T]) WaitReason(j *Job) string {
	if o, ok := any(h.Inner).(Explainer); ok {
		return o.WaitReason(j)
	}
	return ""
}

// Report forwards; an empty name, which runs skip, when Inner does not
// report.
func (h Hooks[T]) Report() (string, any) {
	if o, ok := any(h.Inner).(Reporter); ok {
		return o.Report()
	}
	return "", nil
}

// Hooks has every hook; the policy's and the admission controller's own
// methods (Pick, Admit...) are the wrapper's to give.
var (
	_ SubmitObserver    = Hooks[any]{}
	_ AdmitObserver     = Hooks[any]{}
	_ AdoptObserver     = Hooks[any]{}
	_ FinishObserver    = Hooks[any]{}
	_ AskObserver       = Hooks[any]{}
	_ ContainerObserver = Hooks[any]{}
	_ NodeObserver      = Hooks[any]{}
	_ ClusterObserver   = Hooks[any]{}
	_ QuietTicker       = Hooks[any]{}
	_ Explainer         = Hooks[any]{}
	_ Reporter          = Hooks[any]{}
)
