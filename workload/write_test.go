package workload

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// richWorkload sets every optional field, with values chosen to be awkward
// to write: fractional vcores, microsecond durations, escapes, non-ASCII.
func richWorkload() *Workload {
	w := fullWorkload()
	w.Cluster.LaunchDelay = 1234567
	w.Cluster.LaunchJitter = 0.1
	w.Cluster.NodeHeartbeat = 3 * clock.Second
	w.Cluster.Calculator = resource.DominantCalculator
	w.Cluster.MapReduceAM = MapReduceAM{Model: MRHadoop22, ReduceRampupLimit: 0.25, ReducePreemptionLimit: 1,
		ReducerPreemptDelay: 1500 * clock.Millisecond, ReducerUnconditionalPreemptDelay: -clock.Second}
	w.Cluster.Nodes = append(w.Cluster.Nodes, NodeGroup{Count: 1_000_000, Capacity: resource.Vector{1, 1 << 40, 0, 7}})
	w.Cluster.ExternalLoad.Points[1].Frac = 1.0 / 3
	w.Queues = []Queue{
		{Name: "a \"quoted\" queue\n", Capacity: 0.1, MaxCapacity: 0.3},
		{Name: "default", Capacity: 0.2, MaxCapacity: 1, DisablePreemption: true},
		{Name: "spare", Capacity: 0, MaxCapacity: 0.5},
		{Name: "ünïcødé \u2028 \U0001F600 \x01\x7f\u0085\ufeff", Capacity: 0.7, MaxCapacity: 0.7},
		{Name: "root.a \"quoted\" queue\n.leaf", Capacity: 1, MaxCapacity: 1, Weight: 2.5},
	}
	durs := make([]clock.Duration, 50)
	for i := range durs {
		durs[i] = clock.Duration(i*i*1_000_003 + 1)
	}
	w.Jobs = append(w.Jobs, Job{
		ID: "j\\3\t", Name: "tab\there", User: "bob", Queue: w.Queues[2].Name,
		Submit: clock.Time(maxDuration), AM: resource.Vector{1, 1, 1, 1},
		Deadline: 1, Estimate: maxDuration, Priority: -7, MinMembers: 51,
		Phases: []Phase{
			{Name: "m", Tasks: 50, Request: resource.Vector{1, 0, 0, 1}, Durations: durs, StartAfter: 1},
			{Name: "r", Tasks: 2, Request: resource.Vector{999, 2}, Durations: []clock.Duration{0, 1}, StartAfter: 1e-9},
			{Tasks: 1, Request: resource.Vector{1000}, Durations: []clock.Duration{clock.Second}, StartAfter: 0.5},
		},
	})
	w.Jobs[0].Queue = "default"
	return w
}

func TestRoundTrip(t *testing.T) {
	minimal, err := Parse([]byte(minimalYAML), "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []*Workload{minimal, fullWorkload(), richWorkload()} {
		if err := w.Validate(); err != nil {
			t.Fatalf("test workload invalid: %v", err)
		}
		for _, f := range []Format{YAML, JSON} {
			var buf bytes.Buffer
			if err := Write(&buf, w, f); err != nil {
				t.Fatalf("Write %v: %v", f, err)
			}
			got, err := Parse(buf.Bytes(), "out")
			if err != nil {
				t.Fatalf("Parse of written %v: %v\n%s", f, err, buf.String())
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%v round trip differs\n got: %+v\nwant: %+v\n%s", f, got, w, buf.String())
			}
			var again bytes.Buffer
			if err := Write(&again, got, f); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
				t.Errorf("%v output is not deterministic", f)
			}
		}
	}
}

func TestWriteFormat(t *testing.T) {
	w := fullWorkload()
	w.Jobs = w.Jobs[1:]
	w.Jobs[0].Phases[0].Durations = []clock.Duration{12345000}
	wantYAML := `version: 1
cluster:
  nodes:
    - {count: 5, vcores: 20, memory_mb: 163840}
    - {vcores: 0.5, memory_mb: 4096, gpus: 2, disk_mb: 100000}
  ideal: true
  node_heartbeat: 0.5
  am_heartbeat: 2
  launch_delay: 0
  launch_jitter: 0
  external_load: {points: [[0, 0.1], [600, 0.6], [1200, 0.2]], period: 1800}
queues:
  - {name: "small", capacity: 0.25, max_capacity: 0.5}
  - {name: "default", capacity: 0.75}
jobs:
  - id: "no-am"
    am: {vcores: 0, memory_mb: 0}
    phases:
      - tasks: 1
        request: {vcores: 0, memory_mb: 0, disk_mb: 10}
        duration: 12.345
`
	wantJSON := `{
  "version": 1,
  "cluster": {
    "nodes": [
      {"count": 5, "vcores": 20, "memory_mb": 163840},
      {"vcores": 0.5, "memory_mb": 4096, "gpus": 2, "disk_mb": 100000}
    ],
    "ideal": true,
    "node_heartbeat": 0.5,
    "am_heartbeat": 2,
    "launch_delay": 0,
    "launch_jitter": 0,
    "external_load": {"points": [[0, 0.1], [600, 0.6], [1200, 0.2]], "period": 1800}
  },
  "queues": [
    {"name": "small", "capacity": 0.25, "max_capacity": 0.5},
    {"name": "default", "capacity": 0.75}
  ],
  "jobs": [
    {"id": "no-am", "am": {"vcores": 0, "memory_mb": 0}, "phases": [{"tasks": 1, "request": {"vcores": 0, "memory_mb": 0, "disk_mb": 10}, "duration": 12.345}]}
  ]
}
`
	for f, want := range map[Format]string{YAML: wantYAML, JSON: wantJSON} {
		var buf bytes.Buffer
		if err := Write(&buf, w, f); err != nil {
			t.Fatal(err)
		}
		if buf.String() != want {
			t.Errorf("%v output:\n%s\nwant:\n%s", f, buf.String(), want)
		}
	}
}

func TestFormatSeconds(t *testing.T) {
	for d, want := range map[clock.Duration]string{
		0: "0", 1: "0.000001", 12345000: "12.345", 30 * clock.Second: "30", -1500000: "-1.5",
		1<<63 - 1: "9223372036854.775807", -1 << 63: "-9223372036854.775808",
	} {
		if got := string(formatSeconds(nil, d)); got != want {
			t.Errorf("formatSeconds(%d) = %s, want %s", d, got, want)
		}
	}
}

func TestWriteRejectsNonFinite(t *testing.T) {
	w := fullWorkload()
	w.Queues[0].Capacity = 0
	w.Cluster.LaunchJitter = -1 // invalid but writable
	var buf bytes.Buffer
	if err := Write(&buf, w, JSON); err != nil {
		t.Fatalf("invalid but finite workload: %v", err)
	}
	w.Jobs[0].Phases[1].StartAfter = math.NaN()
	if err := Write(&buf, w, YAML); err == nil {
		t.Error("NaN written without error")
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	w := richWorkload()
	for _, name := range []string{"w.yaml", "w.json", "w.json.gz", "w.yml.gz"} {
		path := filepath.Join(dir, name)
		if err := Save(path, w); err != nil {
			t.Fatalf("Save %s: %v", name, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s not gzipped: %v", name, err)
			}
			var plain bytes.Buffer
			if _, err := plain.ReadFrom(zr); err != nil {
				t.Fatal(err)
			}
			data = plain.Bytes()
		}
		if isJSON := data[0] == '{'; isJSON != strings.Contains(name, ".json") {
			t.Errorf("%s: wrong format:\n%.40s", name, data)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatalf("Load %s: %v", name, err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("Load %s differs", name)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	// Errors name the file.
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nfoo: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad+":2: foo: unknown field") {
		t.Errorf("Load error = %v", err)
	}
	if err := Save(filepath.Join(dir, "missing", "w.yaml"), w); err == nil {
		t.Error("Save into a missing directory succeeded")
	}
}

// TestRoundTripNodePools: node pools survive writing in both formats.
func TestRoundTripNodePools(t *testing.T) {
	w, err := Load("../examples/node-pools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w.Jobs[0].Tolerations = []Toleration{{Key: "k", Operator: OpEqual, Value: "v", Effect: EffectNoExecute}, {Operator: OpExists}}
	for _, f := range []Format{YAML, JSON} {
		var b bytes.Buffer
		if err := Write(&b, w, f); err != nil {
			t.Fatal(err)
		}
		got, err := Parse(b.Bytes(), "out")
		if err != nil {
			t.Fatalf("%v: %v\n%s", f, err, b.String())
		}
		if !reflect.DeepEqual(got.Cluster.Nodes, w.Cluster.Nodes) || !reflect.DeepEqual(got.Jobs, w.Jobs) {
			t.Errorf("%v: round trip changed the pools:\n%s", f, b.String())
		}
	}
}
