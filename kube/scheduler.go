// Package kube runs spindle's scheduling core against a Kubernetes cluster as
// a secondary scheduler: it watches nodes and pods, turns them into the
// core's nodes, jobs and requests (mapping.go), and binds the pods whose
// spec.schedulerName is its own where the core's policy decides.
//
// One event-loop goroutine owns the core. Informers hand it keys through a
// work queue; bindings run on a bounded pool of workers. A decision is
// assumed at once (the core holds the resources) so that the next decision
// does not wait for the watch to show the binding; a binding that fails is
// undone in the core (Refuse) and retried after a backoff. Nothing is kept
// outside the apiserver: on start the scheduler lists nodes and pods, adopts
// the pods already bound, then schedules, so that a restart loses nothing
// and binds nothing twice.
package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	schedulingv1listers "k8s.io/client-go/listers/scheduling/v1"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/kube/served"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Options configure a Scheduler.
type Options struct {
	Client kubernetes.Interface
	// Dynamic reads custom resources of other schedulers' conventions
	// where the cluster serves them (Volcano's PodGroups); nil: they are
	// not read, and only the pods' own words count.
	Dynamic dynamic.Interface
	// StatusClient writes what is said about waiting pods: Events (when
	// Recorder is nil) and PodScheduled=False conditions; nil uses Client.
	// Give it a client of its own, with its own rate limiter, as
	// kube-scheduler does for its Events, so that these writes never spend
	// the budget the bindings need.
	StatusClient  kubernetes.Interface
	SchedulerName string // pods with this spec.schedulerName are ours
	Policy        sched.PolicyFactory
	PolicyName    string
	AdmissionName string
	Admission     sched.AdmissionFactory // nil: admit every job
	Config        *FileConfig            // nil: one queue "default"
	// Recorder posts Events; nil posts them to the apiserver.
	Recorder record.EventRecorder
	// BindWorkers bounds concurrent bindings (default DefaultBindWorkers;
	// see throughput.go).
	BindWorkers int
	// StatusWorkers bound concurrent status writes (conditions), on
	// StatusClient (default DefaultStatusWorkers).
	StatusWorkers int
	// StatusAfter is how long a pod must have waited in the core before
	// what it waits for is written on it (default 5 x StatusEvery; see
	// throughput.go). Refusals (held pods, failed bindings) are written
	// at once.
	StatusAfter time.Duration
	// BackoffInitial and BackoffMax bound the retry delay after a failed
	// binding; it doubles on each failure of the same pod.
	BackoffInitial, BackoffMax time.Duration
	// StatusEvery is how often waiting pods' conditions are refreshed.
	StatusEvery time.Duration
	Log         *slog.Logger
	// Now is the wall clock; tests replace it.
	Now func() time.Time
	// Check verifies the core's invariants after every event and stops
	// the scheduler with an error when one breaks; tests set it.
	Check bool
	// Observe, when set, hears attempts, decisions and bindings and gets
	// a snapshot of the scheduler every StatusEvery.
	Observe *observe.Recorder
	// OnDecision, when set, hears every binding the scheduler attempts and
	// its outcome, from the event loop.
	OnDecision func(Decision)
	// ForecastEvery is how often the scheduler forecasts when every job
	// should start and finish (forecasting.go); 0 never. ForecastHorizon
	// bounds how far ahead (0: forecast's default, 24 h). Forecast
	// replaces forecast.Run (tests); ResolvePolicy resolves the policy
	// names of what-if forecasts (nil refuses them).
	ForecastEvery   time.Duration
	ForecastHorizon time.Duration
	Forecast        ForecastFunc
	ResolvePolicy   PolicyResolver
}

// Decision is one binding attempt, for observers and tests.
type Decision struct {
	Pod, Node string
	AM        bool
	Err       error // nil when the binding succeeded
}

// Scheduler is a running secondary scheduler.
type Scheduler struct {
	o     Options
	core  *sched.Core
	queue *workQueue

	podLister  corelisters.PodLister
	nodeLister corelisters.NodeLister
	// groupLister reads Kubernetes PodGroups (scheduling.k8s.io/v1beta1);
	// nil when the cluster does not serve them (1.37 serves them only
	// with the GenericWorkload gate and the API turned on).
	groupLister schedulinglisters.PodGroupLister
	// volcanoGroups holds Volcano PodGroups (unstructured, by
	// namespace/name); nil when they are not read (no Dynamic client, or
	// the cluster does not serve the CRD). priorityClasses resolves their
	// priorityClassName; nil with them.
	volcanoGroups   cache.Indexer
	priorityClasses schedulingv1listers.PriorityClassLister

	epoch time.Time
	last  clock.Time
	// nextTick is when the core's next periodic observer is due; the clock
	// is never let past it before the tick has run.
	nextTick clock.Time

	nodes    map[string]*nodeState
	nodeByID []*nodeState
	pods     map[string]*podState
	jobs     map[string]*jobState
	jobGen   map[string]int
	// awaiting holds, by job, Spark executor pods seen before their
	// job's driver: they join the job when the driver comes (sync.go).
	awaiting map[string][]*podState
	// external holds, per node name, what pods spindle does not schedule
	// request there; foreign maps such pods to where they count.
	external map[string]resource.Vector
	foreign  map[string]foreignPod
	// evicting holds, per pod key, the queue preemption took the pod for,
	// from its eviction's request until the pod is gone (evict.go).
	evicting map[string]string
	// foreignPods counts, per node name, the pods spindle does not
	// schedule that are bound there and not finished: they take slots of
	// the node's "pods" allocatable.
	foreignPods map[string]int

	// Work the core asked for during a call, done after it returns: the
	// core is never re-entered from its own callbacks.
	dirty bool // nodes must be offered to the policy again
	// joining is the node object being added to the core (AddNode), so
	// that what the core checks as the node joins (asks that fit no node
	// until then, admission's node pools) sees its labels and taints.
	joining  *v1.Node
	wakeAMs  []*sched.Job
	outbox   []apiTask
	inflight int
	results  chan apiResult
	tasks    chan apiTask
	// statusBox holds the PodScheduled=False conditions still to write, in
	// a lane of their own (statusTasks, on StatusClient) so that a backlog
	// of them never delays a binding. Each is checked again when a worker
	// takes it: a pod placed meanwhile is not written to.
	statusBox   []statusWrite
	statusTasks chan apiTask
	// retry is when the earliest pod in backoff may be asked again.
	backoff []*podState
	// calls are functions to run on the loop, for readers outside it.
	calls    chan func()
	stopped  chan struct{} // closed when Run returns
	deferred []func(now clock.Time)
	// fresh are the pods handed to the core since the last settle: one
	// that no node could ever take is told why at once (neverFits).
	fresh  []*podState
	synced bool
	// offerAt is when the current pass of node offers began: a decision's
	// latency is counted from it.
	offerAt time.Time
	// verdicts and positions cache, for one status refresh, why pods of
	// one shape fit no node now and where waiting jobs stand in their
	// queues (explain.go).
	verdicts  map[explainKey]nodeVerdict
	positions map[*sched.Job]int
	// fc makes the forecasts (forecasting.go); nil when the scheduler
	// does not forecast.
	fc *forecaster
}

type nodeState struct {
	name   string
	id     cluster.NodeID
	cn     *cluster.Node
	node   *v1.Node
	cap    resource.Vector
	schedu bool
	slots  int // the "pods" allocatable; 0: none reported
}

// podPhase is where one of our pods is, as the driver tracks it.
type podPhase uint8

const (
	podAsked   podPhase = iota // a pending request in the core
	podAssumed                 // the core placed it; the binding is in flight
	podBound                   // bound (by us or read back); resources held
	podRunning                 // reported RUNNING
	podBackoff                 // a binding failed; waiting to be asked again
	podHeld                    // not given to the core (job ended, bad input)
	podDone                    // ended; nothing held
)

var podPhaseNames = [...]string{"asked", "assumed", "bound", "running", "backoff", "held", "done"}

func (p podPhase) String() string { return podPhaseNames[p] }

type podState struct {
	key   string
	uid   string
	pod   *v1.Pod
	job   *jobState
	am    bool
	req   resource.Vector
	place *placement
	phase podPhase
	ct    *sched.Container
	node  string // where it is assumed or bound
	// askedAt is when the pod was last handed to the core (see
	// throughput.go: its wait is written only once it has lasted).
	askedAt time.Time
	// attempts counts failed bindings; retryAt is when it may be asked
	// again.
	attempts int
	retryAt  time.Time
	// gen tells a binding's result apart from an older one for the same
	// pod.
	gen uint64
	// why is the reason last given in an Event; cond the PodScheduled=False
	// message last sent (cleared when the write lost a race, so that it is
	// sent again); held the reason the pod is not given to the core.
	why, cond, held string
	// awaits names the job whose driver this executor waits for, before
	// it is part of any job ("" otherwise).
	awaits string
	// awaitsGroup names the Kubernetes PodGroup (namespace/name) the pod
	// waits for, held outside any job until it exists.
	awaitsGroup string
}

type jobState struct {
	key   string // the job's identity (namespace/label or pod:namespace/name)
	j     *sched.Job
	am    *podState
	pods  map[string]*podState
	lone  bool
	ended bool
}

type foreignPod struct {
	node string
	req  resource.Vector
}

// New checks the options and builds a scheduler; Run starts it.
func New(o Options) (*Scheduler, error) {
	if o.Client == nil {
		return nil, errors.New("kube scheduler: no client")
	}
	if o.Policy == nil {
		return nil, errors.New("kube scheduler: no policy")
	}
	if o.SchedulerName == "" {
		o.SchedulerName = "spindle"
	}
	if o.Config == nil {
		o.Config = defaultConfig()
	}
	if o.StatusClient == nil {
		o.StatusClient = o.Client
	}
	if o.BindWorkers <= 0 {
		o.BindWorkers = DefaultBindWorkers
	}
	if o.StatusWorkers <= 0 {
		o.StatusWorkers = DefaultStatusWorkers
	}
	if o.BackoffInitial <= 0 {
		o.BackoffInitial = time.Second
	}
	if o.BackoffMax < o.BackoffInitial {
		o.BackoffMax = max(10*time.Second, o.BackoffInitial)
	}
	if o.StatusEvery <= 0 {
		o.StatusEvery = time.Second
	}
	if o.StatusAfter <= 0 {
		o.StatusAfter = 5 * o.StatusEvery
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Scheduler{
		o: o, queue: newWorkQueue(),
		nodes: map[string]*nodeState{}, pods: map[string]*podState{}, jobs: map[string]*jobState{},
		jobGen: map[string]int{}, awaiting: map[string][]*podState{}, external: map[string]resource.Vector{}, foreign: map[string]foreignPod{}, foreignPods: map[string]int{}, evicting: map[string]string{},
		results: make(chan apiResult, o.BindWorkers), tasks: make(chan apiTask), statusTasks: make(chan apiTask), calls: make(chan func()), stopped: make(chan struct{}),
		nextTick: clock.Never,
	}
	s.fc = newForecaster(o)
	return s, nil
}

// Core returns the scheduling core. Only the event loop may call it while
// the scheduler runs; observers read it from their callbacks.
func (s *Scheduler) Core() *sched.Core { return s.core }

// Run watches the cluster and schedules until ctx ends. It returns after
// the initial list is adopted and ctx is done, or on a setup error.
func (s *Scheduler) Run(ctx context.Context) error {
	defer close(s.stopped)
	if s.o.Recorder == nil {
		b := record.NewBroadcaster(record.WithContext(ctx))
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: s.o.StatusClient.CoreV1().Events("")})
		defer b.Shutdown()
		s.o.Recorder = b.NewRecorder(scheme.Scheme, v1.EventSource{Component: s.o.SchedulerName})
	}
	f := informers.NewSharedInformerFactory(s.o.Client, 0)
	podInf := f.Core().V1().Pods()
	nodeInf := f.Core().V1().Nodes()
	s.podLister, s.nodeLister = podInf.Lister(), nodeInf.Lister()
	if _, err := podInf.Informer().AddEventHandler(s.handler(kindPod)); err != nil {
		return fmt.Errorf("pod informer: %w", err)
	}
	if _, err := nodeInf.Informer().AddEventHandler(s.handler(kindNode)); err != nil {
		return fmt.Errorf("node informer: %w", err)
	}
	if served.PodGroups(s.o.Client) {
		groupInf := f.Scheduling().V1beta1().PodGroups()
		s.groupLister = groupInf.Lister()
		if _, err := groupInf.Informer().AddEventHandler(s.handler(kindGroup)); err != nil {
			return fmt.Errorf("podgroup informer: %w", err)
		}
		s.o.Log.Info("reading Kubernetes PodGroups", "api", schedulingv1beta1.SchemeGroupVersion.String())
	}
	var df dynamicinformer.DynamicSharedInformerFactory
	if s.o.Dynamic != nil && served.VolcanoPodGroups(s.o.Client) {
		// The dynamic client reads the CRD without Volcano's Go module:
		// spindle reads four fields of its spec (podmap.VolcanoPodGroup).
		df = dynamicinformer.NewDynamicSharedInformerFactory(s.o.Dynamic, 0)
		inf := df.ForResource(served.VolcanoGVR).Informer()
		s.volcanoGroups = inf.GetIndexer()
		if _, err := inf.AddEventHandler(s.handler(kindVolcanoGroup)); err != nil {
			return fmt.Errorf("volcano podgroup informer: %w", err)
		}
		pc := f.Scheduling().V1().PriorityClasses()
		s.priorityClasses = pc.Lister()
		pc.Informer() // registered before Start
		s.o.Log.Info("reading Volcano PodGroups", "api", podmap.VolcanoGroup+"/"+podmap.VolcanoVersion)
	}
	f.Start(ctx.Done())
	defer f.Shutdown()
	if df != nil {
		df.Start(ctx.Done())
		defer df.Shutdown()
	}
	synced := notSynced(f.WaitForCacheSync(ctx.Done()))
	if df != nil && synced == "" {
		synced = notSynced(df.WaitForCacheSync(ctx.Done()))
	}
	if synced != "" {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("informer for %v did not sync", synced)
	}
	// The core needs a node to start from; a cluster without any has
	// nothing to schedule on until one joins.
	for {
		nodes, err := s.nodeLister.List(everything())
		if err != nil {
			return fmt.Errorf("list nodes: %w", err)
		}
		if len(nodes) > 0 {
			break
		}
		s.o.Log.Info("waiting for a node to join")
		select {
		case <-ctx.Done():
			return nil
		case <-s.queue.wake:
		}
	}
	if err := s.start(); err != nil {
		return err
	}
	if s.o.Observe != nil {
		s.settle()
		s.publish()
		s.o.Observe.SetSynced(true)
		defer s.o.Observe.SetSynced(false)
	}
	defer s.serveWhatIf()()
	workers := make(chan struct{})
	statusWorkers := s.o.StatusWorkers
	for range s.o.BindWorkers {
		go func() {
			defer func() { workers <- struct{}{} }()
			s.worker(ctx, s.tasks)
		}()
	}
	for range statusWorkers {
		go func() {
			defer func() { workers <- struct{}{} }()
			s.worker(ctx, s.statusTasks)
		}()
	}
	err := s.loop(ctx)
	for range s.o.BindWorkers + statusWorkers {
		<-workers
	}
	return err
}

// NodeName returns the Kubernetes name of the core's node id ("" when
// unknown). Only the event loop (or OnLoop's f) may call it.
func (s *Scheduler) NodeName(id cluster.NodeID) string {
	if int(id) < 0 || int(id) >= len(s.nodeByID) || s.nodeByID[id] == nil {
		return ""
	}
	return s.nodeByID[id].name
}

// OnLoop runs f on the event loop, with the core and the driver's state
// quiescent, and waits for it; it reports false, without running f, when
// ctx ends first or the scheduler has stopped. Readers outside the loop
// (status pages, tests) use it; f must not block.
func (s *Scheduler) OnLoop(ctx context.Context, f func()) bool {
	done := make(chan struct{})
	select {
	case s.calls <- func() { f(); close(done) }:
	case <-ctx.Done():
		return false
	case <-s.stopped:
		return false
	}
	<-done
	return true
}

func (s *Scheduler) handler(k itemKind) cache.ResourceEventHandler {
	key := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if k == kindNode {
			if n, ok := obj.(*v1.Node); ok {
				s.queue.add(item{kindNode, n.Name})
			}
			return
		}
		if p, ok := obj.(*v1.Pod); ok {
			s.queue.add(item{kindPod, p.Namespace + "/" + p.Name})
		}
		if g, ok := obj.(*schedulingv1beta1.PodGroup); ok {
			s.queue.add(item{kindGroup, g.Namespace + "/" + g.Name})
		}
		if g, ok := obj.(*unstructured.Unstructured); ok && k == kindVolcanoGroup {
			s.queue.add(item{kindVolcanoGroup, g.GetNamespace() + "/" + g.GetName()})
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { key(obj) },
		UpdateFunc: func(_, obj any) { key(obj) },
		DeleteFunc: key,
	}
}

// start builds the core from the listed cluster: nodes, then the pods of
// other schedulers (external load), then our bound pods (adopted, AMs
// first), then our pending pods in creation order.
func (s *Scheduler) start() error {
	now := s.clockNow()
	// The nodes listed now are the core's initial cluster, so that
	// policies that size themselves at construction see them; nodes that
	// join later come through AddNode.
	nodes, err := s.nodeLister.List(everything())
	if err != nil {
		return fmt.Errorf("list nodes: %w", err)
	}
	sort.Slice(nodes, func(a, b int) bool { return nodes[a].Name < nodes[b].Name })
	caps := make([]resource.Vector, len(nodes))
	for i, n := range nodes {
		caps[i] = nodeCapacity(n)
	}
	core, err := sched.NewCore(sched.Config{
		Nodes:  caps,
		Queues: s.o.Config.QueueSpecs(), Driver: (*coreDriver)(s),
		NewPolicy: s.o.Policy, NewAdmission: s.o.Admission, Debug: s.o.Check,
		Calculator: s.o.Config.Calculator(),
	})
	if err != nil {
		return fmt.Errorf("scheduling core: %w", err)
	}
	s.core = core
	for i, n := range nodes {
		ns := &nodeState{name: n.Name, id: cluster.NodeID(i), cn: core.Cluster().Node(cluster.NodeID(i)), cap: caps[i], schedu: true}
		s.nodes[n.Name] = ns
		s.nodeByID = append(s.nodeByID, ns)
		s.syncNodeObject(now, n.Name, n)
	}
	pods, err := s.podLister.List(everything())
	if err != nil {
		return fmt.Errorf("list pods: %w", err)
	}
	sort.Slice(pods, func(a, b int) bool { return podBefore(pods[a], pods[b]) })
	rank := func(p *v1.Pod) int {
		switch {
		case p.Spec.SchedulerName != s.o.SchedulerName:
			return 0
		case p.Spec.NodeName != "" && identify(p).AM:
			return 1
		case p.Spec.NodeName != "":
			return 2
		}
		return 3
	}
	sort.SliceStable(pods, func(a, b int) bool { return rank(pods[a]) < rank(pods[b]) })
	for _, p := range pods {
		s.syncPodObject(now, p.Namespace+"/"+p.Name, p)
	}
	s.synced = true
	s.o.Log.Info("adopted cluster state", "nodes", len(nodes), "pods", len(pods), "jobs", len(s.jobs))
	return nil
}

func podBefore(a, b *v1.Pod) bool {
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// loop is the event loop: the only goroutine that touches the core.
func (s *Scheduler) loop(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	status := time.NewTicker(s.o.StatusEvery)
	defer status.Stop()
	var forecastTick <-chan time.Time
	if s.fc != nil {
		t := time.NewTicker(s.fc.every)
		defer t.Stop()
		forecastTick = t.C
		s.maybeForecast()
	}
	for {
		s.settle()
		s.armTimer(timer)
		var send, sendStatus chan apiTask
		var head, headStatus apiTask
		if len(s.outbox) > 0 {
			send, head = s.tasks, s.outbox[0]
		}
		if t, ok := s.nextStatus(); ok {
			sendStatus, headStatus = s.statusTasks, t
		}
		select {
		case <-ctx.Done():
			close(s.tasks)
			close(s.statusTasks)
			return nil
		case sendStatus <- headStatus:
			s.statusBox[0] = statusWrite{}
			s.statusBox = s.statusBox[1:]
		case <-s.queue.wake:
			s.processQueue()
		case r := <-s.results:
			s.handleResult(r)
		case send <- head:
			s.outbox[0] = apiTask{}
			s.outbox = s.outbox[1:]
		case <-timer.C:
			s.clockNow() // runs a due tick
			s.retryBackoff()
		case <-status.C:
			s.refreshStatus()
			s.publish()
		case f := <-s.calls:
			f()
		case <-forecastTick:
			s.maybeForecast()
		case o := <-s.fc.outcomes():
			s.fc.finish(o)
		}
		if err := s.core.Err(); err != nil {
			return fmt.Errorf("scheduling core: %w", err)
		}
		if s.o.Check {
			if err := s.core.Check(); err != nil {
				return fmt.Errorf("invariant broken: %w", err)
			}
		}
	}
}

// armTimer sets the timer for the next tick or backoff expiry.
func (s *Scheduler) armTimer(t *time.Timer) {
	d := s.nextWake()
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	t.Reset(d)
}

// nextWake is how long the loop may wait for an event before its clock
// must move: until the core's next periodic tick or the earliest binding
// backoff to expire, and at most an hour; 0 when one is already due.
func (s *Scheduler) nextWake() time.Duration {
	wall := s.o.Now()
	next := wall.Add(time.Hour)
	if s.core != nil {
		// A gang admitted since the clock last moved brings its timeout
		// forward (sched.Core.NextTick).
		s.nextTick = min(s.nextTick, s.core.NextTick(s.last))
	}
	if s.nextTick != clock.Never {
		next = minTime(next, s.epoch.Add(time.Duration(s.nextTick)*time.Microsecond))
	}
	for _, p := range s.backoff {
		next = minTime(next, p.retryAt)
	}
	return max(next.Sub(wall), 0)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// processQueue syncs every queued node and pod against the informers'
// latest objects.
func (s *Scheduler) processQueue() {
	for _, it := range s.queue.drain() {
		now := s.clockNow()
		switch it.kind {
		case kindNode:
			n, err := s.nodeLister.Get(it.key)
			if err != nil {
				n = nil
			}
			s.syncNodeObject(now, it.key, n)
		case kindGroup:
			s.syncGroup(now, it.key)
		case kindVolcanoGroup:
			s.syncGroup(now, volcanoKey(it.key))
		case kindPod:
			ns, name, _ := cache.SplitMetaNamespaceKey(it.key)
			p, err := s.podLister.Pods(ns).Get(name)
			if err != nil {
				p = nil
			}
			s.syncPodObject(now, it.key, p)
		}
	}
}

// clockNow returns the core's time: microseconds since the scheduler
// started, never decreasing. A periodic tick that fell due is run first, at
// its own instant, so that ticking policies see the instants they asked
// for.
func (s *Scheduler) clockNow() clock.Time {
	if s.epoch.IsZero() {
		s.epoch = s.o.Now()
	}
	t := clock.Time(s.o.Now().Sub(s.epoch) / time.Microsecond)
	if s.core != nil {
		if s.nextTick == clock.Never {
			s.nextTick = s.core.NextTick(max(t, s.last))
		}
		for s.nextTick != clock.Never && s.nextTick <= t {
			due := max(s.nextTick, s.last)
			s.last = due
			s.core.Tick(due)
			s.nextTick = s.core.NextTick(due)
		}
	}
	s.last = max(s.last, t)
	return s.last
}

// settle does what the core asked for during the last calls: AM heartbeats
// and node offers, until it asks for nothing more.
func (s *Scheduler) settle() {
	if s.core == nil {
		return
	}
	defer s.explainFresh()
	for range 64 {
		if len(s.wakeAMs) == 0 && !s.dirty && len(s.deferred) == 0 {
			return
		}
		now := s.clockNow()
		for len(s.deferred) > 0 {
			f := s.deferred[0]
			s.deferred = s.deferred[1:]
			f(now)
		}
		for len(s.wakeAMs) > 0 {
			j := s.wakeAMs[0]
			s.wakeAMs = s.wakeAMs[1:]
			s.core.AMHeartbeat(now, j)
		}
		if s.dirty {
			s.dirty = false
			s.offerNodes(now)
		}
	}
}

// offerNodes gives every node that may take something to the policy, in
// node order.
func (s *Scheduler) offerNodes(now clock.Time) {
	s.offerAt = s.o.Now()
	for _, ns := range s.nodeByID {
		if ns == nil || ns.cn == nil || !ns.schedu {
			continue
		}
		if s.core.MayAccept(ns.cn) {
			s.core.NodeUpdate(now, ns.cn)
		}
	}
}

// coreDriver is the scheduler as the core's Driver. Its methods run inside
// core calls, so they only record what to do.
type coreDriver Scheduler

func (d *coreDriver) Launch(ct *sched.Container) { (*Scheduler)(d).launch(ct) }
func (d *coreDriver) Stop(*sched.Container)      {} // AMs exit on their own
func (d *coreDriver) WakeAM(j *sched.Job)        { d.wakeAMs = append(d.wakeAMs, j) }
func (d *coreDriver) Reconsider()                { d.dirty = true }
func (d *coreDriver) AcceptLowered()             { d.dirty = true }
func (d *coreDriver) Preempt(ct *sched.Container, q *sched.Queue) {
	(*Scheduler)(d).preempt(ct, q)
}
func (d *coreDriver) WouldPreempt(ct *sched.Container, q *sched.Queue) {
	(*Scheduler)(d).wouldPreempt(ct, q)
}

// launch assumes the core's decision and queues its binding.
func (s *Scheduler) launch(ct *sched.Container) {
	ps := s.pods[ct.Key()]
	if ps == nil || ps.phase != podAsked {
		// The request's pod is gone or already placed; undo at once.
		s.afterCore(func(now clock.Time) {
			if err := s.core.Refuse(now, ct, "pod no longer pending"); err != nil {
				s.o.Log.Error("refuse", "container", ct.Key(), "err", err)
			}
		})
		return
	}
	ns := s.nodeByID[ct.Node().ID()]
	ps.phase, ps.ct, ps.node = podAssumed, ct, ns.name
	ps.gen++
	s.observeDecision(ps, ns.name, s.o.Now().Sub(s.offerAt))
	s.inflight++
	s.outbox = append(s.outbox, apiTask{kind: taskBind, pod: ps.key, uid: ps.uid, obj: ps.pod, node: ns.name, gen: ps.gen, am: ps.am, start: s.o.Now()})
}

// afterCore runs f once the current core call has returned.
func (s *Scheduler) afterCore(f func(now clock.Time)) {
	s.deferred = append(s.deferred, f)
}

// sortedJobs returns the jobs in submission order.
func (s *Scheduler) sortedJobs() []*jobState {
	out := make([]*jobState, 0, len(s.jobs))
	for _, js := range s.jobs {
		out = append(out, js)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].j.ID() < out[b].j.ID() })
	return out
}

func everything() labels.Selector { return labels.Everything() }

var _ sched.PreemptObserver = (*coreDriver)(nil)

// notSynced names an informer of a factory's WaitForCacheSync answer that
// did not sync, or is "".
func notSynced[K comparable](synced map[K]bool) string {
	for typ, ok := range synced {
		if !ok {
			return fmt.Sprint(typ)
		}
	}
	return ""
}

// volcanoKey is the key pods waiting for Volcano PodGroup nsName
// (namespace/name) wait under, apart from Kubernetes PodGroups'.
func volcanoKey(nsName string) string { return "volcano:" + nsName }
