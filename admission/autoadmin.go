package admission

import (
	"fmt"
	"strings"

	"github.com/spindle-sched/spindle/admission/autoadmin"
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/sched"
)

func init() {
	register(autoadminEntry("autoadmin", 30, autoadmin.Default(),
		"AutoAdmin (Yang et al. 2018): predict the reservation R_R for task containers from the average AM and task sizes "+
			"running (40 % floor, scale-up, 40 % while idle), and admit a job only while C_R − AMs − AM_J ≥ R_R; waiting jobs retried in order. "+
			"By default R_R is kept in vcores and memory and a guard admits a job only if every task shape keeps a node with room beside the AMs "+
			"wherever they land (deadlock-free while every task ends on its own: not with reduces at slow-start unless hold_early=true; docs/autoadmin.md); "+
			"dims=vcores,guard=false is the paper's literal rule"))
	register(autoadminEntry("autoadmin+", 31, autoadmin.Plus(),
		"AutoAdmin improved (docs/autoadmin.md): the same, with a cold start from the requests the jobs declare, "+
			"the cluster counted in whole containers per node with one task beside each AM, and the floor replaced by a bound that leaves a node room for the largest task; "+
			"the same guard, which also holds reduces started at slow-start like AMs (hold_early), so it never deadlocks on them"))
}

// autoadminEntry registers AutoAdmin under name with def as its defaults;
// every parameter can be overridden (name:key=value,...).
func autoadminEntry(name string, rank int, def autoadmin.Config, summary string) Entry {
	help := params.NewReader(params.Spec{Name: name})
	autoadmin.Params(help, def)
	return Entry{Name: name, Rank: rank,
		Summary: summary + ". Parameters (" + name + ":key=value,...): " + strings.Join(help.Help(), "; "),
		Build: func(arg string, _ bool) (Factory, error) {
			sp, err := params.Parse(name + ":" + arg)
			if err != nil {
				return nil, fmt.Errorf("admission %w", err)
			}
			r := params.NewReader(sp)
			cfg := autoadmin.Params(r, def)
			if err := r.Done(); err != nil {
				return nil, fmt.Errorf("admission %w", err)
			}
			return func(v *sched.View) (sched.Admission, error) { return autoadmin.New(v, cfg), nil }, nil
		}}
}
