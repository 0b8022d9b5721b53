// Package replay plays a spindle workload on a Kubernetes cluster whose nodes
// are kwok's: it creates the workload's machines as fake nodes, submits each
// job's driver pod at its submit time and then acts as the job's application,
// asking for task pods phase by phase once its driver runs, the way a Spark
// driver asks for executors. kwok ends each task pod after the duration the
// replayer writes on it; whichever scheduler the pods name places them. The
// outcome is measured from what the replayer observes on the apiserver and
// written in the simulator's output format, so a workload's simulated and
// live runs compare line by line.
package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/kube/kwok"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// Options configure a replay.
type Options struct {
	Workload     *workload.Workload
	WorkloadName string
	Client       kubernetes.Interface
	Namespace    string // default "default"
	// SchedulerName is the pods' spec.schedulerName ("default-scheduler"
	// is kube-scheduler).
	SchedulerName string
	// TimeScale multiplies every submit time, task duration, estimate and
	// deadline for the live run; results are divided by it again, so they
	// read in workload time. Default 1.
	TimeScale float64
	// RunID names this replay's nodes and pods; default a fresh one.
	RunID string
	// StallTimeout ends the run as deadlocked when, with every job
	// submitted and no task pod running, nothing changes for this long
	// (wall time). Default 60 s.
	StallTimeout time.Duration
	// Timeout bounds the whole run (wall time); 0: none.
	Timeout time.Duration
	// NodeReadyTimeout bounds the wait for the new nodes to be Ready and
	// schedulable. Default 60 s.
	NodeReadyTimeout time.Duration
	// Workers is how many API calls run at once (default 8).
	Workers int
	// Progress, if set, receives a line about every ProgressEvery.
	Progress      io.Writer
	ProgressEvery time.Duration // default 10 s
	// KeepObjects leaves the nodes and pods in place (for debugging).
	KeepObjects bool
}

// Limits after which the replayed application gives up, as Spark and YARN
// would: spark.task.maxFailures and yarn.resourcemanager.am.max-attempts.
const (
	MaxTaskFailures = 4
	MaxAMAttempts   = 2
)

// Result is a replay's outcome in workload time.
type Result struct {
	Summary  *metrics.Summary
	Jobs     []metrics.Job
	Timeline []Sample
	Run      string // the run id on the nodes' and pods' labels
	// PodsCreated counts every pod the replayer created; TaskRetries the
	// task pods it created again after a failure or loss.
	PodsCreated, TaskRetries int
	Wall                     time.Duration
}

// Sample is the allocation bound to nodes from time T on.
type Sample struct {
	T         clock.Time
	Allocated resource.Vector
}

// Replayer is one replay run. Everything but the API calls happens on the
// goroutine that called Run.
type Replayer struct {
	opt   Options
	run   string
	jobs  []*jobState
	pods  map[string]*podState
	order []*jobState // by submit time, then workload order
	next  int         // first job of order not yet submitted

	t0           time.Time
	lastChange   time.Time
	events       uint64
	created      int
	retries      int
	runningTasks int // task pods seen running and not yet ended
	ourDeletes   map[string]bool
	actions      *lanes
	actionErrs   chan error
	wg           sync.WaitGroup
	now          func() time.Time
	progressNext time.Time
}

type jobState struct {
	idx    int
	w      *workload.Job
	slug   string
	label  string
	queue  string
	demand resource.Vector

	submitted     bool
	driverAttempt int
	driverPod     string // current driver attempt's pod; "" for a job without an AM
	driverRunning bool
	done, failed  bool
	failReason    string

	released  int // phases whose tasks have been asked for
	tasks     [][]taskState
	completed []int

	submitAt, admitAt, firstRun, lastDone time.Duration // since t0; -1 unset
}

type taskState struct {
	attempt  int
	failures int
	pod      string // live attempt's pod; "" when it needs one
	done     bool
}

type podState struct {
	job     *jobState
	phase   int // -1: driver
	task    int
	req     resource.Vector
	created time.Duration
	bound   time.Duration
	running time.Duration
	ended   time.Duration
}

type action struct {
	create *corev1.Pod
	delete string
}

// New checks the options and prepares a replay.
func New(opt Options) (*Replayer, error) {
	if opt.Workload == nil {
		return nil, errors.New("replay: no workload")
	}
	if opt.Client == nil {
		return nil, errors.New("replay: no Kubernetes client")
	}
	if opt.TimeScale == 0 {
		opt.TimeScale = 1
	}
	if !(opt.TimeScale > 0) || math.IsInf(opt.TimeScale, 0) {
		return nil, fmt.Errorf("replay: time scale must be a positive number, got %v", opt.TimeScale)
	}
	if opt.Namespace == "" {
		opt.Namespace = "default"
	}
	if opt.SchedulerName == "" {
		opt.SchedulerName = "spindle"
	}
	if opt.StallTimeout <= 0 {
		opt.StallTimeout = 60 * time.Second
	}
	if opt.NodeReadyTimeout <= 0 {
		opt.NodeReadyTimeout = 60 * time.Second
	}
	if opt.Workers <= 0 {
		opt.Workers = 8
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = 10 * time.Second
	}
	if opt.RunID == "" {
		opt.RunID = fmt.Sprintf("r%05x", time.Now().UnixNano()/1e6&0xfffff)
	}
	if s := dnsLabel(opt.RunID, 20); s != opt.RunID || s == "" {
		return nil, fmt.Errorf("replay: run id %q must be a lowercase DNS label of at most 20 characters", opt.RunID)
	}
	r := &Replayer{opt: opt, run: opt.RunID, pods: map[string]*podState{}, ourDeletes: map[string]bool{}, now: time.Now}
	capacity := opt.Workload.Cluster.Capacity()
	slugs := map[string]bool{}
	for i := range opt.Workload.Jobs {
		wj := &opt.Workload.Jobs[i]
		slug := dnsLabel(wj.ID, 24)
		if slug == "" || slugs[slug] {
			slug = strings.TrimLeft(fmt.Sprintf("%s-%d", slug, i), "-")
		}
		slugs[slug] = true
		j := &jobState{
			idx: i, w: wj, slug: slug, label: r.run + "-" + slug, queue: wj.Queue,
			demand:   jobDemand(wj, capacity),
			submitAt: -1, admitAt: -1, firstRun: -1, lastDone: -1,
			tasks: make([][]taskState, len(wj.Phases)), completed: make([]int, len(wj.Phases)),
		}
		if j.queue == "" {
			j.queue = workload.DefaultQueue
		}
		for k := range wj.Phases {
			j.tasks[k] = make([]taskState, wj.Phases[k].Tasks)
		}
		r.jobs = append(r.jobs, j)
	}
	r.order = append([]*jobState(nil), r.jobs...)
	sort.SliceStable(r.order, func(a, b int) bool { return r.order[a].w.Submit < r.order[b].w.Submit })
	return r, nil
}

// jobDemand is the job's declared peak: its AM plus its largest phase (the
// one with the largest dominant share of the cluster), as the core counts it.
func jobDemand(w *workload.Job, capacity resource.Vector) resource.Vector {
	best, share := -1, -1.0
	for k := range w.Phases {
		p := &w.Phases[k]
		if s := p.Request.Mul(int64(p.Tasks)).DominantShare(capacity); s > share {
			best, share = k, s
		}
	}
	if best < 0 {
		return w.AM
	}
	p := &w.Phases[best]
	return w.AM.Add(p.Request.Mul(int64(p.Tasks)))
}

// RunID is the id on this replay's nodes and pods.
func (r *Replayer) RunID() string { return r.run }

// live converts a workload duration to live (wall) time.
func (r *Replayer) live(d clock.Duration) time.Duration {
	return time.Duration(float64(d) * float64(time.Microsecond) * r.opt.TimeScale)
}

// workloadTime converts a wall offset since the start to workload time.
func (r *Replayer) workloadTime(d time.Duration) clock.Time {
	return clock.Time(math.Round(float64(d) / float64(time.Microsecond) / r.opt.TimeScale))
}

type podEvent struct {
	pod     *corev1.Pod
	deleted bool
}

// Play runs the replay to its end, then removes its nodes and pods (also
// when ctx is cancelled or the run fails).
func (r *Replayer) Play(ctx context.Context) (res *Result, err error) {
	if r.opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.opt.Timeout)
		defer cancel()
	}
	start := r.now()
	defer func() {
		if r.opt.KeepObjects {
			return
		}
		if cerr := r.cleanup(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if err := r.createNodes(ctx); err != nil {
		return nil, err
	}

	sel := labels.SelectorFromSet(labels.Set{RunLabel: r.run}).String()
	factory := informers.NewSharedInformerFactoryWithOptions(r.opt.Client, 0,
		informers.WithNamespace(r.opt.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = sel }))
	events := make(chan podEvent, 1<<14)
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { sendPod(events, o, false) },
		UpdateFunc: func(_, o any) { sendPod(events, o, false) },
		DeleteFunc: func(o any) { sendPod(events, o, true) },
	}); err != nil {
		return nil, fmt.Errorf("watch pods: %w", err)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	defer func() {
		close(stop)
		factory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("watch pods in namespace %s: %w", r.opt.Namespace, context.Cause(ctx))
	}

	r.actions = newLanes()
	r.actionErrs = make(chan error, r.opt.Workers)
	actx, acancel := context.WithCancel(ctx)
	for range r.opt.Workers {
		r.wg.Add(1)
		go r.worker(actx)
	}
	defer func() {
		r.actions.close()
		acancel()
		r.wg.Wait()
	}()

	r.t0 = r.now()
	r.lastChange = r.t0
	r.progressNext = r.t0.Add(r.opt.ProgressEvery)
	deadlocked, err := r.loop(ctx, events)
	if err != nil {
		return nil, err
	}
	end := r.now().Sub(r.t0)
	res = r.result(end, deadlocked)
	res.Wall = r.now().Sub(start)
	res.Summary.WallS = res.Wall.Seconds()
	return res, nil
}

func sendPod(ch chan<- podEvent, o any, deleted bool) {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	if p, ok := o.(*corev1.Pod); ok {
		ch <- podEvent{pod: p, deleted: deleted}
	}
}

func (r *Replayer) worker(ctx context.Context) {
	defer r.wg.Done()
	pods := r.opt.Client.CoreV1().Pods(r.opt.Namespace)
	for {
		a, ok := r.actions.pop()
		if !ok {
			return
		}
		var err error
		switch {
		case a.create != nil:
			_, err = pods.Create(ctx, a.create, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				err = nil
			}
			if err != nil {
				err = fmt.Errorf("create pod %s/%s: %w", r.opt.Namespace, a.create.Name, err)
			}
		case a.delete != "":
			zero := int64(0)
			err = pods.Delete(ctx, a.delete, metav1.DeleteOptions{GracePeriodSeconds: &zero})
			if apierrors.IsNotFound(err) {
				err = nil
			}
			if err != nil {
				err = fmt.Errorf("delete pod %s/%s: %w", r.opt.Namespace, a.delete, err)
			}
		}
		if err != nil && ctx.Err() == nil {
			select {
			case r.actionErrs <- err:
			default:
			}
		}
	}
}

// loop is the replay's single owner of its state: it submits jobs on time,
// follows every pod of the run and acts as each job's application.
func (r *Replayer) loop(ctx context.Context, events <-chan podEvent) (deadlocked bool, err error) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := r.now()
		el := now.Sub(r.t0)
		for r.next < len(r.order) && r.live(clock.Duration(r.order[r.next].w.Submit)) <= el {
			r.submit(r.order[r.next], el)
			r.next++
		}
		if r.finished() {
			return false, nil
		}
		if r.stalled(now) {
			return true, nil
		}
		if r.opt.Progress != nil && !now.Before(r.progressNext) {
			r.progress(el)
			r.progressNext = now.Add(r.opt.ProgressEvery)
		}
		wait := time.Second
		if r.opt.Progress != nil {
			wait = min(wait, r.progressNext.Sub(now))
		}
		if r.next < len(r.order) {
			wait = min(wait, r.live(clock.Duration(r.order[r.next].w.Submit))-el)
		}
		timer.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("replay interrupted after %s: %w", el.Round(time.Millisecond), context.Cause(ctx))
		case err := <-r.actionErrs:
			return false, err
		case ev := <-events:
			r.observe(ev, r.now().Sub(r.t0))
			// Drain what else arrived so a burst is handled before the
			// next timer check.
			for more := true; more; {
				select {
				case ev := <-events:
					r.observe(ev, r.now().Sub(r.t0))
				default:
					more = false
				}
			}
		case <-timer.C:
		}
	}
}

func (r *Replayer) finished() bool {
	if r.next < len(r.order) {
		return false
	}
	for _, j := range r.jobs {
		if !j.done && !j.failed {
			return false
		}
	}
	return true
}

// stalled reports a run that cannot progress: every job submitted, no task
// pod running (kwok would end it), and nothing changed for StallTimeout.
// Under kube-scheduler that is the spark-operator deadlock: drivers hold
// every cpu and wait for executors that never fit.
func (r *Replayer) stalled(now time.Time) bool {
	if r.next < len(r.order) || now.Sub(r.lastChange) < r.opt.StallTimeout {
		return false
	}
	return r.runningTasks == 0
}

func (r *Replayer) progress(el time.Duration) {
	done, failed, drivers, pending, running := 0, 0, 0, 0, 0
	for _, j := range r.jobs {
		switch {
		case j.done:
			done++
		case j.failed:
			failed++
		case j.driverRunning:
			drivers++
		}
	}
	for _, p := range r.pods {
		if p.ended >= 0 || p.created < 0 {
			continue
		}
		if p.running >= 0 {
			running++
		} else {
			pending++
		}
	}
	fmt.Fprintf(r.opt.Progress, "replay %s: t=%.1fs (workload %.1fs) jobs %d/%d done, %d failed, %d drivers running; pods %d running, %d pending\n",
		r.run, el.Seconds(), r.workloadTime(el).Seconds(), done, len(r.jobs), failed, drivers, running, pending)
}

// submit creates a job's driver; a job without an AM asks for its first
// phase at once.
func (r *Replayer) submit(j *jobState, el time.Duration) {
	j.submitted = true
	if j.w.AM.IsZero() {
		j.submitAt = el
		r.sync(j)
		return
	}
	r.newDriver(j)
}

func (r *Replayer) newDriver(j *jobState) {
	j.driverAttempt++
	p := r.driverPod(j)
	j.driverPod = p.Name
	j.driverRunning = false
	r.create(p, &podState{job: j, phase: -1, req: j.w.AM})
}

func (r *Replayer) create(p *corev1.Pod, st *podState) {
	st.created, st.bound, st.running, st.ended = -1, -1, -1, -1
	r.pods[p.Name] = st
	r.created++
	r.actions.push(st.job.idx, action{create: p})
}

func (r *Replayer) deletePod(name string) {
	r.ourDeletes[name] = true
	job := -1
	if st := r.pods[name]; st != nil {
		job = st.job.idx
	}
	r.actions.push(job, action{delete: name})
}

// observe records what one pod event shows and reacts as the application.
func (r *Replayer) observe(ev podEvent, now time.Duration) {
	st := r.pods[ev.pod.Name]
	if st == nil {
		return // not created by this run's state (a left-over of an earlier attempt)
	}
	r.events++
	changed := false
	mark := func(t *time.Duration) {
		if *t < 0 {
			*t = now
			changed = true
		}
	}
	j := st.job
	p := ev.pod
	mark(&st.created)
	if st.phase < 0 && j.submitAt < 0 && p.Name == j.driverPod && j.driverAttempt == 1 {
		j.submitAt = now
	}
	if p.Spec.NodeName != "" && st.ended < 0 {
		mark(&st.bound)
		if st.phase < 0 && j.admitAt < 0 {
			j.admitAt = now
		}
	}
	running := p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodSucceeded
	if running && st.ended < 0 {
		if st.bound < 0 {
			mark(&st.bound)
		}
		if st.running < 0 && st.phase >= 0 {
			r.runningTasks++
		}
		mark(&st.running)
		if st.phase < 0 {
			if p.Name == j.driverPod && !j.driverRunning {
				j.driverRunning = true
				r.sync(j)
			}
		} else if j.firstRun < 0 {
			j.firstRun = now
		}
	}
	var ended, succeeded bool
	switch {
	case st.ended >= 0:
	case p.Status.Phase == corev1.PodSucceeded:
		ended, succeeded = true, true
	case p.Status.Phase == corev1.PodFailed, ev.deleted:
		ended = true
	}
	if ended {
		if st.running >= 0 && st.phase >= 0 {
			r.runningTasks--
		}
		mark(&st.ended)
		lost := ev.deleted && !r.ourDeletes[p.Name]
		if st.phase < 0 {
			r.driverEnded(j, p.Name, succeeded, lost)
		} else {
			r.taskEnded(j, st, p.Name, succeeded, lost, now)
		}
	}
	if changed {
		r.lastChange = r.now()
	}
}

// driverEnded handles a driver that stopped without the replayer ending
// it: YARN retries the AM up to MaxAMAttempts.
func (r *Replayer) driverEnded(j *jobState, name string, succeeded, lost bool) {
	if name != j.driverPod || j.done || j.failed || r.ourDeletes[name] {
		return
	}
	if j.driverAttempt >= MaxAMAttempts {
		r.fail(j, fmt.Sprintf("driver ended (%s) %d times", endWord(succeeded, lost), j.driverAttempt))
		return
	}
	r.newDriver(j)
}

func endWord(succeeded, lost bool) string {
	switch {
	case succeeded:
		return "succeeded early"
	case lost:
		return "lost"
	}
	return "failed"
}

// taskEnded counts a finished task, or asks again for a failed or lost one
// as Spark does (losses do not count against MaxTaskFailures).
func (r *Replayer) taskEnded(j *jobState, st *podState, name string, succeeded, lost bool, now time.Duration) {
	t := &j.tasks[st.phase][st.task]
	if t.pod != name || t.done || j.done || j.failed {
		return
	}
	if succeeded {
		t.done = true
		j.completed[st.phase]++
		j.lastDone = now
		r.sync(j)
		return
	}
	t.pod = ""
	if !lost {
		t.failures++
		if t.failures >= MaxTaskFailures {
			r.fail(j, fmt.Sprintf("task %d of phase %q failed %d times", st.task, j.w.Phases[st.phase].Name, t.failures))
			return
		}
	}
	r.retries++
	r.sync(j)
}

func (r *Replayer) fail(j *jobState, reason string) {
	j.failed, j.failReason = true, reason
	r.endPods(j)
}

// endPods deletes whatever of a finished job still runs.
func (r *Replayer) endPods(j *jobState) {
	for name, st := range r.pods {
		if st.job == j && st.ended < 0 && !r.ourDeletes[name] {
			r.deletePod(name)
		}
	}
}

// need is how many tasks of phase k-1 must be complete before phase k is
// asked for (start_after, as the core counts it).
func need(w *workload.Job, k int) int {
	n := int(math.Ceil(w.Phases[k].StartAfter*float64(w.Phases[k-1].Tasks) - 1e-9))
	return max(n, 1)
}

// sync is the application's step: with its driver running, ask for every
// released phase's tasks that have no live pod, release the phases that
// start_after allows, and end the job when every task succeeded.
func (r *Replayer) sync(j *jobState) {
	if j.done || j.failed {
		return
	}
	if j.Tasks() == j.completedTotal() {
		j.done = true
		if j.driverPod != "" {
			r.deletePod(j.driverPod)
		}
		return
	}
	if j.driverPod != "" && !j.driverRunning {
		return
	}
	for j.released < len(j.w.Phases) && (j.released == 0 || j.completed[j.released-1] >= need(j.w, j.released)) {
		j.released++
	}
	for k := 0; k < j.released; k++ {
		for t := range j.tasks[k] {
			ts := &j.tasks[k][t]
			if ts.done || ts.pod != "" {
				continue
			}
			ts.attempt++
			p := r.taskPod(j, k, t, ts.attempt)
			ts.pod = p.Name
			r.create(p, &podState{job: j, phase: k, task: t, req: j.w.Phases[k].Request})
		}
	}
}

// Tasks is the job's task count.
func (j *jobState) Tasks() int { return j.w.Tasks() }

func (j *jobState) completedTotal() int {
	n := 0
	for _, c := range j.completed {
		n += c
	}
	return n
}

// createNodes creates the workload's machines as kwok nodes and waits until
// every one is Ready and schedulable.
func (r *Replayer) createNodes(ctx context.Context) error {
	var nodes []*corev1.Node
	tainted := map[string][]corev1.Taint{}
	for _, g := range r.opt.Workload.Cluster.Nodes {
		for range g.Count {
			name := fmt.Sprintf("%s-n%04d", r.run, len(nodes))
			labels := map[string]string{RunLabel: r.run}
			for k, v := range g.Labels { // a node pool's labels (docs/node-pools.md)
				labels[k] = v
			}
			nodes = append(nodes, kwok.Node(name, labels, g.Capacity, 1000))
			for _, t := range g.Taints {
				tainted[name] = append(tainted[name], corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
			}
		}
	}
	if err := kwok.CreateReady(ctx, r.opt.Client, nodes, r.opt.Workers, r.opt.NodeReadyTimeout); err != nil {
		return err
	}
	// A pool's taints go on once its nodes are Ready: creation waits for
	// nodes free of NoSchedule taints.
	for _, n := range nodes {
		if len(tainted[n.Name]) == 0 {
			continue
		}
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := r.opt.Client.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Spec.Taints = append(cur.Spec.Taints, tainted[n.Name]...)
			_, err = r.opt.Client.CoreV1().Nodes().Update(ctx, cur, metav1.UpdateOptions{})
			return err
		}); err != nil {
			return fmt.Errorf("taint node %s: %w", n.Name, err)
		}
	}
	return nil
}

// cleanup removes the run's pods and nodes, whatever happened to the run.
func (r *Replayer) cleanup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return kwok.DeleteLabelled(ctx, r.opt.Client, r.opt.Namespace, labels.SelectorFromSet(labels.Set{RunLabel: r.run}).String())
}
