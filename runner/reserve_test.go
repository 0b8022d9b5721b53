package runner

import (
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/runner/wlgen"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
	"github.com/spindle-sched/spindle/workload"
)

// reservationAges wraps a policy to follow its reservations: each from the
// moment it holds its node until it is served or cancelled, and checks on
// every container event that none has held its node past limit.
type reservationAges struct {
	schedtest.Forward
	v       *sched.View
	timeout clock.Duration
	limit   clock.Duration
	live    map[*sched.Container]clock.Time
	expired int // ended unserved after the timeout
	oldest  clock.Duration
	err     error
}

func (p *reservationAges) ContainerChanged(c *sched.Container, from sched.ContainerState) {
	p.Forward.ContainerChanged(c, from)
	now := p.v.Now()
	switch {
	case c.State() == sched.Reserved:
		p.live[c] = now
	case from == sched.Reserved:
		if c.State() == sched.Killed && now-p.live[c] >= clock.Time(p.timeout) {
			p.expired++
		}
		delete(p.live, c)
	}
	p.check(now)
}

// check fails when a reservation whose job still waits for it has held its
// node longer than the limit.
func (p *reservationAges) check(now clock.Time) {
	for c, at := range p.live {
		age := clock.Duration(now - at)
		p.oldest = max(p.oldest, age)
		if age > p.limit && p.err == nil && c.Job().State() != sched.Finished {
			p.err = fmt.Errorf("at %v a reservation for %v has held %v for %v", now, c, c.Node(), age)
		}
	}
}

// No reservation outlives its timeout while its job still waits: random
// workloads (runner/wlgen) under capacity and fair with reserve=true and a
// short timeout, the age of every live reservation checked on every
// container event and at the run's end. A reservation expires at its node's
// next update, so the bound is the timeout plus one node heartbeat. With
// ideal timing there are no heartbeats: a node is updated only when the
// core offers it again, which a reservation's age alone does not cause, so
// those workloads run unchecked here (docs/interpretation.md, "Reservations expire").
func TestReservationsExpire(t *testing.T) {
	const timeout = 5 * clock.Second
	expired, runs := 0, 0
	for seed := range uint64(150) {
		doc := wlgen.Workload(seed)
		w, err := workload.Parse([]byte(doc), fmt.Sprintf("wlgen-%d.yaml", seed))
		if err != nil {
			t.Fatal(err)
		}
		if w.Cluster.Ideal {
			continue
		}
		beat := w.Cluster.NodeHeartbeat
		if beat <= 0 {
			beat = workload.DefaultNodeHeartbeat
		}
		for _, spec := range []string{"capacity:reserve=true,reserve_timeout=5s", "fair:reserve=true,reserve_timeout=5s"} {
			var ages *reservationAges
			res := runWrapped(t, w, spec, func(v *sched.View, p sched.Policy) sched.Policy {
				ages = &reservationAges{Forward: schedtest.Wrap(p), v: v, timeout: timeout, limit: timeout + beat, live: map[*sched.Container]clock.Time{}}
				return ages
			})
			ages.check(res.Outcome.End)
			if ages.err != nil {
				t.Fatalf("workload %d (runner/wlgen), -p %s: %v\n%s", seed, spec, ages.err, doc)
			}
			expired += ages.expired
			runs++
		}
	}
	t.Logf("%d runs, %d reservations expired", runs, expired)
	if expired == 0 {
		t.Error("no reservation expired: the test no longer exercises the timeout")
	}
}
