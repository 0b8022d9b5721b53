package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/workload"
)

const smallSWF = "../../trace/testdata/small.swf"

func TestTraceConvert(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.json")
	_, errOut, code := run(t, "trace", "convert", "--from", "swf", smallSWF, "--cores-per-node", "4", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"spindle: warning: left out 2 records with run time <= 0 (unknown or zero)\n",
		"read 12 lines (6 records) from 1 file(s)",
		"cluster: 2 nodes of 4 processor(s) (1 vcore and 1024 MiB each), sized by the header's MaxProcs (8)\n",
		"wrote " + out + ": 3 jobs, 14 tasks, 2 nodes\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	w, err := workload.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 3 || w.Cluster.NumNodes() != 2 {
		t.Errorf("wrote %d jobs on %d nodes", len(w.Jobs), w.Cluster.NumNodes())
	}
	data, _ := os.ReadFile(out)
	if !json.Valid(data) {
		t.Errorf("%s is not JSON", out)
	}
}

func TestSimulateTrace(t *testing.T) {
	out, errOut, code := run(t, "simulate", "--trace", "swf:"+smallSWF+",nodes=3", "-p", "fifo", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if m["jobs_total"] != 3.0 || m["jobs_completed"] != 3.0 || m["nodes"] != 3.0 || m["workload"] != "swf:"+smallSWF+",nodes=3" {
		t.Errorf("summary %v", m)
	}
	if !strings.Contains(errOut, "spindle: warning: left out 2 records with run time <= 0") {
		t.Errorf("stderr: %s", errOut)
	}
}

func TestTraceErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.swf")
	if err := os.WriteFile(bad, []byte("; MaxProcs: 4\n1 0 0 10 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "o.yaml")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"trace", "convert", smallSWF, "-o", out}, 2, "spindle: no format: pass --from FORMAT (alibaba2018, google2011, kube, sls, swf)"},
		{[]string{"trace", "convert", "--from", "pbs", smallSWF, "-o", out}, 2, `spindle: unknown trace format "pbs"`},
		{[]string{"trace", "convert", "--from", "swf", "-o", out}, 2, "spindle: no input"},
		{[]string{"trace", "convert", "--from", "swf", smallSWF}, 2, "spindle: no output file"},
		{[]string{"trace", "convert", "--from", "swf", smallSWF, "--unfinished", "keep", "-o", out}, 2, `unfinished: want drop or truncate, got "keep"`},
		{[]string{"trace"}, 2, "spindle: name a subcommand: convert"},
		{[]string{"trace", "convert", "--from", "swf", bad, "-o", out}, 1, "spindle: " + bad + ":2: wrong field count: got 5, want 18\n(--skip-bad skips malformed records and counts them)"},
		{[]string{"trace", "convert", "--from", "swf", "no/such.swf", "-o", out}, 1, "spindle: trace input: stat no/such.swf: no such file or directory"},
		{[]string{"simulate", "--trace", "swf", "-p", "fifo"}, 2, "spindle: --trace wants FORMAT:INPUT"},
		{[]string{"simulate", "--trace", "swf:" + smallSWF + ",nodes=-1", "-p", "fifo"}, 2, "spindle: nodes: want a whole number"},
		{[]string{"simulate", "--trace", "swf:" + bad, "-p", "fifo"}, 1, "spindle: " + bad + ":2: wrong field count: got 5, want 18"},
	} {
		_, errOut, code := run(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	// --skip-bad needs no value, and turns the error into a warning.
	_, errOut, code := run(t, "trace", "convert", "--from", "swf", bad, "--skip-bad", "-o", out)
	if code != 1 || !strings.Contains(errOut, "spindle: warning: skipped 1 malformed record(s):\n  "+bad+":2: wrong field count") || !strings.Contains(errOut, "no jobs to simulate") {
		t.Errorf("skip-bad: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestTraceConvertKubeDir: a dump directory, with kube record's selection
// flags.
func TestTraceConvertKubeDir(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.json")
	_, errOut, code := run(t, "trace", "convert", "--from", "kube", "../../trace/testdata/kubedumps/cluster-info-dump",
		"-l", "batch.kubernetes.io/job-name=etl", "--scheduler-name", "default-scheduler", "--single-queue", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, s := range []string{"left out 5 files in the directories", "read 12 objects from 5 file(s)", "external load: 2 pods outside --selector",
		"wrote " + out + ": 1 jobs, 2 tasks, 2 nodes"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("stderr lacks %q:\n%s", s, errOut)
		}
	}
}

// volcanoPod is a finished pod of Volcano PodGroup pg-1 in a dump.
func volcanoPod(name string) string {
	return `  - apiVersion: v1
    kind: Pod
    metadata:
      annotations: {scheduling.k8s.io/group-name: pg-1}
      creationTimestamp: "2026-03-01T10:10:00Z"
      name: ` + name + `
      namespace: ml
      resourceVersion: "41"
      uid: uid-` + name + `
    spec:
      containers:
        - {name: main, resources: {requests: {cpu: "1", memory: 1Gi}}}
      nodeName: node-a
      schedulerName: default-scheduler
    status:
      conditions:
        - {lastTransitionTime: "2026-03-01T10:10:01Z", status: "True", type: PodScheduled}
      containerStatuses:
        - name: main
          state: {terminated: {exitCode: 0, startedAt: "2026-03-01T10:10:02Z", finishedAt: "2026-03-01T10:10:32Z"}}
      phase: Succeeded
      startTime: "2026-03-01T10:10:02Z"
`
}

// TestTraceConvertKubePodGroups: a Volcano gang's PodGroup, dumped beside
// its pods in a directory (kubectl get podgroups -A -o yaml >podgroups.yaml;
// services.json is skipped), keeps its minMember and
// queue in the converted workload; a PodGroup naming no pod is counted.
func TestTraceConvertKubePodGroups(t *testing.T) {
	dir := t.TempDir()
	pods := `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Node
    metadata: {name: node-a, uid: uid-node-a}
    status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
` + volcanoPod("w-0") + volcanoPod("w-1") + volcanoPod("w-2")
	groups := `apiVersion: v1
kind: List
items:
  - apiVersion: scheduling.volcano.sh/v1beta1
    kind: PodGroup
    metadata: {namespace: ml, name: pg-1}
    spec: {minMember: 3, queue: root.ml}
  - apiVersion: scheduling.volcano.sh/v1beta1
    kind: PodGroup
    metadata: {namespace: ml, name: pg-idle}
    spec: {minMember: 2}
`
	for name, text := range map[string]string{"pods.yaml": pods, "podgroups.yaml": groups, "services.json": "{}"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "w.yaml")
	_, errOut, code := run(t, "trace", "convert", "--from", "kube", dir, "--scheduler-name", "default-scheduler", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "podgroups: 2 read") || !strings.Contains(errOut, "1 naming no pod") ||
		!strings.Contains(errOut, "read 6 objects from 2 file(s)") {
		t.Errorf("stderr lacks the podgroup counts:\n%s", errOut)
	}
	w, err := workload.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 1 || w.Jobs[0].MinMembers != 3 || w.Jobs[0].Queue != "root.ml" || w.Jobs[0].Tasks() != 3 {
		t.Fatalf("jobs %+v; want one of 3 tasks, min_members 3, queue root.ml", w.Jobs)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "min_members: 3") {
		t.Errorf("the written workload lacks min_members: 3:\n%s", text)
	}
}
