package sched

import (
	"fmt"

	"github.com/spindle-sched/spindle/cluster"
)

// The core is single-owner and never re-entered: a driver answers a
// callback (Launch, Stop, WakeAM, Reconsider, AcceptLowered, Revisit) by
// recording what it must do and doing it after the core's call returns, the
// way etcd raft's Ready is handled after Step. A driver that called back
// into the core from inside a callback would see, and change, state the
// core is in the middle of updating. In debug mode (Config.Debug, which
// every test sets) the core wraps its driver in reentryGuard and every
// mutating entry point checks it, so such a driver fails its first test
// instead of corrupting a run.

// reentryGuard forwards to the driver and marks the core as calling out.
type reentryGuard struct {
	c *Core
	d Driver
}

var (
	_ Driver    = (*reentryGuard)(nil)
	_ Revisiter = (*reentryGuard)(nil)
	_ Preempter = (*reentryGuard)(nil)
)

func (g *reentryGuard) out(f func()) {
	g.c.callingOut = true
	defer func() { g.c.callingOut = false }()
	f()
}

func (g *reentryGuard) Launch(c *Container) { g.out(func() { g.d.Launch(c) }) }
func (g *reentryGuard) Stop(c *Container)   { g.out(func() { g.d.Stop(c) }) }
func (g *reentryGuard) WakeAM(j *Job)       { g.out(func() { g.d.WakeAM(j) }) }
func (g *reentryGuard) Reconsider()         { g.out(g.d.Reconsider) }
func (g *reentryGuard) AcceptLowered()      { g.out(g.d.AcceptLowered) }

// Preempt forwards to a driver that can preempt; the core builds a
// preemption monitor only over such a driver.
func (g *reentryGuard) Preempt(ct *Container, q *Queue) {
	g.out(func() { g.d.(Preempter).Preempt(ct, q) })
}

// Revisit keeps the driver's choice: a driver that is not a Revisiter gets
// Reconsider, as View.ReconsiderNode gives it without the guard.
func (g *reentryGuard) WatchAM(j *Job) {
	if w, ok := g.d.(AMWatcher); ok {
		g.out(func() { w.WatchAM(j) })
	}
}

func (g *reentryGuard) Revisit(n *cluster.Node) {
	if r, ok := g.d.(Revisiter); ok {
		g.out(func() { r.Revisit(n) })
		return
	}
	g.out(g.d.Reconsider)
}

// enter is the first thing every entry point that changes state does: it
// panics when the core is inside a driver callback. The flag is only ever
// set in debug mode, so elsewhere this is one predictable branch.
func (c *Core) enter(op string) {
	if c.callingOut {
		panic(fmt.Sprintf("sched: driver called Core.%s from inside a callback; a driver must return from Launch, Stop, WakeAM, WatchAM, Reconsider and AcceptLowered before it calls the core again", op))
	}
}
