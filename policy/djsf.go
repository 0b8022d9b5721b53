package policy

import (
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/djsf"
	"github.com/spindle-sched/spindle/sched"
)

func init() {
	register(Entry{Name: "djsf", Rank: 220,
		Summary:         "Densest-Job-Set-First: k-means on predicted JCT, jobs packed into sets that fit the cluster, densest set (jobs / span) first, re-planned online",
		WithoutEstimate: "plans them after every job set, in submission order, so that with none at all it is FIFO",
		Build: func(r *params.Reader) Factory {
			cfg := djsf.Params(r, djsf.Faithful)
			return func(v *sched.View) (sched.Policy, error) { return djsf.New(v, cfg), nil }
		}})
	register(Entry{Name: "djsf+", Rank: 230,
		Summary:         "DJSF improved: re-plans running jobs with their remaining time and demand, ranks sets by jobs per unit of cluster-time (djsf:progress=true,density=area)",
		WithoutEstimate: "plans them after every job set, in submission order, so that with none at all it is FIFO",
		Build: func(r *params.Reader) Factory {
			cfg := djsf.Params(r, djsf.Plus)
			return func(v *sched.View) (sched.Policy, error) { return djsf.New(v, cfg), nil }
		}})
}
