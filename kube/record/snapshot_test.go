package record

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// list renders objects as kubectl get ... -o json does.
func list(t *testing.T, kind string, objs ...any) []byte {
	t.Helper()
	items := make([]json.RawMessage, len(objs))
	for i, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["apiVersion"], m["kind"] = "v1", kind
		items[i], _ = json.Marshal(m)
	}
	b, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "items": items, "kind": "List", "metadata": map[string]string{"resourceVersion": ""}}, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func input(name string, data []byte) Input {
	return Input{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

// sparkSnapshot runs the Spark application of TestRecordSparkApplication on
// the fake and returns its pods' final objects, as a snapshot lists them.
func sparkSnapshot(t *testing.T) []any {
	f, _ := newFake(t, Options{}, node("a", "4", "8Gi"), node("b", "4", "8Gi"), node("c", "8", "16Gi"))
	if err := f.r.Begin(at(0)); err != nil {
		t.Fatal(err)
	}
	f.create(at(0), "kube-system", "agent-a", "100m", "128Mi", daemonset())
	f.life("kube-system/agent-a", "a", 0, 0, never)
	f.create(at(1.0), "spark", "pi-driver", "1", "1408Mi", sparkDriver("spark-1"))
	f.life("spark/pi-driver", "a", 1.2, 1.5, never)
	f.create(at(3.1), "spark", "pi-exec-1", "1", "2432Mi", sparkExec("spark-1", 1))
	f.create(at(3.1), "spark", "pi-exec-2", "1", "2432Mi", sparkExec("spark-1", 2))
	f.life("spark/pi-exec-1", "a", 3.2, 3.6, 13.6)
	f.life("spark/pi-exec-2", "b", 3.2, 3.6, 15.1)
	f.create(at(14.0), "spark", "pi-exec-3", "1", "2432Mi", sparkExec("spark-1", 3))
	f.life("spark/pi-exec-3", "c", 14.1, 14.5, 20.5)
	f.end(at(21.0), "spark/pi-driver", v1.PodSucceeded)
	var out []any
	for _, k := range []string{"kube-system/agent-a", "spark/pi-driver", "spark/pi-exec-1", "spark/pi-exec-2", "spark/pi-exec-3"} {
		out = append(out, f.pod[k])
	}
	return out
}

// The same application from a snapshot: one-second stamps, each settled in
// its second against the pod's other steps (the middle of what is left),
// and the bindings the Scheduled events time (exec 1 and 2 at 3.2):
//
//	driver: created, bound, started 1.5 (all stamped 1), ended 21.5
//	exec 1, 2: created in [3, 3.2): 3.1; bound 3.2 (event); started in
//	  [3.2, 4): 3.6; ended 13.5 and 15.5: 9.9 s and 11.9 s
//	exec 3: created 14.5, after exec 1 ended at 13.5: a second wave with
//	  exec 1 of 2 ended (start_after 0.5); started 14.5, ended 20.5: 6 s
//	daemonset: 0.1 CPU and 128 MiB on a all along: the group of a and b
//	  holds 0.05 CPU and 64 MiB per node.
//
// Times count from the first creation, 1.5.
func TestSnapshot(t *testing.T) {
	pods := sparkSnapshot(t)
	sched := func(name, uid string, at float64) *v1.Event {
		return &v1.Event{ObjectMeta: metav1.ObjectMeta{Name: name + ".1", Namespace: "spark"}, Reason: "Scheduled",
			InvolvedObject: v1.ObjectReference{Kind: "Pod", Namespace: "spark", Name: name, UID: typesUID(uid)},
			EventTime:      metav1.NewMicroTime(t0.Add(sec64(at)))}
	}
	events := list(t, "Event", sched("pi-exec-1", "uid-spark-pi-exec-1", 3.2), sched("pi-exec-2", "uid-spark-pi-exec-2", 3.2),
		sched("gone", "uid-gone", 2))
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(list(t, "Pod", pods...))
	zw.Close()
	w, s, err := Snapshot([]Input{
		input("pods.json.gz", zipped.Bytes()),
		input("events.json", events),
		input("nodes.json", list(t, "Node", node("a", "4", "8Gi"), node("b", "4", "8Gi"), node("c", "8", "16Gi"))),
	}, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := workload.Job{
		ID: "spark/spark-1", Name: "pi", Queue: "spark", User: "spark", Submit: 0,
		AM:       resource.Vector{1000, 1408},
		Recorded: &workload.Recorded{Admitted: 0, AMStarted: 0, Finished: ts(20)},
		Phases: []workload.Phase{
			{Tasks: 2, Request: resource.Vector{1000, 2432}, Durations: []clock.Duration{sec(9.9), sec(11.9)}, StartAfter: 1, Started: []clock.Time{ts(2.1), ts(2.1)}},
			{Tasks: 1, Request: resource.Vector{1000, 2432}, Durations: []clock.Duration{sec(6)}, StartAfter: 0.5, Started: []clock.Time{ts(13)}},
		},
	}
	if len(w.Jobs) != 1 || !reflect.DeepEqual(w.Jobs[0], want) {
		t.Fatalf("jobs %+v\nwant %+v", w.Jobs, want)
	}
	if ext := w.Cluster.Nodes[0].External; len(ext) != 1 || ext[0] != (workload.HeldStep{At: 0, Held: resource.Vector{50, 64}}) {
		t.Errorf("external %+v, want 0.05 CPU and 64 MiB per node from 0", ext)
	}
	text := summaryText(s)
	if !strings.Contains(text, "left out: 1 pods that events name but the pod list lacks") {
		t.Errorf("summary:\n%s", text)
	}
}

func typesUID(s string) types.UID { return types.UID(s) }

func sec64(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func TestSnapshotBadInput(t *testing.T) {
	pods := sparkSnapshot(t)
	good := list(t, "Pod", pods...)
	nodes := input("nodes.json", list(t, "Node", node("a", "4", "8Gi")))
	malformed := bytes.Replace(good, []byte(`"spec": {`), []byte(`"spec": "oops", "x": {`), 1)
	for _, c := range []struct {
		name string
		in   []Input
		want string
	}{
		{"cut short", []Input{input("pods.json", good[:len(good)/2]), nodes}, "pods.json: items["},
		{"not JSON", []Input{input("pods.json", []byte("NAME READY STATUS\nfoo 1/1 Running\n")), nodes}, "pods.json: "},
		{"no nodes and no machine size", []Input{input("pods.json", good)}, "no node list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Snapshot(c.in, SnapshotOptions{})
			var fe *FileError
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one with %q", err, c.want)
			}
			if c.name != "no nodes and no machine size" && !errors.As(err, &fe) {
				t.Errorf("err is %T, want *FileError", err)
			}
		})
	}
	// Another kind is skipped and counted, not an error: a directory or
	// a 'kubectl get all' list holds many.
	if _, s, err := Snapshot([]Input{input("cm.json", list(t, "ConfigMap", map[string]any{"metadata": map[string]string{"name": "x"}})), nodes}, SnapshotOptions{}); err == nil ||
		!strings.Contains(err.Error(), "no job was recorded") || !strings.Contains(summaryText(s), "left out: 1 ConfigMap objects (neither pods, nodes, events nor PodGroups)") {
		t.Errorf("a list of ConfigMaps: %v", err)
	}
	// A malformed item is counted, named and skipped.
	w, s, err := Snapshot([]Input{input("pods.json", malformed), nodes}, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := summaryText(s)
	if !strings.Contains(text, "left out: 1 malformed objects") || !strings.Contains(text, "pods.json: items[") {
		t.Errorf("summary:\n%s", text)
	}
	if len(w.Jobs) != 1 {
		t.Errorf("%d jobs, want the application still", len(w.Jobs))
	}
	// Without a node list, the nodes the pods name, of the given size.
	w, _, err = Snapshot([]Input{input("pods.json", good)}, SnapshotOptions{Machine: resource.Vector{8000, 16384}})
	if err != nil {
		t.Fatal(err)
	}
	if g := w.Cluster.Nodes; len(g) != 1 || g[0].Count != 3 || g[0].Capacity != (resource.Vector{8000, 16384}) {
		t.Errorf("nodes %+v, want the 3 the pods name, of 8 CPU and 16 GiB", g)
	}
	// A single pod's object, as kubectl get pod NAME -o json prints it.
	one, _ := json.Marshal(pods[4])
	var m map[string]any
	json.Unmarshal(one, &m)
	m["kind"], m["apiVersion"] = "Pod", "v1"
	one, _ = json.Marshal(m)
	w, _, err = Snapshot([]Input{input("pod.json", one), nodes}, SnapshotOptions{})
	if err != nil || len(w.Jobs) != 1 || w.Jobs[0].Tasks() != 1 {
		t.Errorf("a single pod: %v, %+v", err, w)
	}
}

func TestSettle(t *testing.T) {
	s := func(sec float64) span { return stampSpan(at(sec)) }
	x := func(sec float64) span { return exactSpan(at(sec)) }
	cases := []struct {
		name string
		in   []span
		want []float64 // -1: not taken
		skew bool
	}{
		{"stamps alone: middles", []span{s(3), s(4), s(5), s(9)}, []float64{3.5, 4.5, 5.5, 9.5}, false},
		{"one second, in order", []span{s(3), s(3), s(3), s(3)}, []float64{3.5, 3.5, 3.5, 3.5}, false},
		{"an exact binding narrows both sides", []span{s(3), x(3.2), s(3), s(13)}, []float64{3.1, 3.2, 3.6, 13.5}, false},
		{"steps not taken are skipped", []span{s(3), {}, s(5), {}}, []float64{3.5, -1, 5.5, -1}, false},
		{"a start stamped a second before its binding is skew", []span{s(5), s(5), s(3), s(9)}, []float64{5, 5, 5, 9.5}, true},
	}
	for _, c := range cases {
		got, skew := settle(c.in)
		for i, w := range c.want {
			if w < 0 {
				if !got[i].IsZero() {
					t.Errorf("%s: step %d at %v, want none", c.name, i, got[i])
				}
				continue
			}
			if d := got[i].Sub(at(w)); d > time.Millisecond || d < -time.Millisecond {
				t.Errorf("%s: step %d at %v, want %v", c.name, i, got[i].Sub(t0).Seconds(), w)
			}
		}
		if skew != c.skew {
			t.Errorf("%s: skew %v, want %v", c.name, skew, c.skew)
		}
	}
}
