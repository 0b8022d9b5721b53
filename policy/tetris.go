package policy

import (
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/tetris"
	"github.com/spindle-sched/spindle/sched"
)

func init() {
	register(Entry{Name: "tetris", Rank: 210,
		Summary: "Tetris (Grandl et al., SIGCOMM 2014): best alignment of request and node free resources plus ε × shortest remaining work, fairness knob f",
		Build: func(r *params.Reader) Factory {
			cfg := tetris.Params(r)
			return func(v *sched.View) (sched.Policy, error) { return tetris.New(v, cfg), nil }
		}})
}
