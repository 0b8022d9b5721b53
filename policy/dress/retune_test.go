package dress_test

import (
	"path/filepath"
	"testing"

	"github.com/spindle-sched/spindle/policy/dress"
	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/scenario"
	"github.com/spindle-sched/spindle/workload"
)

// The re-tune works from state kept as jobs change, not from a walk of every
// job (retune.go). On every tick of every run here it also runs the full walk
// and Algorithm 3 as written, and the two must agree exactly: the same A, F,
// demands, δ and branch. The runs cover both schemes and every option that
// changes what feeds the re-tune, on the golden workloads (admission control,
// AMs held by the AM limit, external load, mixed shapes) and generated DRESS
// workloads.
func TestRetuneEqualsFullWalk(t *testing.T) {
	files, err := filepath.Glob("../../runner/testdata/golden/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden workloads: %v", err)
	}
	var ws []*workload.Workload
	for _, f := range files {
		w, err := workload.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	stream, err := scenario.DefaultDRESSStream.Generate()
	if err != nil {
		t.Fatal(err)
	}
	ws = append(ws, stream)
	pols := []string{"dress", "dress+", "dress:demand=usable", "dress:release=const", "dress:estimator=off",
		"dress+:lend_am=on", "dress:classify=available,horizon=3s", "dress+:release=paper,floor=0"}
	admissions := []string{"none", "autoadmin", "static:2"}
	done := dress.VerifyRetune()
	runs := 0
	for _, w := range ws {
		for _, pol := range pols {
			for _, adm := range admissions {
				if _, err := runner.Run(runner.Spec{Workload: w, Policy: pol, Admission: adm, Seed: 1}); err != nil {
					t.Fatalf("%s %s: %v", pol, adm, err)
				}
				runs++
			}
		}
	}
	if err := done(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d runs, every tick equal", runs)
}
