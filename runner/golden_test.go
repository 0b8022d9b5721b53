package runner

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/sim"
	"github.com/spindle-sched/spindle/workload"
)

// The golden runs pin the simulator's results: for every workload in
// testdata/golden and every policy, admission and estimate source below, the
// hashes of summary.json (less wall_s) and jobs.csv must not move when the
// core changes. A change that is meant to move a result (a documented
// fidelity fix) regenerates the file with
//
//	go test ./runner -run TestGolden -update-golden
//
// and says in its commit which lines moved and why.
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden.txt from the current simulator")

const goldenFile = "testdata/golden.txt"

var (
	goldenPolicies = []string{"fifo", "capacity", "fair", "drf", "fair:max_am_share=-1", "capacity:reserve=true",
		"sjf", "tetris", "dress", "dress:estimator=off", "djsf", "djsf+", "adaptive", "reverse-adaptive", "kube-scheduler"}
	goldenAdmissions = []string{"none", "autoadmin", "autoadmin+", "static:8", "static:24"}
	// Policies that read estimates also run with the oracle source, so that
	// their estimate-driven paths are pinned, not only their fallbacks.
	goldenOracle = map[string]bool{"sjf": true, "tetris": true, "djsf": true, "djsf+": true, "adaptive": true, "reverse-adaptive": true}
)

type goldenKey struct{ workload, policy, admission, estimates string }

func (k goldenKey) String() string {
	return strings.Join([]string{k.workload, k.policy, k.admission, k.estimates}, " ")
}

// goldenHashes runs one key and hashes its outputs as `simulate -o` writes
// them.
func goldenHashes(w *workload.Workload, k goldenKey) (sum, jobs string, err error) {
	o, err := Run(Spec{Workload: w, WorkloadName: k.workload, Policy: k.policy, Admission: k.admission, Seed: 1,
		Estimates: sim.Estimates{Source: k.estimates}})
	if err != nil {
		return "", "", err
	}
	o.Summary.WallS = 0
	var sb, jb bytes.Buffer
	if err := metrics.WriteJSON(&sb, o.Summary); err != nil {
		return "", "", err
	}
	if err := metrics.WriteCSV(&jb, o.Jobs); err != nil {
		return "", "", err
	}
	hs, hj := sha256.Sum256(sb.Bytes()), sha256.Sum256(jb.Bytes())
	return hex.EncodeToString(hs[:8]), hex.EncodeToString(hj[:8]), nil
}

func loadGoldenWorkloads(t *testing.T) map[string]*workload.Workload {
	t.Helper()
	files, err := filepath.Glob("testdata/golden/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden workloads: %v", err)
	}
	ws := map[string]*workload.Workload{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		w, err := workload.Parse(b, f)
		if err != nil {
			t.Fatal(err)
		}
		ws[filepath.Base(f)] = w
	}
	return ws
}

func TestGolden(t *testing.T) {
	ws := loadGoldenWorkloads(t)
	if *updateGolden {
		writeGolden(t, ws)
		return
	}
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type want struct {
		k         goldenKey
		sum, jobs string
		gotSum    string
		gotJobs   string
		err       error
	}
	var wants []*want
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fs := strings.Fields(text)
		if len(fs) != 6 {
			t.Fatalf("%s:%d: want 6 fields, got %d", goldenFile, line, len(fs))
		}
		k := goldenKey{fs[0], fs[1], fs[2], fs[3]}
		if ws[k.workload] == nil {
			t.Fatalf("%s:%d: no workload %s", goldenFile, line, k.workload)
		}
		wants = append(wants, &want{k: k, sum: fs[4], jobs: fs[5]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(wants) < 500 {
		t.Fatalf("only %d golden runs: the file lost lines", len(wants))
	}
	// The runs are independent and deterministic: run them on every
	// processor, then compare in the file's order.
	next := make(chan *want)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range next {
				w.gotSum, w.gotJobs, w.err = goldenHashes(ws[w.k.workload], w.k)
			}
		}()
	}
	for _, w := range wants {
		next <- w
	}
	close(next)
	wg.Wait()
	for _, w := range wants {
		switch {
		case w.err != nil:
			t.Errorf("%s: %v", w.k, w.err)
		case w.gotSum != w.sum || w.gotJobs != w.jobs:
			t.Errorf("%s: summary %s jobs %s, golden %s %s", w.k, w.gotSum, w.gotJobs, w.sum, w.jobs)
		}
	}
	t.Logf("%d golden runs checked", len(wants))
}

// writeGolden runs the whole matrix, each run in a child process of the
// test binary so that a run that does not end within goldenTimeout can be
// killed and left out with a comment that records it.
func writeGolden(t *testing.T, ws map[string]*workload.Workload) {
	names := slices.Sorted(maps.Keys(ws))
	var out bytes.Buffer
	out.WriteString("# workload policy admission estimates summary-sha256[:8] jobs.csv-sha256[:8]\n")
	out.WriteString("# regenerate: go test ./runner -run TestGolden -update-golden\n")
	for _, name := range names {
		for _, p := range goldenPolicies {
			ests := []string{"declared"}
			if goldenOracle[p] {
				ests = append(ests, "oracle")
			}
			for _, a := range goldenAdmissions {
				for _, e := range ests {
					k := goldenKey{name, p, a, e}
					ctx, cancel := context.WithTimeout(context.Background(), goldenTimeout)
					cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^TestGoldenChild$")
					cmd.Env = append(os.Environ(), "SPINDLE_GOLDEN_KEY="+k.String())
					b, err := cmd.Output()
					timedOut := ctx.Err() == context.DeadlineExceeded
					cancel()
					switch {
					case timedOut:
						fmt.Fprintf(&out, "# %s: did not end within %v\n", k, goldenTimeout)
					case err != nil:
						t.Fatalf("%s: %v", k, err)
					default:
						line, _, _ := strings.Cut(string(b), "\n")
						if !strings.HasPrefix(line, "golden ") {
							t.Fatalf("%s: child said %q", k, b)
						}
						fmt.Fprintf(&out, "%s\n", strings.TrimPrefix(line, "golden "))
					}
				}
			}
		}
	}
	if err := os.WriteFile(goldenFile, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

const goldenTimeout = 20 * time.Second

// TestGoldenChild is one run of writeGolden's matrix; it does nothing
// unless writeGolden started it.
func TestGoldenChild(t *testing.T) {
	key := os.Getenv("SPINDLE_GOLDEN_KEY")
	if key == "" {
		t.Skip("runs only as a child of TestGolden -update-golden")
	}
	fs := strings.Fields(key)
	k := goldenKey{fs[0], fs[1], fs[2], fs[3]}
	ws := loadGoldenWorkloads(t)
	sum, jobs, err := goldenHashes(ws[k.workload], k)
	if err != nil {
		fmt.Printf("golden # %s: %v\n", k, err)
		return
	}
	fmt.Printf("golden %s %s %s\n", k, sum, jobs)
}
