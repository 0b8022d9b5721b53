package sched_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/fakecluster"
)

// TestRandomLiveEvents applies random sequences of live-cluster events
// (nodes joining, leaving, shrinking, cordoned, held by others, their
// container slots limited; requests that fit no node; jobs open
// and simulated; asks, cancels, runs, completions, failures, preemptions,
// refusals, adoptions, job ends, time passing) under every policy and a few
// admission controllers. After each event the fake cluster settles and
// checks the core's invariants and its own: no node over-committed by a
// decision, no request placed twice or on a node that cannot take it, and
// every node's allocation exactly what its live containers hold, so that
// every freed resource is accounted for. At the end every job must be able
// to finish once the cluster is big enough and every container ends.
func TestRandomLiveEvents(t *testing.T) {
	policies := []string{"fifo", "capacity", "capacity:reserve=true", "fair", "fair:reserve=true", "drf", "sjf", "tetris", "dress", "djsf", "adaptive", "reverse-adaptive"}
	admissions := []string{"none", "static:6", "autoadmin"}
	seeds := 6
	steps := 400
	if testing.Short() {
		seeds, steps = 2, 150
	}
	for _, pol := range policies {
		for ai, adm := range admissions {
			for seed := range seeds {
				name := fmt.Sprintf("%s/%s/%d", pol, adm, seed)
				t.Run(name, func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(seed), uint64(ai)))
					w := newWalker(t, r, pol, adm)
					for i := range steps {
						ev := w.step()
						if err := w.fc.Settle(); err != nil {
							t.Fatalf("step %d (%s): %v", i, ev, err)
						}
					}
					w.drain()
				})
			}
		}
	}
}

type walker struct {
	t     *testing.T
	r     *rand.Rand
	fc    *fakecluster.Cluster
	nodes []string // names of nodes that have not left
	jobs  []string
	keys  []string // every key asked or adopted
	next  int
	pol   string
}

var shapes = []resource.Vector{resource.New(1, 1024), resource.New(2, 2048), resource.New(1, 4096), resource.New(3, 1024)}

func newWalker(t *testing.T, r *rand.Rand, pol, adm string) *walker {
	w := &walker{t: t, r: r, pol: pol}
	cfg := fakecluster.Config{Policy: pol, Admission: adm, MaxAMAttempts: 1 + r.IntN(3)}
	for range 3 {
		name := w.name("n")
		cfg.Nodes = append(cfg.Nodes, resource.New(8, 16384))
		cfg.NodeNames = append(cfg.NodeNames, name)
		w.nodes = append(w.nodes, name)
	}
	fc, err := fakecluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.fc = fc
	return w
}

func (w *walker) name(prefix string) string {
	w.next++
	return fmt.Sprintf("%s%d", prefix, w.next)
}

func pick[T any](r *rand.Rand, xs []T) (T, bool) {
	var zero T
	if len(xs) == 0 {
		return zero, false
	}
	return xs[r.IntN(len(xs))], true
}

// expect fails the test when a valid event was refused; invalid events
// (stale handles) must be refused with an error and are checked where made.
func (w *walker) expect(ev string, err error) string {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("%s: %v", ev, err)
	}
	return ev
}

func (w *walker) openJobs() []*sched.Job {
	var js []*sched.Job
	for _, k := range w.jobs {
		if j, _ := w.fc.Job(k); j.Open() && j.State() != sched.Finished {
			js = append(js, j)
		}
	}
	return js
}

func (w *walker) liveWhere(f func(ct *sched.Container) bool) []string {
	var ks []string
	for _, k := range w.fc.Live() {
		if ct, _ := w.fc.Container(k); f(ct) {
			ks = append(ks, k)
		}
	}
	return ks
}

func (w *walker) step() string {
	fc, r := w.fc, w.r
	switch x := r.IntN(100); {
	case x < 4: // a node joins
		name := w.name("n")
		w.nodes = append(w.nodes, name)
		return w.expect("add "+name, fc.AddNode(name, resource.New(int64(2+r.IntN(8)), int64(4096*(1+r.IntN(4))))))
	case x < 7: // a node leaves
		if len(w.nodes) <= 1 {
			return "no node to remove"
		}
		i := r.IntN(len(w.nodes))
		name := w.nodes[i]
		w.nodes = slices.Delete(w.nodes, i, i+1)
		return w.expect("remove "+name, fc.RemoveNode(name))
	case x < 10: // a node's capacity, schedulability or held capacity changes
		name, _ := pick(r, w.nodes)
		n, _ := fc.Node(name)
		switch r.IntN(4) {
		case 0:
			return w.expect("capacity "+name, fc.Core.SetNodeCapacity(fc.Now, n.ID(), resource.New(int64(1+r.IntN(10)), int64(2048*(1+r.IntN(8))))))
		case 1:
			return w.expect("schedulable "+name, fc.Core.SetNodeSchedulable(fc.Now, n.ID(), r.IntN(3) > 0))
		case 2:
			// A pods allocatable (0: none), some of it taken by others.
			return w.expect("slots "+name, fc.Core.SetNodeSlots(fc.Now, n.ID(), r.IntN(6), r.IntN(3)))
		}
		return w.expect("held "+name, fc.Core.SetNodeExternal(fc.Now, n.ID(), resource.New(int64(r.IntN(4)), int64(1024*r.IntN(4)))))
	case x < 18: // a job arrives: open (with or without an AM) or simulated
		key := w.name("j")
		spec := sched.JobSpec{Key: key, Open: r.IntN(4) > 0}
		if r.IntN(5) > 0 {
			spec.AM = resource.New(1, 1024)
		}
		if !spec.Open {
			spec.AM = resource.New(1, 1024)
			for range 1 + r.IntN(2) {
				s, _ := pick(r, shapes)
				spec.Phases = append(spec.Phases, sched.PhaseSpec{Tasks: 1 + r.IntN(4), Request: s, StartAfter: 1})
			}
		}
		_, err := fc.Submit(spec)
		if err != nil && !spec.Open {
			largest := fc.Core.Cluster().Largest()
			for _, p := range spec.Phases {
				if !p.Request.Fits(largest) {
					return "submit refused: " + err.Error() // no node that big now
				}
			}
		}
		w.jobs = append(w.jobs, key)
		return w.expect("submit "+key, err)
	case x < 40: // an open job asks for its AM or a task
		j, ok := pick(r, w.openJobs())
		if !ok {
			return "no open job"
		}
		key := w.name("p")
		req := sched.Request{Key: key}
		if a := j.Asks()[0]; j.HasAM() && j.AM() == nil && a.Pending+a.Held() == 0 {
			req.AM, req.Resource = true, j.Spec().AM
		} else {
			req.Resource, _ = pick(r, shapes)
			if r.IntN(10) == 0 {
				req.Resource = resource.New(12, 1024) // fits no node until one grows
			}
		}
		if r.IntN(4) == 0 {
			// Constrained: a class names the subset of nodes, by the
			// parity of their ID.
			parity := cluster.NodeID(r.IntN(2))
			req.Class = fmt.Sprintf("parity%d", parity)
			req.Eligible = func(n *cluster.Node) bool { return n.ID()%2 == parity }
		}
		w.keys = append(w.keys, key)
		return w.expect("ask "+key, fc.Ask(j.Key(), req))
	case x < 45: // a pending request is withdrawn
		var pending []string
		for _, k := range w.keys {
			if fc.Core.AskedBy(k) != nil {
				pending = append(pending, k)
			}
		}
		k, ok := pick(r, pending)
		if !ok {
			return "nothing to cancel"
		}
		return w.expect("cancel "+k, fc.Core.Cancel(fc.Now, fc.Core.AskedBy(k), k))
	case x < 65: // a launched container runs
		k, ok := pick(r, w.liveWhere(func(ct *sched.Container) bool { return ct.State() == sched.Acquired }))
		if !ok {
			return "nothing to run"
		}
		return w.expect("run "+k, fc.Run(k))
	case x < 82: // a container ends, mostly completed
		k, ok := pick(r, w.liveWhere(func(ct *sched.Container) bool { return ct.State() == sched.Running }))
		if !ok {
			return "nothing to end"
		}
		s := []sched.ContainerState{sched.Completed, sched.Completed, sched.Completed, sched.Failed, sched.Killed, sched.Preempted, sched.Lost}[r.IntN(7)]
		ct, _ := fc.Container(k)
		if ct.IsAM() && !ct.Job().Open() && s == sched.Completed {
			s = sched.Failed // a simulated AM completes only when stopped
		}
		return w.expect(fmt.Sprintf("end %s %v", k, s), fc.End(k, s))
	case x < 87: // the driver refuses a decision
		k, ok := pick(r, w.liveWhere(func(ct *sched.Container) bool { return ct.State() == sched.Acquired }))
		if !ok {
			return "nothing to refuse"
		}
		return w.expect("refuse "+k, fc.Refuse(k, "bind failed"))
	case x < 90: // an open job's AM exits
		j, ok := pick(r, w.openJobs())
		if !ok {
			return "no open job to end"
		}
		return w.expect("endjob "+j.Key(), fc.Core.EndJob(fc.Now, j))
	case x < 94: // a job found running is adopted
		key := w.name("a")
		spec := sched.JobSpec{Key: key, Open: true, AM: resource.New(1, 1024)}
		if _, err := fc.Submit(spec); err != nil {
			w.t.Fatalf("submit %s: %v", key, err)
		}
		w.jobs = append(w.jobs, key)
		node, _ := pick(r, w.nodes)
		w.expect("adopt AM "+key, fc.Adopt(key, key+"-am", node, spec.AM, true))
		for i := range r.IntN(3) {
			node, _ = pick(r, w.nodes)
			s, _ := pick(r, shapes)
			k := fmt.Sprintf("%s-t%d", key, i)
			w.keys = append(w.keys, k)
			w.expect("adopt "+k, fc.Adopt(key, k, node, s, false))
		}
		return "adopt " + key
	case x < 97: // stale handles are refused and change nothing
		return w.stale()
	default: // time passes
		fc.Now = fc.Now.Add(clock.Duration(1+r.IntN(5)) * clock.Second)
		if next := fc.Core.NextTick(fc.Now - 1); next <= fc.Now {
			fc.Core.Tick(next)
		}
		return "advance"
	}
}

// stale replays an event on a handle that is no longer valid and checks that
// the core refuses it with an error.
func (w *walker) stale() string {
	fc := w.fc
	before := fc.Core.Progress()
	for _, k := range w.keys {
		if ct := fc.Core.ContainerByKey(k); ct != nil || fc.Core.AskedBy(k) != nil {
			continue
		}
		// k ended or was cancelled: its job no longer knows it.
		j, _ := fc.Job(w.jobs[0])
		if err := fc.Core.Cancel(fc.Now, j, k); err == nil {
			w.t.Fatalf("cancel of ended request %s accepted", k)
		}
		break
	}
	for _, k := range w.jobs {
		if j, _ := fc.Job(k); j.State() == sched.Finished && j.Open() {
			if err := fc.Core.EndJob(fc.Now, j); err == nil {
				w.t.Fatalf("ending finished job %s accepted", k)
			}
			if _, err := fc.Core.Ask(fc.Now, j, sched.Request{Key: "late", Resource: resource.New(1, 1)}); err == nil {
				w.t.Fatalf("asking for finished job %s accepted", k)
			}
			break
		}
	}
	if fc.Core.Progress() != before {
		w.t.Fatal("a refused event changed the core")
	}
	return "stale handles"
}

// drain ends everything: the cluster gets room, every request is run to
// completion, every open job ends, and nothing may be left held.
func (w *walker) drain() {
	fc := w.fc
	for _, name := range w.nodes {
		n, _ := fc.Node(name)
		w.expect("uncordon", fc.Core.SetNodeSchedulable(fc.Now, n.ID(), true))
		w.expect("unhold", fc.Core.SetNodeExternal(fc.Now, n.ID(), resource.Vector{}))
		w.expect("grow", fc.Core.SetNodeCapacity(fc.Now, n.ID(), resource.New(64, 1<<20)))
		w.expect("no slot limit", fc.Core.SetNodeSlots(fc.Now, n.ID(), 0, 0))
	}
	// Both parities of node for constrained asks.
	w.expect("add", fc.AddNode(w.name("n"), resource.New(64, 1<<20)))
	w.expect("add", fc.AddNode(w.name("n"), resource.New(64, 1<<20)))
	for round := 0; ; round++ {
		// Time passes, so that ticking policies re-plan (DRESS re-tunes
		// its pools' ratio from the demand it sees).
		fc.Now = fc.Now.Add(10 * clock.Second)
		if next := fc.Core.NextTick(fc.Now - clock.Time(10*clock.Second)); next <= fc.Now {
			fc.Core.Tick(next)
		}
		if err := fc.Settle(); err != nil {
			w.t.Fatalf("drain round %d: %v", round, err)
		}
		live := fc.Live()
		if len(live) == 0 && !fc.Core.HasDemand() {
			break
		}
		if round > 200 {
			w.t.Fatalf("drain does not end: %v live, %d waiting, demand %v\n%s", live, fc.Core.WaitingJobs(), fc.Core.HasDemand(), fc.State())
		}
		for _, k := range live {
			ct, err := fc.Container(k)
			if err != nil {
				continue // ended by an earlier report this round
			}
			if ct.State() == sched.Acquired {
				w.expect("run "+k, fc.Run(k))
				continue
			}
			if ct.State() == sched.Running && (!ct.IsAM() || ct.Job().Open()) {
				w.expect("complete "+k, fc.End(k, sched.Completed))
			}
		}
		// Open jobs with nothing placed and nothing allocatable end.
		for _, j := range w.openJobs() {
			if j.Pending() == 0 && j.LiveContainers() == 0 {
				w.expect("endjob", fc.Core.EndJob(fc.Now, j))
			}
		}
	}
	// Open jobs still waiting for a driver pod that was never asked for
	// end now; then nothing may be held or pending anywhere.
	for _, j := range w.openJobs() {
		w.expect("endjob", fc.Core.EndJob(fc.Now, j))
	}
	if err := fc.Settle(); err != nil {
		w.t.Fatal(err)
	}
	cl := fc.Core.Cluster()
	if !cl.Allocated().IsZero() {
		w.t.Fatalf("everything ended but %v is still allocated", cl.Allocated())
	}
	if fc.Core.HasDemand() && fc.Core.WaitingJobs() == 0 {
		var desc []string
		for _, j := range fc.Core.Jobs() {
			if j.Pending() > 0 {
				desc = append(desc, fmt.Sprintf("%s (%s, open %v): %d pending", j.Key(), j.Describe(), j.Open(), j.Pending()))
			}
		}
		w.t.Fatalf("everything ended but demand remains: %v\n%s", desc, fc.State())
	}
	for _, k := range w.jobs {
		if j, _ := fc.Job(k); j.State() != sched.Finished && j.Open() {
			w.t.Fatalf("job %s did not finish: %s", k, j.Describe())
		}
	}
	k := fc.Core.Counts()
	if k.Completed == 0 {
		w.t.Fatal("no container ever completed")
	}
}
