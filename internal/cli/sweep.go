package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/admission/autoadmin"
	aaexp "github.com/spindle-sched/spindle/experiments/autoadmin"
	"github.com/spindle-sched/spindle/runner"
)

func newSweep() *cobra.Command {
	var (
		wl, trace, pol, rng string
		with                []string
		seed                uint64
		seeds, parallel     int
		asJSON              bool
		out                 string
		sh                  shardFlag
	)
	cmd := &cobra.Command{
		Use:   "sweep -w WORKLOAD -p POLICY --static FROM:TO:STEP [--with ADMISSION]... [--json] [-o DIR [--shard I/N]]",
		Short: "Run a workload once per static reservation (AutoAdmin's sweep) and score admission controllers",
		Long: `Run the workload under POLICY once per static reservation static:<n>, for n =
FROM, FROM+STEP, ... up to TO (vcores kept for task containers), and print each
point's makespan and whether it deadlocked. The best point is the one with the
least makespan among those that did not deadlock. Many reservations tie for
it, so the sweep also prints the best range: the least and greatest
reservation whose makespan is within 1 % of the best (points in between need
not all tie).

--with ADMISSION (repeatable) also runs that admission controller, e.g.
autoadmin, and prints its makespan and its Perf Score against the best static
point, the AutoAdmin paper's Eq. 4.1:

    Perf Score = (1 - (M - M_min) / M_min) * 100 %

where M is the controller's makespan and M_min the best static point's. It is
above 100 % when the controller beats every static point, and "-" when it
deadlocked. For an AutoAdmin controller it also prints the mean reservation
R_R it kept (vcores, over time) and where that lies against the best range.

--seeds K repeats every run on seeds --seed ... --seed+K-1; makespans are then
means over the seeds and a point counts as deadlocked if any seed deadlocked.

A deadlocked run's makespan covers its completed jobs only.

--json prints {"points":[{"reserve":n,"makespan_s":x,"deadlocked":b,...}],
"best":{"reserve":n,"makespan_s":x,"range_lo":a,"range_hi":b,"range_points":k,
"tie_tolerance":0.01}, "with":[{"admission":a,"makespan_s":x,"deadlocked":b,
"perf_score":p,"reserve_avg_vcores":r,"range_distance":d,...}]}; "best" is
null when every point deadlocked, "perf_score" is left out when the controller
deadlocked, and range_distance (vcores outside the best range: 0 inside,
negative below, positive above) only comes with an AutoAdmin controller.

-o DIR also writes that JSON to DIR/sweep.json. With --shard I/N the run
does only shard I (from 0) of N of the cells (each admission setting on each
seed, in that order; cell k is shard k mod N's) and writes them to
DIR/cells.json with DIR/shard.json; 'spindle merge -o OUT DIR...' joins the
N parts into the OUT/sweep.json the run without --shard writes.`,
		Example: `  spindle generate autoadmin-homogeneous --am 2 --task 2 -o aa.yaml
  spindle sweep -w aa.yaml -p fair:max_am_share=-1 --static 0:62:2 --with autoadmin
  spindle sweep -w aa.yaml -p fair:max_am_share=-1 --static 20:40:1 --seeds 5 --json
  spindle sweep -w aa.yaml -p fair:max_am_share=-1 --static 0:62:2 --seeds 5 --shard 0/4 -o part0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pol == "" {
				return usagef("no policy: pass -p POLICY")
			}
			if rng == "" {
				return usagef("no reservations: pass --static FROM:TO:STEP, e.g. --static 0:64:4")
			}
			reserves, err := aaexp.ParseReserveRange(rng)
			if err != nil {
				return usagef("--static: %v", err)
			}
			if seeds < 1 {
				return usagef("--seeds must be at least 1")
			}
			if err := checkParallel(cmd, parallel); err != nil {
				return err
			}
			for _, a := range append([]string{"none"}, with...) {
				if err := runner.Check(runner.Spec{Policy: pol, Admission: a}); err != nil {
					return usageError{err}
				}
			}
			if err := sh.parse(out); err != nil {
				return err
			}
			f := runFlags{workload: wl, trace: trace}
			spec := aaexp.StaticSweepSpec{Policy: pol, Reserves: reserves, With: with, Parallel: parallel}
			for i := range seeds {
				spec.Seeds = append(spec.Seeds, seed+uint64(i))
			}
			if sh.on() {
				return runSweepShard(cmd, &f, spec, rng, sh.spec, out)
			}
			w, name, err := f.load(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			noteEstimates(cmd.ErrOrStderr(), []runner.Spec{{Policy: pol}}, w)
			spec.Workload, spec.WorkloadName = w, name
			res, err := aaexp.StaticSweep(spec)
			if err != nil {
				return err
			}
			if out != "" {
				if err := writeSweepFile(out, res); err != nil {
					return err
				}
			}
			if asJSON {
				return writeSweepJSON(cmd.OutOrStdout(), res)
			}
			printSweep(cmd.OutOrStdout(), name, pol, spec.Seeds, res)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&wl, "workload", "w", "", "workload file (YAML or JSON, format v1; .gz accepted)")
	fl.StringVar(&trace, "trace", "", "sweep straight from a trace: FORMAT:INPUT[,INPUT...]")
	fl.StringVarP(&pol, "policy", "p", "", "scheduling policy, e.g. fair:max_am_share=-1 (YARN 2.2's Fair, no AM limit)")
	fl.StringVar(&rng, "static", "", "static reservations to run, FROM:TO:STEP in vcores (inclusive)")
	fl.StringArrayVar(&with, "with", nil, "also run this admission controller and print its Perf Score (repeatable), e.g. autoadmin")
	fl.Uint64Var(&seed, "seed", 1, "seed of the runs (the first one with --seeds)")
	fl.IntVar(&seeds, "seeds", 1, "run every point on this many seeds, from --seed on, and average")
	fl.IntVarP(&parallel, "parallel", "j", 0, "simulations to run at once (default: number of CPUs)")
	fl.BoolVar(&asJSON, "json", false, "print the sweep as JSON")
	fl.StringVarP(&out, "out", "o", "", "also write the sweep's JSON to DIR/sweep.json (with --shard: this shard's cells)")
	sh.register(cmd)
	return cmd
}

func printSweep(out io.Writer, name, pol string, seeds []uint64, res *aaexp.StaticSweepResult) {
	seedText := fmt.Sprintf("seed %d", seeds[0])
	if len(seeds) > 1 {
		seedText = fmt.Sprintf("seeds %d..%d (makespans are means)", seeds[0], seeds[len(seeds)-1])
	}
	jobs := 0
	if len(res.Points) > 0 {
		jobs = res.Points[0].JobsTotal
	}
	fmt.Fprintf(out, "workload %s: %d jobs; policy %s; %s\n\n", name, jobs, pol, seedText)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "reserve (vcores)\tmakespan (s)\tdeadlocked\tjobs completed\t")
	for i := range res.Points {
		p := &res.Points[i]
		mark := ""
		if i == res.Best {
			mark = " best"
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%v\t%d/%d\t%s\n", strconv.FormatFloat(p.Reserve, 'f', -1, 64), p.Makespan(), p.Deadlocked(), p.JobsCompleted, p.JobsTotal, mark)
	}
	tw.Flush()
	fmt.Fprintln(out)
	if res.Best < 0 {
		fmt.Fprintln(out, "best static: none (every point deadlocked)")
	} else {
		b := &res.Points[res.Best]
		lo, hi, n := res.BestRange(aaexp.TieTolerance)
		fmt.Fprintf(out, "best static: %s, makespan %.1f s; best range %s..%s vcores (%d points within %.0f %%)\n",
			b.Admission, b.Makespan(), fmtNum(lo), fmtNum(hi), n, aaexp.TieTolerance*100)
	}
	for i := range res.With {
		w := &res.With[i]
		if w.Deadlocked() {
			fmt.Fprintf(out, "%s: deadlocked (%d/%d jobs completed)\n", w.Admission, w.JobsCompleted, w.JobsTotal)
			continue
		}
		score := "-"
		if s := res.PerfScore(w); !math.IsNaN(s) {
			score = fmt.Sprintf("%.1f %%", s)
		}
		fmt.Fprintf(out, "%s: makespan %.1f s, Perf Score %s", w.Admission, w.Makespan(), score)
		if r, ok := reserveAvg(w); ok && res.Best >= 0 {
			lo, hi, _ := res.BestRange(aaexp.TieTolerance)
			where := "in the best range"
			if d := aaexp.RangeDistance(r, lo, hi); d < 0 {
				where = fmt.Sprintf("%.1f below the best range", -d)
			} else if d > 0 {
				where = fmt.Sprintf("%.1f above the best range", d)
			}
			fmt.Fprintf(out, "; mean R_R %.1f vcores, %s", r, where)
		}
		fmt.Fprintln(out)
	}
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// reserveAvg is the mean vcore reservation an AutoAdmin controller kept on
// the first seed.
func reserveAvg(p *aaexp.StaticPoint) (float64, bool) {
	rep, ok := p.Report.(autoadmin.Report)
	if !ok {
		return 0, false
	}
	r, ok := rep.ReserveAvg["vcores"]
	return r, ok
}

type sweepPointJSON struct {
	Reserve         *float64  `json:"reserve,omitempty"`
	Admission       string    `json:"admission"`
	MakespanS       float64   `json:"makespan_s"`
	Deadlocked      bool      `json:"deadlocked"`
	DeadlockedSeeds int       `json:"deadlocked_seeds"`
	JobsCompleted   int       `json:"jobs_completed"`
	JobsTotal       int       `json:"jobs_total"`
	MakespansS      []float64 `json:"makespans_s"`
	PerfScore       *float64  `json:"perf_score,omitempty"`
	ReserveAvg      *float64  `json:"reserve_avg_vcores,omitempty"`
	RangeDistance   *float64  `json:"range_distance,omitempty"`
	Report          any       `json:"autoadmin,omitempty"`
}

func writeSweepJSON(out io.Writer, res *aaexp.StaticSweepResult) error {
	point := func(p *aaexp.StaticPoint) sweepPointJSON {
		j := sweepPointJSON{Admission: p.Admission, MakespanS: p.Makespan(), Deadlocked: p.Deadlocked(),
			DeadlockedSeeds: p.DeadlockedSeeds, JobsCompleted: p.JobsCompleted, JobsTotal: p.JobsTotal,
			MakespansS: p.Makespans}
		if !math.IsNaN(p.Reserve) {
			r := p.Reserve
			j.Reserve = &r
		}
		return j
	}
	type best struct {
		Reserve      float64 `json:"reserve"`
		MakespanS    float64 `json:"makespan_s"`
		RangeLo      float64 `json:"range_lo"`
		RangeHi      float64 `json:"range_hi"`
		RangePoints  int     `json:"range_points"`
		TieTolerance float64 `json:"tie_tolerance"`
	}
	doc := struct {
		Points []sweepPointJSON `json:"points"`
		Best   *best            `json:"best"`
		With   []sweepPointJSON `json:"with"`
	}{Points: []sweepPointJSON{}, With: []sweepPointJSON{}}
	for i := range res.Points {
		doc.Points = append(doc.Points, point(&res.Points[i]))
	}
	if res.Best >= 0 {
		b := &res.Points[res.Best]
		lo, hi, n := res.BestRange(aaexp.TieTolerance)
		doc.Best = &best{Reserve: b.Reserve, MakespanS: b.Makespan(), RangeLo: lo, RangeHi: hi, RangePoints: n,
			TieTolerance: aaexp.TieTolerance}
	}
	for i := range res.With {
		w := &res.With[i]
		j := point(w)
		if s := res.PerfScore(w); !math.IsNaN(s) {
			j.PerfScore = &s
		}
		j.Report = w.Report
		if r, ok := reserveAvg(w); ok && res.Best >= 0 {
			lo, hi, _ := res.BestRange(aaexp.TieTolerance)
			d := aaexp.RangeDistance(r, lo, hi)
			j.ReserveAvg, j.RangeDistance = &r, &d
		}
		doc.With = append(doc.With, j)
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
