package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/shard/kubejob"
)

// podFS gives a pod's view of the manifests' volumes on the test's disk:
// the ConfigMap's files (if any) in dir/workload, the claim in
// dir/results, and the replacer that maps the pod's paths onto them.
func podFS(t *testing.T, dir string, cm *corev1.ConfigMap) (wdir, rdir string, mount *strings.Replacer) {
	t.Helper()
	wdir, rdir = filepath.Join(dir, "workload"), filepath.Join(dir, "results")
	for _, d := range []string{wdir, rdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if cm != nil {
		for k, v := range cm.Data {
			if err := os.WriteFile(filepath.Join(wdir, k), []byte(v), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for k, v := range cm.BinaryData {
			if err := os.WriteFile(filepath.Join(wdir, k), v, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return wdir, rdir, strings.NewReplacer(kubejob.WorkloadDir, wdir, kubejob.ResultsDir, rdir)
}

// runJob prints the manifests of 'kube sweep ARGS' and its merge Job, runs
// every index's command the way its pod would (in this process: kwok runs
// no containers and the commands are spindle's own), then the merge's, and
// returns the merge's output path on disk and the pod's view.
func runJob(t *testing.T, dir string, args ...string) (merged, wdir string, mount *strings.Replacer) {
	t.Helper()
	stdout, stderr, code := run(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	margs := append([]string{}, args...)
	if i := slices.Index(margs, "--"); i >= 0 {
		margs = slices.Insert(margs, i, "--merge")
	} else {
		margs = append(margs, "--merge")
	}
	mstdout, stderr, code := run(t, margs...)
	if code != 0 {
		t.Fatalf("--merge: exit %d: %s", code, stderr)
	}
	var cm *corev1.ConfigMap
	var job *batchv1.Job
	for _, o := range decodeManifests(t, []byte(stdout)) {
		switch o := o.(type) {
		case *corev1.ConfigMap:
			cm = o
		case *batchv1.Job:
			job = o
		}
	}
	if job == nil {
		t.Fatalf("no Job in\n%s", stdout)
	}
	wdir, _, mount = podFS(t, dir, cm)
	for i := range int(*job.Spec.Completions) {
		var a []string
		for _, x := range job.Spec.Template.Spec.Containers[0].Args {
			a = append(a, mount.Replace(strings.ReplaceAll(x, "$("+kubejob.IndexVar+")", strconv.Itoa(i))))
		}
		if _, stderr, code := run(t, a...); code != 0 {
			t.Fatalf("shard %d: %v: exit %d: %s", i, a, code, stderr)
		}
	}
	mj := decodeManifests(t, []byte(mstdout))[0].(*batchv1.Job)
	var ma []string
	for _, x := range mj.Spec.Template.Spec.Containers[0].Args {
		ma = append(ma, mount.Replace(x))
	}
	if _, stderr, code := run(t, ma...); code != 0 {
		t.Fatalf("merge %v: exit %d: %s", ma, code, stderr)
	}
	return ma[2], wdir, mount
}

// 'kube sweep -- COMMAND ...' runs any command that takes --shard: its
// shards, run as the Job's pods would run them and merged as the merge Job
// would, write what one run of the command writes. The compare workload is
// over a ConfigMap's 1 MiB and goes gzipped.
func TestKubeSweepEveryCommand(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if _, stderr, code := run(t, "generate", "synthetic", "--jobs", "2000", "--seed", "4", "-o", big); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	if st, err := os.Stat(big); err != nil || st.Size() <= kubejob.MaxConfigMap {
		t.Fatalf("the workload is not over a ConfigMap's limit: %v %v", st, err)
	}
	rec := filepath.Join(dir, "rec.yaml")
	if err := os.WriteFile(rec, []byte(recordedDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	kube := []string{"kube", "sweep", "--shards", "3", "--image", "reg/spindle:dev", "--name", "sw"}
	for _, tc := range []struct {
		name string
		cmd  []string // after --, the workload after -w
		wl   string
		file string // the workload's name in the ConfigMap
		// whole is the unsharded run's output under dir/whole-NAME, with
		// the workload at its path in the pods.
		whole func(wl, out string) []string
		tree  bool // the output is a directory (else sweep.json)
	}{
		{"compare", []string{"compare", "-p", "fifo,fair,drf,dress+", "--seed", "2", "-w"}, big, "big.json.gz",
			func(wl, out string) []string {
				return []string{"compare", "-q", "-w", wl, "-p", "fifo,fair,drf,dress+", "--seed", "2", "-o", out}
			}, true},
		{"sweep", []string{"sweep", "-p", "fair:max_am_share=-1", "--static", "0:20:5", "--with", "autoadmin", "-w"}, "../../examples/am-burst.yaml", "am-burst.yaml",
			func(wl, out string) []string {
				return []string{"sweep", "-w", wl, "-p", "fair:max_am_share=-1", "--static", "0:20:5", "--with", "autoadmin", "-o", out}
			}, false},
		{"whatif", []string{"whatif", "-p", "fifo,fair,drf", "-w"}, rec, "rec.yaml",
			func(wl, out string) []string {
				return []string{"whatif", "-q", "-w", wl, "-p", "fifo,fair,drf", "-o", out}
			}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := filepath.Join(dir, tc.name)
			args := append(append(append([]string{}, kube...), "--"), append(tc.cmd, tc.wl)...)
			merged, wdir, _ := runJob(t, d, args...)
			wl := filepath.Join(wdir, tc.file)
			if _, err := os.Stat(wl); err != nil {
				t.Fatalf("the ConfigMap does not hold %s: %v", tc.file, err)
			}
			whole := filepath.Join(d, "whole")
			if _, stderr, code := run(t, tc.whole(wl, whole)...); code != 0 {
				t.Fatalf("unsharded: exit %d: %s", code, stderr)
			}
			if tc.tree {
				sameTree(t, whole, merged)
				return
			}
			want, err := os.ReadFile(filepath.Join(whole, sweepFile))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(merged, sweepFile))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("merged sweep.json differs from the unsharded one (%v)", err)
			}
		})
	}
	t.Run("experiments", func(t *testing.T) {
		args := append(append([]string{}, kube...), "--", "experiments", "dress", "--seeds", "1")
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		objs := decodeManifests(t, []byte(stdout))
		if len(objs) != 2 {
			t.Fatalf("%d objects, want the claim and the Job (no workload)", len(objs))
		}
		job := objs[1].(*batchv1.Job)
		want := "experiments dress --seeds 1 --shard $(JOB_COMPLETION_INDEX)/3 -o /results/sw/shard-$(JOB_COMPLETION_INDEX)"
		if got := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "); got != want {
			t.Errorf("args\n got %s\nwant %s", got, want)
		}
		if !*experimentsFlag {
			return
		}
		d := filepath.Join(dir, "experiments")
		merged, _, _ := runJob(t, d, args...)
		whole := filepath.Join(d, "whole.md")
		if _, stderr, code := run(t, "experiments", "dress", "--seeds", "1", "-o", whole); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		a, err1 := os.ReadFile(whole)
		b, err2 := os.ReadFile(merged)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) || filepath.Base(merged) != "EXPERIMENTS.md" {
			t.Errorf("merged %s differs from the unsharded section (%v, %v)", merged, err1, err2)
		}
	})
}

// A workload that does not fit a ConfigMap even gzipped is read from the
// claim given with --storage, and the manifests say how to copy it there.
func TestKubeSweepWorkloadOnTheClaim(t *testing.T) {
	dir := t.TempDir()
	// Gzip's magic bytes first, so that it is not gzipped again, and too
	// large for a ConfigMap; the workload is never parsed here.
	noise := make([]byte, kubejob.MaxConfigMap+1)
	for i := range noise {
		noise[i] = byte(i*7919>>3 ^ i*31)
	}
	wl := filepath.Join(dir, "w.json.gz")
	if err := os.WriteFile(wl, append([]byte{0x1f, 0x8b}, noise...), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"kube", "sweep", "--shards", "2", "--image", "i", "--name", "sw", "--", "whatif", "-w", wl, "-p", "fifo"}
	_, stderr, code := run(t, args...)
	if code != 2 || !strings.Contains(stderr, "more than a ConfigMap holds (1 MiB): pass --storage CLAIM") {
		t.Errorf("without --storage: exit %d, %s", code, stderr)
	}
	stdout, stderr, code := run(t, append(args[:8:8], append([]string{"--storage", "shared"}, args[8:]...)...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	objs := decodeManifests(t, []byte(stdout))
	if len(objs) != 1 {
		t.Fatalf("%d objects, want the Job alone", len(objs))
	}
	job := objs[0].(*batchv1.Job)
	if got := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "); !strings.HasPrefix(got, "whatif -w /results/sw/workload/w.json.gz -q -p fifo ") {
		t.Errorf("args %s", got)
	}
	for _, want := range []string{"Copy it there BEFORE applying", `"claimName":"shared"`, "mkdir -p /results/sw/workload",
		"sh -c 'cat > /results/sw/workload/w.json.gz' < " + wl} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the manifests' comments lack %q:\n%s", want, stdout)
		}
	}
}

func TestKubeSweepCommandErrors(t *testing.T) {
	k := []string{"kube", "sweep", "--shards", "2", "--image", "i"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "-w", tiny}, `"simulate" after --: want a command that takes --shard`},
		{[]string{"compare", "-p", "fifo"}, "compare: no workload: pass -w FILE after compare"},
		{[]string{"compare", "-w", tiny, "-p", "fifo", "-o", "x"}, "the Job sets --shard and -o itself"},
		{[]string{"compare", "-w", tiny, "-p", "fifo", "--shard=0/2"}, "the Job sets --shard and -o itself"},
		{[]string{"compare", "--trace", "swf:x.swf", "-p", "fifo"}, "convert the trace to a workload first"},
		{[]string{"compare", "-w", tiny, "--nosuch"}, "compare: unknown flag: --nosuch"},
		{[]string{"experiments", "dress", "--print"}, "a shard writes only its part"},
		{[]string{"experiments", "nosuch"}, `unknown experiment "nosuch"`},
		{[]string{"experiments", "traces"}, "reads the NASA iPSC log ($SPINDLE_NASA_SWF), which the image does not carry"},
		{[]string{"experiments"}, "experiments: accepts 1 arg(s)"},
		{[]string{"experiments", "dress", "-w", tiny}, "experiments generate their own workloads"},
		{[]string{"whatif", "-w"}, "whatif -w: no file after it"},
	} {
		a := append(append(append([]string{}, k...), "--"), tc.args...)
		_, stderr, code := run(t, a...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	_, stderr, code := run(t, append(append([]string{}, k...), "-w", tiny, "--", "compare", "-w", tiny)...)
	if code != 2 || !strings.Contains(stderr, "-w, -p, -a and --seed are compare's") {
		t.Errorf("-w and a command: exit %d, %s", code, stderr)
	}
	_, stderr, code = run(t, append(append([]string{}, k...), "compare")...)
	if code != 2 || !strings.Contains(stderr, "the command to shard goes after --") {
		t.Errorf("a command without --: exit %d, %s", code, stderr)
	}
}
