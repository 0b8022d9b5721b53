package forecast

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// randomSnapshot makes a snapshot of a few nodes, jobs waiting, running
// (some with pods still pending) and finished, and other schedulers' pods;
// states says what each job is, by key. Half the jobs have an AM (their
// first pod), and a finished job's tasks may run in several waves, so
// that running jobs are forecast to ask for later ones.
func randomSnapshot(rng *rand.Rand) (*Snapshot, map[string]string) {
	var nodes []*v1.Node
	for i := range 1 + rng.IntN(4) {
		nodes = append(nodes, mkNode(fmt.Sprintf("n%d", i), 2+rng.IntN(7)))
	}
	var bs []pb
	states := map[string]string{}
	for j := range rng.IntN(12) {
		job := fmt.Sprintf("kind%d-%06d", rng.IntN(3), j)
		state := []string{"waiting", "running", "finished"}[rng.IntN(3)]
		states["team/"+job] = state
		created := -rng.IntN(300)
		b := pb{job: job, queue: []string{"a", "b"}[rng.IntN(2)], cpu: 1 + rng.IntN(3), created: created}
		if rng.IntN(2) == 0 {
			b.estimate = fmt.Sprintf("%ds", 1+rng.IntN(200))
		}
		withAM := rng.IntN(2) == 0
		lastEnd := created
		for t := range 1 + rng.IntN(4) {
			p := b
			p.name = fmt.Sprintf("%s-%d", job, t)
			p.am = withAM && t == 0
			switch {
			case state == "running" && (t == 0 || rng.IntN(2) == 0):
				p.node = nodes[rng.IntN(len(nodes))].Name
				p.started = ip(created + rng.IntN(-created+1))
			case state == "finished":
				if t > 0 && rng.IntN(3) != 0 {
					p.created = lastEnd // a later wave, asked for once a task ended
				}
				p.node = nodes[rng.IntN(len(nodes))].Name
				p.started = ip(p.created)
				p.ended = ip(p.created + rng.IntN(-p.created+1))
				lastEnd = *p.ended
			}
			bs = append(bs, p)
		}
	}
	for i := range rng.IntN(3) {
		bs = append(bs, pb{job: "x", name: fmt.Sprintf("x-%d", i), scheduler: "default-scheduler", cpu: 1 + rng.IntN(4),
			created: -400, node: nodes[rng.IntN(len(nodes))].Name, started: ip(-400)})
	}
	var h *History
	if rng.IntN(2) == 0 {
		h = hist(map[string]time.Duration{"kind0": time.Duration(1+rng.IntN(100)) * time.Second})
	}
	return snapshot(nodes, pods(bs), h, twoQueues...), states
}

func TestRunProperties(t *testing.T) {
	policies := []string{"fifo", "fair", "drf", "dress"}
	for i := range 300 {
		rng := rand.New(rand.NewPCG(uint64(i), 36))
		s, states := randomSnapshot(rng)
		p := policies[i%len(policies)]
		r := forecastOf(t, s, p)
		again := forecastOf(t, s, p)
		r2, a2 := *r, *again
		r2.CPU, a2.CPU = 0, 0
		if !reflect.DeepEqual(r2, a2) {
			t.Fatalf("seed %d, %s: two runs differ", i, p)
		}
		if !sort.SliceIsSorted(r.Jobs, func(a, b int) bool { return r.Jobs[a].Key < r.Jobs[b].Key }) {
			t.Errorf("seed %d: jobs not sorted by key", i)
		}
		got := byKey(r)
		if len(got) != len(r.Jobs) {
			t.Errorf("seed %d: a key forecast twice", i)
		}
		positions := map[string][]int{}
		for key, state := range states {
			j, ok := got[key]
			switch {
			case state == "finished" && ok:
				t.Errorf("seed %d: finished job %s forecast", i, key)
			case state != "finished" && !ok:
				t.Errorf("seed %d: %s job %s has no forecast", i, state, key)
			}
			if !ok {
				continue
			}
			if j.Waiting != (state == "waiting") {
				t.Errorf("seed %d: job %s is %s, Waiting %v", i, key, state, j.Waiting)
			}
			if state == "running" && (j.Beyond || j.Position != 0 || j.Start.After(now)) {
				t.Errorf("seed %d: running job %s: %+v", i, key, j)
			}
			if j.Waiting && !j.Beyond && j.Start.Before(now) {
				t.Errorf("seed %d: job %s forecast to start %v before now", i, key, j.Start.Sub(now))
			}
			if j.Beyond && (!j.Start.IsZero() || !j.Finish.IsZero()) {
				t.Errorf("seed %d: job %s beyond the horizon with times %+v", i, key, j)
			}
			if !j.Finish.IsZero() && j.Finish.Before(j.Start) {
				t.Errorf("seed %d: job %s finishes before it starts: %+v", i, key, j)
			}
			if j.Source == "" {
				t.Errorf("seed %d: job %s without a source", i, key)
			}
			if j.Waiting {
				positions[j.Queue] = append(positions[j.Queue], j.Position)
			}
		}
		for q, ps := range positions {
			sort.Ints(ps)
			for k, p := range ps {
				if p != k+1 {
					t.Errorf("seed %d: queue %s positions %v, want 1..%d", i, q, ps, len(ps))
					break
				}
			}
		}
	}
}
