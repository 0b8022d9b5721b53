package policy

import (
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/capacity"
	"github.com/spindle-sched/spindle/policy/fair"
	"github.com/spindle-sched/spindle/policy/fifo"
	"github.com/spindle-sched/spindle/sched"
)

func init() {
	register(Entry{Name: "fifo", Rank: 10,
		Summary: "first in, first out: every free resource goes to the earliest job that can use it",
		Build: func(r *params.Reader) Factory {
			cfg := fifo.Params(r)
			return func(v *sched.View) (sched.Policy, error) { return fifo.New(v, cfg), nil }
		}})
	register(Entry{Name: "capacity", Rank: 20,
		Summary: "YARN Capacity: queues with guaranteed and maximum capacity, most under-served queue first, FIFO inside a queue, AM limit per queue",
		Build: func(r *params.Reader) Factory {
			cfg := capacity.Params(r)
			return func(v *sched.View) (sched.Policy, error) { return capacity.New(v, cfg), nil }
		}})
	register(Entry{Name: "fair", Rank: 30,
		Summary: "YARN Fair: the job furthest below its instantaneous fair share (memory) first, AM share limit",
		Build: func(r *params.Reader) Factory {
			cfg := fair.Params(r, fair.Memory)
			return func(v *sched.View) (sched.Policy, error) { return fair.New(v, cfg), nil }
		}})
	register(Entry{Name: "drf", Rank: 40,
		Summary: "dominant resource fairness: the job with the lowest dominant share first, AM share limit",
		Build: func(r *params.Reader) Factory {
			cfg := fair.Params(r, fair.DRF)
			return func(v *sched.View) (sched.Policy, error) { return fair.New(v, cfg), nil }
		}})
}
