package kube

import "github.com/spindle-sched/spindle/sched"

// What keeps a burst of pods fast (BENCHMARKS.md, "Live"): measured on a
// 1000-node kwok cluster, the scheduler's own CPU was never the limit; the
// apiserver was, in two ways.
//
// Bindings are one API call each, and under load each takes a few hundred
// milliseconds. With a fixed pool of workers the scheduler binds at most
// workers / latency pods a second, whatever its client's QPS allows: 16
// workers at 180 ms gave 88 pods/s. kube-scheduler binds each pod on a
// goroutine of its own, limited only by its client's rate limiter. So the
// pool is large by default; the client's QPS and burst remain the limit
// an operator sets.
//
// What the scheduler says about waiting pods costs the apiserver writes
// (a PodScheduled=False patch and a FailedScheduling Event each), and each
// patch is a watch event for every watcher of pods. kube-scheduler writes
// them only after an attempt to place the pod has failed; a pod that
// simply waits its turn in a burst is told nothing. spindle likewise
// writes a pending pod's reason only once it has waited StatusAfter in the
// core: long enough that a burst drained at full speed writes nothing,
// short enough that a pod that is really stuck says why within seconds.
//
// A pod that no node could ever take (its request exceeds every node's
// allocatable, or its constraints match no node) is not waiting its turn:
// kube-scheduler's first attempt fails at once and writes "0/N nodes are
// available: ...". spindle writes its reason as soon as the core has the
// request (neverFits), not StatusAfter later.

const (
	// DefaultBindWorkers is the default bound on bindings in flight.
	DefaultBindWorkers = 256
	// DefaultStatusWorkers is the default bound on status writes in
	// flight; they are the lower priority, and a few keep up with one
	// condition per waiting pod and reason.
	DefaultStatusWorkers = 4
)

// waitedLongEnough reports whether a pending pod has waited in the core
// long enough for its reason to be written.
func (s *Scheduler) waitedLongEnough(ps *podState) bool {
	return s.o.Now().Sub(ps.askedAt) >= s.o.StatusAfter || s.neverFits(ps)
}

// neverFits reports whether no node could take pending pod ps even empty:
// its own request fits no node, it is a driver held by admission whose
// request fits no node, or its job is a gang whose minimum the nodes
// together never hold. Either stays so until nodes change.
func (s *Scheduler) neverFits(ps *podState) bool {
	if ps.phase != podAsked || ps.job == nil {
		return false
	}
	if s.core.GangNeverFits(ps.job.j) {
		return true // a gang whose minimum all nodes together never hold
	}
	if ps.am && ps.job.j.State() == sched.Waiting {
		return ps.job.j.Asks()[0].Unfit()
	}
	a := askOf(ps)
	return a != nil && a.Unfit()
}

// explainFresh writes at once why each pod just handed to the core that no
// node could ever take waits; the others wait for the next status refresh
// past StatusAfter.
func (s *Scheduler) explainFresh() {
	if len(s.fresh) == 0 {
		return
	}
	s.verdicts, s.positions = nil, nil
	for i, ps := range s.fresh {
		s.fresh[i] = nil
		if s.pods[ps.key] == ps && s.neverFits(ps) {
			s.setWhy(ps, s.waitReason(ps))
		}
	}
	s.fresh = s.fresh[:0]
	s.verdicts, s.positions = nil, nil
}
