package policy

import (
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/tetris"
	"github.com/spindle-sched/spindle/sched"
)

func init() {
	register(Entry{Name: "tetris", Rank: 210,
		Summary:         "Tetris (Grandl et al., SIGCOMM 2014): best alignment of request and node free resources plus ε × shortest remaining work, fairness knob f",
		WithoutEstimate: "takes their task durations only from tasks seen to end (the phase's, the job's, then the cluster's mean, else 1 s), so that its remaining-work term ranks new jobs by their task count and size, not by their runtime",
		Build: func(r *params.Reader) Factory {
			cfg := tetris.Params(r)
			return func(v *sched.View) (sched.Policy, error) { return tetris.New(v, cfg), nil }
		}})
}
