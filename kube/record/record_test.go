package record

import (
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

func sec(s float64) clock.Duration { return clock.Duration(s * float64(clock.Second)) }
func ts(s float64) clock.Time      { return clock.Time(sec(s)) }

// A Spark application as spark-submit runs it, beside a daemonset and
// another scheduler's pod, recorded from watch events (hand-computed):
//
//	driver: created 1.0, bound 1.2, running 1.5, succeeded 21.0
//	executors 1, 2: created 3.1, bound 3.2, running 3.6, succeeded 13.6, 15.1
//	executor 3: created 14.0, after executor 1 ended: a second wave
//	  (start_after 1/2), bound 14.1, running 14.5, succeeded 20.5
//	daemonset pod on a (0.1 CPU, 128 MiB) all along; another scheduler's
//	  pod on b (2 CPU, 1 GiB) from 5 to 25. a and b form one group of two
//	  nodes: its load per node, averaged over 10 s steps, is
//	  [0,10): (0.1·10 + 2·5)/10/2 = 0.55 CPU, (128·10 + 1024·5)/10/2 = 320 MiB
//	  [10,20): (0.1 + 2)/2 = 1.05 CPU, (128 + 1024)/2 = 576 MiB
//	  [20,30): 0.55 CPU, 320 MiB, as in the first step.
//	start latencies 0.3, 0.4, 0.4, 0.4 s: median 0.4 s, jitter
//	  (0.4 − 0.3)/(1.6 · 0.4) = 0.16.
//	scheduling waits (creation to binding) 0.2, 0.1, 0.1, 0.1 s: median
//	  (the 2nd of 4) 0.1 s, 90th percentile (the 4th) 0.2 s.
//	reactions: the first wave created 3.1 − 1.5 = 1.6 s after the driver
//	  started, the second 14.0 − 13.6 = 0.4 s after executor 1 ended:
//	  median (the 1st of 2) 0.4 s.
func TestRecordSparkApplication(t *testing.T) {
	f, buf := newFake(t, Options{Schedulers: []string{"spindle"}},
		node("a", "4", "8Gi"), node("b", "4", "8Gi"), node("c", "8", "16Gi"))
	if err := f.r.Begin(at(0)); err != nil {
		t.Fatal(err)
	}
	sp := schedulerName("spindle")
	f.create(at(0), "kube-system", "agent-a", "100m", "128Mi", daemonset())
	f.life("kube-system/agent-a", "a", 0, 0, never)
	// The driver's PriorityClass resolved to 1000; executors carry none.
	f.create(at(1.0), "spark", "pi-driver", "1", "1408Mi", sparkDriver("spark-1"), sp, priority(1000))
	f.life("spark/pi-driver", "a", 1.2, 1.5, never)
	f.create(at(3.1), "spark", "pi-exec-1", "1", "2432Mi", sparkExec("spark-1", 1), sp)
	f.create(at(3.1), "spark", "pi-exec-2", "1", "2432Mi", sparkExec("spark-1", 2), sp)
	f.bind(at(3.2), "spark/pi-exec-1", "a")
	f.bind(at(3.2), "spark/pi-exec-2", "b")
	f.run(at(3.6), "spark/pi-exec-1")
	f.run(at(3.6), "spark/pi-exec-2")
	f.create(at(5), "batch", "other", "2", "1Gi")
	f.life("batch/other", "b", 5, 5, never)
	f.end(at(13.6), "spark/pi-exec-1", v1.PodSucceeded)
	f.create(at(14.0), "spark", "pi-exec-3", "1", "2432Mi", sparkExec("spark-1", 3), sp)
	f.bind(at(14.1), "spark/pi-exec-3", "c")
	f.run(at(14.5), "spark/pi-exec-3")
	f.end(at(15.1), "spark/pi-exec-2", v1.PodSucceeded)
	f.end(at(20.5), "spark/pi-exec-3", v1.PodSucceeded)
	f.end(at(21.0), "spark/pi-driver", v1.PodSucceeded)
	f.delete(at(25), "batch/other")
	w, s := f.close(at(30), buf)

	want := workload.Job{
		ID: "spark/spark-1", Name: "pi", Queue: "spark", User: "spark", Submit: ts(1), Priority: 1000,
		AM:       resource.Vector{1000, 1408},
		Recorded: &workload.Recorded{Admitted: ts(1.2), AMStarted: ts(1.5), Finished: ts(21)},
		Phases: []workload.Phase{
			{Tasks: 2, Request: resource.Vector{1000, 2432}, Durations: []clock.Duration{sec(10), sec(11.5)}, StartAfter: 1, Started: []clock.Time{ts(3.6), ts(3.6)}},
			{Tasks: 1, Request: resource.Vector{1000, 2432}, Durations: []clock.Duration{sec(6)}, StartAfter: 0.5, Started: []clock.Time{ts(14.5)}},
		},
	}
	if len(w.Jobs) != 1 || !reflect.DeepEqual(w.Jobs[0], want) {
		t.Fatalf("jobs %+v\nwant %+v", w.Jobs, want)
	}
	wantNodes := []workload.NodeGroup{
		{Count: 2, Capacity: resource.Vector{4000, 8192}, External: []workload.HeldStep{
			{At: 0, Held: resource.Vector{550, 320}}, {At: sec(10), Held: resource.Vector{1050, 576}}, {At: sec(20), Held: resource.Vector{550, 320}}}},
		{Count: 1, Capacity: resource.Vector{8000, 16384}},
	}
	if !reflect.DeepEqual(w.Cluster.Nodes, wantNodes) {
		t.Errorf("nodes %+v\nwant %+v", w.Cluster.Nodes, wantNodes)
	}
	if c := w.Cluster; c.Timing != workload.TimingKubernetes || c.LaunchDelay != sec(0.4) || c.LaunchJitter != 0.16 {
		t.Errorf("timing %q, launch %v jitter %v; want kubernetes, 0.4s, 0.16", c.Timing, c.LaunchDelay, c.LaunchJitter)
	}
	if m := w.Cluster.MapReduceAM; m.Model != workload.MRNone {
		t.Errorf("mapreduce_am model %v, want none: the second wave starts as recorded, not ramped up as reduces", m.Model)
	}
	if len(w.Queues) != 1 || w.Queues[0] != (workload.Queue{Name: "spark", Capacity: 1, MaxCapacity: 1}) {
		t.Errorf("queues %+v", w.Queues)
	}
	text := summaryText(s)
	for _, line := range []string{
		"recorded 1 jobs (1 spark), 3 tasks, 4 pods over 20s on 3 nodes in 2 groups",
		"pod scheduling wait (creation to binding): median 100ms, 90th percentile 200ms",
		"pods created after what allowed them (a driver started, a wave's task ended): median 400ms later, over 2 waves",
		"external load: 1 daemonset pods",
		"external load: 1 pods of other schedulers",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("summary lacks %q:\n%s", line, text)
		}
	}
}

func TestRecordBatchJobsAndLonePods(t *testing.T) {
	for _, running := range []string{RunningKeep, RunningDrop} {
		t.Run(running, func(t *testing.T) {
			f, buf := newFake(t, Options{Running: running, JobIdle: 5 * time.Second}, node("n", "8", "16Gi"))
			if err := f.r.Begin(at(0)); err != nil {
				t.Fatal(err)
			}
			job1 := batchJob("etl", "u1")
			f.create(at(1), "batch", "etl-a", "1", "1Gi", job1)
			f.create(at(1), "batch", "etl-b", "1", "1Gi", job1)
			f.create(at(1), "batch", "etl-c", "1", "1Gi", job1)
			f.bind(at(1.1), "batch/etl-a", "n")
			f.bind(at(1.1), "batch/etl-b", "n")
			f.run(at(1.3), "batch/etl-a")
			f.run(at(1.3), "batch/etl-b")
			f.delete(at(2), "batch/etl-c") // never ran
			f.create(at(2), "batch", "solo", "1", "1Gi", noRequests())
			f.life("batch/solo", "n", 2.5, 3, 4) // a lone pod's job is written when it ends
			f.end(at(9.3), "batch/etl-b", v1.PodSucceeded)
			f.end(at(11.3), "batch/etl-a", v1.PodSucceeded)
			if err := f.r.Tick(at(15)); err != nil { // etl idle 3.7 s: kept
				t.Fatal(err)
			}
			if f.r.c.jobs != 1 {
				t.Fatalf("%d jobs written at 15 s, want solo alone (etl has been idle less than 5 s)", f.r.c.jobs)
			}
			if err := f.r.Tick(at(17)); err != nil {
				t.Fatal(err)
			}
			if f.r.c.jobs != 2 {
				t.Fatalf("%d jobs written after etl's idle time, want etl and solo", f.r.c.jobs)
			}
			// The Job deleted and created again under its name.
			job2 := batchJob("etl", "u2")
			f.create(at(20), "batch", "etl-x", "2", "1Gi", job2)
			f.life("batch/etl-x", "n", 20, 20.5, 25.5)
			f.create(at(30), "batch", "long", "1", "1Gi")
			f.life("batch/long", "n", 30.1, 30.5, never)
			w, s := f.close(at(40), buf)

			j := job(t, w, "batch/job/etl")
			want := workload.Job{ID: "batch/job/etl", Name: "etl", Queue: "batch", User: "batch", Submit: ts(1),
				Recorded: &workload.Recorded{Admitted: ts(1.1), AMStarted: -1, Finished: ts(11.3)},
				Phases: []workload.Phase{{Tasks: 2, Request: resource.Vector{1000, 1024}, Durations: []clock.Duration{sec(10), sec(8)},
					StartAfter: 1, Started: []clock.Time{ts(1.3), ts(1.3)}}}}
			if !reflect.DeepEqual(*j, want) {
				t.Errorf("etl %+v\nwant %+v", *j, want)
			}
			if j2 := job(t, w, "batch/job/etl#2"); j2.Submit != ts(20) || j2.Phases[0].Request != (resource.Vector{2000, 1024}) {
				t.Errorf("the second etl: %+v", *j2)
			}
			if solo := job(t, w, "pod:batch/solo"); solo.Phases[0].Request != (resource.Vector{1, 0}) || solo.Phases[0].Durations[0] != sec(1) {
				t.Errorf("a pod without requests: %+v, want 1m of CPU for 1 s", solo.Phases[0])
			}
			text := summaryText(s)
			for _, line := range []string{
				"left out: 1 pods that never ran",
				"adjusted: 1 pods without requests, counted as 1m of CPU",
				"adjusted: 1 jobs whose name was used by an earlier job",
			} {
				if !strings.Contains(text, line) {
					t.Errorf("summary lacks %q:\n%s", line, text)
				}
			}
			if running == RunningKeep {
				long := job(t, w, "pod:batch/long")
				if p := long.Phases[0]; p.Unfinished != 1 || p.Durations[0] != sec(9.5) || long.Recorded.Finished != -1 {
					t.Errorf("a pod running at the end, kept: %+v, recorded %+v; want 9.5 s unfinished and no end", p, *long.Recorded)
				}
			} else {
				for _, j := range w.Jobs {
					if j.ID == "pod:batch/long" {
						t.Errorf("a job still running was kept under --running drop")
					}
				}
				if !strings.Contains(text, "left out: 1 jobs still running when the recording stopped") {
					t.Errorf("summary lacks the job still running:\n%s", text)
				}
			}
		})
	}
}

// Pods listed when the recording begins: a job already over is left out
// whole; a running one is recorded from its pods' own timestamps, and the
// workload's time 0 moves back to its creation.
func TestRecordBeginsWithWhatRuns(t *testing.T) {
	f, buf := newFake(t, Options{}, node("n", "8", "16Gi"))
	// Reported before Begin: the first list.
	done := batchJob("old", "u0")
	f.create(at(-100), "batch", "old-a", "1", "1Gi", done)
	f.life("batch/old-a", "n", -100, -99, -50)
	f.create(at(-10), "spark", "drv", "1", "1Gi", sparkDriver("app"))
	f.life("spark/drv", "n", -9.5, -9, never)
	f.create(at(-8), "spark", "exec-1", "1", "1Gi", sparkExec("app", 1))
	f.life("spark/exec-1", "n", -7.8, -7, -2)
	if err := f.r.Begin(at(0)); err != nil {
		t.Fatal(err)
	}
	f.create(at(1), "spark", "exec-2", "1", "1Gi", sparkExec("app", 2))
	f.life("spark/exec-2", "n", 1.2, 1.6, 5.6)
	f.end(at(6), "spark/drv", v1.PodSucceeded)
	w, s := f.close(at(10), buf)
	j := job(t, w, "spark/app")
	// From the list, each stamp settled in its second against the others
	// (the middle of what is left): the driver created -9.5 (the origin),
	// bound -9.5, started -8.5; exec-1 created -7.5, started -6.5, ended
	// -1.5. Live, exact: exec-2 from 1.6 to 5.6 (after exec-1 ended: a
	// second wave), the driver's end at 6.
	if j.Submit != 0 || j.Recorded.Admitted != 0 || j.Recorded.AMStarted != ts(1) || j.Recorded.Finished != ts(15.5) {
		t.Errorf("job %+v recorded %+v; want submit 0, admitted 0, AM started 1, finished 15.5 (origin at -9.5)", *j, *j.Recorded)
	}
	if len(j.Phases) != 2 || j.Phases[0].Durations[0] != sec(5) || j.Phases[1].Durations[0] != sec(4) || j.Phases[1].Started[0] != ts(11.1) {
		t.Errorf("phases %+v", j.Phases)
	}
	if !strings.Contains(summaryText(s), "left out: 1 pods of jobs that had ended before the recording began") {
		t.Errorf("summary:\n%s", summaryText(s))
	}
}

// Clock skew is corrected, counted and shown, never fatal.
func TestRecordClockSkew(t *testing.T) {
	f, buf := newFake(t, Options{}, node("n", "8", "16Gi"))
	if err := f.r.Begin(at(0)); err != nil {
		t.Fatal(err)
	}
	p := f.create(at(5), "batch", "skewed", "1", "1Gi")
	f.bind(at(5.2), "batch/skewed", "n")
	// The kubelet's clock is 2 s behind the apiserver's: its container
	// started "at 3", before the pod was created.
	p.Status.Phase = v1.PodRunning
	p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: stamp(at(3.5))}}}}
	f.report(at(5.5), p)
	f.end(at(9.5), "batch/skewed", v1.PodSucceeded)
	w, s := f.close(at(10), buf)
	j := job(t, w, "pod:batch/skewed")
	if j.Phases[0].Started[0] != ts(5.2) {
		t.Errorf("started %v, want clamped to the binding at 5.2 s", j.Phases[0].Started[0])
	}
	if text := summaryText(s); !strings.Contains(text, "clock skew between pod timestamps, clamped") || !strings.Contains(text, "pod batch/skewed") {
		t.Errorf("summary does not report the skew:\n%s", text)
	}
}

// After an expired watch, a new list lacks the pods deleted meanwhile: they
// end when the list says so, and an outside pod's load leaves its node.
func TestRecordGoneAfterRelist(t *testing.T) {
	f, buf := newFake(t, Options{Schedulers: []string{"spindle"}}, node("n", "8", "16Gi"))
	if err := f.r.Begin(at(0)); err != nil {
		t.Fatal(err)
	}
	sp := schedulerName("spindle")
	f.create(at(1), "other", "x", "4", "1Gi")
	f.life("other/x", "n", 1, 1, never)
	f.create(at(1), "batch", "a", "1", "1Gi", sp)
	f.create(at(1), "batch", "b", "1", "1Gi", sp)
	f.bind(at(1), "batch/a", "n")
	f.bind(at(1), "batch/b", "n")
	f.run(at(2), "batch/a")
	f.run(at(2), "batch/b")
	// The relist at 12 still has b.
	if err := f.r.Gone(at(12), map[types.UID]bool{f.get("batch/b").UID: true}); err != nil {
		t.Fatal(err)
	}
	f.end(at(15), "batch/b", v1.PodSucceeded)
	w, _ := f.close(at(20), buf)
	if a := job(t, w, "pod:batch/a"); a.Phases[0].Durations[0] != sec(10) {
		t.Errorf("a ran %v, want 10 s (deleted by 12)", a.Phases[0].Durations[0])
	}
	if b := job(t, w, "pod:batch/b"); b.Phases[0].Durations[0] != sec(13) {
		t.Errorf("b ran %v, want 13 s", b.Phases[0].Durations[0])
	}
	// x held 4 CPUs from 1 to 12: the first 10 s step averages 3.6.
	if ext := w.Cluster.Nodes[0].External; len(ext) < 2 || ext[0].Held[0] != 3600 || ext[1].Held[0] != 800 {
		t.Errorf("external steps %+v, want 3.6 CPU then 0.8", ext)
	}
}

// A pod whose requests the scheduler refuses (kube-scheduler v1.34 binds
// them; spindle's scheduler holds them with a reason) is left out, counted
// and named, from a watch and from a snapshot alike; the rest is recorded.
func TestRecordRefusedRequests(t *testing.T) {
	f, buf := newFake(t, Options{}, node("n", "8", "16Gi"))
	if err := f.r.Begin(at(0)); err != nil {
		t.Fatal(err)
	}
	f.create(at(1), "batch", "huge", "1e16", "1Gi")
	f.create(at(1), "batch", "ok", "1", "1Gi")
	f.life("batch/ok", "n", 1.2, 1.5, 4.5)
	w, s := f.close(at(10), buf)
	if len(w.Jobs) != 1 || w.Jobs[0].ID != "pod:batch/ok" {
		t.Errorf("jobs %+v, want batch/ok alone", w.Jobs)
	}
	text := summaryText(s)
	if !strings.Contains(text, "left out: 1 "+refusedRequests) || !strings.Contains(text, "pod batch/huge: it requests cpu 10e15, more than spindle counts") {
		t.Errorf("summary:\n%s", text)
	}

	huge := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "huge", UID: "uid-huge", CreationTimestamp: stamp(at(1))},
		Spec:   v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceMemory: apiresource.MustParse("100E")}}}}},
		Status: v1.PodStatus{Phase: v1.PodPending}}
	pods := append(sparkSnapshot(t), huge)
	w, s, err := Snapshot([]Input{input("pods.json", list(t, "Pod", pods...)), input("nodes.json", list(t, "Node", node("a", "4", "8Gi")))}, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 1 || w.Jobs[0].ID != "spark/spark-1" {
		t.Errorf("jobs %+v, want the Spark application alone", w.Jobs)
	}
	text = summaryText(s)
	if !strings.Contains(text, "left out: 1 "+refusedRequests) || !strings.Contains(text, "pods.json: items[5]: pod batch/huge: it requests memory 100E, more than spindle counts") {
		t.Errorf("summary:\n%s", text)
	}
}
