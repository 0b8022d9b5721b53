package trace

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// SLS's own defaults (SLSConfiguration): NodeManagers of 10 vcores and
// 10 GiB; AM and task containers of 1 vcore and 1 GiB.
const (
	slsNodeVCores = 10
	slsNodeMemory = 10240
	slsContainer  = 1024
)

type slsState struct {
	c       *conv
	jobs    []workload.Job
	ids     map[string]string // job id -> where it was first seen
	queues  []string
	queueOK map[string]bool
	hosts   map[string]bool
	nodes   int64 // largest num.nodes given
	other   int64 // Rumen setup/cleanup tasks
	ordinal int
}

func convertSLS(c *conv) error {
	st := &slsState{c: c, ids: map[string]string{}, queueOK: map[string]bool{}, hosts: map[string]bool{}}
	for _, s := range c.srcs {
		if err := st.read(s); err != nil {
			return err
		}
	}
	c.rep.skip("Rumen setup and cleanup tasks (otherTasks)", st.other)
	vcores, memory := c.opt.MachineVCores, c.opt.MachineMemory
	if vcores == 0 {
		vcores = slsNodeVCores
	}
	if memory == 0 {
		memory = slsNodeMemory
	}
	node := machine(vcores, memory)
	if node[0] <= 0 || node[1] <= 0 {
		return fmt.Errorf("%s: machine-vcores and machine-memory must be positive (got %g vcores, %d MiB)", c.srcs[0].name, vcores, memory)
	}
	n, how := int64(c.opt.Nodes), "the nodes option"
	switch {
	case n > 0:
	case st.nodes > 0:
		n, how = st.nodes, "num.nodes"
	case len(st.hosts) > 0:
		n, how = int64(len(st.hosts)), "the distinct container hosts"
	default:
		n, how = largestDemand(st.jobs, node), "the largest job, as the trace names no hosts"
	}
	n = min(n, workload.MaxNodesPerGroup)
	c.rep.note("cluster: %d nodes of %s, sized by %s", n, node, how)
	var queues []workload.Queue
	if len(st.queues) > 1 || len(st.queues) == 1 && st.queues[0] != workload.DefaultQueue {
		for _, q := range st.queues {
			queues = append(queues, workload.Queue{Name: q, Capacity: 1 / float64(len(st.queues)), MaxCapacity: 1})
		}
		c.rep.note("queues: %d, each guaranteed an equal share", len(queues))
	}
	return c.finish(st.jobs, []workload.NodeGroup{{Count: int(n), Capacity: node}}, queues)
}

// largestDemand is the number of nodes the largest job needs with its AM
// and its largest phase all at once.
func largestDemand(jobs []workload.Job, node resource.Vector) int64 {
	peak := 0.0
	for i := range jobs {
		for k := range jobs[i].Phases {
			p := &jobs[i].Phases[k]
			d := jobs[i].AM.Add(p.Request.Mul(int64(p.Tasks)))
			peak = math.Max(peak, math.Max(float64(d[0])/float64(node[0]), float64(d[1])/float64(node[1])))
		}
	}
	return max(1, int64(math.Ceil(peak-1e-9)))
}

func (st *slsState) read(s source) error {
	rc, err := s.open()
	if err != nil {
		return fmt.Errorf("trace input: %w", err)
	}
	defer rc.Close()
	r, err := decompress(rc)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	js := newJSONStream(st.c, s.name, r)
	defer func() { st.c.rep.Lines += int64(js.lc.lines()) }()
	for {
		v, ok, err := js.next()
		if err != nil || !ok {
			return err
		}
		items := []*jval{v}
		if v.kind == 'a' {
			items = v.vals
		}
		for _, it := range items {
			st.c.rep.Records++
			st.ordinal++
			line, msg := st.job(s.name, it)
			if msg != "" {
				if err := st.c.bad(s.name, line, "%s", msg); err != nil {
					return err
				}
			}
		}
	}
}

// job maps one SLS or Rumen job; on a problem it returns the line and
// what is wrong, and adds nothing.
func (st *slsState) job(file string, o *jval) (int, string) {
	if o.kind != 'o' {
		return o.line, fmt.Sprintf("want a job object, got %s", o.describe())
	}
	var jobs []workload.Job
	var hosts []string
	var line int
	var msg string
	switch {
	case o.get("jobID") != nil:
		jobs, hosts, line, msg = st.rumenJob(o)
	case o.get("job.tasks") != nil || o.get("job.id") != nil || o.get("job.start.ms") != nil:
		jobs, hosts, line, msg = st.slsJob(o)
	default:
		return o.line, "neither an SLS job (job.tasks, job.start.ms, ...) nor a Rumen job (jobID, mapTasks, ...)"
	}
	if msg != "" {
		return line, msg
	}
	for _, j := range jobs {
		if prev, dup := st.ids[j.ID]; dup {
			return o.line, fmt.Sprintf("duplicate job id %q (first at %s)", j.ID, prev)
		}
	}
	for _, j := range jobs {
		st.ids[j.ID] = file + ":" + strconv.Itoa(o.line)
		if !st.queueOK[j.Queue] {
			st.queueOK[j.Queue] = true
			st.queues = append(st.queues, j.Queue)
		}
	}
	for _, h := range hosts {
		st.hosts[h] = true
	}
	st.jobs = append(st.jobs, jobs...)
	return 0, ""
}

// at returns the line of key's value in o, or o's line.
func at(o *jval, key string) int {
	if v := o.get(key); v != nil {
		return v.line
	}
	return o.line
}

// resourceOf reads an optional memory-mb / vcores pair with SLS's keys.
func resourceOf(o *jval, prefix string) (resource.Vector, int, string) {
	r := resource.New(1, slsContainer)
	if m, ok, msg := jint(o, prefix+"memory-mb"); msg != "" || ok && (m < 0 || m > maxMemory) {
		return r, at(o, prefix+"memory-mb"), orMsg(msg, fmt.Sprintf("%smemory-mb: must be in [0, %d]", prefix, int64(maxMemory)))
	} else if ok {
		r[resource.Memory] = m
	}
	if v, ok, msg := jint(o, prefix+"vcores"); msg != "" || ok && (v < 0 || v > maxVCores) {
		return r, at(o, prefix+"vcores"), orMsg(msg, fmt.Sprintf("%svcores: must be in [0, %d]", prefix, maxVCores))
	} else if ok {
		r[resource.VCores] = v * resource.MilliPerVCore
	}
	return r, 0, ""
}

func orMsg(msg, alt string) string {
	if msg != "" {
		return msg
	}
	return alt
}

// slsTask is one container type's tasks, in the order given.
type slsPhase struct {
	name string
	req  resource.Vector
	durs []clock.Duration
}

// addTask puts count tasks of type typ into the phases: map first, reduce
// second (MapReduce requests reduces after maps), other types after them in
// the order they first appear. A phase's request is the largest of its
// tasks', since a phase has one container size.
func addTask(phases []slsPhase, typ string, req resource.Vector, d clock.Duration, count int64) []slsPhase {
	k := -1
	for i := range phases {
		if phases[i].name == typ {
			k = i
		}
	}
	if k < 0 {
		phases = append(phases, slsPhase{name: typ, req: req})
		k = len(phases) - 1
		for k > 0 && rank(phases[k].name) < rank(phases[k-1].name) {
			phases[k], phases[k-1] = phases[k-1], phases[k]
			k--
		}
	}
	p := &phases[k]
	for dim := range req {
		p.req[dim] = max(p.req[dim], req[dim])
	}
	for range count {
		p.durs = append(p.durs, d)
	}
	return phases
}

func rank(typ string) int {
	switch typ {
	case "map":
		return 0
	case "reduce":
		return 1
	}
	return 2
}

// maxVCores bounds a container's vcores.
const maxVCores = 1 << 30

// maxCount bounds job.count and a task's count.
const maxCount = 1_000_000

func (st *slsState) slsJob(o *jval) ([]workload.Job, []string, int, string) {
	id, msg := jstr(o, "job.id")
	if msg != "" {
		return nil, nil, at(o, "job.id"), msg
	}
	if id == "" {
		id = "job-" + strconv.Itoa(st.ordinal)
	}
	startMS, ok, msg := jint(o, "job.start.ms")
	switch {
	case msg != "":
		return nil, nil, at(o, "job.start.ms"), msg
	case !ok:
		return nil, nil, o.line, "job.start.ms: missing"
	case startMS < 0:
		return nil, nil, at(o, "job.start.ms"), fmt.Sprintf("job.start.ms: negative time %d", startMS)
	case startMS > int64(maxTime/clock.Millisecond):
		return nil, nil, at(o, "job.start.ms"), "job.start.ms: out of range"
	}
	queue, msg := jstr(o, "job.queue.name")
	if msg != "" {
		return nil, nil, at(o, "job.queue.name"), msg
	}
	if queue == "" {
		queue = workload.DefaultQueue
	}
	user, msg := jstr(o, "job.user")
	if msg != "" {
		return nil, nil, at(o, "job.user"), msg
	}
	count, ok, msg := jint(o, "job.count")
	if msg != "" || ok && count > maxCount {
		return nil, nil, at(o, "job.count"), orMsg(msg, fmt.Sprintf("job.count: more than %d", maxCount))
	}
	count = max(count, 1)
	if n, ok, msg := jint(o, "num.nodes"); msg != "" || ok && n < 0 {
		return nil, nil, at(o, "num.nodes"), orMsg(msg, "num.nodes: must be >= 0")
	} else if ok {
		st.nodes = max(st.nodes, n)
	}
	am, line, msg := resourceOf(o, "am.")
	if msg != "" {
		return nil, nil, line, msg
	}
	tasks := o.get("job.tasks")
	if tasks == nil || tasks.kind != 'a' || len(tasks.vals) == 0 {
		return nil, nil, at(o, "job.tasks"), "job.tasks: want a non-empty list of tasks"
	}
	var phases []slsPhase
	var hosts []string
	total := int64(0)
	for i, t := range tasks.vals {
		if t.kind != 'o' {
			return nil, nil, t.line, fmt.Sprintf("job.tasks[%d]: want a task object, got %s", i, t.describe())
		}
		d, line, msg := slsDuration(t)
		if msg != "" {
			return nil, nil, line, fmt.Sprintf("job.tasks[%d]: %s", i, msg)
		}
		n, ok, msg := jint(t, "count")
		if msg != "" || ok && n > maxCount {
			return nil, nil, at(t, "count"), fmt.Sprintf("job.tasks[%d]: %s", i, orMsg(msg, fmt.Sprintf("count: more than %d", maxCount)))
		}
		n = max(n, 1)
		if total += n; total > workload.MaxTasksPerPhase {
			return nil, nil, t.line, fmt.Sprintf("job.tasks: more than %d tasks", workload.MaxTasksPerPhase)
		}
		typ, msg := jstr(t, "container.type")
		if msg != "" {
			return nil, nil, at(t, "container.type"), fmt.Sprintf("job.tasks[%d]: %s", i, msg)
		}
		if typ == "" {
			typ = "map"
		}
		req, line, msg := resourceOf(t, "container.")
		if msg == "" && req.IsZero() {
			line, msg = t.line, "the container asks for no resources"
		}
		if msg != "" {
			return nil, nil, line, fmt.Sprintf("job.tasks[%d]: %s", i, msg)
		}
		host, msg := jstr(t, "container.host")
		if msg != "" {
			return nil, nil, at(t, "container.host"), fmt.Sprintf("job.tasks[%d]: %s", i, msg)
		}
		if host != "" {
			hosts = append(hosts, host)
		}
		phases = addTask(phases, typ, req, d, n)
	}
	base := workload.Job{ID: id, User: user, Queue: queue, AM: am, Submit: clock.Time(startMS) * clock.Time(clock.Millisecond)}
	for _, p := range phases {
		base.Phases = append(base.Phases, workload.Phase{Name: p.name, Tasks: len(p.durs), Request: p.req, Durations: p.durs})
	}
	if count == 1 {
		return []workload.Job{base}, hosts, 0, ""
	}
	// SLS runs job.count copies of the job, each under a new id.
	jobs := make([]workload.Job, count)
	for k := range jobs {
		jobs[k] = base
		jobs[k].ID = id + "-" + strconv.FormatInt(int64(k+1), 10)
	}
	return jobs, hosts, 0, ""
}

// slsDuration reads a task's duration the way SLS does: the explicit
// container.duration.ms, else the legacy duration.ms, else end - start;
// it must be positive.
func slsDuration(t *jval) (clock.Duration, int, string) {
	for _, k := range []string{"container.duration.ms", "duration.ms"} {
		v, ok, msg := jint(t, k)
		if msg != "" {
			return 0, at(t, k), msg
		}
		if ok {
			return msPositive(v, at(t, k), k)
		}
	}
	s, okS, msg := jint(t, "container.start.ms")
	if msg != "" {
		return 0, at(t, "container.start.ms"), msg
	}
	e, okE, msg := jint(t, "container.end.ms")
	if msg != "" {
		return 0, at(t, "container.end.ms"), msg
	}
	if !okS || !okE {
		return 0, t.line, "no duration: give container.duration.ms, or container.start.ms and container.end.ms"
	}
	if s < 0 {
		return 0, at(t, "container.start.ms"), fmt.Sprintf("container.start.ms: negative time %d", s)
	}
	return msPositive(e-s, at(t, "container.end.ms"), "container.end.ms - container.start.ms")
}

func msPositive(v int64, line int, what string) (clock.Duration, int, string) {
	switch {
	case v <= 0:
		return 0, line, fmt.Sprintf("%s: duration must be > 0, got %d ms", what, v)
	case v > int64(maxTime/clock.Millisecond):
		return 0, line, fmt.Sprintf("%s: out of range", what)
	}
	return clock.Duration(v) * clock.Millisecond, 0, ""
}

// rstr reads a Rumen string, which some versions write as {"value": ...}.
func rstr(o *jval, key string) (string, string) {
	if v := o.get(key); v != nil && v.kind == 'o' {
		return jstr(v, "value")
	}
	return jstr(o, key)
}

func (st *slsState) rumenJob(o *jval) ([]workload.Job, []string, int, string) {
	id, msg := rstr(o, "jobID")
	if msg != "" || id == "" {
		return nil, nil, at(o, "jobID"), orMsg(msg, "jobID: empty")
	}
	submit, ok, msg := jint(o, "submitTime")
	switch {
	case msg != "":
		return nil, nil, at(o, "submitTime"), msg
	case !ok:
		return nil, nil, o.line, "submitTime: missing"
	case submit < 0:
		return nil, nil, at(o, "submitTime"), fmt.Sprintf("submitTime: negative time %d", submit)
	case submit > int64(maxTime/clock.Millisecond):
		return nil, nil, at(o, "submitTime"), "submitTime: out of range"
	}
	j := workload.Job{ID: id, AM: resource.New(1, slsContainer), Submit: clock.Time(submit) * clock.Time(clock.Millisecond)}
	for _, f := range []struct {
		key string
		dst *string
	}{{"user", &j.User}, {"queue", &j.Queue}, {"jobName", &j.Name}} {
		s, msg := rstr(o, f.key)
		if msg != "" {
			return nil, nil, at(o, f.key), msg
		}
		*f.dst = s
	}
	if j.Queue == "" {
		j.Queue = workload.DefaultQueue
	}
	if ot := o.get("otherTasks"); ot != nil && ot.kind == 'a' {
		st.other += int64(len(ot.vals))
	}
	var hosts []string
	for _, kind := range []struct{ key, mb, name string }{{"mapTasks", "jobMapMB", "map"}, {"reduceTasks", "jobReduceMB", "reduce"}} {
		list := o.get(kind.key)
		if list == nil || list.kind == 'z' {
			continue
		}
		if list.kind != 'a' {
			return nil, nil, list.line, fmt.Sprintf("%s: want a list, got %s", kind.key, list.describe())
		}
		if len(list.vals) == 0 {
			continue
		}
		// The job's own container size when the history has it; SLS
		// itself always uses its default.
		req := resource.New(1, slsContainer)
		if mb, ok, msg := jint(o, kind.mb); msg != "" {
			return nil, nil, at(o, kind.mb), msg
		} else if ok && mb > 0 {
			req[resource.Memory] = mb
		}
		ph := workload.Phase{Name: kind.name, Request: req}
		for i, t := range list.vals {
			d, host, line, msg := rumenTask(t)
			if msg != "" {
				return nil, nil, line, fmt.Sprintf("%s[%d]: %s", kind.key, i, msg)
			}
			ph.Durations = append(ph.Durations, d)
			if host != "" {
				hosts = append(hosts, host)
			}
		}
		ph.Tasks = len(ph.Durations)
		j.Phases = append(j.Phases, ph)
	}
	if len(j.Phases) == 0 {
		return nil, nil, o.line, "no map or reduce tasks"
	}
	return []workload.Job{j}, hosts, 0, ""
}

// rumenTask reads a task's duration from its last attempt, as SLS does.
func rumenTask(t *jval) (clock.Duration, string, int, string) {
	if t.kind != 'o' {
		return 0, "", t.line, "want a task object, got " + t.describe()
	}
	as := t.get("attempts")
	if as == nil || as.kind != 'a' || len(as.vals) == 0 {
		return 0, "", at(t, "attempts"), "no attempts"
	}
	a := as.vals[len(as.vals)-1]
	if a.kind != 'o' {
		return 0, "", a.line, "attempt: want an object, got " + a.describe()
	}
	s, okS, msg := jint(a, "startTime")
	if msg != "" {
		return 0, "", at(a, "startTime"), "last attempt: " + msg
	}
	e, okE, msg := jint(a, "finishTime")
	if msg != "" {
		return 0, "", at(a, "finishTime"), "last attempt: " + msg
	}
	if !okS || !okE {
		return 0, "", a.line, "last attempt: needs startTime and finishTime"
	}
	d, line, msg := msPositive(e-s, at(a, "finishTime"), "last attempt: finishTime - startTime")
	if msg != "" {
		return 0, "", line, msg
	}
	host, msg := rstr(a, "hostName")
	if msg != "" {
		return 0, "", at(a, "hostName"), "last attempt: " + msg
	}
	return d, host, 0, ""
}
