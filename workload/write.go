package workload

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// Format selects the syntax Write produces.
type Format int

const (
	YAML Format = iota
	JSON
)

func (f Format) String() string {
	switch f {
	case YAML:
		return "YAML"
	case JSON:
		return "JSON"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// Save writes w to path, as JSON when the name ends in ".json" (before an
// optional ".gz", which gzips) and as YAML otherwise. The file is written
// under a temporary name in the same directory and renamed into place, so a
// reader never sees half a workload and a failed write leaves any previous
// file intact.
func Save(path string, w *Workload) (err error) {
	name, gz := strings.CutSuffix(path, ".gz")
	f := YAML
	if strings.HasSuffix(name, ".json") {
		f = JSON
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return namePath(err, path)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = namePath(err, path)
		}
	}()
	var out io.Writer = tmp
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(tmp)
		out = zw
	}
	if err = Write(out, w, f); err != nil {
		return err
	}
	if zw != nil {
		if err = zw.Close(); err != nil {
			return err
		}
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// namePath makes an error of writing the temporary file name the file the
// user asked for: the temporary name is an internal detail, gone by the time
// the user reads the message.
func namePath(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = path
		return err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &fs.PathError{Op: "rename", Path: path, Err: le.Err}
	}
	return err // not about a file: it names no temporary file either
}

// Write writes w in the given format. The output is deterministic and Parse
// reads it back to an identical workload (when w is valid). Fields holding
// their default are left out, except am, whose absence would mean the
// default AM rather than none. Durations are written as exact numbers of
// seconds.
//
// The document is produced job by job through a buffer, so memory use does
// not grow with the workload.
func Write(out io.Writer, w *Workload, f Format) error {
	if f != YAML && f != JSON {
		return fmt.Errorf("workload: unknown format %v", f)
	}
	e := &encoder{bw: bufio.NewWriterSize(out, 64<<10), yaml: f == YAML}
	if e.yaml {
		e.yamlDoc(w)
	} else {
		e.jsonDoc(w)
	}
	if e.err != nil {
		return e.err
	}
	return e.bw.Flush()
}

type encoder struct {
	bw   *bufio.Writer
	buf  []byte // the piece being built; handed to bw by commit
	yaml bool
	err  error
}

// commit hands the piece built so far to the buffered writer.
func (e *encoder) commit() {
	if e.err == nil {
		_, e.err = e.bw.Write(e.buf)
	}
	e.buf = e.bw.AvailableBuffer()
}

func (e *encoder) s(s string) { e.buf = append(e.buf, s...) }

func (e *encoder) int(v int64) { e.buf = strconv.AppendInt(e.buf, v, 10) }

func (e *encoder) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if e.err == nil {
			e.err = fmt.Errorf("workload: cannot write non-finite number %v", f)
		}
		f = 0
	}
	e.buf = strconv.AppendFloat(e.buf, f, 'g', -1, 64)
}

func (e *encoder) duration(d clock.Duration) { e.buf = formatSeconds(e.buf, d) }

// vcores writes milli-vcores as a decimal number of vcores.
func (e *encoder) vcores(m int64) {
	u := uint64(m)
	if m < 0 {
		e.buf = append(e.buf, '-')
		u = -u
	}
	e.buf = strconv.AppendUint(e.buf, u/resource.MilliPerVCore, 10)
	if f := u % resource.MilliPerVCore; f != 0 {
		d := [4]byte{'.', byte('0' + f/100), byte('0' + f/10%10), byte('0' + f%10)}
		n := 4
		for d[n-1] == '0' {
			n--
		}
		e.buf = append(e.buf, d[:n]...)
	}
}

func (e *encoder) str(s string) { e.buf = appendQuoted(e.buf, s, e.yaml) }

// key writes a key, preceded by sep unless it is the first of its mapping.
func (e *encoder) key(first *bool, sep, k string) {
	if !*first {
		e.s(sep)
	}
	*first = false
	if e.yaml {
		e.s(k)
	} else {
		e.buf = append(e.buf, '"')
		e.s(k)
		e.buf = append(e.buf, '"')
	}
	e.s(": ")
}

func (e *encoder) vector(v resource.Vector) {
	e.s("{")
	first := true
	e.vectorFields(&first, v)
	e.s("}")
}

func (e *encoder) vectorFields(first *bool, v resource.Vector) {
	e.key(first, ", ", "vcores")
	e.vcores(v[resource.VCores])
	e.key(first, ", ", "memory_mb")
	e.int(v[resource.Memory])
	if v[resource.GPU] != 0 {
		e.key(first, ", ", "gpus")
		e.int(v[resource.GPU])
	}
	if v[resource.Disk] != 0 {
		e.key(first, ", ", "disk_mb")
		e.int(v[resource.Disk])
	}
}

func (e *encoder) nodeGroup(g NodeGroup) {
	e.s("{")
	first := true
	if g.Count != 1 {
		e.key(&first, ", ", "count")
		e.int(int64(g.Count))
	}
	e.vectorFields(&first, g.Capacity)
	if len(g.Labels) > 0 {
		e.key(&first, ", ", "labels")
		e.stringMap(g.Labels)
	}
	if len(g.Taints) > 0 {
		e.key(&first, ", ", "taints")
		e.s("[")
		for i, t := range g.Taints {
			if i > 0 {
				e.s(", ")
			}
			f := true
			e.s("{")
			e.key(&f, ", ", "key")
			e.str(t.Key)
			if t.Value != "" {
				e.key(&f, ", ", "value")
				e.str(t.Value)
			}
			e.key(&f, ", ", "effect")
			e.str(t.Effect)
			e.s("}")
		}
		e.s("]")
	}
	if g.External != nil {
		e.key(&first, ", ", "external")
		e.heldSteps(g.External)
	}
	e.s("}")
}

// stringMap writes labels or a node selector in flow style, keys sorted.
func (e *encoder) stringMap(m map[string]string) {
	e.s("{")
	first := true
	for _, k := range sortedKeys(m) {
		if !first {
			e.s(", ")
		}
		first = false
		e.str(k)
		e.s(": ")
		e.str(m[k])
	}
	e.s("}")
}

func (e *encoder) tolerations(ts []Toleration) {
	e.s("[")
	for i, t := range ts {
		if i > 0 {
			e.s(", ")
		}
		f := true
		e.s("{")
		if t.Key != "" {
			e.key(&f, ", ", "key")
			e.str(t.Key)
		}
		if t.Operator != "" {
			e.key(&f, ", ", "operator")
			e.str(t.Operator)
		}
		if t.Value != "" {
			e.key(&f, ", ", "value")
			e.str(t.Value)
		}
		if t.Effect != "" {
			e.key(&f, ", ", "effect")
			e.str(t.Effect)
		}
		e.s("}")
	}
	e.s("]")
}

func (e *encoder) queue(q Queue) {
	e.s("{")
	first := true
	e.key(&first, ", ", "name")
	e.str(q.Name)
	e.key(&first, ", ", "capacity")
	e.float(q.Capacity)
	if q.MaxCapacity != 1 {
		e.key(&first, ", ", "max_capacity")
		e.float(q.MaxCapacity)
	}
	if q.Weight != 0 {
		e.key(&first, ", ", "weight")
		e.float(q.Weight)
	}
	if q.DisablePreemption {
		e.key(&first, ", ", "disable_preemption")
		e.s("true")
	}
	e.s("}")
}

func (e *encoder) externalLoad(l *ExternalLoad) {
	first := true
	e.s("{")
	e.key(&first, ", ", "points")
	e.s("[")
	for i, p := range l.Points {
		if i > 0 {
			e.s(", ")
		}
		e.s("[")
		e.duration(p.At)
		e.s(", ")
		e.float(p.Frac)
		e.s("]")
	}
	e.s("]")
	if l.Period != 0 {
		e.key(&first, ", ", "period")
		e.duration(l.Period)
	}
	e.s("}")
}

// clusterFields writes the cluster's fields after nodes, separated by sep.
func (e *encoder) clusterFields(c *Cluster, sep string) {
	first := false
	if c.Ideal {
		e.key(&first, sep, "ideal")
		e.s("true")
	}
	if c.Timing != "" {
		e.key(&first, sep, "timing")
		e.str(c.Timing)
	}
	if c.NodeHeartbeat != DefaultNodeHeartbeat {
		e.key(&first, sep, "node_heartbeat")
		e.duration(c.NodeHeartbeat)
	}
	if c.AMHeartbeat != DefaultAMHeartbeat {
		e.key(&first, sep, "am_heartbeat")
		e.duration(c.AMHeartbeat)
	}
	if c.LaunchDelay != DefaultLaunchDelay {
		e.key(&first, sep, "launch_delay")
		e.duration(c.LaunchDelay)
	}
	if c.LaunchJitter != DefaultLaunchJitter {
		e.key(&first, sep, "launch_jitter")
		e.float(c.LaunchJitter)
	}
	// The client's limit means something under Kubernetes timing only.
	if c.Timing == TimingKubernetes && c.APIQPS != DefaultAPIQPS {
		e.key(&first, sep, "api_qps")
		e.float(c.APIQPS)
	}
	if c.Timing == TimingKubernetes && c.APIBurst != DefaultAPIBurst {
		e.key(&first, sep, "api_burst")
		e.int(int64(c.APIBurst))
	}
	if c.ExternalLoad != nil {
		e.key(&first, sep, "external_load")
		e.externalLoad(c.ExternalLoad)
	}
	if c.Calculator != resource.MemoryCalculator {
		e.key(&first, sep, "resource_calculator")
		e.str(c.Calculator.String())
	}
	if m := c.MapReduceAM; m != DefaultMapReduceAM && m != (MapReduceAM{}) {
		e.key(&first, sep, "mapreduce_am")
		e.mapReduceAM(m)
	}
}

// mapReduceAM writes every field, so that the object reads the same
// whatever the defaults become.
func (e *encoder) mapReduceAM(m MapReduceAM) {
	e.s("{")
	f := true
	e.key(&f, ", ", "model")
	e.str(m.Model.String())
	e.key(&f, ", ", "reduce_rampup_limit")
	e.float(m.ReduceRampupLimit)
	e.key(&f, ", ", "reduce_preemption_limit")
	e.float(m.ReducePreemptionLimit)
	e.key(&f, ", ", "reducer_preempt_delay")
	e.duration(m.ReducerPreemptDelay)
	e.key(&f, ", ", "reducer_unconditional_preempt_delay")
	e.duration(m.ReducerUnconditionalPreemptDelay)
	e.s("}")
}

// jobFields writes a job's fields separated by sep; phases are written by
// the caller.
func (e *encoder) jobFields(j *Job, sep string) {
	first := true
	e.key(&first, sep, "id")
	e.str(j.ID)
	if j.Name != "" {
		e.key(&first, sep, "name")
		e.str(j.Name)
	}
	if j.User != "" {
		e.key(&first, sep, "user")
		e.str(j.User)
	}
	if j.Submit != 0 {
		e.key(&first, sep, "submit")
		e.duration(clock.Duration(j.Submit))
	}
	if j.Queue != DefaultQueue {
		e.key(&first, sep, "queue")
		e.str(j.Queue)
	}
	if j.Priority != 0 {
		e.key(&first, sep, "priority")
		e.int(int64(j.Priority))
	}
	if j.MinMembers != 0 {
		e.key(&first, sep, "min_members")
		e.int(int64(j.MinMembers))
	}
	if j.GangTimeout != 0 {
		e.key(&first, sep, "gang_timeout")
		e.duration(j.GangTimeout)
	}
	if j.AM != DefaultAM {
		e.key(&first, sep, "am")
		e.vector(j.AM)
	}
	if j.Deadline != 0 {
		e.key(&first, sep, "deadline")
		e.duration(j.Deadline)
	}
	if j.Estimate != 0 {
		e.key(&first, sep, "estimate")
		e.duration(j.Estimate)
	}
	if len(j.NodeSelector) > 0 {
		e.key(&first, sep, "node_selector")
		e.stringMap(j.NodeSelector)
	}
	if len(j.Tolerations) > 0 {
		e.key(&first, sep, "tolerations")
		e.tolerations(j.Tolerations)
	}
	if j.Recorded != nil {
		e.key(&first, sep, "recorded")
		e.recorded(j.Recorded)
	}
	e.key(&first, sep, "phases")
}

func (e *encoder) phaseFields(p *Phase, sep string) {
	first := true
	if p.Name != "" {
		e.key(&first, sep, "name")
		e.str(p.Name)
	}
	e.key(&first, sep, "tasks")
	e.int(int64(p.Tasks))
	e.key(&first, sep, "request")
	e.vector(p.Request)
	e.key(&first, sep, "duration")
	if len(p.Durations) == 1 {
		e.duration(p.Durations[0])
	} else {
		e.s("[")
		for i, d := range p.Durations {
			if i > 0 {
				e.s(", ")
			}
			e.duration(d)
		}
		e.s("]")
	}
	if p.StartAfter != 1 {
		e.key(&first, sep, "start_after")
		e.float(p.StartAfter)
	}
	if p.Started != nil {
		e.key(&first, sep, "started")
		e.times(p.Started)
	}
	if p.Unfinished != 0 {
		e.key(&first, sep, "unfinished")
		e.int(int64(p.Unfinished))
	}
}

// writeQueues reports whether the queue list differs from the one Parse
// supplies when queues are absent.
func writeQueues(qs []Queue) bool {
	return len(qs) > 0 && !(len(qs) == 1 && qs[0] == defaultQueues()[0])
}

func (e *encoder) jsonDoc(w *Workload) {
	e.buf = e.bw.AvailableBuffer()
	e.s("{\n  \"version\": ")
	e.int(int64(w.Version))
	e.jsonCluster(&w.Cluster)
	e.jsonQueues(w.Queues)
	e.s(",\n  \"jobs\": [")
	for i := range w.Jobs {
		e.jsonJob(&w.Jobs[i], i == 0)
	}
	if len(w.Jobs) > 0 {
		e.s("\n  ")
	}
	e.s("]\n}\n")
	e.commit()
}

// jsonCluster writes the cluster key of a JSON document, after another key.
func (e *encoder) jsonCluster(c *Cluster) {
	e.s(",\n  \"cluster\": {\n    \"nodes\": [")
	for i, g := range c.Nodes {
		if i > 0 {
			e.s(",")
		}
		e.s("\n      ")
		e.nodeGroup(g)
	}
	if len(c.Nodes) > 0 {
		e.s("\n    ")
	}
	e.s("]")
	e.clusterFields(c, ",\n    ")
	e.s("\n  }")
}

// jsonQueues writes the queues key of a JSON document, after another key,
// when the list differs from the default.
func (e *encoder) jsonQueues(qs []Queue) {
	if !writeQueues(qs) {
		return
	}
	e.s(",\n  \"queues\": [")
	for i, q := range qs {
		if i > 0 {
			e.s(",")
		}
		e.s("\n    ")
		e.queue(q)
	}
	e.s("\n  ]")
}

// jsonJob writes one element of a JSON job list and commits it.
func (e *encoder) jsonJob(j *Job, first bool) {
	if !first {
		e.s(",")
	}
	e.s("\n    {")
	e.jobFields(j, ", ")
	e.s("[")
	for k := range j.Phases {
		if k > 0 {
			e.s(", ")
		}
		e.s("{")
		e.phaseFields(&j.Phases[k], ", ")
		e.s("}")
	}
	e.s("]}")
	e.commit()
}

func (e *encoder) yamlDoc(w *Workload) {
	e.buf = e.bw.AvailableBuffer()
	e.s("version: ")
	e.int(int64(w.Version))
	e.yamlCluster(&w.Cluster)
	e.yamlQueues(w.Queues)
	e.s("\njobs:")
	if len(w.Jobs) == 0 {
		e.s(" []")
	}
	for i := range w.Jobs {
		e.yamlJob(&w.Jobs[i])
	}
	e.s("\n")
	e.commit()
}

// yamlCluster writes the cluster key of a YAML document on a new line.
func (e *encoder) yamlCluster(c *Cluster) {
	e.s("\ncluster:\n  nodes:")
	if len(c.Nodes) == 0 {
		e.s(" []")
	}
	for _, g := range c.Nodes {
		e.s("\n    - ")
		e.nodeGroup(g)
	}
	e.clusterFields(c, "\n  ")
}

// yamlQueues writes the queues key of a YAML document on a new line, when
// the list differs from the default.
func (e *encoder) yamlQueues(qs []Queue) {
	if !writeQueues(qs) {
		return
	}
	e.s("\nqueues:")
	for _, q := range qs {
		e.s("\n  - ")
		e.queue(q)
	}
}

// yamlJob writes one element of a YAML job list and commits it.
func (e *encoder) yamlJob(j *Job) {
	e.s("\n  - ")
	e.jobFields(j, "\n    ")
	if len(j.Phases) == 0 {
		e.s("[]")
	} else {
		e.buf = e.buf[:len(e.buf)-1] // no space after "phases:"
	}
	for k := range j.Phases {
		e.s("\n      - ")
		e.phaseFields(&j.Phases[k], "\n        ")
	}
	e.commit()
}

// appendQuoted appends s as a double-quoted string. The escapes are JSON's,
// which YAML's double-quoted style also reads; for YAML, characters its
// reader rejects or treats as line breaks (C1 controls, NEL, U+2028/U+2029,
// the BOM, U+FFFE/U+FFFF) are escaped as well. Invalid UTF-8 becomes U+FFFD.
func appendQuoted(b []byte, s string, yaml bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f && yaml:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			r = utf8.RuneError
		case r == 0x2028 || r == 0x2029:
		case yaml && (r <= 0x9f || r == 0xfeff || r == 0xfffe || r == 0xffff):
		default:
			b = append(b, s[i-n:i]...)
			continue
		}
		b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	return append(b, '"')
}
