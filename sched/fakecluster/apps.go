package fakecluster

import (
	"fmt"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// App is an application played against the cluster as a Spark driver plays
// itself on Kubernetes: it is submitted with its driver (the AM), asks for
// its executors once the driver runs, runs each executor for Steps rounds,
// and exits when they have all completed. Eligible, when set, constrains
// the driver and every executor (a node selector).
type App struct {
	Job      string
	Queue    string
	AM, Exec resource.Vector
	Execs    int
	Steps    int
	Eligible func(*cluster.Node) bool
	// Adopted apps start with their driver already running on node
	// AdoptOn, as a restarted scheduler finds it.
	Adopted bool
	AdoptOn string

	submitted, asked, done bool
	completed              int
	age                    map[string]int
}

// Done reports whether the app has exited.
func (a *App) Done() bool { return a.done }

func (a *App) driverKey() string { return a.Job + "-driver" }

// Play plays apps, one round a second of the cluster's clock, until every
// app is done or limit rounds have passed; it returns the rounds played.
// Each round runs the periodic ticks that fell due, then every app's next
// step, then settles the cluster (invariants checked).
func (c *Cluster) Play(apps []*App, limit int) (int, error) {
	for round := 1; round <= limit; round++ {
		prev := c.Now
		c.Now = c.Now.Add(clock.Second)
		for t := c.Core.NextTick(prev); t <= c.Now; t = c.Core.NextTick(t) {
			c.Core.Tick(t)
		}
		all := true
		for _, a := range apps {
			if err := c.step(a); err != nil {
				return round, fmt.Errorf("app %s: %w", a.Job, err)
			}
			all = all && a.done
		}
		if err := c.Settle(); err != nil {
			return round, err
		}
		if all {
			return round, nil
		}
	}
	return limit, nil
}

func (c *Cluster) step(a *App) error {
	if a.done {
		return nil
	}
	if !a.submitted {
		a.submitted, a.age = true, map[string]int{}
		if _, err := c.Submit(sched.JobSpec{Key: a.Job, Queue: a.Queue, Open: true, AM: a.AM}); err != nil {
			return err
		}
		if a.Adopted {
			return c.Adopt(a.Job, a.driverKey(), a.AdoptOn, a.AM, true)
		}
		return c.Ask(a.Job, sched.Request{Key: a.driverKey(), Resource: a.AM, AM: true, Eligible: a.Eligible, Class: classOf(a.Eligible)})
	}
	drv, ok := c.live[a.driverKey()]
	if !ok {
		return nil // the driver waits for admission or room
	}
	if drv.State() == sched.Acquired {
		return c.Run(a.driverKey())
	}
	if !a.asked {
		a.asked = true
		for i := range a.Execs {
			r := sched.Request{Key: fmt.Sprintf("%s-exec-%d", a.Job, i), Resource: a.Exec, Eligible: a.Eligible, Class: classOf(a.Eligible)}
			if err := c.Ask(a.Job, r); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range a.Execs {
		k := fmt.Sprintf("%s-exec-%d", a.Job, i)
		ct, ok := c.live[k]
		if !ok || ct.Key() != k {
			continue
		}
		switch ct.State() {
		case sched.Acquired:
			if err := c.Run(k); err != nil {
				return err
			}
		case sched.Running:
			if a.age[k]++; a.age[k] >= a.Steps {
				if err := c.End(k, sched.Completed); err != nil {
					return err
				}
				a.completed++
			}
		}
	}
	if a.completed == a.Execs {
		a.done = true
		return c.End(a.driverKey(), sched.Completed)
	}
	return nil
}

func classOf(f func(*cluster.Node) bool) string {
	if f == nil {
		return ""
	}
	return "pool"
}
