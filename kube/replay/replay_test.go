package replay

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

func parse(t *testing.T, src string) *workload.Workload {
	t.Helper()
	w, err := workload.Parse([]byte(src), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// twoJobs: job a has maps then reduces that wait for every map; job b's
// second phase starts after half of its first (start_after 0.5); job c has
// no AM. Durations in workload seconds; tests play them at scale 0.05.
const twoJobs = `
version: 1
cluster:
  nodes: [{count: 2, vcores: 8, memory_mb: 16384}]
jobs:
  - id: a
    submit: 0s
    estimate: 10s
    deadline: 60s
    am: {vcores: 1, memory_mb: 1024}
    phases:
      - {name: map, tasks: 3, request: {vcores: 1, memory_mb: 1024}, duration: [2s, 2s, 3s]}
      - {name: reduce, tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 1s}
  - id: B_job
    submit: 1s
    queue: default
    am: {vcores: 1, memory_mb: 1024}
    phases:
      - {name: s0, tasks: 4, request: {vcores: 1, memory_mb: 512}, duration: [1s, 1s, 8s, 8s]}
      - {name: s1, tasks: 1, request: {vcores: 2, memory_mb: 512}, duration: 1s, start_after: 0.5}
  - id: c
    submit: 0s
    am: {vcores: 0, memory_mb: 0}
    phases:
      - {name: only, tasks: 1, request: {vcores: 1, memory_mb: 512}, duration: 2s}
`

func play(t *testing.T, f *fakeCluster, w *workload.Workload, mod func(*Options)) *Result {
	t.Helper()
	f.start()
	opt := Options{Workload: w, WorkloadName: "test.yaml", Client: f.cs, TimeScale: 0.05, RunID: "t1",
		StallTimeout: 2 * time.Second, Timeout: 30 * time.Second}
	if mod != nil {
		mod(&opt)
	}
	r, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// starvation runs fn and returns how long, meanwhile, this process waited for
// a CPU it asked for: the sum of the overshoots of back-to-back 10 ms sleeps
// (beyond 1 ms of ordinary jitter). A replay runs on the wall clock, so on a
// machine loaded by other work every step it takes comes late by up to that
// much; a test's upper bounds may grow by it, and by nothing else.
func starvation(fn func()) time.Duration {
	done, finished := make(chan struct{}), make(chan struct{})
	var lost time.Duration
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(10 * time.Millisecond)
			if over := time.Since(t0) - 10*time.Millisecond; over > time.Millisecond {
				lost += over
			}
		}
	}()
	fn()
	close(done)
	<-finished
	return lost
}

func TestReplayPlaysJobsAsTheApplication(t *testing.T) {
	f := newFakeCluster(t)
	f.startDelay = 100 * time.Millisecond // a window in which a wrong replayer would ask too early
	w := parse(t, twoJobs)
	var res *Result
	lost := starvation(func() { res = play(t, f, w, func(o *Options) { o.TimeScale = 0.2 }) })

	if res.Summary.JobsCompleted != 3 || res.Summary.Deadlocked {
		t.Fatalf("completed %d of 3, deadlocked %v: %+v", res.Summary.JobsCompleted, res.Summary.Deadlocked, res.Summary.StuckJobs)
	}
	if res.PodsCreated != 2+5+5+1 {
		t.Errorf("pods created = %d, want 13 (2 drivers, 11 tasks)", res.PodsCreated)
	}

	// Walk the fake's log: per job, whether its driver ran, how many
	// tasks of each phase had succeeded, when each task pod appeared.
	type jobView struct {
		driverRunning bool
		succeeded     map[int]int
	}
	view := map[string]*jobView{}
	get := func(job string) *jobView {
		if view[job] == nil {
			view[job] = &jobView{succeeded: map[int]int{}}
		}
		return view[job]
	}
	for _, e := range f.entries() {
		p := e.pod
		v := get(p.Annotations[JobIDAnnotation])
		isDriver := p.Labels[RoleLabel] == RoleAM
		switch {
		case e.kind == "running" && isDriver:
			v.driverRunning = true
		case e.kind == "succeeded" && !isDriver:
			v.succeeded[phaseOf(p)]++
		case e.kind == "created" && isDriver:
			for _, k := range []string{EstimateAnnot, DeadlineAnnot, DemandAnnot} {
				if p.Annotations[JobIDAnnotation] == "a" && p.Annotations[k] == "" {
					t.Errorf("driver %s lacks %s", p.Name, k)
				}
			}
			if _, ok := p.Annotations[DurationAnnot]; ok {
				t.Errorf("driver %s carries a duration", p.Name)
			}
			if p.Spec.SchedulerName != "spindle" || p.Labels[QueueLabel] != "default" || p.Labels[JobLabel] == "" {
				t.Errorf("driver %s: scheduler %q labels %v", p.Name, p.Spec.SchedulerName, p.Labels)
			}
		case e.kind == "created":
			job := p.Annotations[JobIDAnnotation]
			// A job without a driver declares on every task pod, as a
			// Job's pod template would; one with a driver only there.
			if got, want := p.Annotations[DemandAnnot], map[bool]string{true: "cpu=1000m,memory=512Mi"}[job == "c"]; got != want {
				t.Errorf("task pod %s of job %s: demand %q, want %q", p.Name, job, got, want)
			}
			if _, ok := p.Annotations[EstimateAnnot]; ok && job != "c" {
				t.Errorf("task pod %s of job %s carries its driver's estimate", p.Name, job)
			}
			if job != "c" && !v.driverRunning {
				t.Errorf("task pod %s created before its driver ran", p.Name)
			}
			k := phaseOf(p)
			switch {
			case job == "a" && k == 1 && v.succeeded[0] < 3:
				t.Errorf("reduce pod %s created after %d of 3 maps", p.Name, v.succeeded[0])
			case job == "B_job" && k == 1 && v.succeeded[0] < 2:
				t.Errorf("s1 pod %s created after %d of 4 s0 tasks (start_after 0.5 needs 2)", p.Name, v.succeeded[0])
			case job == "B_job" && k == 1 && v.succeeded[0] >= 4:
				t.Errorf("s1 pod %s waited for all of s0 despite start_after 0.5", p.Name)
			}
		}
	}
	// Durations scaled for the live run: 3 s at 0.2 is 600 ms.
	for _, e := range f.entries() {
		if e.kind == "created" && e.pod.Name == "t1-a-0-2-1" && e.pod.Annotations[DurationAnnot] != "600ms" {
			t.Errorf("duration of %s = %q, want 600ms", e.pod.Name, e.pod.Annotations[DurationAnnot])
		}
		if e.kind == "created" && e.pod.Name == "t1-a-driver-1" {
			if got := e.pod.Annotations[EstimateAnnot]; got != "2s" {
				t.Errorf("estimate = %q, want 2s (10 s scaled)", got)
			}
			if got := e.pod.Annotations[DemandAnnot]; got != "cpu=3000m,memory=3072Mi" {
				t.Errorf("demand = %q, want the 3 maps' peak", got)
			}
		}
	}

	// Results read in workload time. The fake starts every pod 0.1 s wall
	// (0.5 s of workload time at scale 0.2) after binding it, so job a
	// takes at least 0.5 (driver) + 0.5+3 (slowest map) + 0.5+1 (reduce)
	// = 5.5 s; b at least 0.5 + 0.5+8 = 9 s (its s1 runs beside the long
	// s0 tasks); c 0.5+2 = 2.5 s. The upper bounds allow 1 s of wall
	// latency (5 s of workload time) on a loaded machine; the lower bounds
	// are exact. For the same reason b's s0 tasks are 1 s and 8 s: half of
	// them are done 7 s of workload time (1.4 s wall) before all are, so
	// the start_after check above cannot pass or fail by the machine's load.
	jobs := map[string]metrics.Job{}
	for _, j := range res.Jobs {
		jobs[j.ID] = j
	}
	// What the machine withheld, in workload seconds (scale 0.2), widens
	// every upper bound: those bounds are about the replayer's own delays.
	slack := lost.Seconds() / 0.2
	if lost > 0 {
		t.Logf("the machine withheld %v of wall time: upper bounds widened by %.1f s", lost, slack)
	}
	within := func(name string, got *float64, lo, hi float64) {
		t.Helper()
		if got == nil || *got < lo || *got > hi+slack {
			t.Errorf("%s = %v, want in [%v, %v]", name, deref(got), lo, hi)
		}
	}
	within("a.jct", jobs["a"].JCT, 5.5, 10.5)
	within("B_job.submit", &[]float64{jobs["B_job"].Submit}[0], 1, 3)
	within("B_job.jct", jobs["B_job"].JCT, 9, 14)
	within("c.jct", jobs["c"].JCT, 2.5, 7.5)
	within("a.wait", jobs["a"].Wait, 1, 6)
	if m := jobs["a"].Met; m == nil || !*m {
		t.Errorf("a met its 60 s deadline: %v", m)
	}
	if res.Summary.UtilizationAvg <= 0 || res.Summary.UtilizationAvg > 1 {
		t.Errorf("utilisation %v", res.Summary.UtilizationAvg)
	}

	// Outputs in the simulator's format.
	dir := t.TempDir()
	if err := metrics.WriteRunDir(dir, res.Summary, res.Jobs, SimTimeline(res.Timeline), w.Cluster.Capacity()); err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 4 || lines[0] != metrics.CSVHeader || !strings.HasPrefix(lines[1], "a,large,") {
		t.Errorf("jobs.csv:\n%s", csv)
	}

	// Nothing left behind.
	pods, _ := f.cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	nodes, _ := f.cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if len(pods.Items) != 0 || len(nodes.Items) != 0 {
		t.Errorf("left %d pods and %d nodes", len(pods.Items), len(nodes.Items))
	}
}

func deref(x *float64) any {
	if x == nil {
		return nil
	}
	return *x
}

const oneJob = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 4, memory_mb: 8192}]
jobs:
  - id: j
    submit: 0s
    am: {vcores: 1, memory_mb: 1024}
    phases:
      - {name: map, tasks: 2, request: {vcores: 1, memory_mb: 1024}, duration: 1s}
`

func TestReplayRecreatesFailedAndLostTasks(t *testing.T) {
	f := newFakeCluster(t)
	f.fail["t1-j-0-0-1"] = true // task 0's first attempt fails
	f.lose["t1-j-0-1-1"] = true // task 1's first attempt is lost
	res := play(t, f, parse(t, oneJob), nil)
	if res.Summary.JobsCompleted != 1 {
		t.Fatalf("completed %d, stuck %+v", res.Summary.JobsCompleted, res.Summary.StuckJobs)
	}
	if res.TaskRetries != 2 {
		t.Errorf("task retries = %d, want 2", res.TaskRetries)
	}
	created := map[string]bool{}
	for _, e := range f.entries() {
		if e.kind == "created" {
			created[e.pod.Name] = true
		}
	}
	for _, name := range []string{"t1-j-0-0-2", "t1-j-0-1-2"} {
		if !created[name] {
			t.Errorf("second attempt %s never created; created %v", name, created)
		}
	}
}

func TestReplayGivesUpAfterMaxTaskFailures(t *testing.T) {
	f := newFakeCluster(t)
	for a := 1; a <= MaxTaskFailures; a++ {
		f.fail["t1-j-0-0-"+string(rune('0'+a))] = true
	}
	res := play(t, f, parse(t, oneJob), nil)
	if res.Summary.JobsCompleted != 0 || len(res.Summary.StuckJobs) != 1 ||
		!strings.Contains(res.Summary.StuckJobs[0].State, "failed 4 times") {
		t.Fatalf("completed %d, stuck %+v", res.Summary.JobsCompleted, res.Summary.StuckJobs)
	}
}

// Drivers that take every vcore leave no room for any task: the run must
// stop as deadlocked after the stall timeout, naming the stuck jobs.
func TestReplayReportsDeadlock(t *testing.T) {
	const burst = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 4, memory_mb: 8192}]
jobs:
  - {id: x, submit: 0s, am: {vcores: 2, memory_mb: 1024}, phases: [{name: m, tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 1s}]}
  - {id: y, submit: 0s, am: {vcores: 2, memory_mb: 1024}, phases: [{name: m, tasks: 1, request: {vcores: 2, memory_mb: 1024}, duration: 1s}]}
`
	f := newFakeCluster(t)
	start := time.Now()
	res := play(t, f, parse(t, burst), func(o *Options) { o.StallTimeout = 300 * time.Millisecond })
	if !res.Summary.Deadlocked || res.Summary.JobsCompleted != 0 || len(res.Summary.StuckJobs) != 2 {
		t.Fatalf("deadlocked %v, completed %d, stuck %+v", res.Summary.Deadlocked, res.Summary.JobsCompleted, res.Summary.StuckJobs)
	}
	if !strings.Contains(res.Summary.StuckJobs[0].State, "1 task pods pending") {
		t.Errorf("stuck state %q", res.Summary.StuckJobs[0].State)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %s to notice", el)
	}
}

func TestReplayProgressAndInterrupt(t *testing.T) {
	f := newFakeCluster(t)
	f.start()
	var buf bytes.Buffer
	w := parse(t, oneJob)
	w.Jobs[0].Phases[0].Durations = []clock.Duration{clock.Duration(time.Hour / time.Microsecond)}
	r, err := New(Options{Workload: w, Client: f.cs, RunID: "t2", Progress: &buf, ProgressEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = r.Play(ctx)
	if err == nil || !strings.Contains(err.Error(), "replay interrupted") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(buf.String(), "replay t2: t=") || !strings.Contains(buf.String(), "pods 3 running") {
		t.Errorf("progress:\n%s", buf.String())
	}
	pods, _ := f.cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	nodes, _ := f.cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if len(pods.Items) != 0 || len(nodes.Items) != 0 {
		t.Errorf("interrupted run left %d pods and %d nodes", len(pods.Items), len(nodes.Items))
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	w := parse(t, oneJob)
	f := newFakeCluster(t)
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Client: f.cs}, "no workload"},
		{Options{Workload: w}, "no Kubernetes client"},
		{Options{Workload: w, Client: f.cs, TimeScale: -1}, "time scale"},
		{Options{Workload: w, Client: f.cs, TimeScale: math.Inf(1)}, "time scale"},
		{Options{Workload: w, Client: f.cs, RunID: "Bad_ID"}, "run id"},
	} {
		if _, err := New(c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.opt, err, c.want)
		}
	}
}

func TestTimeScale(t *testing.T) {
	for _, c := range []struct {
		scale float64
		d     clock.Duration
		live  time.Duration
	}{
		{1, 30 * clock.Second, 30 * time.Second},
		{0.1, 30 * clock.Second, 3 * time.Second},
		{0.05, 3 * clock.Second, 150 * time.Millisecond},
		{2, 1500 * clock.Millisecond, 3 * time.Second},
	} {
		r := &Replayer{opt: Options{TimeScale: c.scale}}
		if got := r.live(c.d); got != c.live {
			t.Errorf("scale %v: live(%v) = %v, want %v", c.scale, c.d, got, c.live)
		}
		if got := r.workloadTime(c.live); clock.Duration(got) != c.d {
			t.Errorf("scale %v: workloadTime(%v) = %v, want %v", c.scale, c.live, got, c.d)
		}
	}
}

func TestNeed(t *testing.T) {
	for _, c := range []struct {
		prev  int
		after float64
		want  int
	}{
		{4, 1, 4}, {4, 0.5, 2}, {3, 0.5, 2}, {10, 0.05, 1}, {1, 0.01, 1}, {5, 0.2, 1},
	} {
		w := &workload.Job{Phases: []workload.Phase{{Tasks: c.prev}, {Tasks: 1, StartAfter: c.after}}}
		if got := need(w, 1); got != c.want {
			t.Errorf("need(%d tasks, start_after %v) = %d, want %d", c.prev, c.after, got, c.want)
		}
	}
}

func TestDNSLabel(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"terasort-01", "terasort-01"}, {"B_job", "b-job"}, {"--x--", "x"}, {"日本", ""},
		{"a.b/c", "a-b-c"}, {strings.Repeat("x", 40), strings.Repeat("x", 24)},
	} {
		if got := dnsLabel(c.in, 24); got != c.want {
			t.Errorf("dnsLabel(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJobDemandAndAnnotation(t *testing.T) {
	w := parse(t, twoJobs)
	capa := w.Cluster.Capacity()
	// b: AM 1 vcore + s0 (4 × 1 vcore) beats s1 (2 vcores).
	if got := jobDemand(&w.Jobs[1], capa); got != resource.New(5, 1024+4*512) {
		t.Errorf("demand = %v", got)
	}
	if got := FormatDemand(resource.New(5, 3072)); got != "cpu=5000m,memory=3072Mi" {
		t.Errorf("FormatDemand = %q", got)
	}
}

// TestReplayCarriesNodePools: a workload's node pools become node labels and
// taints, and its jobs' node selectors and tolerations go on their pods,
// beside the run's own selector.
func TestReplayCarriesNodePools(t *testing.T) {
	f := newFakeCluster(t)
	w := parse(t, `
version: 1
cluster:
  nodes:
    - {vcores: 8, memory_mb: 8192, labels: {pool: small}}
    - {vcores: 8, memory_mb: 8192, labels: {pool: batch}, taints: [{key: dedicated, value: batch, effect: NoSchedule}]}
jobs:
  - {id: s, node_selector: {pool: small}, phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 1s}]}
  - {id: b, node_selector: {pool: batch}, tolerations: [{key: dedicated, operator: Exists}], phases: [{tasks: 1, request: {vcores: 1, memory_mb: 1024}, duration: 1s}]}
`)
	res := play(t, f, w, func(o *Options) { o.TimeScale = 0.2 })
	if res.Summary.JobsCompleted != 2 {
		t.Fatalf("completed %d of 2", res.Summary.JobsCompleted)
	}
	for _, e := range f.entries() {
		if e.kind != "created" {
			continue
		}
		p := e.pod
		want := map[string]string{"s": "small", "b": "batch"}[p.Annotations[JobIDAnnotation]]
		if p.Spec.NodeSelector["pool"] != want || p.Spec.NodeSelector[RunLabel] == "" {
			t.Errorf("%s: node selector %v, want pool=%s and the run's label", p.Name, p.Spec.NodeSelector, want)
		}
		if p.Annotations[JobIDAnnotation] == "b" && (len(p.Spec.Tolerations) != 1 || p.Spec.Tolerations[0].Operator != "Exists" || p.Spec.Tolerations[0].Key != "dedicated") {
			t.Errorf("%s: tolerations %+v", p.Name, p.Spec.Tolerations)
		}
	}
}
