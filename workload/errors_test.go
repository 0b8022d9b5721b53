package workload

import (
	"errors"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
)

// okCluster and okJob are valid fragments for building bad documents around.
const (
	okCluster = "cluster: {nodes: [{vcores: 16, memory_mb: 65536}]}\n"
	okPhase   = "{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 1}"
	okJobs    = "jobs: [{id: a, phases: [" + okPhase + "]}]\n"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, source, doc string
		want              string
	}{
		// Node pools.
		{"node pools", "w.yaml", `version: 1
cluster:
  nodes:
    - {vcores: 8, memory_mb: 8192, labels: {pool: small, "": x}}
    - {vcores: 32, memory_mb: 8192, taints: [{key: dedicated, effect: Sometimes}, {key: "", effect: NoSchedule}]}
jobs:
  - {id: a, node_selector: {pool: small}, phases: [{tasks: 1, request: {vcores: 16, memory_mb: 1}, duration: 1}]}
  - {id: b, node_selector: {pool: big}, phases: [` + okPhase + `]}
  - {id: c, tolerations: [{operator: Equal}, {key: k, operator: Exists, value: v}, {operator: Maybe, effect: Later}], phases: [` + okPhase + `]}
`, `w.yaml:4: cluster.nodes[0].labels: a key must not be empty
w.yaml:5: cluster.nodes[1].taints[0].effect: "Sometimes" is not one of NoSchedule, PreferNoSchedule, NoExecute
w.yaml:5: cluster.nodes[1].taints[1].key: must not be empty
w.yaml:7: jobs[0].phases[0].request: <16 vcores, 1 MiB> fits on no node this job may use (by its node_selector and tolerations: cluster.nodes[0] <8 vcores, 8192 MiB>)
w.yaml:8: jobs[1].node_selector: no node group admits this job (its node_selector must match a group's labels, its tolerations tolerate the group's NoSchedule and NoExecute taints)
w.yaml:9: jobs[2].tolerations[0].key: must not be empty with operator Equal (an empty key with operator Exists tolerates every taint)
w.yaml:9: jobs[2].tolerations[1].value: must be empty with operator Exists
w.yaml:9: jobs[2].tolerations[2].operator: "Maybe" is not Equal or Exists
w.yaml:9: jobs[2].tolerations[2].effect: "Later" is not one of NoSchedule, PreferNoSchedule, NoExecute (or empty: every effect)`},
		{"duplicate selector key", "w.yaml", "version: 1\n" + okCluster + "jobs:\n  - id: a\n    node_selector:\n      pool: small\n      pool: big\n    phases: [" + okPhase + "]\n",
			"w.yaml:7: jobs[0].node_selector.pool: duplicate key (first at line 6)"},
		{"selector value not a string", "w.json", "{\"version\": 1, \"cluster\": {\"nodes\": [{\"vcores\": 1, \"memory_mb\": 1, \"labels\": {\"a\": 1}}]}, " +
			"\"jobs\": [{\"id\": \"a\", \"phases\": [{\"tasks\": 1, \"request\": {\"vcores\": 1, \"memory_mb\": 1}, \"duration\": 1}]}]}",
			"w.json:1: cluster.nodes[0].labels.a: must be a string, got a number"},
		// Gangs.
		{"gang timeout", "w.yaml", "version: 1\n" + okCluster + "jobs:\n" +
			"  - {id: a, min_members: 1, gang_timeout: 0, phases: [" + okPhase + "]}\n" +
			"  - {id: b, gang_timeout: 30s, phases: [" + okPhase + "]}\n" +
			"  - {id: c, min_members: 1, gang_timeout: -5s, phases: [" + okPhase + "]}\n",
			`w.yaml:4: jobs[0].gang_timeout: must be > 0
w.yaml:5: jobs[1].gang_timeout: needs min_members (only a gang has a timeout)
w.yaml:6: jobs[2].gang_timeout: must be > 0`},
		// Structure.
		{"unknown root field", "w.yaml", "version: 1\nfoo: 1\n" + okCluster + okJobs,
			"w.yaml:2: foo: unknown field (want one of version, cluster, queues, jobs)"},
		{"unknown fields at depth", "w.yaml", `version: 1
cluster:
  nodes:
    - {vcores: 1, memory_mb: 1, cpu: 2}
  heartbeat: 1s
jobs:
  - id: a
    phases:
      - tasks: 1
        request: {vcores: 1, mem: 1}
        duration: 1
        durations: [1]
`, `w.yaml:4: cluster.nodes[0].cpu: unknown field (want one of count, vcores, memory_mb, gpus, disk_mb, labels, taints, external)
w.yaml:5: cluster.heartbeat: unknown field (want one of nodes, ideal, timing, node_heartbeat, am_heartbeat, launch_delay, launch_jitter, api_qps, api_burst, external_load, resource_calculator, mapreduce_am)
w.yaml:10: jobs[0].phases[0].request.mem: unknown field (want one of vcores, memory_mb, gpus, disk_mb)
w.yaml:12: jobs[0].phases[0].durations: unknown field (want one of name, tasks, request, duration, start_after, started, unfinished)`},
		{"unknown field json", "w.json", "{\"version\": 1,\n \"jobs\": [{\"id\": \"a\", \"\\u00e9\": {\"deep\": [1, {}]}}]}",
			`w.json:1: cluster: is required
w.json:2: jobs[0]."é": unknown field (want one of id, name, user, submit, queue, priority, min_members, gang_timeout, am, deadline, estimate, node_selector, tolerations, recorded, phases)
w.json:2: jobs[0].phases: is required`},
		{"duplicate key yaml", "w.yaml", "version: 1\n" + okCluster + "jobs:\n  - id: a\n    id: b\n    phases: [" + okPhase + "]\n",
			"w.yaml:5: jobs[0].id: duplicate key (first at line 4)"},
		{"duplicate key json", "w.json", "{\"version\": 1,\n\"version\": 1}",
			`w.json:1: cluster: is required
w.json:1: jobs: is required
w.json:2: version: duplicate key (first at line 1)`},
		{"wrong types", "w.yaml", `version: "1"
cluster:
  nodes: {vcores: 1}
  ideal: yes
jobs:
  - id: 12
    phases:
      - tasks: "3"
        request: [1, 2]
        duration: true
        start_after: null
`, `w.yaml:1: version: must be an integer, got a string
w.yaml:3: cluster.nodes: must be a list, got a mapping
w.yaml:4: cluster.ideal: must be true or false, got a string
w.yaml:6: jobs[0].id: must be a string, got a number
w.yaml:8: jobs[0].phases[0].tasks: must be an integer, got a string
w.yaml:9: jobs[0].phases[0].request: must be a mapping, got a list
w.yaml:10: jobs[0].phases[0].duration: must be a duration ("30s", "1.5m" or a number of seconds), got a boolean
w.yaml:11: jobs[0].phases[0].start_after: must be a number, got null`},
		{"non-integers", "w.json", `{"version": 1.5, "cluster": {"nodes": [{"vcores": 1.0001, "memory_mb": 1e30, "gpus": 0.5}]},
"jobs": [{"id": "a", "phases": [{"tasks": 1e9999, "request": {"vcores": 1}, "duration": 1e20}]}]}`,
			`w.json:1: version: must be an integer
w.json:1: cluster.nodes[0].vcores: must be a multiple of 0.001
w.json:1: cluster.nodes[0].memory_mb: out of range
w.json:1: cluster.nodes[0].gpus: must be an integer
w.json:2: jobs[0].phases[0].tasks: out of range
w.json:2: jobs[0].phases[0].duration: out of range`},
		{"root not a mapping", "w.yaml", "- 1\n", "w.yaml:1: must be a mapping, got a list"},

		// Values.
		{"bad durations", "w.yaml", "version: 1\ncluster: {nodes: [{vcores: 16, memory_mb: 65536}], node_heartbeat: 1x}\n" + `jobs:
  - id: a
    deadline: 0
    estimate: 0s
    phases:
      - tasks: 3
        request: {vcores: 1}
        duration: [1, "NaN", .inf]
`, `w.yaml:2: cluster.node_heartbeat: invalid duration "1x" (want e.g. "30s", "1.5s", "2m" or a number of seconds)
w.yaml:5: jobs[0].deadline: must be > 0
w.yaml:6: jobs[0].estimate: must be > 0
w.yaml:10: jobs[0].phases[0].duration[1]: duration "NaN" out of range
w.yaml:10: jobs[0].phases[0].duration[2]: must be a finite number`},
		{"negative values", "w.yaml", `version: 1
cluster:
  nodes: [{count: 0, vcores: -1, memory_mb: 0, gpus: -1}, {vcores: 16, memory_mb: 65536}]
  node_heartbeat: -1s
  launch_delay: -1
  launch_jitter: 1
jobs:
  - id: a
    submit: -1
    deadline: -5
    am: {vcores: -1}
    phases:
      - tasks: 0
        request: {vcores: 1, memory_mb: -5}
        duration: [1, -2s]
`, `w.yaml:3: cluster.nodes[0].count: must be > 0
w.yaml:3: cluster.nodes[0].vcores: must be > 0
w.yaml:3: cluster.nodes[0].memory_mb: must be > 0
w.yaml:3: cluster.nodes[0].gpus: must be >= 0
w.yaml:4: cluster.node_heartbeat: must be > 0
w.yaml:5: cluster.launch_delay: must be >= 0
w.yaml:6: cluster.launch_jitter: must be in [0, 1)
w.yaml:9: jobs[0].submit: must be >= 0
w.yaml:10: jobs[0].deadline: must be > 0
w.yaml:11: jobs[0].am.vcores: must be >= 0
w.yaml:13: jobs[0].phases[0].tasks: must be > 0
w.yaml:14: jobs[0].phases[0].request.memory_mb: must be >= 0
w.yaml:15: jobs[0].phases[0].duration: must be one duration or a list of 0 (one per task), got a list of 2`},
		{"client limit out of range", "w.yaml", `version: 1
cluster:
  nodes: [{vcores: 16, memory_mb: 65536}]
  timing: kubernetes
  api_qps: -1
  api_burst: 0
` + okJobs, `w.yaml:5: cluster.api_qps: must be in [0, 1e6] (0: no limit)`},
		{"client burst out of range", "w.yaml", `version: 1
cluster:
  nodes: [{vcores: 16, memory_mb: 65536}]
  api_burst: 0
  timing: kubernetes
` + okJobs, `w.yaml:4: cluster.api_burst: must be in [1, 1e6]`},
		{"client limit without kubernetes timing", "w.yaml", "version: 1\ncluster: {nodes: [{vcores: 16, memory_mb: 65536}], api_qps: 10, api_burst: 20}\n" + okJobs,
			`w.yaml:2: cluster.api_qps: needs timing: kubernetes (it limits a Kubernetes scheduler's calls to the apiserver)
w.yaml:2: cluster.api_burst: needs timing: kubernetes (it limits a Kubernetes scheduler's calls to the apiserver)`},
		{"client burst not an integer", "w.yaml", "version: 1\ncluster: {nodes: [{vcores: 16, memory_mb: 65536}], timing: kubernetes, api_burst: 2.5}\n" + okJobs,
			"w.yaml:2: cluster.api_burst: must be an integer"},
		{"negative duration in list", "w.yaml", "version: 1\n" + okCluster + `jobs:
  - id: a
    phases:
      - tasks: 3
        request: {vcores: 1}
        duration:
          - 1
          - 2
          - -3.5
`, "w.yaml:11: jobs[0].phases[0].duration[2]: must be >= 0"},
		{"durations list of wrong length", "w.yaml", "version: 1\n" + okCluster + `jobs:
  - id: a
    phases:
      - {tasks: 3, request: {vcores: 1}, duration: [1, 2]}
      - {tasks: 3, request: {vcores: 1}, duration: [1]}
      - {tasks: 1, request: {vcores: 1}, duration: []}
`, `w.yaml:6: jobs[0].phases[0].duration: must be one duration or a list of 3 (one per task), got a list of 2
w.yaml:7: jobs[0].phases[1].duration: must be one duration or a list of 3 (one per task), got a list of 1
w.yaml:8: jobs[0].phases[2].duration: must be one duration or a list of 1 (one per task), got a list of 0`},
		{"tasks over the cap", "w.yaml", "version: 1\n" + okCluster + "jobs: [{id: a, phases: [{tasks: 100000001, request: {vcores: 1}, duration: 1}]}]\n",
			"w.yaml:3: jobs[0].phases[0].tasks: must be <= 100000000"},

		// References and cross-field rules.
		{"queues", "w.yaml", "version: 1\n" + okCluster + `queues:
  - {name: a, capacity: 0.7}
  - {name: b, capacity: 0.6, max_capacity: 0.5}
  - {name: a, capacity: -0.1}
  - {name: "", capacity: 1.5}
jobs:
  - {id: x, queue: c, phases: [` + okPhase + `]}
  - {id: y, phases: [` + okPhase + `]}
  - {id: x, queue: a, phases: [` + okPhase + `]}
`, `w.yaml:3: queues: capacities sum to 1.3, more than 1
w.yaml:5: queues[1].max_capacity: must be in [capacity, 1] = [0.6, 1]
w.yaml:6: queues[2].name: duplicate name "a" (same as queues[0])
w.yaml:6: queues[2].capacity: must be in [0, 1]
w.yaml:7: queues[3].name: must not be empty
w.yaml:7: queues[3].capacity: must be in [0, 1]
w.yaml:9: jobs[0].queue: unknown queue "c"
w.yaml:10: jobs[1].queue: unknown queue "default"
w.yaml:11: jobs[2].id: duplicate id "x" (same as jobs[0])`},
		{"a queue guaranteed nothing may hold something, not nothing", "w.yaml", "version: 1\n" + okCluster + `queues:
  - {name: a, capacity: 1}
  - {name: b, capacity: 0, max_capacity: 0}
  - {name: c, capacity: 0, disable_preemption: true}
jobs:
  - {id: x, queue: a, phases: [` + okPhase + `]}
`, `w.yaml:5: queues[1].max_capacity: must be > 0: a queue that may hold nothing can run nothing`},
		{"disable_preemption is a boolean", "w.yaml", "version: 1\n" + okCluster + `queues:
  - {name: a, capacity: 1, disable_preemption: yes}
jobs:
  - {id: x, queue: a, phases: [` + okPhase + `]}
`, `w.yaml:4: queues[0].disable_preemption: must be true or false, got a string`},
		{"queue tree", "w.yaml", "version: 1\n" + okCluster + `queues:
  - {name: prod, capacity: 0.6}
  - {name: root.prod.etl, capacity: 0.7}
  - {name: prod.adhoc, capacity: 0.5, weight: -1}
  - {name: dev.x, capacity: 0.2}
  - {name: root, capacity: 0.1}
  - {name: prod..y, capacity: 0.1}
jobs:
  - {id: a, queue: prod, phases: [` + okPhase + `]}
  - {id: b, queue: root.prod.etl, priority: 5, phases: [` + okPhase + `]}
  - {id: c, queue: prod.adhoc, priority: 3000000000, phases: [` + okPhase + `]}
`, `w.yaml:3: queues: the capacities of "prod"'s children sum to 1.2, more than 1
w.yaml:6: queues[2].weight: must be >= 0
w.yaml:7: queues[3].name: parent queue "dev" is not defined
w.yaml:8: queues[4].name: the root queue is implicit: name the queues below it
w.yaml:9: queues[5].name: "prod..y" has an empty path element
w.yaml:11: jobs[0].queue: "prod" is a parent queue; jobs go to leaf queues
w.yaml:13: jobs[2].priority: out of range (a 32-bit integer, as a Kubernetes priority)`},
		{"duplicate job id json", "w.json", `{"version": 1, "cluster": {"nodes": [{"vcores": 16, "memory_mb": 65536}]}, "jobs": [
  {"id": "a", "phases": [{"tasks": 1, "request": {"vcores": 1}, "duration": 1}]},
  {"id": "b", "phases": [{"tasks": 1, "request": {"vcores": 1}, "duration": 1}]},
  {"id": "a", "phases": [{"tasks": 1, "request": {"vcores": 1}, "duration": 1}]}
]}`, `w.json:4: jobs[2].id: duplicate id "a" (same as jobs[0])`},
		{"requests that fit no node", "w.yaml", `version: 1
cluster:
  nodes:
    - {vcores: 4, memory_mb: 8192}
    - {count: 2, vcores: 2, memory_mb: 16384}
jobs:
  - id: a
    am: {vcores: 8, memory_mb: 1}
    phases:
      - tasks: 1
        request: {vcores: 3, memory_mb: 10000}
        duration: 1
      - tasks: 1
        request: {vcores: 1, memory_mb: 1, gpus: 1}
        duration: 1
`, `w.yaml:8: jobs[0].am: <8 vcores, 1 MiB> fits on no node (largest: cluster.nodes[0] <4 vcores, 8192 MiB>)
w.yaml:11: jobs[0].phases[0].request: <3 vcores, 10000 MiB> fits on no node (largest: cluster.nodes[0] <4 vcores, 8192 MiB>)
w.yaml:14: jobs[0].phases[1].request: <1 vcores, 1 MiB, 1 gpus> fits on no node (largest: cluster.nodes[0] <4 vcores, 8192 MiB>)`},
		{"zero request and start_after", "w.yaml", "version: 1\n" + okCluster + `jobs:
  - id: a
    phases:
      - {tasks: 1, request: {vcores: 1}, duration: 1, start_after: 0.5}
      - {tasks: 1, request: {}, duration: 1, start_after: 0}
      - {tasks: 1, request: {vcores: 0, memory_mb: 0}, duration: 1, start_after: 1.5}
`, `w.yaml:6: jobs[0].phases[0].start_after: not allowed on the first phase
w.yaml:7: jobs[0].phases[1].request: must not be all zero
w.yaml:7: jobs[0].phases[1].start_after: must be in (0, 1]
w.yaml:8: jobs[0].phases[2].request: must not be all zero
w.yaml:8: jobs[0].phases[2].start_after: must be in (0, 1]`},
		{"external load", "w.yaml", `version: 1
cluster:
  nodes: [{vcores: 16, memory_mb: 65536}]
  external_load:
    points:
      - [0, 0.1]
      - [10, 1.5]
      - [5, 0.2]
      - [40, 0.1]
    period: 35
` + okJobs, `w.yaml:7: cluster.external_load.points[1][1]: must be in [0, 1]
w.yaml:8: cluster.external_load.points[2][0]: must be after the previous point (10s)
w.yaml:9: cluster.external_load.points[3][0]: must be less than the period (35s)`},
		{"unknown resource calculator", "w.yaml", `version: 1
cluster:
  nodes: [{vcores: 16, memory_mb: 65536}]
  resource_calculator: drf
` + okJobs, `w.yaml:4: cluster.resource_calculator: must be one of memory, dominant, got "drf"`},
		{"mapreduce_am", "w.yaml", `version: 1
cluster:
  nodes: [{vcores: 16, memory_mb: 65536}]
  mapreduce_am: {model: hadoop-3}
` + okJobs, `w.yaml:4: cluster.mapreduce_am.model: must be one of hadoop-2.8, hadoop-2.2, none, got "hadoop-3"`},
		{"mapreduce_am values", "w.yaml", `version: 1
cluster:
  nodes: [{vcores: 16, memory_mb: 65536}]
  mapreduce_am:
    reduce_rampup_limit: 1.5
    reduce_preemption_limit: -0.1
    reducer_preempt_delay: -1s
` + okJobs, `w.yaml:5: cluster.mapreduce_am.reduce_rampup_limit: must be in [0, 1]
w.yaml:6: cluster.mapreduce_am.reduce_preemption_limit: must be in [0, 1]
w.yaml:7: cluster.mapreduce_am.reducer_preempt_delay: must be >= 0`},
		{"external load closing point that differs", "w.yaml", `version: 1
cluster:
  nodes: [{vcores: 16, memory_mb: 65536}]
  external_load:
    points: [[0, 0.1], [10, 0.5], [30, 0.2]]
    period: 30
` + okJobs, `w.yaml:5: cluster.external_load.points[2][0]: a point at the period (30s) closes the cycle and must repeat the point at 0s (0.1); got 0.2`},
		{"external load shape", "w.json", `{"version": 1, "cluster": {"nodes": [{"vcores": 1, "memory_mb": 1}],
  "external_load": {"points": [[0, 0.5], [1], [2, 0.5, 3], 4]}}}`,
			`w.json:1: jobs: is required
w.json:2: cluster.external_load.points[1]: must be a [time, fraction] pair, got 1 elements
w.json:2: cluster.external_load.points[2]: must be a [time, fraction] pair, got 3 elements
w.json:2: cluster.external_load.points[3]: must be a [time, fraction] pair, got a number`},
		{"empty lists", "w.yaml", "version: 1\ncluster:\n  nodes: []\n  external_load: {points: []}\nqueues: []\njobs: []\n",
			`w.yaml:3: cluster.nodes: must not be empty
w.yaml:4: cluster.external_load.points: must not be empty
w.yaml:5: queues: must not be empty
w.yaml:6: jobs: must not be empty`},
		{"empty phases", "w.yaml", "version: 1\n" + okCluster + "jobs: [{id: a, phases: []}]\n",
			"w.yaml:3: jobs[0].phases: must not be empty"},
		{"version missing", "w.yaml", okCluster + okJobs, "w.yaml:1: version: is required"},
		{"version 2", "w.yaml", "version: 2\nclusters: []\n", "w.yaml:1: version: unsupported version 2 (want 1)"},
		{"version 0", "w.json", `{"version": 0, "cluster": {"nodes": [{"vcores": 1, "memory_mb": 1}]}, "jobs": []}`,
			"w.json:1: version: unsupported version 0 (want 1)"},
		{"nothing", "w.yaml", "version: 1\n", "w.yaml:1: cluster: is required\nw.yaml:1: jobs: is required"},

		// Syntax.
		{"empty document", "w.yaml", "  \n# nothing\n", "w.yaml:1: document is empty"},
		{"yaml syntax", "w.yaml", "version: 1\ncluster: [\n", "w.yaml:2: did not find expected node content"},
		{"two yaml documents", "w.yaml", "version: 1\n---\nversion: 1\n", "w.yaml:2: more than one YAML document (only one is allowed)"},
		{"yaml merge key", "w.yaml", "x: &x {vcores: 1}\nversion: 1\ncluster: {nodes: [{<<: *x, memory_mb: 1}]}\n",
			"w.yaml:3: merge keys (<<) are not supported"},
		{"yaml custom tag", "w.yaml", "version: !foo 1\n", "w.yaml:1: unsupported YAML tag !foo"},
		{"yaml alias cycle", "w.yaml", "version: 1\njobs: &j [*j]\n", "w.yaml:2: alias *j refers to a value that contains itself"},
		{"json trailing garbage", "w.json", "{\"version\": 1}\n}", "w.json:2: invalid character '}' after the top-level value"},
		{"json two values", "w.json", "{} {}", "w.json:1: invalid character '{' after the top-level value"},
		{"json bad escape", "w.json", "{\n\"version\": \"\\x\"}", `w.json:2: invalid escape sequence \x in string`},
		{"json short unicode escape", "w.json", "{\"a\": \"\\u12\"}", `w.json:1: invalid \u escape (want four hex digits)`},
		{"json lone high surrogate", "w.json", "{\n\"version\": \"\\ud800x\"}",
			`w.json:2: invalid \u escape: high surrogate \uD800 not followed by a low surrogate`},
		{"json lone low surrogate", "w.json", "{\"a\": \"\\udc00\"}", `w.json:1: invalid \u escape: unpaired low surrogate \uDC00`},
		{"json control character", "w.json", "{\"a\": \"x\ty\"}", `w.json:1: invalid control character '\t' in string (escape it)`},
		{"json invalid utf-8", "w.json", "{\"a\": \"\xff\"}", "w.json:1: invalid UTF-8 in string"},
		{"json deep nesting", "w.json", "{\"version\": 1, \"x\": " + strings.Repeat("[", 100) + "}", "w.json:1: nesting deeper than 64 levels"},
		{"json trailing comma", "w.json", "{\"version\": 1,\n}", "w.json:2: trailing comma before '}'"},
		{"json missing comma", "w.json", "{\"version\": 1 \"cluster\": {}}", `w.json:1: invalid character '"' after mapping value (want ',' or '}')`},
		{"json unquoted key", "w.json", "{version: 1}", "w.json:1: invalid character 'v' looking for a key (keys are double-quoted strings)"},
		{"json missing colon", "w.json", "{\"version\" 1}", "w.json:1: invalid character '1' after key (want ':')"},
		{"json truncated", "w.json", "{\"version\": 1,\n\"jobs\": [", "w.json:2: unexpected end of input"},
		{"json bad literal", "w.json", "{\"cluster\": {\"ideal\": tru}}", "w.json:1: invalid literal (want true, false or null)"},
		{"json bad number", "w.json", "{\"version\": 01}", `w.json:1: invalid character '1' after mapping value (want ',' or '}')`},
		{"json bad fraction", "w.json", "{\"version\": 1.}", `w.json:1: invalid number: want a digit after the decimal point, got '}'`},
		{"json single quotes", "w.json", "{\"version\": 'x'}", `w.json:1: invalid character '\'' looking for the beginning of a value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Parse([]byte(tt.doc), tt.source)
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", w)
			}
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("error is %T, want *Error", err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error mismatch\n got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestAliasBudget checks that aliases cannot make a small document cost
// far more than its size.
func TestAliasBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\n" + okCluster + "x: &d [")
	for i := range 1000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("1")
	}
	b.WriteString("]\njobs:\n")
	b.WriteString("  - &j {id: a, phases: [{tasks: 1000, request: {vcores: 1}, duration: *d}")
	for range 20 {
		b.WriteString(", {tasks: 1000, request: {vcores: 1}, duration: *d, start_after: 1}")
	}
	b.WriteString("]}\n")
	for range 2000 {
		b.WriteString("  - *j\n")
	}
	_, err := Parse([]byte(b.String()), "bomb.yaml")
	if err == nil || !strings.Contains(err.Error(), "aliases expand to too much data") {
		t.Fatalf("err = %v, want the alias budget exceeded", err)
	}
}

func TestErrorTruncation(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\n" + okCluster + "jobs:\n")
	for range 25 {
		b.WriteString("  - {id: a, phases: [" + okPhase + "]}\n")
	}
	_, err := Parse([]byte(b.String()), "w.yaml")
	var perr *Error
	if !errors.As(err, &perr) || len(perr.Issues) != 24 {
		t.Fatalf("err = %v, want 24 issues", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 21 || lines[20] != "... and 4 more" || lines[0] != `w.yaml:5: jobs[1].id: duplicate id "a" (same as jobs[0])` {
		t.Errorf("truncated message:\n%s", err)
	}
}

func TestValidateCodeBuilt(t *testing.T) {
	w := fullWorkload()
	if err := w.Validate(); err != nil {
		t.Fatalf("valid workload: %v", err)
	}
	w.Jobs[0].Phases[0].Durations = w.Jobs[0].Phases[0].Durations[:2]
	w.Jobs[1].Phases = nil
	w.Jobs[1].ID = "wordcount-1"
	w.Jobs[1].Queue = ""
	w.Cluster.ExternalLoad.Points = nil
	w.Queues = append(w.Queues, Queue{Name: "x", Capacity: 0.5})
	w.Version = 0
	want := `version: unsupported version 0 (want 1)
cluster.external_load.points: must not be empty
queues[2].max_capacity: must be in [capacity, 1] = [0.5, 1]
queues: capacities sum to 1.5, more than 1
jobs[0].phases[0].duration: must be one duration or a list of 3 (one per task), got a list of 2
jobs[1].id: duplicate id "wordcount-1" (same as jobs[0])
jobs[1].queue: must not be empty
jobs[1].phases: must not be empty`
	err := w.Validate()
	if err == nil || err.Error() != want {
		t.Errorf("Validate:\n%v\nwant:\n%s", err, want)
	}

	// A zero workload must be reported on, not crash.
	var zero Workload
	if err := zero.Validate(); err == nil {
		t.Error("zero workload validated")
	}
	zero.ApplyDefaults()
	want = `cluster.nodes: must not be empty
jobs: must not be empty`
	if err := zero.Validate(); err == nil || err.Error() != want {
		t.Errorf("zero workload after defaults:\n%v\nwant:\n%s", err, want)
	}
}

func TestApplyDefaults(t *testing.T) {
	w := &Workload{
		Cluster: Cluster{Nodes: []NodeGroup{{Capacity: [4]int64{4000, 8192}}}},
		Jobs: []Job{{ID: "a", Phases: []Phase{
			{Tasks: 1, Request: [4]int64{1000, 1024}, Durations: []clock.Duration{1}},
			{Tasks: 1, Request: [4]int64{1000, 1024}, Durations: []clock.Duration{1}, StartAfter: 0.5},
		}}},
	}
	w.ApplyDefaults()
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	c := w.Cluster
	if w.Version != 1 || c.Nodes[0].Count != 1 || c.NodeHeartbeat != DefaultNodeHeartbeat || c.AMHeartbeat != DefaultAMHeartbeat ||
		c.LaunchDelay != 0 || c.LaunchJitter != 0 || w.Jobs[0].Queue != DefaultQueue || !w.Jobs[0].AM.IsZero() ||
		w.Jobs[0].Phases[0].StartAfter != 1 || w.Jobs[0].Phases[1].StartAfter != 0.5 ||
		len(w.Queues) != 1 || w.Queues[0] != (Queue{Name: DefaultQueue, Capacity: 1, MaxCapacity: 1}) {
		t.Errorf("defaults: %+v", w)
	}
}
