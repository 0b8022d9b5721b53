// Package preempt reads the preemption parameters that Capacity, Fair and
// DRF share (-p capacity:preemption=on,preempt_delay=5s,...), so that each
// policy turns the one monitor of the core (sched.Preemption) on the same
// way.
package preempt

import (
	"strconv"

	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/sched"
)

// Params reads the parameters over def, the policy's defaults; it returns
// nil when preemption is off (the default, so that the papers' baselines
// do not move).
func Params(r *params.Reader, def sched.Preemption) *sched.Preemption {
	mode := r.Choice("preemption", "off", []string{"off", "on", "observe", "false", "true"},
		"take containers back for a queue below its share with demand it cannot place, from queues above theirs, "+
			"newest first, never an ApplicationMaster (YARN's ProportionalCapacityPreemptionPolicy; docs/queues.md): off (default), on, "+
			"or observe (YARN's observe_only: count and report what would be taken, take nothing)")
	c := def
	if !def.ByWeight {
		c.Balance = r.Bool("preempt_balance", def.Balance, "let a queue above its guarantee take from another above its own until they are level "+
			"(YARN's preemption-to-balance-queue-after-satisfied.enabled); default off: a queue's share is at most the larger of its guarantee and what it holds")
	}
	c.Interval = r.Duration("preempt_interval", def.Interval, "time between preemption rounds (monitoring_interval, default "+def.Interval.String()+")")
	c.Delay = r.NonNegativeDuration("preempt_delay", def.Delay, "how long a container stays marked for preemption before it is killed (max_wait_before_kill, default "+def.Delay.String()+"); 0 kills at once")
	c.PerRound = r.Float("preempt_per_round", def.PerRound, 1e-9, 1, "at most this share of the cluster taken back per round (total_preemption_per_round, default "+ftoa(def.PerRound)+")")
	c.Natural = r.Float("preempt_natural", def.Natural, 1e-9, 1, "fraction of a queue's excess one round takes back, the rest left to end on its own (natural_termination_factor, default "+ftoa(def.Natural)+")")
	c.Deadzone = r.Float("preempt_deadzone", def.Deadzone, 0, 100, "a queue over its share by no more than this fraction of its guarantee is spared (max_ignored_over_capacity, default "+ftoa(def.Deadzone)+")")
	c.MinUtilization = r.Float("preempt_min_utilization", def.MinUtilization, 0, 1, "no preemption while the cluster's allocated share is below this (Fair's preemption.cluster-utilization-threshold; default "+ftoa(def.MinUtilization)+")")
	switch mode {
	case "off", "false":
		return nil
	case "observe":
		c.Observe = true
	}
	return &c
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
