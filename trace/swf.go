package trace

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// The 18 SWF fields, for messages.
var swfFields = [18]string{"job number", "submit time", "wait time", "run time", "allocated processors",
	"average CPU time", "used memory", "requested processors", "requested time", "requested memory",
	"status", "user", "group", "executable", "queue", "partition", "preceding job", "think time"}

const (
	swfJob = iota
	swfSubmit
	swfWait
	swfRun
	swfAlloc
	swfAvgCPU
	swfUsedMem
	swfReqProcs
	swfReqTime
	swfReqMem
	swfStatus
	swfUser
	swfGroup
	swfExec
)

// defaultMemoryPerProc is the memory of an SWF processor when not given:
// SWF logs rarely record memory, and 1 GiB keeps memory from ever binding.
const defaultMemoryPerProc = 1024

func convertSWF(c *conv) error {
	var (
		jobs              []workload.Job
		maxNodes, maxProc int64
		largest           int
		seen              = map[int64]int{} // job number -> line
		fields            [][]byte
		noRun, noProcs    int64
		slab              slabs
	)
	memPerProc := c.opt.MemoryPerProc
	if memPerProc == 0 {
		memPerProc = defaultMemoryPerProc
	}
	for _, s := range c.srcs {
		lr, err := c.openLines(s)
		if err != nil {
			return err
		}
		err = func() error {
			defer lr.close()
			for {
				line, ok, err := lr.next()
				if err != nil || !ok {
					return err
				}
				t := bytes.TrimLeft(line, " \t")
				if len(t) == 0 {
					continue
				}
				if t[0] == ';' {
					swfHeader(t[1:], &maxNodes, &maxProc)
					continue
				}
				c.rep.Records++
				fields = splitSpace(fields, t)
				if len(fields) != len(swfFields) {
					if err := c.bad(lr.name, lr.line, "wrong field count: got %d, want %d", len(fields), len(swfFields)); err != nil {
						return err
					}
					continue
				}
				var v [18]float64
				badField := -1
				for i, f := range fields {
					x, ok := parseNum(f)
					if !ok {
						badField = i
						break
					}
					v[i] = x
				}
				if badField >= 0 {
					if err := c.bad(lr.name, lr.line, "field %d (%s): not a number: %s", badField+1, swfFields[badField], quote(fields[badField])); err != nil {
						return err
					}
					continue
				}
				j, skip, msg := swfJobOf(fields, &v, memPerProc, &slab)
				switch {
				case msg != "":
					if err := c.bad(lr.name, lr.line, "%s", msg); err != nil {
						return err
					}
					continue
				case skip == skipNoRun:
					noRun++
					continue
				case skip == skipNoProcs:
					noProcs++
					continue
				}
				num := int64(v[swfJob])
				if prev, dup := seen[num]; dup {
					if err := c.bad(lr.name, lr.line, "duplicate job number %d (first on line %d)", num, prev); err != nil {
						return err
					}
					continue
				}
				seen[num] = lr.line
				largest = max(largest, j.Phases[0].Tasks)
				jobs = append(jobs, j)
			}
		}()
		if err != nil {
			return err
		}
	}
	c.rep.skip("records with run time <= 0 (unknown or zero)", noRun)
	c.rep.skip("records with no processor count", noProcs)

	cpn := int64(c.opt.CoresPerNode)
	if cpn == 0 {
		cpn = 1
		if maxNodes > 0 && maxProc > 0 && maxProc%maxNodes == 0 {
			cpn = maxProc / maxNodes
		}
	}
	nodes := int64(c.opt.Nodes)
	how := "the nodes option"
	switch {
	case nodes > 0:
	case maxProc > 0:
		nodes, how = (maxProc+cpn-1)/cpn, fmt.Sprintf("the header's MaxProcs (%d)", maxProc)
	case maxNodes > 0:
		nodes, how = maxNodes, fmt.Sprintf("the header's MaxNodes (%d)", maxNodes)
	default:
		nodes, how = max(1, (int64(largest)+cpn-1)/cpn), "the largest job, as the header gives no size"
	}
	if nodes > workload.MaxNodesPerGroup {
		return fmt.Errorf("%s: a cluster of %d nodes is more than the format allows (%d); set nodes or cores-per-node", c.srcs[0].name, nodes, workload.MaxNodesPerGroup)
	}
	group := workload.NodeGroup{Count: int(nodes), Capacity: resource.Vector{
		resource.VCores: cpn * resource.MilliPerVCore, resource.Memory: cpn * memPerProc}}
	c.rep.note("cluster: %d nodes of %d processor(s) (1 vcore and %d MiB each), sized by %s", nodes, cpn, memPerProc, how)
	return c.finish(jobs, []workload.NodeGroup{group}, nil)
}

// swfHeader reads the MaxNodes and MaxProcs header lines.
func swfHeader(h []byte, maxNodes, maxProcs *int64) {
	k, v, ok := bytes.Cut(h, []byte{':'})
	if !ok {
		return
	}
	k = bytes.TrimSpace(k)
	fs := splitSpace(nil, v)
	if len(fs) == 0 {
		return
	}
	n, ok := parseInt(fs[0])
	if !ok || n <= 0 {
		return
	}
	switch string(k) {
	case "MaxNodes":
		*maxNodes = n
	case "MaxProcs":
		*maxProcs = n
	}
}

type swfSkip int

const (
	keep swfSkip = iota
	skipNoRun
	skipNoProcs
)

// swfJobOf maps one record to a job, or says why it is skipped or bad.
func swfJobOf(fields [][]byte, v *[18]float64, memPerProc int64, slab *slabs) (workload.Job, swfSkip, string) {
	for _, i := range []int{swfJob, swfAlloc, swfReqProcs, swfUser, swfExec} {
		if _, ok := parseInt(fields[i]); !ok {
			return workload.Job{}, keep, fmt.Sprintf("field %d (%s): not a whole number: %s", i+1, swfFields[i], quote(fields[i]))
		}
	}
	submit, ok := parseTime(fields[swfSubmit], clock.Second)
	switch {
	case !ok:
		return workload.Job{}, keep, fmt.Sprintf("field 2 (submit time): out of range: %s", quote(fields[swfSubmit]))
	case submit < 0:
		return workload.Job{}, keep, fmt.Sprintf("field 2 (submit time): negative time %s", fields[swfSubmit])
	}
	run, ok := parseTime(fields[swfRun], clock.Second)
	if !ok {
		return workload.Job{}, keep, fmt.Sprintf("field 4 (run time): out of range: %s", quote(fields[swfRun]))
	}
	if run <= 0 {
		return workload.Job{}, skipNoRun, ""
	}
	procs := int64(v[swfAlloc])
	if procs <= 0 {
		procs = int64(v[swfReqProcs])
	}
	if procs <= 0 {
		return workload.Job{}, skipNoProcs, ""
	}
	if procs > workload.MaxTasksPerPhase {
		return workload.Job{}, keep, fmt.Sprintf("%d processors: more than %d", procs, workload.MaxTasksPerPhase)
	}
	j := workload.Job{
		ID:     strconv.FormatInt(int64(v[swfJob]), 10),
		Submit: clock.Time(submit),
		Phases: slab.phase(workload.Phase{
			Tasks:     int(procs),
			Request:   resource.Vector{resource.VCores: resource.MilliPerVCore, resource.Memory: memPerProc},
			Durations: slab.duration(run),
		}),
	}
	if est, ok := parseTime(fields[swfReqTime], clock.Second); ok && est > 0 {
		j.Estimate = est
	}
	if u := int64(v[swfUser]); u >= 0 {
		j.User = slab.intern("", u)
	}
	if x := int64(v[swfExec]); x >= 0 {
		j.Name = slab.intern("app-", x)
	}
	return j, keep, ""
}
