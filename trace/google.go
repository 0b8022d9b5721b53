package trace

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// Google machines are normalised to the largest one; these defaults size it.
const (
	googleVCores = 32
	googleMemory = 128 << 10
)

// Google tables and their column counts.
const (
	gTaskEvents = iota
	gJobEvents
	gMachineEvents
)

var gTableNames = [...]string{"task_events", "job_events", "machine_events"}
var gTableFields = [...]int{13, 8, 6}

// Task event types.
const (
	evSubmit = iota
	evSchedule
	evEvict
	evFail
	evFinish
	evKill
	evLost
	evUpdatePending
	evUpdateRunning
)

// afterTrace is the timestamp Google gives events that happened after the
// trace window.
const afterTrace = math.MaxInt64

type gKey struct{ job, idx int64 }

// gTask is the compact state of one task while the events stream by; the
// whole trace has some 25 million tasks, so every byte counts.
type gTask struct {
	sched                 int64 // last SCHEDULE, µs; -1 if never scheduled
	end                   int64 // terminal event of the last run; -1 if none
	job                   int32 // index into jobs
	idx                   int32
	cpu, mem              fixed // request as last stated
	schedCPU, schedMemory fixed // request when last scheduled
	endType               int8
}

// fixed is a normalised amount in [0, 1] in units of 1e-8, exact for the
// trace's values (at most 8 decimals) in half the space of a float64;
// noAmount means not stated.
type fixed uint32

const (
	fixedUnit = 1e8
	noAmount  = fixed(math.MaxUint32)
)

func toFixed(v float64) fixed {
	if v < 0 {
		return noAmount
	}
	return fixed(math.Round(v * fixedUnit))
}

func (f fixed) value() float64 {
	if f == noAmount {
		return 0
	}
	return float64(f) / fixedUnit
}

type gJob struct {
	id         int64
	submit     int64 // earliest SUBMIT of the job or its tasks; -1 if none
	name, user string
}

type google struct {
	c        *conv
	jobs     []gJob
	jobIndex map[int64]int32
	tasks    []gTask
	taskIdx  map[gKey]int32
	machines map[int64]int32
	mcap     [][2]float64 // per machine: cpu, memory; -1 unknown
	traceEnd int64
	after    int64 // events after the trace window
	late     int64 // events passed over: their jobs start after End
	fields   [][]byte
}

func convertGoogle(c *conv) error {
	g := &google{c: c, jobIndex: map[int64]int32{}, taskIdx: map[gKey]int32{}, machines: map[int64]int32{}}
	tables := make([]int, len(c.srcs))
	have := [3]bool{}
	for i, s := range c.srcs {
		t, err := g.classify(s)
		if err != nil {
			return err
		}
		tables[i] = t
		have[t] = true
	}
	if !have[gTaskEvents] {
		return fmt.Errorf("google2011: no task_events among the inputs (%s); the tasks come from task_events", c.srcs[0].name)
	}
	// Machines and jobs first, so that tasks find their jobs' submit times
	// whatever order the inputs were given in.
	for _, table := range []int{gMachineEvents, gJobEvents, gTaskEvents} {
		for i, s := range c.srcs {
			if tables[i] != table {
				continue
			}
			if err := g.read(s, table); err != nil {
				return err
			}
		}
	}
	c.rep.skip("events after the end of the trace window", g.after)
	c.rep.skip("task events of jobs first seen at or after end", g.late)
	return g.build()
}

// classify tells which table a source holds: by its name when that names
// a table (the trace's own layout), else by the column count of its first
// record.
func (g *google) classify(s source) (int, error) {
	if t := tableFromName(s.name, append(gTableNames[:], "task_usage")); t >= 0 {
		if t == len(gTableNames) {
			return 0, fmt.Errorf("%s: task_usage is not used; give task_events, and optionally job_events and machine_events", s.name)
		}
		return t, nil
	}
	lr, err := g.c.openLines(s)
	if err != nil {
		return 0, err
	}
	defer lr.close()
	lines := g.c.rep.Lines
	defer func() { g.c.rep.Lines = lines }() // counted when read for real
	for {
		line, ok, err := lr.next()
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, fmt.Errorf("%s: empty, and its name does not say which Google table it is", s.name)
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		n := bytes.Count(line, []byte{','}) + 1
		for t, want := range gTableFields {
			if n == want {
				return t, nil
			}
		}
		return 0, fmt.Errorf("%s:%d: cannot tell which Google table this is: %d fields, while task_events has 13, job_events 8 and machine_events 6 (or name the file after its table)", s.name, lr.line, n)
	}
}

func (g *google) read(s source, table int) error {
	return g.c.eachRecord(s, &g.fields, gTableFields[table], gTableNames[table], func(fs [][]byte, _ int) string {
		switch table {
		case gTaskEvents:
			return g.taskEvent(fs)
		case gJobEvents:
			return g.jobEvent(fs)
		}
		return g.machineEvent(fs)
	})
}

var taskEventFields = [13]string{"timestamp", "missing info", "job ID", "task index", "machine ID", "event type",
	"user", "scheduling class", "priority", "CPU request", "memory request", "disk request", "different-machine constraint"}

// intField reads a required non-negative integer field.
func intField(fs [][]byte, i int, names []string) (int64, string) {
	v, ok := parseInt(fs[i])
	switch {
	case len(fs[i]) == 0:
		return 0, fmt.Sprintf("field %d (%s): empty", i+1, names[i])
	case !ok:
		return 0, fmt.Sprintf("field %d (%s): not a whole number: %s", i+1, names[i], quote(fs[i]))
	case v < 0 && i == 0:
		return 0, fmt.Sprintf("field 1 (%s): negative time %d", names[i], v)
	case v < 0:
		return 0, fmt.Sprintf("field %d (%s): negative: %d", i+1, names[i], v)
	}
	return v, ""
}

// optInt checks an optional integer field.
func optInt(fs [][]byte, i int, names []string) string {
	if len(fs[i]) == 0 {
		return ""
	}
	if _, ok := parseInt(fs[i]); !ok {
		return fmt.Sprintf("field %d (%s): not a whole number: %s", i+1, names[i], quote(fs[i]))
	}
	return ""
}

// fraction reads an optional normalised amount in [0, 1]; -1 when empty.
func fraction(fs [][]byte, i int, names []string) (float64, string) {
	if len(fs[i]) == 0 {
		return -1, ""
	}
	v, ok := parseNum(fs[i])
	switch {
	case !ok:
		return 0, fmt.Sprintf("field %d (%s): not a number: %s", i+1, names[i], quote(fs[i]))
	case v < 0 || v > 1:
		return 0, fmt.Sprintf("field %d (%s): %s is outside [0, 1] (amounts are normalised to the largest machine)", i+1, names[i], fs[i])
	}
	return v, ""
}

func (g *google) job(id int64) int32 {
	j, ok := g.jobIndex[id]
	if !ok {
		j = int32(len(g.jobs))
		g.jobs = append(g.jobs, gJob{id: id, submit: -1})
		g.jobIndex[id] = j
	}
	return j
}

func (g *google) taskEvent(fs [][]byte) string {
	names := taskEventFields[:]
	ts, msg := intField(fs, 0, names)
	if msg != "" {
		return msg
	}
	jobID, msg := intField(fs, 2, names)
	if msg != "" {
		return msg
	}
	idx, msg := intField(fs, 3, names)
	if msg != "" {
		return msg
	}
	if idx > math.MaxInt32 {
		return fmt.Sprintf("field 4 (task index): %d is too large", idx)
	}
	ev, msg := intField(fs, 5, names)
	if msg != "" {
		return msg
	}
	if ev > evUpdateRunning {
		return fmt.Sprintf("field 6 (event type): unknown event type %d (known: 0 to 8)", ev)
	}
	for _, i := range []int{4, 7, 8, 12} {
		if msg := optInt(fs, i, names); msg != "" {
			return msg
		}
	}
	cpu, msg := fraction(fs, 9, names)
	if msg != "" {
		return msg
	}
	mem, msg := fraction(fs, 10, names)
	if msg != "" {
		return msg
	}
	if _, msg := fraction(fs, 11, names); msg != "" {
		return msg
	}
	if ts == afterTrace {
		g.after++
		return ""
	}
	g.traceEnd = max(g.traceEnd, ts)

	key := gKey{jobID, idx}
	ti, ok := g.taskIdx[key]
	if !ok {
		if g.c.opt.End != 0 && ts >= int64(g.c.opt.End) {
			// A task first seen after the window can only belong to a
			// job inside it if that job was seen already.
			if _, known := g.jobIndex[jobID]; !known {
				g.late++
				return ""
			}
		}
		ti = int32(len(g.tasks))
		j := g.job(jobID)
		if g.jobs[j].user == "" {
			g.jobs[j].user = string(fs[6])
		}
		g.tasks = append(g.tasks, gTask{job: j, idx: int32(idx), sched: -1, end: -1, cpu: noAmount, mem: noAmount})
		g.taskIdx[key] = ti
	}
	t := &g.tasks[ti]
	if cpu >= 0 {
		t.cpu = toFixed(cpu)
	}
	if mem >= 0 {
		t.mem = toFixed(mem)
	}
	switch ev {
	case evSubmit:
		if j := &g.jobs[t.job]; j.submit < 0 || ts < j.submit {
			j.submit = ts
		}
	case evSchedule:
		// The latest run is the one whose duration counts. A terminal
		// event at the same instant, read before, ended the run before.
		if ts >= t.sched {
			t.sched, t.schedCPU, t.schedMemory = ts, t.cpu, t.mem
			if t.end <= ts {
				t.end = -1
			}
		}
	case evEvict, evFail, evFinish, evKill, evLost:
		if t.sched >= 0 && ts >= t.sched && ts >= t.end {
			t.end, t.endType = ts, int8(ev)
		}
	}
	return ""
}

var jobEventFields = [8]string{"timestamp", "missing info", "job ID", "event type", "user", "scheduling class", "job name", "logical job name"}

func (g *google) jobEvent(fs [][]byte) string {
	names := jobEventFields[:]
	ts, msg := intField(fs, 0, names)
	if msg != "" {
		return msg
	}
	jobID, msg := intField(fs, 2, names)
	if msg != "" {
		return msg
	}
	ev, msg := intField(fs, 3, names)
	if msg != "" {
		return msg
	}
	if ev > evUpdateRunning {
		return fmt.Sprintf("field 4 (event type): unknown event type %d (known: 0 to 8)", ev)
	}
	if msg := optInt(fs, 5, names); msg != "" {
		return msg
	}
	if ts == afterTrace || ev != evSubmit {
		return ""
	}
	if g.c.opt.End != 0 && ts >= int64(g.c.opt.End) {
		return ""
	}
	j := &g.jobs[g.job(jobID)]
	if j.submit < 0 || ts < j.submit {
		j.submit = ts
	}
	if j.user == "" {
		j.user = string(fs[4])
	}
	if n := fs[7]; len(n) > 0 && j.name == "" {
		j.name = string(n)
	}
	return ""
}

var machineEventFields = [6]string{"timestamp", "machine ID", "event type", "platform ID", "CPU capacity", "memory capacity"}

func (g *google) machineEvent(fs [][]byte) string {
	names := machineEventFields[:]
	if _, msg := intField(fs, 0, names); msg != "" {
		return msg
	}
	id, msg := intField(fs, 1, names)
	if msg != "" {
		return msg
	}
	ev, msg := intField(fs, 2, names)
	if msg != "" {
		return msg
	}
	if ev > 2 {
		return fmt.Sprintf("field 3 (event type): unknown machine event type %d (known: 0 ADD, 1 REMOVE, 2 UPDATE)", ev)
	}
	cpu, msg := fraction(fs, 4, names)
	if msg != "" {
		return msg
	}
	mem, msg := fraction(fs, 5, names)
	if msg != "" {
		return msg
	}
	m, ok := g.machines[id]
	if !ok {
		m = int32(len(g.mcap))
		g.mcap = append(g.mcap, [2]float64{-1, -1})
		g.machines[id] = m
	}
	// A machine counts with the capacity it last had; removals are
	// usually maintenance, and the simulated cluster is static.
	if ev != 1 && cpu >= 0 && mem >= 0 {
		g.mcap[m] = [2]float64{cpu, mem}
	}
	return ""
}

// build turns the tasks into jobs: one phase per job, of the tasks that
// ran to the end of their last run.
func (g *google) build() error {
	c := g.c
	vcores, memory := c.opt.MachineVCores, c.opt.MachineMemory
	if vcores == 0 {
		vcores = googleVCores
	}
	if memory == 0 {
		memory = googleMemory
	}
	order := make([]int32, len(g.tasks))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		ta, tb := &g.tasks[a], &g.tasks[b]
		return cmp.Or(cmp.Compare(ta.job, tb.job), cmp.Compare(ta.idx, tb.idx))
	})
	var never, ended, running, empty int64
	var jobs []workload.Job
	var spans []span
	type built struct {
		job workload.Job
		id  int64
	}
	var out []built
	for lo := 0; lo < len(order); {
		hi := lo
		jx := g.tasks[order[lo]].job
		for hi < len(order) && g.tasks[order[hi]].job == jx {
			hi++
		}
		gj := &g.jobs[jx]
		var req resource.Vector
		var durs []clock.Duration
		firstRun := int64(-1)
		for _, ti := range order[lo:hi] {
			t := &g.tasks[ti]
			var end int64
			switch {
			case t.sched < 0:
				never++
				continue
			case t.end >= 0 && t.endType == evFinish:
				end = t.end
			case t.end >= 0:
				if !c.truncate() {
					ended++
					continue
				}
				end = t.end
			default:
				if !c.truncate() {
					running++
					continue
				}
				end = max(g.traceEnd, t.sched)
			}
			r := vector(t.schedCPU.value(), t.schedMemory.value(), vcores, memory)
			for d := range r {
				req[d] = max(req[d], r[d])
			}
			durs = append(durs, clock.Duration(end-t.sched))
			spans = append(spans, spanOf(clock.Time(t.sched), clock.Time(end), r))
			if firstRun < 0 || t.sched < firstRun {
				firstRun = t.sched
			}
		}
		lo = hi
		if len(durs) == 0 {
			empty++
			continue
		}
		submit := gj.submit
		if submit < 0 {
			submit = firstRun // present before the trace began
		}
		out = append(out, built{id: gj.id, job: workload.Job{
			ID:     fmt.Sprint(gj.id),
			Name:   gj.name,
			User:   gj.user,
			Submit: clock.Time(submit),
			Phases: []workload.Phase{{Tasks: len(durs), Request: req, Durations: durs}},
		}})
	}
	c.rep.skip("tasks never scheduled", never)
	c.rep.skip("tasks whose last run was killed, failed, evicted or lost (unfinished=truncate keeps them)", ended)
	c.rep.skip("tasks still running at the end of the trace (unfinished=truncate keeps them)", running)
	c.rep.skip("jobs with no task left", empty)
	slices.SortStableFunc(out, func(a, b built) int {
		return cmp.Or(cmp.Compare(a.job.Submit, b.job.Submit), cmp.Compare(a.id, b.id))
	})
	jobs = make([]workload.Job, len(out))
	for i := range out {
		jobs[i] = out[i].job
	}
	nodes, err := g.cluster(vcores, memory, spans)
	if err != nil {
		return err
	}
	return c.finish(jobs, nodes, nil)
}

// cluster builds the machines from machine_events, or sizes a cluster of
// identical largest machines to the trace's peak demand.
func (g *google) cluster(vcores float64, memory int64, spans []span) ([]workload.NodeGroup, error) {
	c := g.c
	node := machine(vcores, memory)
	if node[resource.VCores] <= 0 || node[resource.Memory] <= 0 {
		return nil, fmt.Errorf("%s: machine-vcores and machine-memory must be positive (got %g vcores, %d MiB)", c.srcs[0].name, vcores, memory)
	}
	count := map[resource.Vector]int{}
	var unknown int64
	for _, m := range g.mcap {
		v := machine(m[0]*vcores, int64(math.Round(m[1]*float64(memory))))
		if m[0] <= 0 || m[1] <= 0 || v[resource.VCores] <= 0 || v[resource.Memory] <= 0 {
			unknown++ // not stated, or too small to hold anything
			continue
		}
		count[v]++
	}
	c.rep.skip("machines with no known capacity", unknown)
	if len(count) == 0 || c.opt.Nodes > 0 {
		n := c.opt.Nodes
		how := "the nodes option"
		if n == 0 {
			n, how = peakNodes(spans, node), "the peak demand of the trace's running tasks"
			if len(g.mcap) > 0 {
				how += ", as machine_events gave no machine a known capacity"
			}
		}
		c.rep.note("cluster: %d machines of %s (a normalised capacity of 1), sized by %s", n, node, how)
		return []workload.NodeGroup{{Count: n, Capacity: node}}, nil
	}
	var groups []workload.NodeGroup
	for v, n := range count {
		groups = append(groups, workload.NodeGroup{Count: n, Capacity: v})
	}
	slices.SortFunc(groups, func(a, b workload.NodeGroup) int {
		return cmp.Or(cmp.Compare(b.Capacity[resource.VCores], a.Capacity[resource.VCores]),
			cmp.Compare(b.Capacity[resource.Memory], a.Capacity[resource.Memory]))
	})
	total := 0
	for _, gr := range groups {
		total += gr.Count
		if gr.Count > workload.MaxNodesPerGroup {
			return nil, fmt.Errorf("%s: more than %d machines of one size", c.srcs[0].name, workload.MaxNodesPerGroup)
		}
	}
	c.rep.note("cluster: %d machines in %d sizes from machine_events (capacity 1 = %s)", total, len(groups), node)
	return groups, nil
}

// tableFromName returns the index of the table a file's name, or else its
// directory's name, mentions (with "_" or "-"), or -1.
func tableFromName(path string, tables []string) int {
	base := strings.ToLower(filepath.Base(path))
	dir := strings.ToLower(filepath.Base(filepath.Dir(path)))
	for _, name := range []string{base, dir} {
		for t, n := range tables {
			if strings.Contains(name, n) || strings.Contains(name, strings.ReplaceAll(n, "_", "-")) {
				return t
			}
		}
	}
	return -1
}
