package trace

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/workload"
)

// An Alibaba machine: the trace's machines have 96 cores; memory is
// normalised, and 512 GiB is an assumption (docs/traces.md).
const (
	alibabaVCores = 96
	alibabaMemory = 512 << 10
)

// maxPlanCPU bounds plan_cpu (100 = 1 core) at a million cores, far above
// any machine, so that arithmetic on requests cannot overflow.
const maxPlanCPU = 1e8

const (
	aTaskTable = iota
	aInstanceTable
)

var aTableNames = [...]string{"batch_task", "batch_instance"}
var aTableFields = [...]int{9, 14}

var batchTaskFields = [9]string{"task_name", "instance_num", "job_name", "task_type", "status", "start_time", "end_time", "plan_cpu", "plan_mem"}
var batchInstanceFields = [14]string{"instance_name", "task_name", "job_name", "task_type", "status", "start_time", "end_time",
	"machine_id", "seq_no", "total_seq_no", "cpu_avg", "cpu_max", "mem_avg", "mem_max"}

type aTask struct {
	job        int32
	name       string
	file       int32 // source index and line of its batch_task record
	line       int32
	instances  int64
	terminated bool
	start, end int64 // seconds
	cpu, mem   float64
	// The instances kept: start and end times in seconds; an end of -1
	// is a run still going when the trace ended.
	starts, ends []int64
}

type aJob struct {
	name   string
	tasks  []int32
	submit int64 // earliest positive task start, seconds; -1 if none
	out    bool  // outside the Begin/End window
}

type alibaba struct {
	c        *conv
	jobs     []aJob
	jobIndex map[string]int32
	tasks    []aTask
	taskIdx  map[string]int32
	key      []byte
	fields   [][]byte
	traceEnd int64
	keepSpan bool

	superseded, orphans, unfinished, notStarted int64
}

func convertAlibaba(c *conv) error {
	a := &alibaba{c: c, jobIndex: map[string]int32{}, taskIdx: map[string]int32{}, keepSpan: c.opt.Nodes == 0}
	tables := make([]int, len(c.srcs))
	haveTask, haveInst := false, false
	for i, s := range c.srcs {
		t, err := a.classify(s)
		if err != nil {
			return err
		}
		tables[i] = t
		haveTask = haveTask || t == aTaskTable
		haveInst = haveInst || t == aInstanceTable
	}
	if !haveTask {
		return fmt.Errorf("alibaba2018: no batch_task among the inputs (%s); jobs and their DAGs come from batch_task", c.srcs[0].name)
	}
	for _, table := range []int{aTaskTable, aInstanceTable} {
		for i, s := range c.srcs {
			if tables[i] != table {
				continue
			}
			if err := a.read(int32(i), s, table); err != nil {
				return err
			}
		}
		if table == aTaskTable {
			a.window()
		}
	}
	c.rep.skip("instance runs superseded by a later run (seq_no < total_seq_no)", a.superseded)
	c.rep.skip("instances of tasks missing from batch_task", a.orphans)
	c.rep.skip("instances that never started", a.notStarted)
	return a.build(haveInst)
}

func (a *alibaba) classify(s source) (int, error) {
	if t := tableFromName(s.name, aTableNames[:]); t >= 0 {
		return t, nil
	}
	lr, err := a.c.openLines(s)
	if err != nil {
		return 0, err
	}
	defer lr.close()
	lines := a.c.rep.Lines
	defer func() { a.c.rep.Lines = lines }()
	for {
		line, ok, err := lr.next()
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, fmt.Errorf("%s: empty, and its name does not say which Alibaba table it is", s.name)
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		n := bytes.Count(line, []byte{','}) + 1
		for t, want := range aTableFields {
			if n == want {
				return t, nil
			}
		}
		return 0, fmt.Errorf("%s:%d: cannot tell which Alibaba table this is: %d fields, while batch_task has 9 and batch_instance 14 (or name the file after its table)", s.name, lr.line, n)
	}
}

func (a *alibaba) read(src int32, s source, table int) error {
	return a.c.eachRecord(s, &a.fields, aTableFields[table], aTableNames[table], func(fs [][]byte, line int) string {
		if table == aTaskTable {
			return a.taskRecord(fs, src, line)
		}
		return a.instanceRecord(fs)
	})
}

// seconds reads a required time field, in seconds.
func seconds(fs [][]byte, i int, names []string) (int64, string) {
	v, ok := parseInt(fs[i])
	switch {
	case len(fs[i]) == 0:
		return 0, fmt.Sprintf("field %d (%s): empty", i+1, names[i])
	case !ok || v > int64(maxTime/clock.Second):
		return 0, fmt.Sprintf("field %d (%s): not a whole number of seconds: %s", i+1, names[i], quote(fs[i]))
	case v < 0:
		return 0, fmt.Sprintf("field %d (%s): negative time %d", i+1, names[i], v)
	}
	return v, ""
}

func (a *alibaba) taskKey(job, task []byte) []byte {
	a.key = append(append(append(a.key[:0], job...), 0), task...)
	return a.key
}

func (a *alibaba) taskRecord(fs [][]byte, src int32, line int) string {
	names := batchTaskFields[:]
	if len(fs[0]) == 0 {
		return "field 1 (task_name): empty"
	}
	if len(fs[2]) == 0 {
		return "field 3 (job_name): empty"
	}
	n, ok := parseInt(fs[1])
	if !ok || n < 0 || n > workload.MaxTasksPerPhase {
		return fmt.Sprintf("field 2 (instance_num): not a count of instances: %s", quote(fs[1]))
	}
	start, msg := seconds(fs, 5, names)
	if msg != "" {
		return msg
	}
	end, msg := seconds(fs, 6, names)
	if msg != "" {
		return msg
	}
	cpu, ok := parseNum(fs[7])
	if !ok || cpu < 0 || cpu > maxPlanCPU {
		return fmt.Sprintf("field 8 (plan_cpu): not a CPU amount (100 = 1 core): %s", quote(fs[7]))
	}
	mem, ok := parseNum(fs[8])
	if !ok || mem < 0 || mem > 100 {
		return fmt.Sprintf("field 9 (plan_mem): not a normalised memory amount in [0, 100]: %s", quote(fs[8]))
	}
	key := a.taskKey(fs[2], fs[0])
	if prev, dup := a.taskIdx[string(key)]; dup {
		return fmt.Sprintf("task %s of job %s appears twice (first on line %d)", fs[0], fs[2], a.tasks[prev].line)
	}
	j, ok := a.jobIndex[string(fs[2])]
	if !ok {
		j = int32(len(a.jobs))
		a.jobs = append(a.jobs, aJob{name: string(fs[2]), submit: -1})
		a.jobIndex[a.jobs[j].name] = j
	}
	ti := int32(len(a.tasks))
	a.tasks = append(a.tasks, aTask{job: j, name: string(fs[0]), file: src, line: int32(line), instances: n,
		terminated: string(fs[4]) == "Terminated", start: start, end: end, cpu: cpu, mem: mem})
	a.taskIdx[string(key)] = ti
	a.jobs[j].tasks = append(a.jobs[j].tasks, ti)
	if start > 0 && (a.jobs[j].submit < 0 || start < a.jobs[j].submit) {
		a.jobs[j].submit = start
	}
	a.traceEnd = max(a.traceEnd, start, end)
	return ""
}

// window marks the jobs outside Begin/End, so that their instances are
// passed over as they stream by.
func (a *alibaba) window() {
	from, until := int64(a.c.opt.Begin/clock.Second), int64(a.c.opt.End/clock.Second)
	for i := range a.jobs {
		s := a.jobs[i].submit
		a.jobs[i].out = s >= 0 && (s < from || until > 0 && s >= until)
	}
}

func (a *alibaba) instanceRecord(fs [][]byte) string {
	names := batchInstanceFields[:]
	start, msg := seconds(fs, 5, names)
	if msg != "" {
		return msg
	}
	end, msg := seconds(fs, 6, names)
	if msg != "" {
		return msg
	}
	if end != 0 && end < start {
		return fmt.Sprintf("end_time %d before start_time %d", end, start)
	}
	seq, total := int64(0), int64(0)
	for i, p := range []*int64{&seq, &total} {
		f := fs[8+i]
		if len(f) == 0 {
			continue
		}
		v, ok := parseInt(f)
		if !ok || v < 0 {
			return fmt.Sprintf("field %d (%s): not a sequence number: %s", 9+i, names[8+i], quote(f))
		}
		*p = v
	}
	for _, i := range []int{10, 11, 12, 13} {
		if len(fs[i]) > 0 {
			if _, ok := parseNum(fs[i]); !ok {
				return fmt.Sprintf("field %d (%s): not a number: %s", i+1, names[i], quote(fs[i]))
			}
		}
	}
	ti, ok := a.taskIdx[string(a.taskKey(fs[2], fs[1]))]
	if !ok {
		a.orphans++
		return ""
	}
	t := &a.tasks[ti]
	if a.jobs[t.job].out {
		return ""
	}
	a.traceEnd = max(a.traceEnd, start, end)
	if total > 0 && seq < total {
		a.superseded++
		return ""
	}
	if start == 0 {
		a.notStarted++
		return ""
	}
	if string(fs[4]) != "Terminated" || end == 0 {
		if !a.c.truncate() {
			a.unfinished++
			return ""
		}
		if end == 0 {
			end = -1 // still running: until the trace ends, known at the end
		}
	}
	t.ends = append(t.ends, end)
	t.starts = append(t.starts, start)
	return ""
}

// dagName splits a DAG task name such as M5_3_4 into its number (5) and the
// numbers it depends on (3, 4); ok is false for a name without DAG
// information (task_Nzg3...).
func dagName(name string) (id int64, deps []int64, ok bool) {
	i := 0
	for i < len(name) && (name[i] >= 'A' && name[i] <= 'Z' || name[i] >= 'a' && name[i] <= 'z') {
		i++
	}
	if i == 0 || i == len(name) {
		return 0, nil, false
	}
	parts := strings.Split(name[i:], "_")
	nums := make([]int64, len(parts))
	for k, p := range parts {
		if p == "" || p[0] < '0' || p[0] > '9' {
			return 0, nil, false
		}
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return 0, nil, false
		}
		nums[k] = v
	}
	return nums[0], nums[1:], true
}

func (a *alibaba) build(haveInst bool) error {
	c := a.c
	vcores, memory := c.opt.MachineVCores, c.opt.MachineMemory
	if vcores == 0 {
		vcores = alibabaVCores
	}
	if memory == 0 {
		memory = alibabaMemory
	}
	node := machine(vcores, memory)
	if node[0] <= 0 || node[1] <= 0 {
		return fmt.Errorf("%s: machine-vcores and machine-memory must be positive (got %g vcores, %d MiB)", c.srcs[0].name, vcores, memory)
	}
	var jobs []workload.Job
	var spans []span
	var noInst, missingDeps, emptyJobs int64
	// phase builds a task's phase, or reports that it has no instance.
	phase := func(t *aTask) (workload.Phase, bool) {
		req := vector(t.cpu/100, t.mem/100, 1, memory)
		ph := workload.Phase{Name: t.name, Request: req}
		if !haveInst {
			if !t.terminated && !c.truncate() {
				a.unfinished++
				return ph, false
			}
			if t.instances == 0 || t.start == 0 {
				noInst++
				return ph, false
			}
			end := t.end
			if end < t.start {
				end = max(a.traceEnd, t.start)
			}
			ph.Tasks, ph.Durations = int(t.instances), []clock.Duration{clock.Duration(end-t.start) * clock.Second}
			if a.keepSpan {
				spans = append(spans, spanOf(clock.Time(t.start)*clock.Time(clock.Second), clock.Time(end)*clock.Time(clock.Second), req.Mul(t.instances)))
			}
			return ph, true
		}
		if len(t.ends) == 0 {
			noInst++
			return ph, false
		}
		ph.Tasks, ph.Durations = len(t.ends), make([]clock.Duration, len(t.ends))
		for i, e := range t.ends {
			if e < 0 {
				e = max(a.traceEnd, t.starts[i])
			}
			ph.Durations[i] = clock.Duration(e-t.starts[i]) * clock.Second
			if a.keepSpan {
				spans = append(spans, spanOf(clock.Time(t.starts[i])*clock.Time(clock.Second), clock.Time(e)*clock.Time(clock.Second), req))
			}
		}
		t.ends, t.starts = nil, nil
		return ph, true
	}
	submitOf := func(j *aJob, ts []int32) int64 {
		if j.submit >= 0 {
			return j.submit
		}
		s := int64(-1)
		for _, ti := range ts {
			if st := a.tasks[ti].start; st > 0 && (s < 0 || st < s) {
				s = st
			}
		}
		return max(s, 0)
	}
	for ji := range a.jobs {
		j := &a.jobs[ji]
		if j.out {
			if j.submit < int64(c.opt.Begin/clock.Second) {
				c.rep.skip("jobs submitted before begin", 1)
			} else {
				c.rep.skip("jobs submitted at or after end", 1)
			}
			continue
		}
		var dag, free []int32
		for _, ti := range j.tasks {
			if _, _, ok := dagName(a.tasks[ti].name); ok {
				dag = append(dag, ti)
			} else {
				free = append(free, ti)
			}
		}
		if len(dag) > 0 {
			ordered, missing, msg := a.topo(dag)
			if msg != "" {
				t := &a.tasks[dag[0]]
				if err := c.bad(c.srcs[t.file].name, int(t.line), "job %s: %s", j.name, msg); err != nil {
					return err
				}
			} else {
				missingDeps += missing
				job := workload.Job{ID: j.name, Name: jobType(a.tasks, ordered), Submit: clock.Time(submitOf(j, dag) * int64(clock.Second))}
				for _, ti := range ordered {
					if ph, ok := phase(&a.tasks[ti]); ok {
						job.Phases = append(job.Phases, ph)
					}
				}
				if len(job.Phases) == 0 {
					emptyJobs++
				} else {
					jobs = append(jobs, job)
				}
			}
		}
		// Tasks without DAG information are independent of each other;
		// phases run in order, so each becomes a job of its own.
		for _, ti := range free {
			t := &a.tasks[ti]
			ph, ok := phase(t)
			if !ok {
				continue
			}
			jobs = append(jobs, workload.Job{ID: j.name + "/" + t.name, Submit: clock.Time(submitOf(j, []int32{ti}) * int64(clock.Second)),
				Phases: []workload.Phase{ph}})
		}
	}
	c.rep.skip("tasks with no instance to run", noInst)
	c.rep.skip("dependencies on tasks missing from batch_task (ignored)", missingDeps)
	c.rep.skip("jobs with no task left", emptyJobs)
	c.rep.skip("instances or tasks that did not terminate (unfinished=truncate keeps them)", a.unfinished)
	slices.SortStableFunc(jobs, func(x, y workload.Job) int { return cmp.Compare(x.Submit, y.Submit) })
	n, how := c.opt.Nodes, "the nodes option"
	if n == 0 {
		n, how = peakNodes(spans, node), "the peak demand of the trace's running instances"
	}
	c.rep.note("cluster: %d machines of %s, sized by %s", n, node, how)
	return c.finish(jobs, []workload.NodeGroup{{Count: n, Capacity: node}}, nil)
}

// jobType names a DAG job by the shape of its DAG, the task names in
// order, so that jobs of the same kind share a name for history-based
// estimates.
func jobType(tasks []aTask, ordered []int32) string {
	var b strings.Builder
	for i, ti := range ordered {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(tasks[ti].name)
	}
	return b.String()
}

// topo orders a job's DAG tasks so that each comes after the tasks it
// depends on; among tasks that are ready, the lower number goes first. It
// counts dependencies on numbers no task has, and reports cycles and
// numbers used twice.
func (a *alibaba) topo(ts []int32) (ordered []int32, missing int64, msg string) {
	byID := make(map[int64]int, len(ts))
	ids := make([]int64, len(ts))
	deps := make([][]int64, len(ts))
	for i, ti := range ts {
		id, d, _ := dagName(a.tasks[ti].name)
		if prev, dup := byID[id]; dup {
			return nil, 0, fmt.Sprintf("tasks %s and %s have the same number %d", a.tasks[ts[prev]].name, a.tasks[ti].name, id)
		}
		byID[id], ids[i], deps[i] = i, id, d
	}
	indeg := make([]int, len(ts))
	next := make([][]int, len(ts))
	for i, d := range deps {
		for _, id := range d {
			k, ok := byID[id]
			if !ok {
				missing++
				continue
			}
			next[k] = append(next[k], i)
			indeg[i]++
		}
	}
	var ready []int
	for i := range ts {
		if indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		// Few tasks per job: a linear scan for the lowest number is enough.
		best := 0
		for k := range ready {
			if ids[ready[k]] < ids[ready[best]] {
				best = k
			}
		}
		i := ready[best]
		ready = append(ready[:best], ready[best+1:]...)
		ordered = append(ordered, ts[i])
		for _, k := range next[i] {
			if indeg[k]--; indeg[k] == 0 {
				ready = append(ready, k)
			}
		}
	}
	if len(ordered) < len(ts) {
		var cyc []string
		for i := range ts {
			if indeg[i] > 0 {
				cyc = append(cyc, a.tasks[ts[i]].name)
			}
		}
		return nil, 0, fmt.Sprintf("task dependencies form a cycle among %s", strings.Join(cyc, ", "))
	}
	return ordered, missing, ""
}
