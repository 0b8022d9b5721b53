package policy

import (
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/dress"
	"github.com/spindle-sched/spindle/sched"
)

func init() {
	register(Entry{Name: "dress", Rank: 100,
		Summary: "DRESS (Mao et al.): small- and large-demand pools, FIFO inside each; the small jobs' reserve ratio δ re-tuned every interval from pending demand and releases predicted from observed container transitions (dress:estimator=off is the ablation)",
		Build: func(r *params.Reader) Factory {
			cfg := dress.Params(r, dress.Defaults)
			return func(v *sched.View) (sched.Policy, error) { return dress.New(v, cfg) }
		}})
}

func init() {
	register(Entry{Name: "dress+", Rank: 101,
		Summary: "DRESS improved: pending demand counts only when it can take a container (demand=usable), a pool's unused room is lent to the other and returned as the borrowed containers end (lend=on), each category keeps a floor share while it has demand (floor=0.2), releases estimated from observed per-phase task durations (release=phase)",
		Build: func(r *params.Reader) Factory {
			cfg := dress.Params(r, dress.PlusDefaults)
			return func(v *sched.View) (sched.Policy, error) { return dress.New(v, cfg) }
		}})
}
