package record

import (
	"container/heap"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/workload"
)

// A synthetic cluster's watch stream, generated as it goes so that the
// generator, like the recorder, holds only what runs: nodes, a daemonset
// pod on each, and jobs arriving through the day (Spark applications of a
// driver and 4-20 executors, batch Jobs of 3-30 pods, lone pods; tasks of
// 30 s to 10 min), every pod created, bound, run, ended and deleted.
type stream struct {
	rng    *rand.Rand
	nodes  int
	perDay int // pods a day
	end    time.Time
	q      evHeap
	next   time.Time // next job's arrival
	jobs   int
	pods   int
	events int
}

type ev struct {
	at  time.Time
	seq int
	pod *v1.Pod // the object as of this event
	del bool
}

type evHeap []ev

func (h evHeap) Len() int { return len(h) }
func (h evHeap) Less(a, b int) bool {
	if !h[a].at.Equal(h[b].at) {
		return h[a].at.Before(h[b].at)
	}
	return h[a].seq < h[b].seq
}
func (h evHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *evHeap) Push(x any)   { *h = append(*h, x.(ev)) }
func (h *evHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = ev{} // the pod object must not outlive its event
	*h = old[:len(old)-1]
	return x
}

func newStream(nodes, perDay int, days float64, seed uint64) *stream {
	return &stream{rng: rand.New(rand.NewPCG(seed, 1)), nodes: nodes, perDay: perDay,
		end: t0.Add(time.Duration(days * 24 * float64(time.Hour))), next: t0}
}

func (s *stream) push(at time.Time, p *v1.Pod, del bool) {
	s.events++
	heap.Push(&s.q, ev{at: at, seq: s.events, pod: p, del: del})
}

func stamped(p *v1.Pod, f func(*v1.Pod)) *v1.Pod {
	q := p.DeepCopy()
	f(q)
	return q
}

// life queues a pod's events: created at c, bound after 0-2 s, running
// 0.1-1 s later, ended after d, deleted 5 s after.
func (s *stream) life(p *v1.Pod, c time.Time, d time.Duration) {
	node := fmt.Sprintf("n%d", s.rng.IntN(s.nodes))
	p.CreationTimestamp = metav1.NewTime(c.Truncate(time.Second))
	s.push(c, p, false)
	b := c.Add(time.Duration(s.rng.Float64() * 2 * float64(time.Second)))
	bound := stamped(p, func(q *v1.Pod) {
		q.Spec.NodeName = node
		q.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(b.Truncate(time.Second))}}
	})
	s.push(b, bound, false)
	r := b.Add(100*time.Millisecond + time.Duration(s.rng.Float64()*float64(900*time.Millisecond)))
	running := stamped(bound, func(q *v1.Pod) {
		q.Status.Phase = v1.PodRunning
		q.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(r.Truncate(time.Second))}}}}
	})
	s.push(r, running, false)
	if d < 0 {
		return // runs until the end
	}
	e := r.Add(d)
	done := stamped(running, func(q *v1.Pod) {
		q.Status.Phase = v1.PodSucceeded
		q.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
			StartedAt: metav1.NewTime(r.Truncate(time.Second)), FinishedAt: metav1.NewTime(e.Truncate(time.Second))}}}}
	})
	s.push(e, done, false)
	s.push(e.Add(5*time.Second), done, true)
}

func (s *stream) pod(ns, name string, labels map[string]string, cpu, mem string) *v1.Pod {
	s.pods++
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(fmt.Sprintf("u%d", s.pods)), Labels: labels},
		Spec: v1.PodSpec{SchedulerName: "default-scheduler", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse(cpu), v1.ResourceMemory: apiresource.MustParse(mem)}}}}},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
}

// arrive queues the next job: its pods' lives from now.
func (s *stream) arrive(now time.Time) {
	s.jobs++
	task := func() time.Duration { return time.Duration(30+s.rng.IntN(570)) * time.Second }
	ns := fmt.Sprintf("team-%d", s.jobs%7)
	switch k := s.rng.IntN(10); {
	case k < 4: // a Spark application
		app := fmt.Sprintf("spark-%08x", s.jobs)
		drv := s.pod(ns, app+"-driver", map[string]string{podmap.LabelSparkApp: app, podmap.LabelSparkRole: "driver"}, "1", "1408Mi")
		longest := time.Duration(0)
		n := 4 + s.rng.IntN(17)
		for i := range n {
			d := task()
			longest = max(longest, d)
			ex := s.pod(ns, fmt.Sprintf("%s-exec-%d", app, i), map[string]string{podmap.LabelSparkApp: app, podmap.LabelSparkRole: "executor"}, "1", "2432Mi")
			s.life(ex, now.Add(3*time.Second), d)
		}
		s.life(drv, now, longest+10*time.Second)
	case k < 7: // a batch Job
		name := fmt.Sprintf("etl-%d", s.jobs)
		for i := range 3 + s.rng.IntN(28) {
			p := s.pod(ns, fmt.Sprintf("%s-%d", name, i), map[string]string{podmap.LabelBatchJobName: name, podmap.LabelBatchControllerUID: name}, "500m", "1Gi")
			s.life(p, now, task())
		}
	default: // a lone pod
		s.life(s.pod(ns, fmt.Sprintf("solo-%d", s.jobs), nil, "250m", "512Mi"), now, task())
	}
}

// run feeds the recorder the whole stream, sampling the heap in use (after
// a collection: live objects) every sampleEvery events; it returns the
// largest sample, and
// what is still in use once the stream is over (every pod ended and
// deleted; the recorder not yet closed).
func (s *stream) run(tb testing.TB, r *Recorder, sampleEvery int) (peak, retained uint64) {
	yes := true
	for i := range s.nodes {
		r.Node(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i)},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("32"), v1.ResourceMemory: apiresource.MustParse("128Gi")}}})
	}
	if err := r.Begin(t0); err != nil {
		tb.Fatal(err)
	}
	for i := range s.nodes {
		p := s.pod("kube-system", fmt.Sprintf("agent-%d", i), nil, "100m", "200Mi")
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent", Controller: &yes}}
		s.life(p, t0, -1)
	}
	// A job's pods average about 10: jobs arrive perDay/10 a day.
	gap := time.Duration(float64(24*time.Hour) / (float64(s.perDay) / 10))
	n := 0
	var ms runtime.MemStats
	for {
		if s.next.Before(s.end) && (s.q.Len() == 0 || !s.q[0].at.Before(s.next)) {
			s.arrive(s.next)
			s.next = s.next.Add(time.Duration(s.rng.ExpFloat64() * float64(gap)))
			continue
		}
		if s.q.Len() == 0 {
			break
		}
		e := heap.Pop(&s.q).(ev)
		var err error
		if e.del {
			err = r.PodDeleted(e.at, e.pod)
		} else {
			err = r.Pod(e.at, e.pod)
		}
		if err != nil {
			tb.Fatal(err)
		}
		if n++; n%1000 == 0 {
			if err := r.Tick(e.at); err != nil {
				tb.Fatal(err)
			}
		}
		if n%sampleEvery == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	if err := r.Tick(s.end.Add(time.Hour)); err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return peak, ms.HeapAlloc
}

type counter struct{ n int64 }

func (c *counter) Write(b []byte) (int, error) { c.n += int64(len(b)); return len(b), nil }

func recordStream(tb testing.TB, nodes, perDay int, days float64) (peak, retained uint64, s *stream, sum *Summary, written int64) {
	var out counter
	st, err := workload.NewStreamer(io.Writer(&out), workload.JSON)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := NewRecorder(st, Options{Schedulers: []string{"default-scheduler"}, LoadStep: time.Minute})
	if err != nil {
		tb.Fatal(err)
	}
	s = newStream(nodes, perDay, days, 1)
	peak, retained = s.run(tb, r, 20000)
	sum, err = r.Close(s.end.Add(time.Hour))
	if err != nil {
		tb.Fatal(err)
	}
	return peak, retained, s, sum, out.n
}

// Memory follows what runs, not what ran: once the pods of four days have
// ended the recorder holds little more than once one day's have (a hash per
// job written, to keep job names unique, and the external load's steps),
// and while they run, about as much.
func TestRecorderMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("records five simulated days")
	}
	mib := func(v uint64) float64 { return float64(v) / (1 << 20) }
	p1, r1, s1, sum1, _ := recordStream(t, 500, 10000, 1)
	p4, r4, s4, sum4, _ := recordStream(t, 500, 10000, 4)
	perJob := (float64(r4) - float64(r1)) / float64(sum4.Jobs-sum1.Jobs)
	t.Logf("1 day: %d pods, %d jobs written, peak heap %.1f MiB, %.1f MiB in use at the end; 4 days: %d pods, %d jobs, %.1f MiB, %.1f MiB; %.0f bytes per extra job",
		s1.pods, sum1.Jobs, mib(p1), mib(r1), s4.pods, sum4.Jobs, mib(p4), mib(r4), perJob)
	if sum4.Jobs < 3*sum1.Jobs {
		t.Fatalf("4 days wrote %d jobs, 1 day %d: the stream is wrong", sum4.Jobs, sum1.Jobs)
	}
	if perJob > 200 {
		t.Errorf("%.0f bytes kept per job written: memory follows history", perJob)
	}
	if float64(p4) > 1.5*float64(p1) {
		t.Errorf("peak heap %.1f MiB over 4 days against %.1f MiB over 1", mib(p4), mib(p1))
	}
}

// BenchmarkRecorderDay records a day of a 5,000-node cluster running
// 100,000 pods, reporting the peak heap in use and the jobs written:
//
//	go test ./kube/record -run '^$' -bench RecorderDay -benchtime 1x
func BenchmarkRecorderDay(b *testing.B) {
	for range b.N {
		peak, retained, s, sum, written := recordStream(b, 5000, 100000, 1)
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(retained)/(1<<20), "end-heap-MiB")
		b.ReportMetric(float64(s.pods), "pods")
		b.ReportMetric(float64(sum.Jobs), "jobs")
		b.ReportMetric(float64(s.events), "events")
		b.ReportMetric(float64(written)/(1<<20), "written-MiB")
	}
}
