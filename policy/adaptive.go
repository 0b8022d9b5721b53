package policy

import (
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/adaptive"
	"github.com/spindle-sched/spindle/sched"
)

func init() {
	register(Entry{Name: "adaptive", Rank: 300,
		Summary:         "Adaptive Scheduler: completion-time goals; each cycle s_req = tasks needed in parallel to meet the goal, placement maximises the lowest utility; ignores external load",
		WithoutEstimate: "knows no task length for them until their first task ends and, for a job with a goal, asks for every task it could run until then",
		Build: func(r *params.Reader) Factory {
			cfg := adaptive.Params(r, adaptive.Adaptive)
			return func(v *sched.View) (sched.Policy, error) { return adaptive.New(v, cfg), nil }
		}})
	register(Entry{Name: "reverse-adaptive", Rank: 310,
		Summary:         "Reverse-Adaptive: as adaptive, but s_fit from a reverse placement of all jobs' remaining work into the capacity the forecast external load leaves, and placement that keeps room for that load",
		WithoutEstimate: "knows no task length for them until their first task ends and, for a job with a goal, asks for every task it could run until then",
		Build: func(r *params.Reader) Factory {
			cfg := adaptive.Params(r, adaptive.Reverse)
			return func(v *sched.View) (sched.Policy, error) { return adaptive.New(v, cfg), nil }
		}})
	register(Entry{Name: "adaptive+", Rank: 320,
		Summary: "Reverse-Adaptive with triage: jobs that cannot meet their goal even alone yield; the others go least laxity first, each its s_fit, then all it can use (reverse-adaptive:triage=true)",
		Build: func(r *params.Reader) Factory {
			cfg := adaptive.PlusParams(r)
			return func(v *sched.View) (sched.Policy, error) { return adaptive.New(v, cfg), nil }
		}})
}
