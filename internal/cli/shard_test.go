package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
)

// wallLine is summary.json's host time, the one thing that differs between
// two runs of the same cells.
var wallLine = regexp.MustCompile(`(?m)^\s*"wall_s": .*\n`)

// sameTree fails unless got holds exactly want's files with the same bytes,
// apart from wall_s in summaries.
func sameTree(t *testing.T, want, got string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		m := map[string][]byte{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.Name() == "summary.json" {
				b = wallLine.ReplaceAll(b, nil)
			}
			m[rel] = b
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	w, g := files(want), files(got)
	for name, b := range w {
		gb, ok := g[name]
		switch {
		case !ok:
			t.Errorf("%s: missing from the merge", name)
		case !bytes.Equal(b, gb):
			t.Errorf("%s differs from the unsharded run's", name)
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			t.Errorf("%s: in the merge, not in the unsharded run", name)
		}
	}
	if len(w) < 3 {
		t.Fatalf("the unsharded run wrote only %d files", len(w))
	}
}

// shardRun runs args once per shard of n into dir/p<i> and returns the
// directories.
func shardRun(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	var dirs []string
	for i := range n {
		d := filepath.Join(dir, "p"+strconv.Itoa(i))
		a := append(append([]string{}, args...), "--shard", strconv.Itoa(i)+"/"+strconv.Itoa(n), "-o", d)
		if _, stderr, code := run(t, a...); code != 0 {
			t.Fatalf("%v: exit %d: %s", a, code, stderr)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// Sharded and merged is what one run writes, for N of 1, fewer than the
// cells, one that does not divide them, and more than the cells (some shards
// run nothing). dress+ and autoadmin write report sections, which must
// survive being read back; am-burst has an external load.
func TestCompareShardedMergedIsUnsharded(t *testing.T) {
	for _, wl := range []struct{ file, pols, adm string }{
		{"../../examples/mixed.yaml", "fifo,capacity,fair:max_am_share=-1,drf,dress+", "none"},
		{"../../examples/am-burst.yaml", "fair,fair:max_am_share=-1,capacity", "autoadmin"},
	} {
		dir := t.TempDir()
		args := []string{"compare", "-q", "-w", wl.file, "-p", wl.pols, "-a", wl.adm, "--seed", "3"}
		whole := filepath.Join(dir, "whole")
		if _, stderr, code := run(t, append(args, "-o", whole)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		cells := len(strings.Split(wl.pols, ","))
		for _, n := range []int{1, 2, 3, cells + 2} {
			parts := shardRun(t, filepath.Join(dir, "n"+strconv.Itoa(n)), n, args...)
			merged := filepath.Join(dir, "merged"+strconv.Itoa(n))
			// Given in reverse: merge orders shards by index.
			rev := append([]string{"merge", "-o", merged}, parts...)
			for i, j := 3, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			if _, stderr, code := run(t, rev...); code != 0 {
				t.Fatalf("%s N=%d: merge exit %d: %s", wl.file, n, code, stderr)
			}
			sameTree(t, whole, merged)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.yaml")
	orig, err := os.ReadFile("../../examples/mixed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wl, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"compare", "-q", "-w", wl, "-p", "fifo,fair,drf"}
	good := shardRun(t, filepath.Join(dir, "good"), 3, args...)
	shard1 := func(name string, extra ...string) string {
		d := filepath.Join(dir, name)
		a := append(append(append([]string{}, args...), extra...), "--shard", "1/3", "-o", d)
		if _, stderr, code := run(t, a...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return d
	}
	policies := func() string {
		d := filepath.Join(dir, "policies")
		if _, stderr, code := run(t, "compare", "-q", "-w", wl, "-p", "fifo,drf,fair", "--shard", "1/3", "-o", d); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return d
	}()
	seed := shard1("seed", "--seed", "2")
	// The same file name with other contents is another workload.
	if err := os.WriteFile(wl, append(orig, []byte("\n# edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	edited := shard1("edited")
	mergeRefusals(t, dir, good, edited, wl)

	for _, tc := range []struct {
		name string
		dirs []string
		want string
	}{
		{"policies", []string{good[0], policies, good[2]}, "shard " + policies + " (1/3) is from another run: its cell list"},
		{"seed", []string{good[0], seed, good[2]}, "shard " + seed + " (1/3) is from another run: its option list"},
		{"not a shard", []string{good[0], dir}, "no shard.json"},
		{"into a shard", good, "is shard 0/3's own directory"},
	} {
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
		if tc.name == "into a shard" {
			out = good[0]
		}
		_, stderr, code := run(t, append([]string{"merge", "-o", out}, tc.dirs...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want an error containing %q", tc.name, code, stderr, tc.want)
		}
	}
}

func TestShardFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "-w", tiny, "-p", "fifo", "--shard", "1/2"}, "--shard 1/2 needs -o DIR"},
		{[]string{"compare", "-w", tiny, "-p", "fifo", "--shard", "2/2", "-o", "x"}, "--shard: shard \"2/2\": I must be in 0..1"},
		{[]string{"compare", "-w", tiny, "-p", "fifo", "--shard", "x", "-o", "x"}, "want I/N"},
		{[]string{"experiments", "dress", "--shard", "0/2"}, "--shard 0/2 needs -o DIR"},
		{[]string{"experiments", "dress", "--shard", "0/2", "-o", "x", "--print"}, "--shard writes its part to -o DIR, not a section"},
		{[]string{"merge", "x"}, "no output: pass -o OUT"},
		{[]string{"merge", "-o", "x"}, "merge wants the shards' directories"},
	} {
		_, stderr, code := run(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// A sharded sweep merged is the sweep.json one sweep -o writes, for N of
// 1, 2, 5 and more than its 12 cells; the AutoAdmin controller's report
// survives being written by a shard and read back.
func TestSweepShardedMergedIsUnsharded(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sweep", "-w", "../../examples/am-burst.yaml", "-p", "fair:max_am_share=-1", "--static", "0:20:5",
		"--with", "autoadmin", "--seeds", "2"}
	whole := filepath.Join(dir, "whole")
	if _, stderr, code := run(t, append(args, "-o", whole)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := os.ReadFile(filepath.Join(whole, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want, []byte(`"autoadmin": {`)) {
		t.Fatalf("the sweep has no AutoAdmin report to carry:\n%s", want)
	}
	for _, n := range []int{1, 2, 5, 14} {
		parts := shardRun(t, filepath.Join(dir, "n"+strconv.Itoa(n)), n, args...)
		merged := filepath.Join(dir, "merged"+strconv.Itoa(n))
		if _, stderr, code := run(t, append([]string{"merge", "-o", merged}, parts...)...); code != 0 {
			t.Fatalf("N=%d: merge exit %d: %s", n, code, stderr)
		}
		got, err := os.ReadFile(filepath.Join(merged, "sweep.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("N=%d: merged sweep.json differs from the unsharded one", n)
		}
	}
	// Another --static is another sweep.
	other := filepath.Join(dir, "other")
	if _, stderr, code := run(t, "sweep", "-w", "../../examples/am-burst.yaml", "-p", "fair:max_am_share=-1", "--static", "0:20:4",
		"--with", "autoadmin", "--seeds", "2", "--shard", "1/2", "-o", other); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, stderr, code := run(t, "merge", "-o", filepath.Join(dir, "bad"), filepath.Join(dir, "n2", "p0"), other)
	if code == 0 || !strings.Contains(stderr, "shard "+other+" (1/2) is from another run: its cell list") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// A sharded whatif merged is the directory one whatif -o writes: the
// recorded run comes with the baseline's shard.
func TestWhatifShardedMergedIsUnsharded(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.yaml")
	if err := os.WriteFile(rec, []byte(recordedDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"whatif", "-q", "-w", rec, "-p", "fifo,fair,drf"}
	whole := filepath.Join(dir, "whole")
	if _, stderr, code := run(t, append(args, "-o", whole)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, n := range []int{1, 2, 3, 6} {
		parts := shardRun(t, filepath.Join(dir, "n"+strconv.Itoa(n)), n, args...)
		merged := filepath.Join(dir, "merged"+strconv.Itoa(n))
		if _, stderr, code := run(t, append([]string{"merge", "-o", merged}, parts...)...); code != 0 {
			t.Fatalf("N=%d: merge exit %d: %s", n, code, stderr)
		}
		sameTree(t, whole, merged)
	}
}

func TestKubeSweepCommand(t *testing.T) {
	base := []string{"kube", "sweep", "-w", "../../examples/mixed.yaml", "-p", "fifo,fair:max_am_share=-1,drf"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"kube", "sweep", "-p", "fifo", "--shards", "2", "--image", "i"}, "no workload"},
		{append(base[:4:4], "--shards", "2", "--image", "i"), "no policy"},
		{append(base, "--image", "i"), "--shards N is required"},
		{append(base, "--shards", "2"), "no image"},
		{append(base, "--shards", "0", "--image", "i"), "--shards must be at least 1"},
		{append(base, "--shards", "2", "--image", "i", "-p", "nosuch"), "nosuch"},
		{append(base, "--shards", "2", "--image", "i", "--namespace", "Bad"), "--namespace \"Bad\""},
	} {
		_, stderr, code := run(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	stdout, stderr, code := run(t, append(base, "--shards", "5", "--image", "reg/spindle:dev", "--storage", "shared")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "5 shards for 3 policies: 2 pods will have nothing to run") {
		t.Errorf("no note of idle shards: %q", stderr)
	}
	objs := decodeManifests(t, []byte(stdout))
	if len(objs) != 2 {
		t.Fatalf("with --storage: %d objects, want the ConfigMap and the Job", len(objs))
	}
	job := objs[1].(*batchv1.Job)
	args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
	if want := "compare -w /workload/mixed.yaml -q -p fifo,fair:max_am_share=-1,drf -a none --seed 1 --shard $(JOB_COMPLETION_INDEX)/5 -o /results/spindle-sweep/shard-$(JOB_COMPLETION_INDEX)"; args != want {
		t.Errorf("args\n got %s\nwant %s", args, want)
	}
}

// experimentsStub is a markdown file with another section, which a merge
// keeps as 'spindle experiments -o' does.
const experimentsStub = "# Experiments\n\n<!-- BEGIN other -->\n## Other\n\nkept as it is\n<!-- END other -->\n"

// A sharded experiment merged writes the section one unsharded run writes,
// byte for byte, into the same file. dress at one seed is the quickest
// experiment (225 simulations); with -experiments N of 1, 2 and of more
// than the cells run too (experiments/internal/section checks several N
// on a small experiment at every run).
func TestExperimentsShardedMergedIsUnsharded(t *testing.T) {
	dir := t.TempDir()
	args := []string{"experiments", "dress", "--seeds", "1"}
	whole := filepath.Join(dir, "whole.md")
	if err := os.WriteFile(whole, []byte(experimentsStub), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, append(args, "-o", whole)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want, []byte("kept as it is")) || !bytes.Contains(want, []byte("<!-- BEGIN dress -->")) || !bytes.Contains(want, []byte("|")) {
		t.Fatalf("the unsharded run wrote:\n%s", want)
	}
	ns := []int{3}
	if *experimentsFlag {
		ns = append(ns, 1, 2, 226)
	}
	var three []string
	for _, n := range ns {
		parts := shardRun(t, filepath.Join(dir, "n"+strconv.Itoa(n)), n, args...)
		if n == 3 {
			three = parts
		}
		merged := filepath.Join(dir, "merged"+strconv.Itoa(n)+".md")
		if err := os.WriteFile(merged, []byte(experimentsStub), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := run(t, append([]string{"merge", "-o", merged}, parts...)...); code != 0 {
			t.Fatalf("N=%d: merge exit %d: %s", n, code, stderr)
		}
		got, err := os.ReadFile(merged)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("N=%d: the merged file differs from the unsharded run's:\n%s", n, got)
		}
	}
	// Another seed count is another experiment's cells.
	other := filepath.Join(dir, "seeds2")
	if _, stderr, code := run(t, "experiments", "dress", "--seeds", "2", "--shard", "1/3", "-o", other); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	mergeRefusals(t, dir, three, other, "experiment dress (sha256 ")
	_, stderr, code := run(t, "merge", "-o", dir, three[0], three[1], three[2])
	if code == 0 || !strings.Contains(stderr, "is a directory; the shards of an experiment merge into its markdown file") {
		t.Errorf("merge into a directory: exit %d, %s", code, stderr)
	}
}

// mergeRefusals checks that merge refuses good (shards 0..2 of 3) with one
// missing, one given twice, shard 1 taken from other (another workload:
// the error names it as wl), and shard 1 from another spindle version.
func mergeRefusals(t *testing.T, dir string, good []string, other, wl string) {
	t.Helper()
	version := filepath.Join(dir, "version")
	copyTree(t, good[1], version)
	m, err := os.ReadFile(filepath.Join(version, "shard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(version, "shard.json"), bytes.Replace(m, []byte(`"spindle_version": "`), []byte(`"spindle_version": "0.0.1-old`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dirs []string
		want string
	}{
		{"missing", good[:2], "shard 2/3 is missing"},
		{"missing first", good[1:], "shard 0/3 is missing"},
		{"duplicated", []string{good[0], good[1], good[1], good[2]}, "shard 1/3 is given twice: " + good[1] + " and " + good[1]},
		{"workload", []string{good[0], other, good[2]}, "shard " + other + " (1/3) is from another run: its workload is " + wl},
		{"version", []string{good[0], version, good[2]}, "shard " + version + " (1/3) is from another run: its spindle version is 0.0.1-old"},
	} {
		out := filepath.Join(dir, "refused-"+strings.ReplaceAll(tc.name, " ", "-"))
		_, stderr, code := run(t, append([]string{"merge", "-o", out}, tc.dirs...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want an error containing %q", tc.name, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the refused merge wrote %s", tc.name, out)
		}
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// merge refuses a sweep's and a whatif's shards as it does a comparison's.
func TestMergeRefusesSweepAndWhatif(t *testing.T) {
	t.Run("sweep", func(t *testing.T) {
		dir := t.TempDir()
		args := []string{"sweep", "-p", "fair:max_am_share=-1", "--static", "0:20:10", "--seeds", "1"}
		good := shardRun(t, filepath.Join(dir, "good"), 3, append(args, "-w", "../../examples/am-burst.yaml")...)
		other := filepath.Join(dir, "other")
		wl := filepath.Join(dir, "am-burst.yaml")
		b, err := os.ReadFile("../../examples/am-burst.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(wl, append(b, "\n# edited\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := run(t, append(args, "-w", wl, "--shard", "1/3", "-o", other)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		mergeRefusals(t, dir, good, other, wl)
	})
	t.Run("whatif", func(t *testing.T) {
		dir := t.TempDir()
		rec := filepath.Join(dir, "rec.yaml")
		if err := os.WriteFile(rec, []byte(recordedDoc), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"whatif", "-q", "-p", "fifo,fair,drf"}
		good := shardRun(t, filepath.Join(dir, "good"), 3, append(args, "-w", rec)...)
		edited := filepath.Join(dir, "edited.yaml")
		if err := os.WriteFile(edited, []byte(recordedDoc+"\n# edited\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		other := filepath.Join(dir, "other")
		if _, stderr, code := run(t, append(args, "-w", edited, "--shard", "1/3", "-o", other)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		mergeRefusals(t, dir, good, other, edited)
	})
}
