package sched_test

import (
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/schedtest"
)

// hadoop28 is Hadoop's defaults in the 2.8 allocator.
var hadoop28 = sched.MapReduce{Model: sched.MRHadoop28, RampupLimit: 0.5, PreemptionLimit: 0.5,
	UnconditionalPreemptDelay: 300 * clock.Second}

// mrJob is a MapReduce job: an AM of <1, 1 GB>, maps of mapMB and reduces
// of 2 GB that start once startAfter of the maps have completed.
func mrJob(key string, maps int, mapMB int64, reduces int, startAfter float64) sched.JobSpec {
	return sched.JobSpec{Key: key, AM: resource.New(1, 1024), Phases: []sched.PhaseSpec{
		{Name: "map", Tasks: maps, Request: resource.New(1, mapMB), StartAfter: 1},
		{Name: "reduce", Tasks: reduces, Request: resource.New(1, 2048), StartAfter: startAfter},
	}}
}

func mrHarness(t *testing.T, mr sched.MapReduce) *schedtest.Harness {
	return schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{resource.New(16, 16384)}, Policy: fifoPolicy, MapReduce: mr})
}

// The ramp-up, worked by hand on one node of <32 vcores, 32 GB>: an AM of
// 1 GB, 30 maps of 2 GB, 4 reduces of 2 GB at slow-start 0.1 (3 maps). With
// 10 maps placed and 3 completed, 7 run and 20 wait: the headroom is
// 32768 − 1024 − 7 × 2048 = 17408 MB and the job's resource limit that plus
// its 7 maps, 31744 MB. Reduces may have min(3/30, 0.5) of it, 3174 MB; the
// maps' share, 28570 MB, holds 13 maps, fewer than the 27 they want, so the
// reduces get no more: one reduce of 2 GB is asked for. Once every map has a
// container, every reduce is asked for.
func TestMRRampUp(t *testing.T) {
	for _, tt := range []struct {
		name    string
		mr      sched.MapReduce
		atStart int // reduces asked for at slow-start
	}{
		{"hadoop 2.8", hadoop28, 1},
		{"hadoop 2.2", sched.MapReduce{Model: sched.MRHadoop22, RampupLimit: 0.5, PreemptionLimit: 0.5}, 1},
		{"none: every reduce at once", sched.MapReduce{}, 4},
		{"rampup limit 0: none while maps wait", sched.MapReduce{Model: sched.MRHadoop28, PreemptionLimit: 0.5, UnconditionalPreemptDelay: -1}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := schedtest.New(t, schedtest.Config{Nodes: []resource.Vector{resource.New(32, 32768)}, Policy: fifoPolicy, MapReduce: tt.mr})
			j := h.Submit(mrJob("a", 30, 2048, 4, 0.1))
			h.Place(j, sched.AMPhase, 0)
			var maps []*sched.Container
			for range 10 {
				maps = append(maps, h.Place(j, 0, 0))
			}
			h.Complete(maps[0])
			h.Complete(maps[1])
			if got := j.Asks()[2].Pending; got != 0 {
				t.Fatalf("before slow-start: %d reduces asked for", got)
			}
			h.Complete(maps[2])
			if got := j.Asks()[2].Pending; got != tt.atStart {
				t.Fatalf("at slow-start: %d reduces asked for, want %d", got, tt.atStart)
			}
			maps = maps[3:]
			for j.Asks()[1].Pending > 0 {
				h.Complete(maps[0])
				maps = append(maps[1:], h.Place(j, 0, 0))
			}
			if got := j.Asks()[2].Pending; got != 4 {
				t.Fatalf("every map placed: %d reduces asked for, want 4", got)
			}
		})
	}
}

// preemptSetup brings a job to the state reduce preemption is for: on one
// node of <16 vcores, 16 GB>, an AM of 1 GB, 10 maps of 4 GB, 4 reduces of
// 2 GB at slow-start 0.3. Three maps run and complete; at slow-start the
// headroom is 15360 MB, reduces may have 0.3 of it, 4608 MB: two are asked
// for and placed. Two more maps run and complete, so that no map runs and 5
// wait; the ramp-up asks for a third reduce (0.5 of a limit of 15360 MB,
// less the 4096 the two hold). Then another job's tasks take what is left
// but 1024 MB, or, mapsFit, 7168 MB, which fits a map beside that third
// reduce.
func preemptSetup(t *testing.T, mr sched.MapReduce, mapsFit bool) (*schedtest.Harness, *sched.Job, []*sched.Container) {
	h := mrHarness(t, mr)
	j := h.Submit(mrJob("a", 10, 4096, 4, 0.3))
	h.Place(j, sched.AMPhase, 0)
	for range 3 {
		h.Complete(h.Place(j, 0, 0))
	}
	if got := j.Asks()[2].Pending; got != 2 {
		t.Fatalf("at slow-start %d reduces asked for, want 2", got)
	}
	reduces := []*sched.Container{h.Place(j, 1, 0), h.Place(j, 1, 0)}
	m1, m2 := h.Place(j, 0, 0), h.Place(j, 0, 0)
	h.Complete(m1)
	h.Complete(m2)
	// 1024 + 2 × 2048 held: 11264 MB free.
	other := 5
	if mapsFit {
		other = 2
	}
	b := h.Submit(sched.JobSpec{Key: "b", Phases: []sched.PhaseSpec{{Tasks: other, Request: resource.New(1, 2048), StartAfter: 1}}})
	for range other {
		h.Place(b, 0, 0)
	}
	if len(h.Stopped) != 0 {
		t.Fatalf("stopped %d containers before the AM looked", len(h.Stopped))
	}
	return h, j, reduces
}

// With no room for a map, Hadoop 2.8 preempts at once (preempt delay 0):
// enough reduces for one map (4096/2048 = 2), or half the job's resource
// limit (1024 + 2 × 2048 = 5120 MB: 2560 MB, 2 reduces), at most what the 5
// waiting maps need (10): 2. The killed reduces' work is lost; they are
// asked for again only once a map got a container.
func TestMRPreemptNoHeadroom(t *testing.T) {
	for _, tt := range []struct {
		name string
		mr   sched.MapReduce
	}{
		{"hadoop 2.8", hadoop28},
		// 2.2: memory limit 5120, room for maps 5120 − 2 × 2048 = 1024 <
		// 4096: preempt max(4096, 2560) = 4096 MB, 2 reduces.
		{"hadoop 2.2", sched.MapReduce{Model: sched.MRHadoop22, RampupLimit: 0.5, PreemptionLimit: 0.5}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, j, reduces := preemptSetup(t, tt.mr, false)
			h.Now += clock.Time(clock.Second)
			h.Core.AMHeartbeat(h.Now, j)
			if len(h.Stopped) != 2 || h.Stopped[0] != reduces[0] || h.Stopped[1] != reduces[1] {
				t.Fatalf("stopped %v, want the two reduces", h.Stopped)
			}
			// Asked again: nothing happens twice.
			h.Core.AMHeartbeat(h.Now, j)
			if len(h.Stopped) != 2 {
				t.Fatalf("a second heartbeat stopped %d containers", len(h.Stopped))
			}
			for _, ct := range reduces {
				if err := h.Core.Report(h.Now, ct, sched.Killed); err != nil {
					t.Fatal(err)
				}
			}
			h.Core.AMHeartbeat(h.Now, j)
			if got := h.Core.Counts().ReducesPreempted; got != 2 {
				t.Errorf("reduces preempted: %d, want 2", got)
			}
			if j.Ends(sched.Killed) != 2 || j.Ends(sched.Completed) != 5 {
				t.Errorf("ends: %d killed, %d completed", j.Ends(sched.Killed), j.Ends(sched.Completed))
			}
			if got := j.Asks()[2].Pending; got != 0 {
				t.Errorf("%d reduces asked for before a map got a container", got)
			}
			// The room goes to a map; then reduces ramp up again: the
			// 4 reduces (2 killed) against 0.5 of a limit of
			// 5120 − 4096 + 4096 = 5120 MB: 2560 MB, 1 reduce.
			h.Place(j, 0, 0)
			if got := j.Asks()[2].Pending; got != 1 {
				t.Errorf("after a map got a container: %d reduces asked for, want 1", got)
			}
			if err := h.Core.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// With room for a map that the policy does not give (here: nobody places
// it), Hadoop 2.8 preempts only once a map request has waited 300 s
// (mapreduce.job.reducer.unconditional-preempt.delay.sec, MAPREDUCE-6302):
// enough for one map (2), or half the limit (7168 + 4096 = 11264 MB: 3),
// at most the waiting maps' need (10): all 2 assigned. Hadoop 2.2 never
// does, nor 2.8 with the delay at -1.
func TestMRPreemptUnconditional(t *testing.T) {
	for _, tt := range []struct {
		name string
		mr   sched.MapReduce
		want int
	}{
		{"hadoop 2.8", hadoop28, 2},
		{"hadoop 2.8, unconditional off", sched.MapReduce{Model: sched.MRHadoop28, RampupLimit: 0.5, PreemptionLimit: 0.5, UnconditionalPreemptDelay: -1}, 0},
		{"hadoop 2.2", sched.MapReduce{Model: sched.MRHadoop22, RampupLimit: 0.5, PreemptionLimit: 0.5}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, j, _ := preemptSetup(t, tt.mr, true)
			asked := h.Now // the maps were asked for when the AM started
			h.Now = asked + clock.Time(299*clock.Second)
			h.Core.AMHeartbeat(h.Now, j)
			if len(h.Stopped) != 0 {
				t.Fatalf("preempted %d at 299 s", len(h.Stopped))
			}
			// A request hangs once it has waited longer than the delay
			// (Hadoop's getNumHangingRequests: delay > threshold), so
			// the first instant time alone can move the AM is one
			// tick past 300 s.
			wantDeadline := clock.Never
			if tt.want > 0 {
				wantDeadline = asked + clock.Time(300*clock.Second) + 1
			}
			if got := h.Core.AMDeadline(); got != wantDeadline {
				t.Errorf("AMDeadline %v, want %v", got, wantDeadline)
			}
			// A heartbeat at exactly 300 s sees no hanging map yet; the
			// deadline must still be pending, or a driver that detects
			// stalls would give up before the next heartbeat preempts
			// (the held-out tetris deadlock: AM heartbeats fell on
			// exactly asked+300 s).
			h.Now = asked + clock.Time(300*clock.Second)
			h.Core.AMHeartbeat(h.Now, j)
			if len(h.Stopped) != 0 {
				t.Fatalf("preempted %d at exactly 300 s", len(h.Stopped))
			}
			if got := h.Core.AMDeadline(); got != wantDeadline {
				t.Errorf("AMDeadline after a heartbeat at exactly 300 s: %v, want %v", got, wantDeadline)
			}
			h.Now = asked + clock.Time(301*clock.Second)
			h.Core.AMHeartbeat(h.Now, j)
			if len(h.Stopped) != tt.want {
				t.Fatalf("preempted %d at 301 s, want %d", len(h.Stopped), tt.want)
			}
			if got := h.Core.AMDeadline(); got != clock.Never {
				t.Errorf("AMDeadline after the AM looked: %v", got)
			}
		})
	}
}

func TestMRConfigChecked(t *testing.T) {
	for _, mr := range []sched.MapReduce{
		{Model: 9},
		{Model: sched.MRHadoop28, RampupLimit: 2},
		{Model: sched.MRHadoop28, PreemptionLimit: -1},
		{Model: sched.MRHadoop28, PreemptDelay: -1},
	} {
		if _, err := sched.NewCore(sched.Config{Nodes: []resource.Vector{node4}, Driver: &schedtest.Harness{T: t}, NewPolicy: fifoPolicy, MapReduce: mr}); err == nil {
			t.Errorf("%+v accepted", mr)
		}
	}
}
