package experiments

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/trace"
	"github.com/spindle-sched/spindle/workload"
)

// NASAEnv names the environment variable that points at the NASA iPSC
// log (the cleaned version from the Parallel Workloads Archive); without it
// the log is looked for under its archive name in the current directory.
const NASAEnv = "SPINDLE_NASA_SWF"

const nasaDefault = "NASA-iPSC-1993-3.1-cln.swf.gz"

// tracePolicies are the comparison the section promises, in order. SJF and
// DJSF need runtime estimates, which the log does not declare.
var tracePolicies = []string{"fifo", "fair", "dress", "sjf", "djsf"}

var traceNeedsEstimates = map[string]bool{"sjf": true, "djsf": true}

// traceLoads are the arrival scales: the log as it is, and with every
// inter-arrival gap halved.
var traceLoads = []float64{1, 0.5}

type traceRow struct {
	policy, estimates string
}

func (r traceRow) label() string {
	if r.estimates == "" {
		return r.policy
	}
	return r.policy + " (" + r.estimates + ")"
}

// traceFigures is one run's numbers.
type traceFigures struct {
	completed, total                           int
	wait, jct, jctMed, jctP95, small, large, u float64
	makespan                                   float64
}

func runTraces(cfg Config) (string, error) {
	path, err := nasaPath()
	if err != nil {
		return "", err
	}
	var rows []traceRow
	var missing []string
	registered := policy.Names()
	for _, p := range tracePolicies {
		if !slices.Contains(registered, p) {
			missing = append(missing, p)
			continue
		}
		if !traceNeedsEstimates[p] {
			rows = append(rows, traceRow{p, ""})
			continue
		}
		rows = append(rows, traceRow{p, sim.EstimatesHistory}, traceRow{p, sim.EstimatesOracle})
	}
	if len(rows) == 0 {
		return "", fmt.Errorf("traces: none of %s is registered", strings.Join(tracePolicies, ", "))
	}
	var specs []runner.Spec
	var reps []*trace.Report
	var works []*workload.Workload
	for _, load := range traceLoads {
		w, rep, err := trace.Convert("swf", []string{path}, trace.Options{ArrivalScale: load})
		if err != nil {
			return "", fmt.Errorf("traces: %w", err)
		}
		reps, works = append(reps, rep), append(works, w)
		name := fmt.Sprintf("swf:%s,arrival-scale=%g", filepath.Base(path), load)
		for _, r := range rows {
			for seed := uint64(1); seed <= uint64(cfg.Seeds); seed++ {
				specs = append(specs, runner.Spec{Workload: w, WorkloadName: name, Policy: r.policy, Seed: seed, SummaryOnly: true,
					Estimates: sim.Estimates{Source: r.estimates}})
			}
		}
	}
	fmt.Fprintf(cfg.Log, "traces: %d simulations of %s\n", len(specs), path)
	outs, err := runner.RunAll(specs, cfg.Parallel, func(n int) {
		if n%10 == 0 {
			fmt.Fprintf(cfg.Log, "traces: %d/%d done\n", n, len(specs))
		}
	})
	if err != nil {
		return "", err
	}
	// figs[load][row][seed]
	figs := make([][][]traceFigures, len(traceLoads))
	k := 0
	for l := range traceLoads {
		figs[l] = make([][]traceFigures, len(rows))
		for r := range rows {
			for range cfg.Seeds {
				figs[l][r] = append(figs[l][r], traceFiguresOf(outs[k].Summary))
				k++
			}
		}
	}
	return traceMarkdown(cfg, rows, missing, reps, works, figs), nil
}

// nasaPath finds the NASA log: $SPINDLE_NASA_SWF, else its archive name in
// the repository root.
func nasaPath() (string, error) {
	if p := os.Getenv(NASAEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("traces: %s=%s: %w", NASAEnv, p, err)
		}
		return p, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", fmt.Errorf("traces: %w; set %s to the NASA iPSC log (NASA-iPSC-1993-3.1-cln.swf.gz)", err, NASAEnv)
	}
	p := filepath.Join(root, filepath.FromSlash(nasaDefault))
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("traces: the NASA iPSC log is not at %s (%s from the repository root); set %s to its path", p, nasaDefault, NASAEnv)
	}
	return p, nil
}

// repoRoot walks up from the working directory to spindle's go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isSpindleModule(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("not inside the spindle repository")
		}
		dir = up
	}
}

func isSpindleModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == "github.com/spindle-sched/spindle"
		}
	}
	return false
}

func traceFiguresOf(s *metrics.Summary) traceFigures {
	v := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	return traceFigures{
		completed: s.JobsCompleted, total: s.JobsTotal,
		wait: v(s.WaitAvgS), jct: v(s.JCTAvgS), jctMed: v(s.JCTMedianS), jctP95: v(s.JCTP95S),
		small: v(s.Categories[metrics.Small].JCTAvg), large: v(s.Categories[metrics.Large].JCTAvg),
		u: s.UtilizationAvg, makespan: s.MakespanS,
	}
}

func traceMean(fs []traceFigures, f func(traceFigures) float64) float64 {
	sum := 0.0
	for _, x := range fs {
		sum += f(x)
	}
	return sum / float64(len(fs))
}

// traceSpread is the largest relative distance of a seed's value from the
// mean, as a fraction.
func traceSpread(fs []traceFigures, f func(traceFigures) float64) float64 {
	m := traceMean(fs, f)
	worst := 0.0
	for _, x := range fs {
		if m != 0 {
			worst = math.Max(worst, math.Abs(f(x)-m)/m)
		}
	}
	return worst
}

func traceMarkdown(cfg Config, rows []traceRow, missing []string, reps []*trace.Report, works []*workload.Workload, figs [][][]traceFigures) string {
	var b strings.Builder
	rep, w := reps[0], works[0]
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	seeds := fmt.Sprintf("seeds 1–%d; every figure is the mean over the seeds", cfg.Seeds)
	if cfg.Seeds == 1 {
		seeds = "seed 1"
	}
	p("Regenerate with `go run ./cmd/spindle experiments traces` (%s). ", seeds)
	p("It reads the log from `$%s`, by default `%s` from the repository root.\n\n", NASAEnv, nasaDefault)
	p("**The log.** NASA Ames iPSC/860, October to December 1993, from the Parallel Workloads Archive (cleaned version), in SWF: %d records. ", rep.Records)
	for _, s := range rep.Skipped {
		p("%d %s are left out. ", s.N, s.Reason)
	}
	p("That leaves %d jobs and %d tasks.\n\n", len(w.Jobs), w.TotalTasks())
	p("**How it maps** (`trace convert --from swf`, docs/traces.md). ")
	for _, n := range rep.Notes {
		if c, ok := strings.CutPrefix(n, "cluster: "); ok {
			p("The cluster is %s. ", c)
		}
	}
	p("A job that ran on P processors is one phase of P tasks of 1 vcore, each running for the job's run time; ")
	p("it has no ApplicationMaster. The submit time is the log's, which the log itself says is the start time (it has no wait times). ")
	p("The log declares no runtimes, so SJF and DJSF run twice: with `history` estimates (the mean runtime of earlier jobs of the same application number) ")
	p("and with `oracle` estimates (the true standalone runtime, no error; an upper bound on what a predictor gives). ")
	p("One difference from the machine: the iPSC started all of a job's processors together; spindle starts each task as a container frees, as YARN does.\n\n")
	if len(missing) > 0 {
		p("**Not run:** %s (not registered in this build).\n\n", strings.Join(missing, ", "))
	}
	p("**Loads.** `arrival-scale=F` multiplies every submit time by F: 0.5 halves every gap between submissions, doubling the offered load on the same jobs. ")
	for l, load := range traceLoads {
		for r, row := range rows {
			if row.policy == "fifo" {
				p("At arrival scale %g FIFO keeps the cluster %.0f %% busy. ", load, 100*traceMean(figs[l][r], func(x traceFigures) float64 { return x.u }))
			}
		}
	}
	p("\n\n")
	cols := []struct {
		name string
		f    func(traceFigures) float64
	}{
		{"wait avg (s)", func(x traceFigures) float64 { return x.wait }},
		{"JCT avg (s)", func(x traceFigures) float64 { return x.jct }},
		{"JCT median (s)", func(x traceFigures) float64 { return x.jctMed }},
		{"JCT p95 (s)", func(x traceFigures) float64 { return x.jctP95 }},
		{"small JCT avg (s)", func(x traceFigures) float64 { return x.small }},
		{"large JCT avg (s)", func(x traceFigures) float64 { return x.large }},
		{"makespan (s)", func(x traceFigures) float64 { return x.makespan }},
	}
	jct := cols[1].f
	for l, load := range traceLoads {
		p("### Arrival scale %g\n\n", load)
		p("| policy | completed |")
		for _, c := range cols {
			p(" %s |", c.name)
		}
		p(" utilisation |\n|---|---|")
		for range cols {
			p("---|")
		}
		p("---|\n")
		spread := 0.0
		for r, row := range rows {
			fs := figs[l][r]
			done := fs[0].completed
			for _, x := range fs {
				done = min(done, x.completed)
			}
			p("| %s | %d/%d |", row.label(), done, fs[0].total)
			for _, c := range cols {
				if v := traceMean(fs, c.f); math.IsNaN(v) {
					p(" – |")
				} else {
					p(" %.1f |", v)
				}
			}
			p(" %.3f |\n", traceMean(fs, func(x traceFigures) float64 { return x.u }))
			spread = math.Max(spread, traceSpread(fs, jct))
		}
		p("\n%s\n\n", traceFindings(rows, figs[l], spread))
	}
	return b.String()
}

// traceFindings states what the table shows, from its numbers.
func traceFindings(rows []traceRow, figs [][]traceFigures, spread float64) string {
	jct := func(r int) float64 { return traceMean(figs[r], func(x traceFigures) float64 { return x.jct }) }
	base := -1
	best, worst := 0, 0
	for r := range rows {
		if rows[r].policy == "fifo" {
			base = r
		}
		if jct(r) < jct(best) {
			best = r
		}
		if jct(r) > jct(worst) {
			worst = r
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Lowest average JCT: %s (%.1f s); highest: %s (%.1f s).", rows[best].label(), jct(best), rows[worst].label(), jct(worst))
	if base >= 0 && base != best {
		fmt.Fprintf(&b, " Against FIFO, %s cuts the average JCT by %s.", rows[best].label(), tracePct(1-jct(best)/jct(base)))
	}
	fmt.Fprintf(&b, " Across seeds, no row's average JCT moves more than %s from its mean.", tracePct(spread))
	return b.String()
}

// tracePct formats a fraction as a percentage, with more digits when it is
// small, so that a tiny difference does not read as none.
func tracePct(f float64) string {
	if math.Abs(f) < 0.01 {
		return fmt.Sprintf("%.2f %%", 100*f)
	}
	return fmt.Sprintf("%.1f %%", 100*f)
}
