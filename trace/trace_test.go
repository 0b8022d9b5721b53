package trace

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/workload"
)

// yamlOf converts and renders the workload as YAML, the exact form a user
// gets from 'trace convert'.
func yamlOf(t *testing.T, format string, inputs []string, opt Options) (string, *Report) {
	t.Helper()
	w, rep, err := Convert(format, inputs, opt)
	if err != nil {
		t.Fatalf("Convert(%s, %v): %v", format, inputs, err)
	}
	var buf bytes.Buffer
	if err := workload.Write(&buf, w, workload.YAML); err != nil {
		t.Fatal(err)
	}
	back, err := workload.Parse(buf.Bytes(), "converted.yaml")
	if err != nil {
		t.Fatalf("the converted workload does not parse back: %v\n%s", err, buf.Bytes())
	}
	if !reflect.DeepEqual(back, w) {
		t.Fatalf("the converted workload changes when written and read back")
	}
	return buf.String(), rep
}

func td(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join("testdata", n)
	}
	return out
}

func skipped(rep *Report) map[string]int64 {
	m := map[string]int64{}
	for _, s := range rep.Skipped {
		m[s.Reason] = s.N
	}
	return m
}

// The expected documents below were worked out by hand from the test
// files, following docs/traces.md; the comments say how.

// small.swf: MaxProcs 8 over MaxNodes 4 gives 4 nodes of 2 processors;
// job 2 has no allocated count and takes its requested 2; jobs 3 and 4
// have no run time and job 6 no processor count.
const swfWant = `version: 1
cluster:
  nodes:
    - {count: 4, vcores: 2, memory_mb: 2048}
jobs:
  - id: "1"
    name: "app-7"
    user: "3"
    am: {vcores: 0, memory_mb: 0}
    estimate: 200
    phases:
      - tasks: 4
        request: {vcores: 1, memory_mb: 1024}
        duration: 100
  - id: "2"
    user: "3"
    submit: 10
    am: {vcores: 0, memory_mb: 0}
    phases:
      - tasks: 2
        request: {vcores: 1, memory_mb: 1024}
        duration: 50
  - id: "5"
    name: "app-9"
    user: "4"
    submit: 25
    am: {vcores: 0, memory_mb: 0}
    estimate: 60
    phases:
      - tasks: 8
        request: {vcores: 1, memory_mb: 1024}
        duration: 12.5
`

func TestSWF(t *testing.T) {
	got, rep := yamlOf(t, "swf", td("small.swf"), Options{})
	if got != swfWant {
		t.Errorf("got:\n%s\nwant:\n%s", got, swfWant)
	}
	want := map[string]int64{"records with run time <= 0 (unknown or zero)": 2, "records with no processor count": 1}
	if s := skipped(rep); !reflect.DeepEqual(s, want) {
		t.Errorf("skipped %v, want %v", s, want)
	}
	if rep.Lines != 12 || rep.Records != 6 || rep.Jobs != 3 || rep.Tasks != 14 || rep.Nodes != 4 {
		t.Errorf("report %+v", rep)
	}
}

func TestSWFOptions(t *testing.T) {
	w, _, err := Convert("swf", td("small.swf"), Options{CoresPerNode: 4, MemoryPerProc: 512})
	if err != nil {
		t.Fatal(err)
	}
	// 8 processors in nodes of 4: 2 nodes of 4 vcores and 4 x 512 MiB.
	if g := w.Cluster.Nodes; len(g) != 1 || g[0].Count != 2 || g[0].Capacity.String() != "<4 vcores, 2048 MiB>" {
		t.Errorf("cluster %+v", g)
	}
	if r := w.Jobs[0].Phases[0].Request.String(); r != "<1 vcores, 512 MiB>" {
		t.Errorf("request %s", r)
	}
	w, _, err = Convert("swf", td("small.swf"), Options{Nodes: 3, ArrivalScale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if w.Cluster.Nodes[0].Count != 3 {
		t.Errorf("nodes %d, want 3", w.Cluster.Nodes[0].Count)
	}
	var submits []clock.Time
	for _, j := range w.Jobs {
		submits = append(submits, j.Submit)
	}
	if want := []clock.Time{0, 5 * clock.Time(clock.Second), 12_500_000}; !reflect.DeepEqual(submits, want) {
		t.Errorf("scaled submits %v, want %v", submits, want)
	}
}

// google/: job 200's task 0 ran before the trace (SCHEDULE at 0) for 650 s
// and task 1 finishes after the trace window; job 100 (submitted at 590 s
// by job_events) has task 0 run 610-670, task 1 evicted and rescheduled
// at 630 with a doubled CPU request until 700, task 2 killed; job 300 was
// never scheduled; job 400 asks for nothing and gets the smallest
// container. machine_events: one machine of capacity 1 and two of 0.5
// (one removed: machines keep their last capacity), one of unknown size.
const googleWant = `version: 1
cluster:
  nodes:
    - {vcores: 32, memory_mb: 131072}
    - {count: 2, vcores: 16, memory_mb: 65536}
jobs:
  - id: "200"
    user: "bob"
    am: {vcores: 0, memory_mb: 0}
    phases:
      - tasks: 1
        request: {vcores: 2, memory_mb: 4096}
        duration: 650
  - id: "100"
    name: "wordcount"
    user: "alice"
    submit: 590
    am: {vcores: 0, memory_mb: 0}
    phases:
      - tasks: 2
        request: {vcores: 16, memory_mb: 16384}
        duration: [60, 70]
  - id: "400"
    user: "dave"
    submit: 800
    am: {vcores: 0, memory_mb: 0}
    phases:
      - tasks: 1
        request: {vcores: 0.001, memory_mb: 1}
        duration: 0.5
`

var googleFiles = []string{"google/task_events.csv", "google/job_events.csv", "google/machine_events.csv"}

func TestGoogle(t *testing.T) {
	got, rep := yamlOf(t, "google2011", td(googleFiles...), Options{})
	if got != googleWant {
		t.Errorf("got:\n%s\nwant:\n%s", got, googleWant)
	}
	want := map[string]int64{
		"events after the end of the trace window": 1,
		"tasks never scheduled":                    1,
		"tasks whose last run was killed, failed, evicted or lost (unfinished=truncate keeps them)": 1,
		"tasks still running at the end of the trace (unfinished=truncate keeps them)":              1,
		"jobs with no task left":          1,
		"machines with no known capacity": 1,
	}
	if s := skipped(rep); !reflect.DeepEqual(s, want) {
		t.Errorf("skipped %v, want %v", s, want)
	}
}

func TestGoogleOptions(t *testing.T) {
	durs := func(w *workload.Workload) map[string][]clock.Duration {
		m := map[string][]clock.Duration{}
		for _, j := range w.Jobs {
			m[j.ID] = j.Phases[0].Durations
		}
		return m
	}
	s := clock.Duration(clock.Second)
	// Truncated: job 100's killed task ran 615-640; job 200's task 1 runs
	// from 0 to the last event of the trace, 800.5 s.
	w, _, err := Convert("google2011", td(googleFiles...), Options{Unfinished: UnfinishedTruncate})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]clock.Duration{"200": {650 * s, 800*s + s/2}, "100": {60 * s, 70 * s, 25 * s}, "400": {s / 2}}
	if got := durs(w); !reflect.DeepEqual(got, want) {
		t.Errorf("truncated durations %v, want %v", got, want)
	}
	// A window keeps job 100 only; task events alone size the cluster to
	// the peak: tasks of 8 and 16 vcores at once, 24 of a 32-vcore machine.
	w, rep, err := Convert("google2011", td("google/task_events.csv", "google/job_events.csv"), Options{Begin: 100 * s, End: 800 * s})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 1 || w.Jobs[0].ID != "100" || w.Jobs[0].Submit != 0 {
		t.Errorf("window kept %+v", w.Jobs)
	}
	if g := w.Cluster.Nodes; len(g) != 1 || g[0].Count != 1 || g[0].Capacity.String() != "<32 vcores, 131072 MiB>" {
		t.Errorf("peak-sized cluster %+v", g)
	}
	if sk := skipped(rep); sk["jobs submitted before begin"] != 1 || sk["task events of jobs first seen at or after end"] != 3 {
		t.Errorf("window counts %v", sk)
	}
	// machine_events with no usable capacity: sized to the peak instead.
	te, _ := os.ReadFile("testdata/google/task_events.csv")
	w, rep, err = convertSources("google2011", []source{bytesSource("task_events.csv", te), bytesSource("machine_events.csv", []byte("0,1,0,p,,\n"))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Cluster.NumNodes() != 1 || !strings.Contains(strings.Join(rep.Notes, "\n"), "as machine_events gave no machine a known capacity") {
		t.Errorf("fallback cluster %+v, notes %q", w.Cluster.Nodes, rep.Notes)
	}
}

// Sharded and gzipped inputs read the same as the plain file: the task
// events split into two gzipped part-* shards in a task_events directory.
func TestGoogleShards(t *testing.T) {
	data, err := os.ReadFile("testdata/google/task_events.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	dir := filepath.Join(t.TempDir(), "task_events")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	half := len(lines) / 2
	for i, part := range []string{strings.Join(lines[:half], ""), strings.Join(lines[half:], "")} {
		writeGzip(t, filepath.Join(dir, []string{"part-00000-of-00002.csv.gz", "part-00001-of-00002.csv.gz"}[i]), part)
	}
	// Files that are not shards are passed over.
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("not a shard"), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := append([]string{dir}, td("google/job_events.csv", "google/machine_events.csv")...)
	got, _ := yamlOf(t, "google2011", inputs, Options{})
	if got != googleWant {
		t.Errorf("sharded input gave:\n%s", got)
	}
	// A gzipped file is recognised by its contents, whatever its name.
	plain := filepath.Join(t.TempDir(), "log.swf")
	swf, _ := os.ReadFile("testdata/small.swf")
	writeGzip(t, plain, string(swf))
	if got, _ := yamlOf(t, "swf", []string{plain}, Options{}); got != swfWant {
		t.Errorf("gzipped swf gave:\n%s", got)
	}
}

func writeGzip(t *testing.T, path, s string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// alibaba/: j_1 is a DAG (M1; R2 and M3 after 1; J4 after 2 and 3), run in
// topological order, lower numbers first; M3's first run is superseded by
// its second. j_2's tasks have no DAG names and become a job each;
// task_def's only instance failed and ins_8 is still running, so both
// are dropped. j_3's M2 depends on a task 9 the trace does not have. The
// first submit, j_2 at 50 s, moves to 0.
const alibabaWant = `version: 1
cluster:
  nodes:
    - {vcores: 96, memory_mb: 524288}
jobs:
  - id: "j_2/task_abc=="
    am: {vcores: 0, memory_mb: 0}
    phases:
      - name: "task_abc=="
        tasks: 2
        request: {vcores: 1, memory_mb: 2621}
        duration: [10, 20]
  - id: "j_1"
    name: "M1 R2_1 M3_1 J4_2_3"
    submit: 50
    am: {vcores: 0, memory_mb: 0}
    phases:
      - name: "M1"
        tasks: 2
        request: {vcores: 1, memory_mb: 2621}
        duration: [50, 59]
      - name: "R2_1"
        tasks: 1
        request: {vcores: 2, memory_mb: 5243}
        duration: 40
      - name: "M3_1"
        tasks: 1
        request: {vcores: 0.5, memory_mb: 1311}
        duration: 10
      - name: "J4_2_3"
        tasks: 1
        request: {vcores: 1, memory_mb: 2621}
        duration: 30
  - id: "j_3"
    name: "M1 M2_1_9"
    submit: 250
    am: {vcores: 0, memory_mb: 0}
    phases:
      - name: "M1"
        tasks: 1
        request: {vcores: 1, memory_mb: 2621}
        duration: 10
      - name: "M2_1_9"
        tasks: 1
        request: {vcores: 1, memory_mb: 2621}
        duration: 10
`

func TestAlibaba(t *testing.T) {
	files := td("alibaba/batch_task.csv", "alibaba/batch_instance.csv")
	got, rep := yamlOf(t, "alibaba2018", files, Options{})
	if got != alibabaWant {
		t.Errorf("got:\n%s\nwant:\n%s", got, alibabaWant)
	}
	want := map[string]int64{
		"instance runs superseded by a later run (seq_no < total_seq_no)":            1,
		"instances of tasks missing from batch_task":                                 1,
		"instances that never started":                                               1,
		"tasks with no instance to run":                                              1,
		"dependencies on tasks missing from batch_task (ignored)":                    1,
		"instances or tasks that did not terminate (unfinished=truncate keeps them)": 2,
	}
	if s := skipped(rep); !reflect.DeepEqual(s, want) {
		t.Errorf("skipped %v, want %v", s, want)
	}
	// Truncated: ins_8 runs from 60 s to the trace's last time, 320 s;
	// task_def's failed instance ran 55-90 s.
	w, rep, err := Convert("alibaba2018", files, Options{Unfinished: UnfinishedTruncate})
	if err != nil {
		t.Fatal(err)
	}
	s := clock.Duration(clock.Second)
	if len(w.Jobs) != 4 || w.Jobs[1].ID != "j_2/task_def==" || !reflect.DeepEqual(w.Jobs[0].Phases[0].Durations, []clock.Duration{10 * s, 20 * s, 260 * s}) ||
		!reflect.DeepEqual(w.Jobs[1].Phases[0].Durations, []clock.Duration{35 * s}) {
		t.Errorf("truncated: %+v", w.Jobs[:2])
	}
	// A window: j_1 (100 s) only; j_2 is before it and j_3 after.
	w, rep, err = Convert("alibaba2018", files, Options{Begin: 60 * s, End: 300 * s})
	if err != nil {
		t.Fatal(err)
	}
	if sk := skipped(rep); len(w.Jobs) != 1 || w.Jobs[0].ID != "j_1" || sk["jobs submitted before begin"] != 1 || sk["jobs submitted at or after end"] != 1 {
		t.Errorf("window kept %d jobs, skipped %v", len(w.Jobs), sk)
	}
	// Without batch_instance every instance takes its task's time.
	w, _, err = Convert("alibaba2018", td("alibaba/batch_task.csv"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := w.Jobs[0].Phases[0]; w.Jobs[0].ID != "j_2/task_abc==" || p.Tasks != 3 || !reflect.DeepEqual(p.Durations, []clock.Duration{30 * s}) {
		t.Errorf("task-level: %+v", w.Jobs[0])
	}
}

func TestDAGNames(t *testing.T) {
	for _, c := range []struct {
		name string
		id   int64
		deps []int64
		ok   bool
	}{
		{"M1", 1, []int64{}, true},
		{"R4_2", 4, []int64{2}, true},
		{"M5_3_4", 5, []int64{3, 4}, true},
		{"J12_10_11", 12, []int64{10, 11}, true},
		{"task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw==", 0, nil, false},
		{"MergeTask", 0, nil, false},
		{"M", 0, nil, false},
		{"7", 0, nil, false},
		{"M1__2", 0, nil, false},
		{"M1_x", 0, nil, false},
	} {
		id, deps, ok := dagName(c.name)
		if ok != c.ok || ok && (id != c.id || !reflect.DeepEqual(deps, c.deps)) {
			t.Errorf("dagName(%q) = %d, %v, %v; want %d, %v, %v", c.name, id, deps, ok, c.id, c.deps, c.ok)
		}
	}
}

// sls/jobs.json: job a has two maps (3 s from start/end, 4 s explicit; the
// second asks 2 GiB, so the phase does) and two reduces of 2.5 s; job b
// runs twice (job.count 2) with its own AM size. Hosts n1 and n2 make two
// nodes; two queues share the cluster equally.
const slsWant = `version: 1
cluster:
  nodes:
    - {count: 2, vcores: 10, memory_mb: 10240}
queues:
  - {name: "q1", capacity: 0.5}
  - {name: "q2", capacity: 0.5}
jobs:
  - id: "a"
    user: "u"
    queue: "q1"
    phases:
      - name: "map"
        tasks: 2
        request: {vcores: 1, memory_mb: 2048}
        duration: [3, 4]
      - name: "reduce"
        tasks: 2
        request: {vcores: 1, memory_mb: 1024}
        duration: 2.5
  - id: "b-1"
    submit: 2
    queue: "q2"
    am: {vcores: 2, memory_mb: 512}
    phases:
      - name: "map"
        tasks: 1
        request: {vcores: 2, memory_mb: 1024}
        duration: 1.5
  - id: "b-2"
    submit: 2
    queue: "q2"
    am: {vcores: 2, memory_mb: 512}
    phases:
      - name: "map"
        tasks: 1
        request: {vcores: 2, memory_mb: 1024}
        duration: 1.5
`

// sls/rumen.json: the second map's last attempt (12.5 s) counts; maps use
// jobMapMB, reduces the default 1 GiB (jobReduceMB is -1); three hosts.
const rumenWant = `version: 1
cluster:
  nodes:
    - {count: 3, vcores: 10, memory_mb: 10240}
queues:
  - {name: "batch", capacity: 1}
jobs:
  - id: "job_1_0001"
    name: "TeraSort"
    user: "ann"
    queue: "batch"
    phases:
      - name: "map"
        tasks: 2
        request: {vcores: 1, memory_mb: 1536}
        duration: [10, 12.5]
      - name: "reduce"
        tasks: 1
        request: {vcores: 1, memory_mb: 1024}
        duration: 20
  - id: "job_1_0002"
    name: "TeraGen"
    user: "bo"
    submit: 2
    queue: "batch"
    phases:
      - name: "map"
        tasks: 1
        request: {vcores: 1, memory_mb: 1024}
        duration: 2
`

func TestSLS(t *testing.T) {
	if got, _ := yamlOf(t, "sls", td("sls/jobs.json"), Options{}); got != slsWant {
		t.Errorf("sls got:\n%s\nwant:\n%s", got, slsWant)
	}
	got, rep := yamlOf(t, "sls", td("sls/rumen.json"), Options{})
	if got != rumenWant {
		t.Errorf("rumen got:\n%s\nwant:\n%s", got, rumenWant)
	}
	if s := skipped(rep); s["Rumen setup and cleanup tasks (otherTasks)"] != 1 || rep.Lines != 26 || rep.Records != 2 {
		t.Errorf("skipped %v", s)
	}
	// A JSON list of jobs reads the same as concatenated objects.
	list := `[{"job.id": "x", "job.start.ms": 0, "job.tasks": [{"duration.ms": 10}]},
	          {"job.id": "y", "job.start.ms": 5, "job.tasks": [{"duration.ms": 20}]}]`
	w, _, err := convertSources("sls", []source{bytesSource("list.json", []byte(list))}, Options{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 2 || w.Jobs[1].Submit != 5000 || w.Cluster.Nodes[0].Count != 2 {
		t.Errorf("list: %+v", w)
	}
}

func TestParseSpec(t *testing.T) {
	f, in, opt, err := ParseSpec("swf:a.swf,b.swf.gz,cores-per-node=2,skip-bad=true,./x=1")
	if err != nil {
		t.Fatal(err)
	}
	if f != "swf" || !reflect.DeepEqual(in, []string{"a.swf", "b.swf.gz", "./x=1"}) || opt.CoresPerNode != 2 || !opt.SkipBad {
		t.Errorf("got %q %q %+v", f, in, opt)
	}
	for spec, want := range map[string]string{
		"swf":                       "--trace wants FORMAT:INPUT",
		"nope:a":                    `unknown trace format "nope" (known: alibaba2018, google2011, kube, sls, swf)`,
		"swf:a,nodes=x":             `nodes: want a whole number in [0, 1000000], got "x"`,
		"swf:nodes=3":               `no input`,
		"swf:a,unfinished=keep":     `unfinished: want drop or truncate, got "keep"`,
		"google2011:a,begin=-1":     `begin: must be in`,
		"swf:a,,b":                  `empty input name`,
		"swf:a,arrival-scale=0":     `arrival-scale: want a number in (0, 1e6]`,
		"swf:a,machine-vcores=-2":   `machine-vcores: want a number of vcores`,
		"swf:a,memory-per-proc=1.5": `memory-per-proc: want a whole number of MiB`,
	} {
		if _, _, _, err := ParseSpec(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSpec(%q) = %v, want %q", spec, err, want)
		}
	}
}

// Each malformed record is reported as FILE:LINE: what is wrong.
func TestBadRecords(t *testing.T) {
	swfLine := func(fields string) string { return fields + " 1" + strings.Repeat(" -1", 13) + "\n" }
	te := func(rest string) string { return "1000000," + rest + "\n" }
	for _, c := range []struct {
		format string
		files  map[string]string
		want   string
	}{
		{"swf", map[string]string{"a.swf": "; MaxNodes: 4\n1 0 -1\n"}, "a.swf:2: wrong field count: got 3, want 18"},
		{"swf", map[string]string{"a.swf": swfLine("1 0 -1 abc")}, `a.swf:1: field 4 (run time): not a number: "abc"`},
		{"swf", map[string]string{"a.swf": swfLine("1 -5 -1 10")}, "a.swf:1: field 2 (submit time): negative time -5"},
		{"swf", map[string]string{"a.swf": swfLine("1 0 -1 10") + swfLine("1 0 -1 10")}, "a.swf:2: duplicate job number 1 (first on line 1)"},
		{"swf", map[string]string{"a.swf": swfLine("1.5 0 -1 10")}, `a.swf:1: field 1 (job number): not a whole number: "1.5"`},
		{"swf", map[string]string{"a.swf": swfLine("1 1e300 -1 10")}, `a.swf:1: field 2 (submit time): out of range: "1e300"`},
		{"swf", map[string]string{"a.swf": "; only a header\n"}, "a.swf: no jobs to simulate (1 lines, 0 records read)"},
		{"google2011", map[string]string{"task_events.csv": te(",1,0,,9,u,0,0,0.1,0.1,0,0")}, "task_events.csv:1: field 6 (event type): unknown event type 9 (known: 0 to 8)"},
		{"google2011", map[string]string{"task_events.csv": te(",1,0,,1,u")}, "task_events.csv:1: wrong field count for task_events: got 7, want 13"},
		{"google2011", map[string]string{"task_events.csv": "-5,,1,0,,1,u,0,0,0.1,0.1,0,0\n"}, "task_events.csv:1: field 1 (timestamp): negative time -5"},
		{"google2011", map[string]string{"task_events.csv": te(",x1,0,,1,u,0,0,0.1,0.1,0,0")}, `task_events.csv:1: field 3 (job ID): not a whole number: "x1"`},
		{"google2011", map[string]string{"task_events.csv": te(",1,0,,1,u,0,0,1.5,0.1,0,0")}, "task_events.csv:1: field 10 (CPU request): 1.5 is outside [0, 1] (amounts are normalised to the largest machine)"},
		{"google2011", map[string]string{"task_events.csv": te(",1,0,,1,u,0,0,0.1,abc,0,0")}, `task_events.csv:1: field 11 (memory request): not a number: "abc"`},
		{"google2011", map[string]string{"task_events.csv": te(`,1,0,,1,"u,0,0,0.1,0.1,0,0`)}, `task_events.csv:1: bad quoting: extraneous or missing " in quoted-field`},
		{"google2011", map[string]string{"job_events.csv": "0,,1,0,u,0,n,l\n"}, "google2011: no task_events among the inputs (job_events.csv); the tasks come from task_events"},
		{"google2011", map[string]string{"x.csv": "1,2,3\n"}, "x.csv:1: cannot tell which Google table this is: 3 fields, while task_events has 13, job_events 8 and machine_events 6 (or name the file after its table)"},
		{"google2011", map[string]string{"machine_events.csv": "0,1,7,p,1,1\n", "task_events.csv": te(",1,0,,1,u,0,0,0.1,0.1,0,0")}, "machine_events.csv:1: field 3 (event type): unknown machine event type 7 (known: 0 ADD, 1 REMOVE, 2 UPDATE)"},
		{"alibaba2018", map[string]string{"batch_task.csv": "M1,1,j,1,Terminated,10,5,100,1\n", "batch_instance.csv": "i,M1,j,1,Terminated,10,5,m,1,1,,,,\n"}, "batch_instance.csv:1: end_time 5 before start_time 10"},
		{"alibaba2018", map[string]string{"batch_task.csv": "M1_2,1,j,1,Terminated,1,5,100,1\nM2_1,1,j,1,Terminated,1,5,100,1\n"}, "batch_task.csv:1: job j: task dependencies form a cycle among M1_2, M2_1"},
		{"alibaba2018", map[string]string{"batch_task.csv": "M1,1,j,1,Terminated,1,5,100,1\nR1,1,j,1,Terminated,1,5,100,1\n"}, "batch_task.csv:1: job j: tasks M1 and R1 have the same number 1"},
		{"alibaba2018", map[string]string{"batch_task.csv": "M1,1,j,1,Terminated,1,5,,1\n"}, `batch_task.csv:1: field 8 (plan_cpu): not a CPU amount (100 = 1 core): ""`},
		{"alibaba2018", map[string]string{"batch_task.csv": "M1,1,j,1,Terminated,1,5,100,101\n"}, `batch_task.csv:1: field 9 (plan_mem): not a normalised memory amount in [0, 100]: "101"`},
		{"alibaba2018", map[string]string{"batch_task.csv": "M1,1,j,1,Terminated,-1,5,100,1\n"}, "batch_task.csv:1: field 6 (start_time): negative time -1"},
		{"alibaba2018", map[string]string{"batch_task.csv": "M1,1,j,1,Terminated,1,5,100,1\nM1,1,j,1,Terminated,1,5,100,1\n"}, "batch_task.csv:2: task M1 of job j appears twice (first on line 1)"},
		{"sls", map[string]string{"s.json": "{\"job.id\": \"a\",\n \"job.tasks\": [{\"duration.ms\": 5}]}\n"}, "s.json:1: job.start.ms: missing"},
		{"sls", map[string]string{"s.json": "{\"job.start.ms\": 0,\n \"job.tasks\": [\n {\"duration.ms\": 5},\n {\"container.start.ms\": 9, \"container.end.ms\": 4}]}\n"}, "s.json:4: job.tasks[1]: container.end.ms - container.start.ms: duration must be > 0, got -5 ms"},
		{"sls", map[string]string{"s.json": "{\"job.start.ms\": 0,\n \"job.tasks\": [{\"duration.ms\": 5},\n {\"duration.ms\": \"x\"}]}\n"}, `s.json:3: job.tasks[1]: duration.ms: not a whole number: "x"`},
		{"sls", map[string]string{"s.json": "{\"job.start.ms\": -3, \"job.tasks\": [{\"duration.ms\": 5}]}\n"}, "s.json:1: job.start.ms: negative time -3"},
		{"sls", map[string]string{"s.json": "{\"job.start.ms\": 0,\n \"job.tasks\": [{\"duration.ms\": 5}]\n,}\n"}, "s.json:3: JSON: invalid character '}' looking for beginning of object key string"},
		{"sls", map[string]string{"s.json": "{\"job.start.ms\": 0,\n \"job.tasks\": [{\"duration.ms\": 5}"}, "s.json:2: JSON: unexpected end of input"},
		{"sls", map[string]string{"s.json": "{\"job.start.ms\": 0, \"job.tasks\": [{\"duration.ms\": 5, \"container.memory-mb\": -1}]}"}, "s.json:1: job.tasks[0]: container.memory-mb: must be in [0, 1099511627776]"},
		{"sls", map[string]string{"s.json": "{\"a\": 1}\n"}, "s.json:1: neither an SLS job (job.tasks, job.start.ms, ...) nor a Rumen job (jobID, mapTasks, ...)"},
		{"sls", map[string]string{"s.json": "{\"jobID\": \"j\", \"submitTime\": 1,\n \"mapTasks\": [{\"attempts\": []}]}\n"}, "s.json:2: mapTasks[0]: no attempts"},
		{"sls", map[string]string{"s.json": "{\"job.id\": \"a\", \"job.start.ms\": 0, \"job.tasks\": [{\"duration.ms\": 5}]}\n{\"job.id\": \"a\", \"job.start.ms\": 0, \"job.tasks\": [{\"duration.ms\": 5}]}"}, `s.json:2: duplicate job id "a" (first at s.json:1)`},
	} {
		var srcs []source
		for _, n := range sortedKeys(c.files) {
			srcs = append(srcs, bytesSource(n, []byte(c.files[n])))
		}
		_, _, err := convertSources(c.format, srcs, Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s %v:\n got: %v\nwant: %s", c.format, c.files, err, c.want)
		}
	}
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// With SkipBad malformed records are counted, the first few kept as
// examples, and the rest of the file converts.
func TestSkipBad(t *testing.T) {
	var b strings.Builder
	b.WriteString("; MaxProcs: 4\n")
	for i := 1; i <= 8; i++ {
		if i%2 == 0 {
			b.WriteString("oops\n")
			continue
		}
		b.WriteString(strconv.Itoa(i) + " 0 -1 10 1" + strings.Repeat(" -1", 13) + "\n")
	}
	w, rep, err := convertSources("swf", []source{bytesSource("s.swf", []byte(b.String()))}, Options{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 4 || rep.Bad != 4 || len(rep.BadExamples) != 4 || rep.BadExamples[0] != "s.swf:3: wrong field count: got 1, want 18" {
		t.Errorf("jobs %d, report %+v", len(w.Jobs), rep)
	}
	var out bytes.Buffer
	rep.WriteWarnings(&out, "spindle: ")
	if want := "spindle: warning: skipped 4 malformed record(s):\n  s.swf:3: wrong field count: got 1, want 18\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("warnings:\n%s", out.String())
	}
	// More than maxExamples: the summary says how many are shown.
	rep = &Report{}
	c := &conv{opt: Options{SkipBad: true}, rep: rep}
	for i := range 7 {
		if err := c.bad("f", i+1, "bad"); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	rep.WriteWarnings(&out, "")
	if !strings.HasPrefix(out.String(), "warning: skipped 7 malformed record(s); the first 5:\n  f:1: bad\n") || strings.Count(out.String(), "\n") != 6 {
		t.Errorf("warnings:\n%s", out.String())
	}
}

func TestLongLine(t *testing.T) {
	data := "; MaxProcs: 1\n" + strings.Repeat("x", maxLine+10) + "\n"
	_, _, err := convertSources("swf", []source{bytesSource("l.swf", []byte(data))}, Options{})
	if err == nil || err.Error() != "l.swf:2: line longer than 1048576 bytes" {
		t.Errorf("got %v", err)
	}
}

// The shared samples, when this checkout sits next to them.
func TestSharedSamples(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "traces")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("shared trace samples not present")
	}
	g := filepath.Join(dir, "google2011-sample")
	w, _, err := Convert("google2011", []string{filepath.Join(g, "task-events-sample-1.csv"), filepath.Join(g, "machine-events-sample-1.csv")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Job 2's task 2 failed, so with the default drop job 2 keeps two tasks:
	// 0 evicted at 30 s and rescheduled at 42 s until 60 s (18 s), 1 ran
	// 14-65 s.
	if len(w.Jobs) != 4 || w.Jobs[1].ID != "2" || !reflect.DeepEqual(w.Jobs[1].Phases[0].Durations, []clock.Duration{18_000_000, 51_000_000}) || w.Cluster.NumNodes() != 6 {
		t.Errorf("google sample: %d jobs, job 2 %+v, %d nodes", len(w.Jobs), w.Jobs[1], w.Cluster.NumNodes())
	}
	w, _, err = Convert("sls", []string{filepath.Join(dir, "sls", "inputsls.json")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 2 || w.Jobs[0].Phases[0].Tasks != 3 || w.Jobs[1].Submit != 105_204_000 || len(w.Queues) != 2 {
		t.Errorf("sls sample: %+v", w)
	}
	nasa := filepath.Join(dir, "swf", "NASA-iPSC-1993-3.1-cln.swf.gz")
	w, rep, err := Convert("swf", []string{nasa}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != 18239 || len(w.Jobs) != 18066 || skipped(rep)["records with run time <= 0 (unknown or zero)"] != 173 || w.Cluster.NumNodes() != 128 {
		t.Errorf("NASA: %d records, %d jobs, %v, %d nodes", rep.Records, len(w.Jobs), rep.Skipped, w.Cluster.NumNodes())
	}
}

func TestTableFromName(t *testing.T) {
	tables := []string{"task_events", "job_events", "machine_events"}
	for path, want := range map[string]int{
		"task_events/part-00000-of-00500.csv.gz":      0,
		"data/task_events_notes/job_events.csv":       1,
		"google2011-sample/machine-events-sample.csv": 2,
		"google2011-sample/task-events-sample-1.csv":  0,
		"traces/part-00001-of-00500.csv.gz":           -1,
		"task_events.d/x/part-00001.csv":              -1,
	} {
		if got := tableFromName(path, tables); got != want {
			t.Errorf("tableFromName(%q) = %d, want %d", path, got, want)
		}
	}
}
