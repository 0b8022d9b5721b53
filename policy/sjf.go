package policy

import (
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/sjf"
	"github.com/spindle-sched/spindle/sched"
)

func init() {
	register(Entry{Name: "sjf", Rank: 200,
		Summary:         "shortest estimated job first (estimates from --estimates), work-conserving; jobs without an estimate last",
		WithoutEstimate: "ranks them after every job with an estimate, in submission order, so that with none at all it is FIFO",
		Build: func(r *params.Reader) Factory {
			cfg := sjf.Params(r)
			return func(v *sched.View) (sched.Policy, error) { return sjf.New(v, cfg), nil }
		}})
}
