package kube

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
	return s.o.Now().Sub(ps.askedAt) >= s.o.StatusAfter
}
