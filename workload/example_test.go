package workload_test

import (
	"fmt"
	"os"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/workload"
)

// A workload file in format v1. Durations are Go durations ("30s", "2m") or
// numbers of seconds; vcores may be fractional to a thousandth; every field
// not marked required has a default.
func Example() {
	doc := `
version: 1                               # required
cluster:
  nodes:                                 # required: groups of identical machines
    - {count: 4, vcores: 16, memory_mb: 65536}
  node_heartbeat: 1s                     # YARN-like timing; these are the defaults
  am_heartbeat: 1s
  launch_delay: 1s
  launch_jitter: 0.25
  external_load: {points: [[0, 0.1], [10m, 0.5]], period: 20m}
queues:                                  # default: one queue named "default"
  - {name: default, capacity: 0.75}
  - {name: adhoc, capacity: 0.25, max_capacity: 0.5}
jobs:
  - id: wordcount-1                      # required, unique
    name: wordcount
    submit: 30s                          # after the start of the run
    queue: adhoc
    am: {vcores: 1, memory_mb: 1024}     # the default; {} for no AM container
    deadline: 10m
    phases:
      - name: map
        tasks: 3
        request: {vcores: 0.5, memory_mb: 2048}
        duration: [40s, 45.5, 1m]        # one per task, or a single value
      - name: reduce
        tasks: 1
        request: {vcores: 1, memory_mb: 4096}
        duration: 2m
        start_after: 0.8                 # slow start: after 80% of the maps
`
	w, err := workload.Parse([]byte(doc), "example.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Cluster.NumNodes(), "nodes,", w.Cluster.Capacity())
	j := w.Jobs[0]
	fmt.Println(j.ID, "in", j.Queue, "with", j.Tasks(), "tasks; map 1 takes", j.Phases[0].Duration(1))
	// Output:
	// 4 nodes, <64 vcores, 262144 MiB>
	// wordcount-1 in adhoc with 4 tasks; map 1 takes 45.5s
}

// Problems are reported all at once, each with its file, line and place in
// the schema.
func ExampleParse_errors() {
	doc := `version: 1
cluster:
  nodes: [{vcores: 8, memory_mb: 16384}]
jobs:
  - id: a
    phases:
      - {tasks: 0, request: {vcores: 1, memory_mb: 1024}, duration: 1m}
  - id: a
    queue: etl
    phases:
      - {tasks: 2, request: {vcores: 16, memory_mb: 1024}, duration: [1m, 2m, 3m]}
`
	_, err := workload.Parse([]byte(doc), "w.yaml")
	fmt.Println(err)
	// Output:
	// w.yaml:7: jobs[0].phases[0].tasks: must be > 0
	// w.yaml:8: jobs[1].id: duplicate id "a" (same as jobs[0])
	// w.yaml:9: jobs[1].queue: unknown queue "etl"
	// w.yaml:11: jobs[1].phases[0].request: <16 vcores, 1024 MiB> fits on no node (largest: cluster.nodes[0] <8 vcores, 16384 MiB>)
	// w.yaml:11: jobs[1].phases[0].duration: must be one duration or a list of 2 (one per task), got a list of 3
}

// Generators build workloads in code, fill in defaults and validate before
// writing.
func ExampleWrite() {
	w := &workload.Workload{
		Cluster: workload.Cluster{Nodes: []workload.NodeGroup{{Count: 2, Capacity: [4]int64{8000, 16384}}}},
		Jobs: []workload.Job{{
			ID: "j1",
			Phases: []workload.Phase{{
				Tasks:     2,
				Request:   [4]int64{500, 1024},
				Durations: []clock.Duration{90 * clock.Second},
			}},
		}},
	}
	w.ApplyDefaults()
	if err := w.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	if err := workload.Write(os.Stdout, w, workload.YAML); err != nil {
		fmt.Println(err)
	}
	// Output:
	// version: 1
	// cluster:
	//   nodes:
	//     - {count: 2, vcores: 8, memory_mb: 16384}
	//   launch_delay: 0
	//   launch_jitter: 0
	// jobs:
	//   - id: "j1"
	//     am: {vcores: 0, memory_mb: 0}
	//     phases:
	//       - tasks: 2
	//         request: {vcores: 0.5, memory_mb: 1024}
	//         duration: 90
}
