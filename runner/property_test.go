package runner

import (
	"flag"
	"fmt"
	"testing"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/runner/wlgen"
	"github.com/spindle-sched/spindle/workload"
)

// soak runs the property test over that many workloads, each under every
// policy and admission pair, instead of the quick default:
//
//	go test ./runner -run TestProperties -soak 5000 -timeout 0
var soak = flag.Int("soak", 0, "run TestProperties over this many random workloads, every pair on each")

var (
	propPolicies = []string{"fifo", "capacity", "capacity:reserve=true", "fair", "fair:max_am_share=-1", "drf", "sjf", "tetris",
		"dress", "djsf", "djsf+", "adaptive", "reverse-adaptive"}
	propAdmissions = []string{"none", "autoadmin", "autoadmin+", "static:4"}
)

// propMaxEvents bounds a run of a generated workload (at most 12 jobs of 3
// phases of 6 tasks): far above what any ending run needs, far below a
// spin.
const propMaxEvents = 200_000

// TestProperties runs random small workloads (runner/wlgen) under the
// policies and admission controllers, with the core's invariants checked on
// every event. Each run must end within propMaxEvents, report utilization in
// [0, 1], and either complete every job or report a deadlock listing exactly
// the unfinished ones. With a default AutoAdmin controller a run must not
// deadlock at all unless a job had to be let in alone (forced admission),
// nor under a policy that does not withhold free resources.
//
// By default 400 workloads each run under 8 of the pairs, rotating so that
// every pair is covered many times; -soak N runs N workloads under every
// pair.
func TestProperties(t *testing.T) {
	n, all := 400, false
	if *soak > 0 {
		n, all = *soak, true
	}
	pairs := len(propPolicies) * len(propAdmissions)
	perWorkload := 8
	if all {
		perWorkload = pairs
	}
	runs, promised := 0, 0
	for i := range n {
		seed := uint64(i)
		doc := wlgen.Workload(seed)
		w, err := workload.Parse([]byte(doc), fmt.Sprintf("wlgen-%d.yaml", seed))
		if err != nil {
			t.Fatalf("workload %d does not parse: %v\n%s", seed, err, doc)
		}
		for k := range perWorkload {
			p := (i*perWorkload + k) % pairs
			if all {
				p = k
			}
			pol, adm := propPolicies[p%len(propPolicies)], propAdmissions[p/len(propPolicies)]
			if checkProperties(t, seed, doc, w, pol, adm) {
				promised++
			}
			runs++
		}
		if t.Failed() && !all {
			break
		}
	}
	t.Logf("%d runs over %d workloads; %d under AutoAdmin's no-deadlock promise", runs, n, promised)
	if promised == 0 {
		t.Error("no run checked AutoAdmin's promise: the generator lost its point")
	}
}

// checkProperties runs one pair and reports whether AutoAdmin's promise
// applied to it.
func checkProperties(t *testing.T, seed uint64, doc string, w *workload.Workload, pol, adm string) bool {
	t.Helper()
	if adm == "static:4" && w.Cluster.Capacity()[resource.VCores] < 4*resource.MilliPerVCore {
		// A reservation larger than the cluster is refused; the whole
		// cluster is the largest there is.
		adm = "static:" + resource.FormatVCores(w.Cluster.Capacity()[resource.VCores])
	}
	where := fmt.Sprintf("workload %d (runner/wlgen), -p %s -a %s", seed, pol, adm)
	o, err := Run(Spec{Workload: w, Policy: pol, Admission: adm, Seed: seed + 1, Check: true, MaxEvents: propMaxEvents})
	if err != nil {
		t.Errorf("%s: %v\n%s", where, err, doc)
		return false
	}
	s := o.Summary
	if !(s.UtilizationAvg >= 0 && s.UtilizationAvg <= 1+1e-9) {
		t.Errorf("%s: utilization %v outside [0, 1]", where, s.UtilizationAvg)
	}
	if s.Deadlocked != (len(s.StuckJobs) > 0) || s.JobsCompleted+len(s.StuckJobs) != s.JobsTotal {
		t.Errorf("%s: deadlocked %v, %d of %d completed, %d stuck", where, s.Deadlocked, s.JobsCompleted, s.JobsTotal, len(s.StuckJobs))
	}
	// Both defaults hold reduces at slow-start in their guard (hold_early), so
	// their promise does not need the premise that every task ends on its own.
	promise := (adm == "autoadmin" || adm == "autoadmin+") && forced(s.Reports) == 0 && workConserving[pol] && guaranteed(w)
	if promise && s.Deadlocked {
		t.Errorf("%s: AutoAdmin deadlocked without a forced admission: %v\n%s", where, s.StuckJobs, doc)
	}
	return promise
}

// guaranteed reports whether w meets the AutoAdmin guard's premises
// (docs/autoadmin.md): every request fits some node beside the external
// load's sustained level (the lowest knot of a periodic curve, the last knot
// otherwise), since a request that fits no node can never run under any
// controller. Tasks of a phase that starts before the previous one
// completes (start_after < 1) wait for it while holding containers, the
// slow-start hazard that MapReduce answers with reducer preemption; the
// guards of both defaults hold such tasks like AMs (hold_early), so the
// promise covers them too.
func guaranteed(w *workload.Workload) bool {
	frac := 0.0
	if l := w.Cluster.ExternalLoad; l != nil {
		frac = l.Points[len(l.Points)-1].Frac
		if l.Period > 0 {
			for _, p := range l.Points {
				frac = min(frac, p.Frac)
			}
		}
	}
	fits := func(r resource.Vector) bool {
		for _, g := range w.Cluster.Nodes {
			if r.Fits(g.Capacity.Sub(cluster.ExternalShare(g.Capacity, frac))) {
				return true
			}
		}
		return false
	}
	for i := range w.Jobs {
		j := &w.Jobs[i]
		if !fits(j.AM) {
			return false
		}
		for _, p := range j.Phases {
			if !fits(p.Request) {
				return false
			}
		}
	}
	return true
}

// workConserving are the policies that never leave a pending request that
// fits a node unserved, so that only admission can deadlock them.
var workConserving = map[string]bool{"fifo": true, "fair": true, "fair:max_am_share=-1": true, "drf": true, "sjf": true, "tetris": true}

func forced(reports map[string]any) int {
	type forcer interface{ ForcedAdmissions() int }
	if r, ok := reports["autoadmin"].(forcer); ok {
		return r.ForcedAdmissions()
	}
	return -1
}
