package observe

import (
	"strings"
	"testing"
	"time"
)

func TestDecisionRingKeepsNewestOldestFirst(t *testing.T) {
	for _, tc := range []struct {
		name      string
		keep, add int
		want      []string
	}{
		{"empty", 3, 0, []string{}},
		{"partial", 3, 2, []string{"p1", "p2"}},
		{"exactly full", 3, 3, []string{"p1", "p2", "p3"}},
		{"wrapped once", 3, 4, []string{"p2", "p3", "p4"}},
		{"wrapped twice", 3, 8, []string{"p6", "p7", "p8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRecorder(Options{Decisions: tc.keep})
			for i := 1; i <= tc.add; i++ {
				r.Decide(Decision{Pod: "p" + string(rune('0'+i))})
			}
			if err := r.Publish(&Snapshot{Time: t0}); err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, d := range r.Latest().Decisions {
				got = append(got, d.Pod)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("decisions = %v, want %v", got, tc.want)
			}
		})
	}
}

// A published snapshot is shared with readers: later Decide and Publish
// calls must not change what an earlier snapshot holds.
func TestPublishedSnapshotIsImmutable(t *testing.T) {
	r := NewRecorder(Options{Decisions: 2, UtilPoints: 2, UtilEvery: time.Second})
	r.Decide(Decision{Pod: "a"})
	r.Decide(Decision{Pod: "b"})
	if err := r.Publish(&Snapshot{Time: t0}); err != nil {
		t.Fatal(err)
	}
	first := r.Latest()
	r.Decide(Decision{Pod: "c"})
	for i := 1; i <= 3; i++ {
		if err := r.Publish(&Snapshot{Time: t0.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	if first.Decisions[0].Pod != "a" || first.Decisions[1].Pod != "b" || len(first.Utilization) != 1 || !first.Utilization[0].Time.Equal(t0) {
		t.Fatalf("first snapshot changed after later publishes: %+v %+v", first.Decisions, first.Utilization)
	}
	last := r.Latest()
	if last.Decisions[0].Pod != "b" || last.Decisions[1].Pod != "c" {
		t.Fatalf("last decisions = %+v, want b, c", last.Decisions)
	}
	if len(last.Utilization) != 2 || !last.Utilization[1].Time.Equal(t0.Add(3*time.Second)) {
		t.Fatalf("last utilization = %+v, want the two newest samples", last.Utilization)
	}
	if first.Seq != 1 || last.Seq != 4 {
		t.Fatalf("seq = %d, %d; want 1, 4", first.Seq, last.Seq)
	}
}

func TestUtilizationSampling(t *testing.T) {
	node := func(capCPU, extCPU, allocCPU int64) NodeStatus {
		return NodeStatus{Capacity: Resources{MilliCPU: capCPU, MemoryMiB: 1000}, External: Resources{MilliCPU: extCPU},
			Allocated: Resources{MilliCPU: allocCPU, MemoryMiB: 250}}
	}
	r := NewRecorder(Options{UtilEvery: 10 * time.Second})
	// Usable CPU: (4000-1000)+(2000-0) = 5000; allocated 1500+1000 = 2500.
	// Memory usable 2000, allocated 500.
	nodes := []NodeStatus{node(4000, 1000, 1500), node(2000, 0, 1000)}
	queues := []QueueStatus{{PendingPods: 2, RunningPods: 4}, {PendingPods: 1}}
	for _, sec := range []int{0, 3, 9, 10, 25} {
		if err := r.Publish(&Snapshot{Time: t0.Add(time.Duration(sec) * time.Second), Nodes: nodes, Queues: queues}); err != nil {
			t.Fatal(err)
		}
	}
	u := r.Latest().Utilization
	// Samples at 0 (first), 10 (10s after 0), 25 (15s after 10); 3 and 9 are too close.
	wantSec := []int{0, 10, 25}
	if len(u) != len(wantSec) {
		t.Fatalf("got %d samples %+v, want %d", len(u), u, len(wantSec))
	}
	for i, p := range u {
		if !p.Time.Equal(t0.Add(time.Duration(wantSec[i]) * time.Second)) {
			t.Errorf("sample %d at %v, want +%ds", i, p.Time, wantSec[i])
		}
		if p.CPU != 0.5 || p.Memory != 0.25 || p.PendingPods != 3 || p.RunningPods != 4 {
			t.Errorf("sample %d = %+v, want cpu 0.5 memory 0.25 pending 3 running 4", i, p)
		}
	}
}

func TestUtilizationOfEmptyClusterIsZero(t *testing.T) {
	if p := utilization(&Snapshot{}); p.CPU != 0 || p.Memory != 0 {
		t.Fatalf("utilization of no nodes = %+v, want 0", p)
	}
}

func TestPublishRejectsBadGaugeName(t *testing.T) {
	r := NewRecorder(Options{})
	for _, name := range []string{"dress δ", "Delta", "1x", ""} {
		err := r.Publish(&Snapshot{Gauges: map[string]float64{name: 1}})
		if err == nil || !strings.Contains(err.Error(), "gauge") {
			t.Errorf("gauge %q: err = %v, want an error naming the gauge", name, err)
		}
	}
	if r.Latest() != nil {
		t.Fatal("a rejected snapshot was published")
	}
}

func TestReady(t *testing.T) {
	for _, tc := range []struct {
		role   Role
		synced bool
		want   bool
	}{
		{RoleSolo, false, false},
		{RoleSolo, true, true},
		{RoleLeader, false, false},
		{RoleLeader, true, true},
		{RoleStandby, false, true},
		{RoleStandby, true, true},
	} {
		r := NewRecorder(Options{})
		r.SetRole(tc.role)
		r.SetSynced(tc.synced)
		if got, why := r.Ready(); got != tc.want || why == "" {
			t.Errorf("role %s synced %v: Ready = %v %q, want %v with a reason", tc.role, tc.synced, got, why, tc.want)
		}
	}
}
