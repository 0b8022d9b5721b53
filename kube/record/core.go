package record

import (
	"fmt"
	"hash/maphash"
	"math"
	"time"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/workload"
)

// core is what both sources share: the counts for the summary, the queues
// seen, the nodes and their external load, the pod start latencies, and the
// workload being written.
type core struct {
	opt   Options
	out   sink
	b     builder
	nodes *nodeTable

	leftOut, ext, adjusted counts
	examples               []string
	kinds                  map[string]int
	jobs, tasks, pods      int
	first, last            clock.Time // first submit, last end written; first < 0 until a job is

	queues   []string
	queueSet map[string]bool
	lat      latencies
	// wait is the pods' scheduling waits (creation to binding); react
	// the time from what allowed a job's next pods (its driver started,
	// a task of its previous wave ended) to their creation (job.go).
	wait, react latencies

	malformedEx []string
	// restarts and restartLost sum the workload pods' container restarts
	// and the time their restarted runs took; restartPods counts those
	// pods, approxStarts those whose first start is the pod's startTime.
	restarts, restartPods, approxStarts int64
	restartLost                         time.Duration

	// groups are the PodGroup objects read, by the job identity of the
	// pods that name them (groups.go); podGroups counts them.
	groups    map[string]*podGroup
	podGroups int
}

// sink receives the workload: a Streamer writes it out job by job; a
// snapshot's conversion keeps it.
type sink interface {
	Job(j *workload.Job) error
	Close(c *workload.Cluster, queues []workload.Queue) error
}

func newCore(out sink, opt Options) (*core, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	c := &core{opt: opt, out: out, kinds: map[string]int{}, queueSet: map[string]bool{}, first: -1}
	c.b = builder{c: c, ids: map[uint64]int{}, seed: maphash.MakeSeed()}
	c.nodes = newNodeTable(c)
	return c, nil
}

// NoMapReduceAM is the MapReduce AM model "none" with Hadoop's limits
// beside it (unused under that model), written out in every recording and
// simulated by a forecast: a Kubernetes job's pods are asked for by their
// controller, not by an AM that ramps reduces up.
var NoMapReduceAM = func() workload.MapReduceAM {
	m := workload.DefaultMapReduceAM
	m.Model = workload.MRNone
	return m
}()

// refusedRequests is the reason a pod whose requests the scheduler cannot
// count (negative, or beyond what it counts) is left out.
const refusedRequests = "pods with requests the scheduler refuses (negative or too large)"

func (c *core) left(reason string, n int64)     { c.leftOut.add(reason, n) }
func (c *core) adjust(reason string, n int64)   { c.adjusted.add(reason, n) }
func (c *core) external(reason string, n int64) { c.ext.add(reason, n) }
func (c *core) problem(reason, example string)  { c.adjust(reason, 1); c.example(example) }
func (c *core) malformed(where string, err error) {
	c.left("malformed objects", 1)
	msg := where + ": " + err.Error()
	c.example(msg)
	if len(c.malformedEx) < maxExamples {
		c.malformedEx = append(c.malformedEx, msg)
	}
}

// restarted counts a workload pod's restarts, timed from its first start.
func (c *core) restarted(p *podRec, st *stamps) {
	if st.restarts == 0 {
		return
	}
	c.restarts += st.restarts
	c.restartPods++
	c.restartLost += st.lost
	if st.approxStart {
		c.approxStarts++
	}
}

func (c *core) example(msg string) {
	if len(c.examples) < maxExamples {
		c.examples = append(c.examples, msg)
	}
}

// queue maps a job's queue name to the workload's, noting it.
func (c *core) queue(name string) string {
	if c.opt.SingleQueue || name == "" {
		name = workload.DefaultQueue
	}
	if !c.queueSet[name] {
		c.queueSet[name] = true
		c.queues = append(c.queues, name)
	}
	return name
}

func (c *core) latency(p *podRec) {
	if !p.bound.IsZero() && !p.started.IsZero() {
		c.lat.add(p.started.Sub(p.bound))
	}
	if !p.bound.IsZero() && !p.created.IsZero() {
		c.wait.add(p.bound.Sub(p.created))
	}
}

// maxLatency is where the latency histogram stops: longer latencies count
// as this long, and the summary says how many did.
const maxLatency = 2 * time.Minute

func (c *core) written(j *jobRec, pods int) {
	c.kinds[j.id.Kind.String()]++
	c.pods += pods
}

// emit writes j to the workload, or counts why it is left out.
func (c *core) emit(j *jobRec) error {
	c.applyGroup(j)
	wj, ok := c.b.build(j, c.opt.Running, c.nodes.largest)
	if !ok {
		return nil
	}
	c.jobs++
	c.tasks += wj.Tasks()
	if c.first < 0 || wj.Submit < c.first {
		c.first = wj.Submit
	}
	end := wj.Submit
	if r := wj.Recorded; r.Finished >= 0 {
		end = r.Finished
	}
	for k := range wj.Phases {
		p := &wj.Phases[k]
		for i, s := range p.Started {
			end = max(end, s.Add(p.Duration(i)))
		}
	}
	c.last = max(c.last, end)
	return c.out.Job(&wj)
}

// finish writes the cluster and queues and returns the summary.
func (c *core) finish() (*Summary, error) {
	cl := workload.Cluster{
		Nodes:  c.nodes.groupsOut(),
		Timing: workload.TimingKubernetes,
		// A Spark application's executors, or a Job's pods, are asked
		// for by their driver or controller, not by a MapReduce AM that
		// ramps reduces up and preempts them: later waves start as
		// recorded.
		MapReduceAM:   NoMapReduceAM,
		NodeHeartbeat: workload.DefaultNodeHeartbeat,
		AMHeartbeat:   workload.DefaultAMHeartbeat,
		// The scheduler's client configuration is not in the API: the
		// defaults of kube-scheduler (and of spindle kube schedule).
		APIQPS:   workload.DefaultAPIQPS,
		APIBurst: workload.DefaultAPIBurst,
	}
	delay, jitter := c.lat.estimate()
	cl.LaunchDelay, cl.LaunchJitter = micros(delay), jitter
	qs := make([]workload.Queue, len(c.queues))
	for i, q := range c.queues {
		qs[i] = workload.Queue{Name: q, Capacity: 1 / float64(len(c.queues)), MaxCapacity: 1}
	}
	if len(qs) == 1 {
		qs[0].Capacity = 1
	}
	if len(qs) == 0 {
		qs = []workload.Queue{{Name: workload.DefaultQueue, Capacity: 1, MaxCapacity: 1}}
	}
	s := &Summary{
		Jobs: c.jobs, Tasks: c.tasks, Pods: c.pods, ByKind: c.kinds,
		Nodes: c.nodes.count(), NodeGroups: len(cl.Nodes),
		LaunchDelay: delay, LaunchJitter: jitter,
		Left: c.leftOut, External: c.ext, Adjusted: c.adjusted, Examples: c.examples,
		Malformed: c.malformedEx, Restarts: c.restarts, RestartedPods: c.restartPods, RestartLost: c.restartLost,
		ApproxStarts: c.approxStarts, LatencyCapped: c.lat.capped,
		SchedulingWait: c.wait.quantile(0.5), SchedulingWaitP90: c.wait.quantile(0.9),
		ReactionDelay: c.react.quantile(0.5), Reactions: c.react.n,
		PodGroups: c.podGroups, PodGroupsUnused: c.unusedGroups(),
	}
	if c.first >= 0 {
		s.Span = time.Duration(c.last-c.first) * time.Microsecond
	}
	if len(cl.Nodes) == 0 {
		return s, fmt.Errorf("no node was seen: the recording needs the nodes (list and watch nodes; for a snapshot, pass the nodes' JSON or --machine-vcores and --machine-memory)")
	}
	if err := c.out.Close(&cl, qs); err != nil {
		return s, err
	}
	if c.jobs == 0 {
		return s, fmt.Errorf("no job was recorded; see what was left out above")
	}
	return s, nil
}

// latencies is a histogram of pod start latencies in 10 ms buckets up to
// two minutes (the rest in the last bucket; a quantile is its bucket's
// lower edge): the median and spread need no list of every pod.
type latencies struct {
	n, capped int64 // capped: latencies of maxLatency or more
	buckets   [12001]int64
}

const latBucket = 10 * time.Millisecond

func (l *latencies) add(d time.Duration) {
	i := int(max(d, 0) / latBucket)
	if i >= len(l.buckets) {
		i = len(l.buckets) - 1
	}
	if d >= maxLatency {
		l.capped++
	}
	l.buckets[i]++
	l.n++
}

func (l *latencies) quantile(q float64) time.Duration {
	want := int64(math.Ceil(q * float64(l.n)))
	var seen int64
	for i, b := range l.buckets {
		seen += b
		if seen >= max(want, 1) {
			return time.Duration(i) * latBucket
		}
	}
	return 0
}

// estimate returns the median latency and the launch jitter J of the
// simulator's uniform model (launch in median × [1−J, 1+J]) whose 10th and
// 90th percentiles match the recorded ones: J = (p90 − p10) / (1.6 ×
// median), at most 0.9.
func (l *latencies) estimate() (time.Duration, float64) {
	if l.n == 0 {
		return 0, 0
	}
	med := l.quantile(0.5)
	if med <= 0 {
		return 0, 0
	}
	j := float64(l.quantile(0.9)-l.quantile(0.1)) / (1.6 * float64(med))
	return med, math.Round(min(max(j, 0), 0.9)*100) / 100
}
