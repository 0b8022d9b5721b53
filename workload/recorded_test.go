package workload

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// recordedWorkload uses every field a recording writes.
func recordedWorkload() *Workload {
	sec := clock.Time(clock.Second)
	w := &Workload{
		Version: 1,
		Cluster: Cluster{
			Nodes: []NodeGroup{
				{Count: 3, Capacity: resource.Vector{8000, 32768}, External: []HeldStep{
					{At: 0, Held: resource.Vector{100, 128}},
					{At: 12_500_000, Held: resource.Vector{1100, 2176}},
					{At: 30 * clock.Second},
				}},
				{Count: 1, Capacity: resource.Vector{4000, 16384}},
			},
			Timing:        TimingKubernetes,
			NodeHeartbeat: DefaultNodeHeartbeat, AMHeartbeat: DefaultAMHeartbeat,
			LaunchDelay: 420 * clock.Millisecond, LaunchJitter: 0.5,
			APIQPS: 20.5, APIBurst: 40,
		},
		Queues: []Queue{{Name: "etl", Capacity: 0.5, MaxCapacity: 1}, {Name: "adhoc", Capacity: 0.5, MaxCapacity: 1}},
		Jobs: []Job{
			{ID: "etl/spark-1", Queue: "etl", Submit: 2 * sec, AM: resource.Vector{1000, 1408},
				Recorded: &Recorded{Admitted: 2_100_000, AMStarted: 2_500_000, Finished: 61 * sec},
				Phases: []Phase{
					{Tasks: 2, Request: resource.Vector{1000, 2432}, Durations: []clock.Duration{20 * clock.Second, 21_250_000}, StartAfter: 1,
						Started: []clock.Time{3 * sec, 3_400_000}},
					{Tasks: 3, Request: resource.Vector{1000, 2432}, Durations: []clock.Duration{30 * clock.Second}, StartAfter: 0.5,
						Started: []clock.Time{24 * sec, 24 * sec, 25 * sec}, Unfinished: 1},
				}},
			{ID: "adhoc/job/etl", Queue: "adhoc", Submit: 5 * sec,
				Recorded: &Recorded{Admitted: 5 * sec, AMStarted: -1, Finished: -1},
				Phases:   []Phase{{Tasks: 1, Request: resource.Vector{1, 0}, Durations: []clock.Duration{clock.Second}, StartAfter: 1, Started: []clock.Time{6 * sec}, Unfinished: 1}}},
		},
	}
	return w
}

func TestRecordedRoundTrip(t *testing.T) {
	w := recordedWorkload()
	if err := w.Validate(); err != nil {
		t.Fatalf("test workload invalid: %v", err)
	}
	for _, f := range []Format{YAML, JSON} {
		var buf bytes.Buffer
		if err := Write(&buf, w, f); err != nil {
			t.Fatal(err)
		}
		got, err := Parse(buf.Bytes(), "out")
		if err != nil {
			t.Fatalf("%v: %v\n%s", f, err, buf.String())
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%v round trip differs\n got: %+v\nwant: %+v\n%s", f, got, w, buf.String())
		}
	}
}

// A streamed document holds the same workload as one written whole, with
// its jobs first.
func TestStreamer(t *testing.T) {
	for _, w := range []*Workload{recordedWorkload(), fullWorkload(), richWorkload()} {
		for _, f := range []Format{YAML, JSON} {
			var buf bytes.Buffer
			s, err := NewStreamer(&buf, f)
			if err != nil {
				t.Fatal(err)
			}
			for i := range w.Jobs {
				if err := s.Job(&w.Jobs[i]); err != nil {
					t.Fatal(err)
				}
			}
			if s.Jobs() != len(w.Jobs) {
				t.Errorf("Jobs() = %d, want %d", s.Jobs(), len(w.Jobs))
			}
			if err := s.Close(&w.Cluster, w.Queues); err != nil {
				t.Fatal(err)
			}
			if err := s.Job(&w.Jobs[0]); err == nil {
				t.Error("a job after Close was accepted")
			}
			got, err := Parse(buf.Bytes(), "streamed")
			if err != nil {
				t.Fatalf("%v: %v\n%s", f, err, buf.String())
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%v streamed workload differs\n%s", f, buf.String())
			}
			idx := strings.Index
			if j, c := idx(buf.String(), "jobs"), idx(buf.String(), "cluster"); !(j >= 0 && j < c) {
				t.Errorf("%v: jobs should come before the cluster\n%s", f, buf.String())
			}
		}
	}
}

// A stream with no job is a well-formed document that validation refuses
// for having no jobs, not for its syntax.
func TestStreamerNoJobs(t *testing.T) {
	for _, f := range []Format{YAML, JSON} {
		var buf bytes.Buffer
		s, _ := NewStreamer(&buf, f)
		w := recordedWorkload()
		if err := s.Close(&w.Cluster, w.Queues); err != nil {
			t.Fatal(err)
		}
		_, err := Parse(buf.Bytes(), "empty")
		if err == nil || !strings.Contains(err.Error(), "jobs: must not be empty") {
			t.Errorf("%v: got %v, want jobs: must not be empty\n%s", f, err, buf.String())
		}
	}
}

func TestRecordedErrors(t *testing.T) {
	const cl = "version: 1\ncluster:\n  nodes: [{vcores: 4, memory_mb: 4096%s}]\n%s"
	const job = "jobs: [{id: a, %sphases: [{tasks: 2, request: {vcores: 1, memory_mb: 1}, duration: 1%s}]}]\n"
	doc := func(node, cluster, jobf, phase string) string {
		return strings.Replace(strings.Replace(cl, "%s", node, 1), "%s", cluster, 1) + strings.Replace(strings.Replace(job, "%s", jobf, 1), "%s", phase, 1)
	}
	tests := []struct{ name, doc, want string }{
		{"unknown timing", doc("", "  timing: mesos\n", "", ""), `w.yaml:4: cluster.timing: unknown timing "mesos" (want yarn or kubernetes)`},
		{"kubernetes and ideal", doc("", "  timing: kubernetes\n  ideal: true\n", "", ""), "w.yaml:4: cluster.timing: kubernetes and ideal: true exclude each other (ideal has no launch delay at all)"},
		{"steps out of order", doc(", external: [{at: 5s, vcores: 1}, {at: 5s}]", "", "", ""), "w.yaml:3: cluster.nodes[0].external[1].at: must be after the previous step (5s)"},
		{"held beyond the node", doc(", external: [{at: 0, memory_mb: 5000}]", "", "", ""), "w.yaml:3: cluster.nodes[0].external[0].memory_mb: must be at most the node's 4096 (memory_mb)"},
		{"negative held", doc(", external: [{at: 0, vcores: -1}]", "", "", ""), "w.yaml:3: cluster.nodes[0].external[0].vcores: must be >= 0"},
		{"step without a time", doc(", external: [{vcores: 1}]", "", "", ""), "w.yaml:3: cluster.nodes[0].external[0].at: is required"},
		{"both kinds of external load", doc(", external: [{at: 0}]", "  external_load: {points: [[0s, 0.1]]}\n", "", ""),
			"w.yaml:4: cluster.external_load: a cluster-wide external_load and nodes[0].external exclude each other"},
		{"started of another length", doc("", "", "", ", started: [1]"), "w.yaml:4: jobs[0].phases[0].started: must list one start per task (2), got 1"},
		{"unfinished beyond tasks", doc("", "", "", ", unfinished: 3"), "w.yaml:4: jobs[0].phases[0].unfinished: must be in [0, tasks] = [0, 2]"},
		{"AM started before admitted", doc("", "", "recorded: {admitted: 5, am_started: 4}, ", ""), "w.yaml:4: jobs[0].recorded.am_started: must not be before admitted (5s)"},
		{"finished before submit", doc("", "", "submit: 10, recorded: {finished: 4}, ", ""), "w.yaml:4: jobs[0].recorded.finished: must not be before the job's submit (10s)"},
		{"unknown recorded field", doc("", "", "recorded: {started: 4}, ", ""), "w.yaml:4: jobs[0].recorded.started: unknown field (want one of admitted, am_started, finished)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), "w.yaml")
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse = %v, want an *Error\n%s", err, tt.doc)
			}
			if err.Error() != tt.want {
				t.Errorf("error mismatch\n got: %s\nwant: %s\n%s", err, tt.want, tt.doc)
			}
		})
	}
}

// The scheduler's client limit is read under Kubernetes timing, with
// kube-scheduler's defaults when unset (whichever key comes first), and
// is neither defaulted nor written under YARN timing, where setting it
// is an error (TestParseErrors).
func TestAPILimitKeys(t *testing.T) {
	const nodes = "version: 1\ncluster:\n  nodes: [{vcores: 16, memory_mb: 65536}]\n"
	const jobs = "jobs: [{id: a, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 1}]}]\n"
	for _, c := range []struct {
		name, cluster string
		qps           float64
		burst         int
	}{
		{"kubernetes, unset", "  timing: kubernetes\n", DefaultAPIQPS, DefaultAPIBurst},
		{"kubernetes, both", "  timing: kubernetes\n  api_qps: 20.5\n  api_burst: 40\n", 20.5, 40},
		{"keys before timing", "  api_burst: 7\n  timing: kubernetes\n", DefaultAPIQPS, 7},
		{"no limit", "  timing: kubernetes\n  api_qps: 0\n", 0, DefaultAPIBurst},
		{"yarn, unset", "", 0, 0},
	} {
		w, err := Parse([]byte(nodes+c.cluster+jobs), "w.yaml")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if w.Cluster.APIQPS != c.qps || w.Cluster.APIBurst != c.burst {
			t.Errorf("%s: api_qps %v, api_burst %v; want %v, %v", c.name, w.Cluster.APIQPS, w.Cluster.APIBurst, c.qps, c.burst)
		}
		var b bytes.Buffer
		if err := Write(&b, w, YAML); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out := b.String()
		kube := w.Cluster.Timing == TimingKubernetes
		if wrote := strings.Contains(out, "api_qps"); wrote != (kube && c.qps != DefaultAPIQPS) {
			t.Errorf("%s: api_qps written %v:\n%s", c.name, wrote, out)
		}
		if wrote := strings.Contains(out, "api_burst"); wrote != (kube && c.burst != DefaultAPIBurst) {
			t.Errorf("%s: api_burst written %v:\n%s", c.name, wrote, out)
		}
	}
}
