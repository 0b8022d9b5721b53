package workload

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// bigWorkload builds jobs jobs of one phase with per-task durations, the
// shape of a replayed trace.
func bigWorkload(jobs, tasks int) *Workload {
	rng := rand.New(rand.NewPCG(1, 2))
	w := &Workload{
		Version: 1,
		Cluster: Cluster{Nodes: []NodeGroup{{Count: 100, Capacity: resource.New(32, 262144)}}},
		Jobs:    make([]Job, jobs),
	}
	names := []string{"wordcount", "sort", "grep", "join"}
	for i := range w.Jobs {
		durs := make([]clock.Duration, tasks)
		for k := range durs {
			durs[k] = clock.Duration(1+rng.IntN(3000)) * 100 * clock.Millisecond
		}
		w.Jobs[i] = Job{
			ID:     fmt.Sprintf("job-%06d", i),
			Name:   names[i%len(names)],
			Submit: clock.Time(i) * clock.Time(clock.Second),
			AM:     DefaultAM,
			Phases: []Phase{{Name: "map", Tasks: tasks, Request: resource.New(1, 2048), Durations: durs}},
		}
	}
	w.Cluster.LaunchDelay, w.Cluster.LaunchJitter = DefaultLaunchDelay, DefaultLaunchJitter
	w.ApplyDefaults()
	return w
}

func bigJSON(tb testing.TB) []byte {
	var buf bytes.Buffer
	if err := Write(&buf, bigWorkload(20000, 50), JSON); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func BenchmarkParseJSON(b *testing.B) {
	data := bigJSON(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, "big.json"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseYAML(b *testing.B) {
	var buf bytes.Buffer
	if err := Write(&buf, bigWorkload(2000, 50), YAML); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, "big.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteJSON(b *testing.B) {
	w := bigWorkload(20000, 50)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, w, JSON); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func TestBigJSON(t *testing.T) {
	data := bigJSON(t)
	w, err := Parse(data, "big.json")
	if err != nil {
		t.Fatal(err)
	}
	want := bigWorkload(20000, 50)
	if len(w.Jobs) != 20000 || w.TotalTasks() != 1_000_000 {
		t.Fatalf("parsed %d jobs, %d tasks", len(w.Jobs), w.TotalTasks())
	}
	for i := range w.Jobs {
		if !equalJob(&w.Jobs[i], &want.Jobs[i]) {
			t.Fatalf("job %d differs: %+v", i, w.Jobs[i])
		}
	}
	t.Logf("%d bytes", len(data))
}

func equalJob(a, b *Job) bool {
	if a.ID != b.ID || a.Name != b.Name || a.Submit != b.Submit || len(a.Phases) != len(b.Phases) {
		return false
	}
	for k := range a.Phases {
		pa, pb := a.Phases[k], b.Phases[k]
		if pa.Tasks != pb.Tasks || pa.Request != pb.Request || len(pa.Durations) != len(pb.Durations) {
			return false
		}
		for i := range pa.Durations {
			if pa.Durations[i] != pb.Durations[i] {
				return false
			}
		}
	}
	return true
}
