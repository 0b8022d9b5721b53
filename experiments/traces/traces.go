// Package traces runs a real log end to end: the NASA iPSC/860 log of the
// Parallel Workloads Archive, converted by the SWF reader and simulated
// under FIFO, Fair, DRESS, SJF and DJSF at two arrival scales. Run
// simulates, tables.go reduces the runs to the section's figures, and
// section.md.tmpl writes the text.
package traces

import (
	"bufio"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spindle-sched/spindle/experiments/internal/section"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/trace"
	"github.com/spindle-sched/spindle/workload"
)

//go:embed section.md.tmpl
var templates embed.FS

// NASAEnv names the environment variable that points at the NASA iPSC
// log (the cleaned version from the Parallel Workloads Archive); without it
// the log is looked for under its archive name in the current directory.
const NASAEnv = "SPINDLE_NASA_SWF"

const nasaDefault = "NASA-iPSC-1993-3.1-cln.swf.gz"

// policies are the comparison the section promises, in order. SJF and
// DJSF need runtime estimates, which the log does not declare.
var policies = []string{"fifo", "fair", "dress", "sjf", "djsf"}

var needsEstimates = map[string]bool{"sjf": true, "djsf": true}

// loads are the arrival scales: the log as it is, and with every
// inter-arrival gap halved.
var loads = []float64{1, 0.5}

type row struct {
	policy, estimates string
}

func (r row) label() string {
	if r.estimates == "" {
		return r.policy
	}
	return r.policy + " (" + r.estimates + ")"
}

// Run performs the experiment and returns the section's markdown body.
func Run(cfg section.Config) (string, error) {
	path, err := nasaPath()
	if err != nil {
		return "", err
	}
	var rows []row
	var missing []string
	registered := policy.Names()
	for _, p := range policies {
		if !slices.Contains(registered, p) {
			missing = append(missing, p)
			continue
		}
		if !needsEstimates[p] {
			rows = append(rows, row{p, ""})
			continue
		}
		rows = append(rows, row{p, sim.EstimatesHistory}, row{p, sim.EstimatesOracle})
	}
	if len(rows) == 0 {
		return "", fmt.Errorf("traces: none of %s is registered", strings.Join(policies, ", "))
	}
	var specs []runner.Spec
	var reps []*trace.Report
	var works []*workload.Workload
	for _, load := range loads {
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
	sums, err := section.Simulate(cfg, specs, func(_ int, o *runner.Outcome) (*metrics.Summary, error) {
		return section.Plain(o.Summary), nil
	}, func(n int) {
		if n%10 == 0 {
			fmt.Fprintf(cfg.Log, "traces: %d/%d done\n", n, len(specs))
		}
	})
	if err != nil || cfg.Partial() {
		return "", err
	}
	// figs[load][row][seed]
	figs := make([][][]figures, len(loads))
	k := 0
	for l := range loads {
		figs[l] = make([][]figures, len(rows))
		for r := range rows {
			for range cfg.Seeds {
				figs[l][r] = append(figs[l][r], figuresOf(sums[k]))
				k++
			}
		}
	}
	return section.Render(templates, "section.md.tmpl", tables(cfg.Seeds, rows, missing, reps[0], works[0], figs), funcs)
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
