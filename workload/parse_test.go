package workload

import (
	"reflect"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

const minimalYAML = `# the smallest useful workload
version: 1
cluster:
  nodes:
    - {vcores: 8, memory_mb: 16384}
jobs:
  - id: j1
    phases:
      - tasks: 2
        request: {vcores: 1, memory_mb: 1024}
        duration: 30s
`

const fullYAML = `version: 1
cluster:
  nodes:
    - {count: 5, vcores: 20, memory_mb: 163840}
    - {vcores: 0.5, memory_mb: 4096, gpus: 2, disk_mb: 100000}
  ideal: true
  node_heartbeat: 0.5
  am_heartbeat: 2s
  launch_delay: 0
  launch_jitter: 0
  external_load: {points: [[0s, 0.1], [600s, 0.6], [1200, 0.2]], period: 30m}
queues:
  - {name: small, capacity: 0.25, max_capacity: 0.5}
  - {name: default, capacity: 0.75}
jobs:
  - id: wordcount-1
    name: wordcount
    user: alice
    submit: 1.5
    queue: small
    am: {vcores: 0.5, memory_mb: 512}
    deadline: 10m
    estimate: 120
    phases:
      - name: map
        tasks: 3
        request: {vcores: 0.25, memory_mb: 2048, gpus: 1}
        duration: [30s, 1.000001, 2m]
      - name: reduce
        tasks: 1
        request: {vcores: 1, memory_mb: 2048}
        duration: 1h30m
        start_after: 0.8
  - id: "no-am"
    am: {}
    phases:
      - tasks: 1
        request: {disk_mb: 10}
        duration: 0
`

// fullJSON is fullYAML in JSON, spelled differently where JSON allows.
const fullJSON = `{
  "version": 1,
  "cluster": {
    "nodes": [
      {"count": 5, "vcores": 20, "memory_mb": 163840},
      {"vcores": 5e-1, "memory_mb": 4096, "gpus": 2, "disk_mb": 1e5}
    ],
    "ideal": true, "node_heartbeat": "500ms", "am_heartbeat": 2,
    "launch_delay": "0s", "launch_jitter": 0,
    "external_load": {"points": [["0s", 0.1], [600, 0.6], [1200.0, 0.2]], "period": 1800}
  },
  "queues": [
    {"name": "small", "capacity": 0.25, "max_capacity": 0.5},
    {"name": "def\u0061ult", "capacity": 0.75}
  ],
  "jobs": [
    {"id": "wordcount-1", "name": "wordcount", "user": "alice", "submit": "1.5s",
     "queue": "small", "am": {"vcores": 0.5, "memory_mb": 512}, "deadline": 600, "estimate": "2m",
     "phases": [
       {"name": "map", "tasks": 3, "request": {"vcores": 0.25, "memory_mb": 2048, "gpus": 1},
        "duration": [30, "1.000001", 120]},
       {"name": "reduce", "tasks": 1, "request": {"vcores": 1, "memory_mb": 2048},
        "duration": 5400, "start_after": 0.8}
     ]},
    {"id": "no-am", "am": {}, "phases": [{"tasks": 1, "request": {"disk_mb": 10}, "duration": 0}]}
  ]
}`

func fullWorkload() *Workload {
	return &Workload{
		Version: 1,
		Cluster: Cluster{
			Nodes: []NodeGroup{
				{Count: 5, Capacity: resource.New(20, 163840)},
				{Count: 1, Capacity: resource.Vector{500, 4096, 2, 100000}},
			},
			Ideal:         true,
			NodeHeartbeat: 500 * clock.Millisecond,
			AMHeartbeat:   2 * clock.Second,
			LaunchDelay:   0,
			LaunchJitter:  0,
			ExternalLoad: &ExternalLoad{
				Points: []LoadPoint{{0, 0.1}, {600 * clock.Second, 0.6}, {1200 * clock.Second, 0.2}},
				Period: 30 * clock.Minute,
			},
		},
		Queues: []Queue{
			{Name: "small", Capacity: 0.25, MaxCapacity: 0.5},
			{Name: "default", Capacity: 0.75, MaxCapacity: 1},
		},
		Jobs: []Job{
			{
				ID: "wordcount-1", Name: "wordcount", User: "alice", Queue: "small",
				Submit: clock.Time(1500 * clock.Millisecond), AM: resource.Vector{500, 512},
				Deadline: 10 * clock.Minute, Estimate: 2 * clock.Minute,
				Phases: []Phase{
					{
						Name: "map", Tasks: 3, Request: resource.Vector{250, 2048, 1},
						Durations:  []clock.Duration{30 * clock.Second, clock.Second + 1, 2 * clock.Minute},
						StartAfter: 1,
					},
					{
						Name: "reduce", Tasks: 1, Request: resource.New(1, 2048),
						Durations:  []clock.Duration{90 * clock.Minute},
						StartAfter: 0.8,
					},
				},
			},
			{
				ID: "no-am", Queue: "default",
				Phases: []Phase{{Tasks: 1, Request: resource.Vector{resource.Disk: 10}, Durations: []clock.Duration{0}, StartAfter: 1}},
			},
		},
	}
}

func TestParseValid(t *testing.T) {
	minimal := &Workload{
		Version: 1,
		Cluster: Cluster{
			Nodes:         []NodeGroup{{Count: 1, Capacity: resource.New(8, 16384)}},
			NodeHeartbeat: DefaultNodeHeartbeat,
			AMHeartbeat:   DefaultAMHeartbeat,
			LaunchDelay:   DefaultLaunchDelay,
			LaunchJitter:  DefaultLaunchJitter,
		},
		Queues: []Queue{{Name: "default", Capacity: 1, MaxCapacity: 1}},
		Jobs: []Job{{
			ID: "j1", Queue: "default", AM: DefaultAM,
			Phases: []Phase{{
				Tasks: 2, Request: resource.New(1, 1024),
				Durations: []clock.Duration{30 * clock.Second}, StartAfter: 1,
			}},
		}},
	}
	minimalJSON := `{"version": 1, "cluster": {"nodes": [{"vcores": 8, "memory_mb": 16384}]},
		"jobs": [{"id": "j1", "phases": [{"tasks": 2, "request": {"vcores": 1, "memory_mb": 1024}, "duration": "30s"}]}]}`

	tests := []struct {
		name, source, doc string
		want              *Workload
	}{
		{"minimal yaml", "w.yaml", minimalYAML, minimal},
		{"minimal json", "w.json", minimalJSON, minimal},
		{"minimal json with BOM and blank lines", "w.json", "\ufeff\n\n  " + minimalJSON + "\n", minimal},
		{"full yaml", "w.yaml", fullYAML, fullWorkload()},
		{"full json", "w.json", fullJSON, fullWorkload()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.doc), tt.source)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse mismatch\n got: %+v\nwant: %+v", got, tt.want)
			}
		})
	}
}

// TestParseSpellings checks the accepted spellings of scalar values.
func TestParseSpellings(t *testing.T) {
	const head = "version: 1\ncluster: {nodes: [{vcores: 64, memory_mb: 1000000}]}\njobs:\n  - id: a\n    phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1}, duration: "
	tests := []struct {
		dur  string
		want clock.Duration
	}{
		{"30s", 30 * clock.Second},
		{"1.5s", 1500 * clock.Millisecond},
		{"2m", 2 * clock.Minute},
		{"1h30m", 90 * clock.Minute},
		{"30", 30 * clock.Second},
		{"1.5", 1500 * clock.Millisecond},
		{"0.000001", 1},
		{"0.0000004", 0},
		{"0.0000005", 1}, // rounds half away from zero
		{"1e-3", clock.Millisecond},
		{"12.345", 12345 * clock.Millisecond},
		{"4611686018427.387904", 1 << 62}, // the largest, exactly
		{`"90"`, 90 * clock.Second},
		{"'1m'", clock.Minute},
		{"0x10", 16 * clock.Second},
		{"1_000", 1000 * clock.Second},
		{".5", 500 * clock.Millisecond},
		{"250ms", 250 * clock.Millisecond},
	}
	for _, tt := range tests {
		w, err := Parse([]byte(head+tt.dur+"}]\n"), "w.yaml")
		if err != nil {
			t.Errorf("duration %s: %v", tt.dur, err)
			continue
		}
		if got := w.Jobs[0].Phases[0].Durations[0]; got != tt.want {
			t.Errorf("duration %s = %d µs, want %d", tt.dur, got, tt.want)
		}
	}
}

func TestParseAliases(t *testing.T) {
	doc := `version: 1
cluster: {nodes: [{vcores: 4, memory_mb: 4096}]}
jobs:
  - id: a
    phases:
      - &p {tasks: 2, request: &r {vcores: 1, memory_mb: 512}, duration: &d [1, 2]}
  - id: b
    am: *r
    phases: [*p]
`
	w, err := Parse([]byte(doc), "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w.Jobs[0].Phases, w.Jobs[1].Phases) || w.Jobs[1].AM != resource.New(1, 512) {
		t.Errorf("aliases not followed: %+v", w.Jobs)
	}
}
