package workload

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// maxGunzipped bounds what Load inflates, so that a small compressed file
// cannot exhaust memory.
const maxGunzipped = 4 << 30

// Load reads a workload file; a name ending in ".gz" is gunzipped first.
// Errors name the file and line. A JSON file is decoded as it is read, so a
// trace-sized file is never held in memory beside the workload; YAML is
// read whole.
func Load(path string) (*Workload, error) {
	open := func() (io.Reader, func(), error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		if !strings.HasSuffix(path, ".gz") {
			return f, func() { f.Close() }, nil
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		return &limitedReader{r: zr, left: maxGunzipped}, func() { f.Close() }, nil
	}
	r, closeFn, err := open()
	if err != nil {
		return nil, err
	}
	defer closeFn()
	// Read enough to tell JSON from YAML: the first byte past a BOM and
	// blanks.
	head := make([]byte, 0, streamChunk)
	for {
		n, err := r.Read(head[len(head):cap(head)])
		head = head[:len(head)+n]
		if t := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n"); len(t) > 0 || err != nil || len(head) == cap(head) {
			if err != nil && err != io.EOF {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if len(t) > 0 && t[0] == '{' {
				head = bytes.TrimPrefix(head, bom)
				reopen := func() (puller, error) {
					r, c, err := open()
					if err != nil {
						return nil, err
					}
					// The document is read to its end in one go, on the
					// cold path of a workload with errors.
					data, err := io.ReadAll(r)
					c()
					if err != nil {
						return nil, err
					}
					return newJSONSource(bytes.TrimPrefix(data, bom)), nil
				}
				if err == io.EOF {
					return decode(newJSONSource(head), reopen, path)
				}
				return decode(newJSONStream(head, r), reopen, path)
			}
			break
		}
	}
	rest, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return Parse(append(head, rest...), path)
}

var bom = []byte("\xef\xbb\xbf")

// limitedReader fails a read past left bytes, so that a small compressed
// file cannot exhaust memory.
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, fmt.Errorf("more than %d bytes uncompressed", int64(maxGunzipped))
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, fmt.Errorf("more than %d bytes uncompressed", int64(maxGunzipped))
	}
	return n, err
}

// Parse decodes a workload document, JSON if its first non-blank character
// is '{' and YAML otherwise, applies defaults and validates it. source names
// the input in error messages. Any problem yields an *Error listing all that
// were found.
func Parse(data []byte, source string) (*Workload, error) {
	data = bytes.TrimPrefix(data, bom)
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		return decode(newJSONSource(data), func() (puller, error) { return newJSONSource(data), nil }, source)
	}
	root, fail := parseYAML(data)
	if fail != nil {
		return nil, &Error{Source: source, Issues: []Issue{*fail}}
	}
	return decode(newYAMLSource(root), func() (puller, error) { return newYAMLSource(root), nil }, source)
}

// decode reads the document from src; again gives a fresh reader of the
// same document, for finding the lines of problems found after decoding.
func decode(src puller, again func() (puller, error), source string) (*Workload, error) {
	d := decoder{src: src}
	w := d.root()
	if fail := src.failure(); fail != nil {
		// Past a syntax error the rest of the report would be guesswork.
		return nil, &Error{Source: source, Issues: []Issue{*fail}}
	}
	if d.version != nil {
		// A document of another version is read by other rules; listing
		// its fields as unknown would only hide the real problem.
		return nil, &Error{Source: source, Issues: []Issue{*d.version}}
	}
	if len(d.issues) > 0 {
		return nil, &Error{Source: source, Issues: sortByLine(append(d.issues, d.rules...))}
	}
	issues := w.validate()
	if len(issues) > 0 {
		src, err := again()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		resolveLines(src, issues)
	}
	if issues = append(d.rules, issues...); len(issues) > 0 {
		return nil, &Error{Source: source, Issues: sortByLine(issues)}
	}
	return w, nil
}

// sortByLine puts issues in the order a reader meets them in the file;
// issues on one line keep the order they were found in.
func sortByLine(issues []Issue) []Issue {
	slices.SortStableFunc(issues, func(a, b Issue) int { return cmp.Compare(a.Line, b.Line) })
	return issues
}

// mapping lists the keys a mapping of the schema may hold, in the order
// Write uses, and those it must hold.
type mapping struct {
	keys     []string
	required []string
}

var (
	rootMapping    = mapping{[]string{"version", "cluster", "queues", "jobs"}, []string{"version", "cluster", "jobs"}}
	clusterMapping = mapping{[]string{"nodes", "ideal", "timing", "node_heartbeat", "am_heartbeat", "launch_delay", "launch_jitter", "api_qps", "api_burst", "external_load", "resource_calculator", "mapreduce_am"}, []string{"nodes"}}
	mrMapping      = mapping{[]string{"model", "reduce_rampup_limit", "reduce_preemption_limit", "reducer_preempt_delay", "reducer_unconditional_preempt_delay"}, nil}
	nodeMapping    = mapping{[]string{"count", "vcores", "memory_mb", "gpus", "disk_mb", "labels", "taints", "external"}, []string{"vcores", "memory_mb"}}
	taintMapping   = mapping{[]string{"key", "value", "effect"}, []string{"key", "effect"}}
	tolMapping     = mapping{[]string{"key", "operator", "value", "effect"}, nil}
	vectorMapping  = mapping{[]string{"vcores", "memory_mb", "gpus", "disk_mb"}, nil}
	loadMapping    = mapping{[]string{"points", "period"}, []string{"points"}}
	queueMapping   = mapping{[]string{"name", "capacity", "max_capacity", "weight", "disable_preemption"}, []string{"name", "capacity"}}
	jobMapping     = mapping{[]string{"id", "name", "user", "submit", "queue", "priority", "min_members", "gang_timeout", "am", "deadline", "estimate", "node_selector", "tolerations", "recorded", "phases"}, []string{"id", "phases"}}
	phaseMapping   = mapping{[]string{"name", "tasks", "request", "duration", "start_after", "started", "unfinished"}, []string{"tasks", "request", "duration"}}
)

const maxKeys = 15 // the most keys of any mapping above

// decoder decodes the schema from a puller, collecting every problem rather
// than stopping at the first.
type decoder struct {
	src    puller
	issues []Issue
	// rules holds breaches of the schema's rules that the workload struct
	// cannot represent (an explicit zero deadline, a one-element list of
	// durations); unlike issues they leave a well-formed struct behind,
	// so validation still runs.
	rules   []Issue
	version *Issue // the document declares a version other than Version
	path    []seg

	names map[string]string // interned names, users and queues

	// Finished slices are carved from shared blocks; scratch collects a list
	// of unknown length before it is copied into its block.
	durBlock     []clock.Duration
	phaseBlock   []Phase
	scratchDur   []clock.Duration
	scratchPhase []Phase
}

const blockSize = 1 << 13

func (d *decoder) errorf(line int, format string, args ...any) {
	d.issues = append(d.issues, Issue{Line: line, Path: formatPath(d.path), Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) ruleErrorf(line int, format string, args ...any) {
	d.rules = append(d.rules, Issue{Line: line, Path: formatPath(d.path), Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) push(key string) { d.path = append(d.path, seg{key: key}) }
func (d *decoder) pushIndex(i int) { d.path = append(d.path, seg{idx: i}) }
func (d *decoder) pop()            { d.path = d.path[:len(d.path)-1] }

// want checks the kind of the next value, reporting and skipping a mismatch.
func (d *decoder) want(k kind, what string) (int, bool) {
	got, line := d.src.peek()
	if got == k {
		return line, true
	}
	if got != kindInvalid {
		if what == "" {
			what = k.String()
		}
		d.errorf(line, "must be %s, got %s", what, got)
		d.src.skip()
	}
	return line, false
}

// object decodes a mapping of the schema, calling fn with each key present
// (in its canonical spelling, pushed on the path) while its value is next.
// It reports unknown, duplicate and missing keys.
func (d *decoder) object(m mapping, fn func(key string, line int)) bool {
	line, ok := d.want(kindObject, "")
	if !ok {
		return false
	}
	var seen [maxKeys]int // line of each key present
	d.src.beginObject()
	for {
		k, kline, more := d.src.key()
		if !more {
			break
		}
		f := slices.IndexFunc(m.keys, func(name string) bool { return string(k) == name })
		if f < 0 {
			d.push(displayKey(k))
			d.errorf(kline, "unknown field (want one of %s)", strings.Join(m.keys, ", "))
			d.pop()
			d.src.skip()
			continue
		}
		d.push(m.keys[f])
		if seen[f] != 0 {
			d.errorf(kline, "duplicate key (first at line %d)", seen[f])
			d.src.skip()
		} else {
			seen[f] = kline
			fn(m.keys[f], kline)
		}
		d.pop()
	}
	if d.src.failure() != nil {
		return false
	}
	for _, name := range m.required {
		if seen[slices.Index(m.keys, name)] == 0 {
			d.push(name)
			d.errorf(line, "is required")
			d.pop()
		}
	}
	return true
}

// displayKey renders an unknown key for a path, quoting keys that could be
// misread as path syntax.
func displayKey(k []byte) string {
	plain := len(k) > 0
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			plain = false
			break
		}
	}
	if plain {
		return string(k)
	}
	return strconv.Quote(string(k))
}

// list decodes a list, calling fn for each element with the index pushed.
func (d *decoder) list(fn func(i int)) bool {
	if _, ok := d.want(kindArray, ""); !ok {
		return false
	}
	d.src.beginArray()
	for i := 0; d.src.elem(); i++ {
		d.pushIndex(i)
		fn(i)
		d.pop()
	}
	return true
}

func (d *decoder) str() string {
	if _, ok := d.want(kindString, ""); !ok {
		return ""
	}
	return string(d.src.text())
}

// name decodes a string that is likely repeated across jobs, sharing one
// copy between them.
func (d *decoder) name() string {
	if _, ok := d.want(kindString, ""); !ok {
		return ""
	}
	b := d.src.text()
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.names == nil {
		d.names = map[string]string{}
	}
	if len(d.names) < 4096 {
		d.names[s] = s
	}
	return s
}

func (d *decoder) boolean() bool {
	line, ok := d.want(kindBool, "true or false")
	if !ok {
		return false
	}
	switch string(d.src.text()) {
	case "true":
		return true
	case "false":
		return false
	}
	d.errorf(line, "must be true or false")
	return false
}

// scaledNumber decodes a number times 10^scale; see parseScaled.
func (d *decoder) scaledNumber(what string, scale int, limit uint64) (int64, scaled, int) {
	line, ok := d.want(kindNumber, what)
	if !ok {
		return 0, scaledInvalid, line
	}
	b := d.src.text()
	v, r := parseScaled(b, scale, limit)
	switch {
	case r == scaledRange:
		d.errorf(line, "out of range")
	case r == scaledInvalid && nonFinite(b):
		d.errorf(line, "must be a finite number")
	case r == scaledInvalid:
		d.errorf(line, "invalid number %q", b)
	}
	return v, r, line
}

func (d *decoder) integer() (int64, bool) {
	v, _, ok := d.integerLine()
	return v, ok
}

func (d *decoder) integerLine() (int64, int, bool) {
	v, r, line := d.scaledNumber("an integer", 0, math.MaxInt64)
	if r == scaledRounded {
		d.errorf(line, "must be an integer")
	}
	return v, line, r == scaledExact
}

// count decodes an integer that is stored as an int.
func (d *decoder) count() int {
	v, line, ok := d.integerLine()
	if ok && int64(int(v)) != v {
		d.errorf(line, "out of range")
		return 0
	}
	return int(v)
}

func (d *decoder) float() float64 {
	line, ok := d.want(kindNumber, "")
	if !ok {
		return 0
	}
	b := d.src.text()
	if nonFinite(b) {
		d.errorf(line, "must be a finite number")
		return 0
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		d.errorf(line, "out of range")
		return 0
	}
	return f
}

// duration decodes a Go duration string or a number of seconds.
func (d *decoder) duration() clock.Duration {
	v, _ := d.durationOK()
	return v
}

func (d *decoder) durationOK() (clock.Duration, bool) {
	k, line := d.src.peek()
	switch k {
	case kindNumber:
		v, r, _ := d.scaledNumber("", 6, uint64(maxDuration))
		return clock.Duration(v), r <= scaledRounded
	case kindString:
		v, msg := parseDurationText(d.src.text())
		if msg != "" {
			d.errorf(line, "%s", msg)
			return 0, false
		}
		return v, true
	case kindInvalid:
		return 0, false
	}
	d.errorf(line, `must be a duration ("30s", "1.5m" or a number of seconds), got %s`, k)
	d.src.skip()
	return 0, false
}

func (d *decoder) root() *Workload {
	w := &Workload{}
	queues := false
	if d.object(rootMapping, func(key string, line int) {
		switch key {
		case "version":
			v, ok := d.integer()
			w.Version = int(v)
			if ok && v != Version {
				d.version = &Issue{Line: line, Path: "version", Msg: versionMsg(v)}
			}
		case "cluster":
			d.cluster(&w.Cluster)
		case "queues":
			queues = true
			w.Queues = []Queue{}
			d.list(func(int) { w.Queues = append(w.Queues, d.queue()) })
		case "jobs":
			w.Jobs = d.jobs()
		}
	}) {
		d.src.finish()
	}
	if !queues {
		w.Queues = defaultQueues()
	}
	return w
}

func versionMsg(v int64) string {
	return fmt.Sprintf("unsupported version %d (want %d)", v, Version)
}

func defaultQueues() []Queue {
	return []Queue{{Name: DefaultQueue, Capacity: 1, MaxCapacity: 1}}
}

func (d *decoder) cluster(c *Cluster) {
	*c = Cluster{
		NodeHeartbeat: DefaultNodeHeartbeat,
		AMHeartbeat:   DefaultAMHeartbeat,
		LaunchDelay:   DefaultLaunchDelay,
		LaunchJitter:  DefaultLaunchJitter,
	}
	var qps, burst bool
	d.object(clusterMapping, func(key string, line int) {
		switch key {
		case "nodes":
			c.Nodes = []NodeGroup{}
			d.list(func(int) { c.Nodes = append(c.Nodes, d.nodeGroup()) })
		case "ideal":
			c.Ideal = d.boolean()
		case "timing":
			c.Timing = d.str()
		case "node_heartbeat":
			c.NodeHeartbeat = d.duration()
		case "am_heartbeat":
			c.AMHeartbeat = d.duration()
		case "launch_delay":
			c.LaunchDelay = d.duration()
		case "launch_jitter":
			c.LaunchJitter = d.float()
		case "api_qps":
			c.APIQPS, qps = d.float(), true
		case "api_burst":
			c.APIBurst, burst = d.count(), true
		case "external_load":
			c.ExternalLoad = d.externalLoad()
		case "resource_calculator":
			name := d.str()
			calc, err := resource.ParseCalculator(name)
			if err != nil {
				d.errorf(line, "must be one of %s, got %q", strings.Join(resource.CalculatorNames(), ", "), name)
			}
			c.Calculator = calc
		case "mapreduce_am":
			d.mapReduceAM(&c.MapReduceAM)
		}
	})
	// The scheduler's client limit is the Kubernetes timing's (whichever
	// key came first).
	if c.Timing == TimingKubernetes {
		if !qps {
			c.APIQPS = DefaultAPIQPS
		}
		if !burst {
			c.APIBurst = DefaultAPIBurst
		}
	}
}

func (d *decoder) mapReduceAM(m *MapReduceAM) {
	*m = DefaultMapReduceAM
	d.object(mrMapping, func(key string, line int) {
		switch key {
		case "model":
			name := d.str()
			i := slices.Index(MRModelNames(), name)
			if i < 0 {
				d.errorf(line, "must be one of %s, got %q", strings.Join(MRModelNames(), ", "), name)
				return
			}
			m.Model = MRModel(i)
		case "reduce_rampup_limit":
			m.ReduceRampupLimit = d.float()
		case "reduce_preemption_limit":
			m.ReducePreemptionLimit = d.float()
		case "reducer_preempt_delay":
			m.ReducerPreemptDelay = d.duration()
		case "reducer_unconditional_preempt_delay":
			m.ReducerUnconditionalPreemptDelay = d.duration()
		}
	})
}

func (d *decoder) nodeGroup() NodeGroup {
	g := NodeGroup{Count: 1}
	d.object(nodeMapping, func(key string, line int) {
		switch key {
		case "count":
			g.Count = d.count()
		case "labels":
			g.Labels = d.stringMap()
		case "taints":
			g.Taints = []Taint{}
			d.list(func(int) { g.Taints = append(g.Taints, d.taint()) })
		case "external":
			g.External = d.heldSteps()
		default:
			dim := dimOf(key)
			g.Capacity[dim] = d.resource(dim)
		}
	})
	return g
}

// dimOf returns the dimension a vector key names.
func dimOf(key string) resource.Dim {
	for dim := resource.Dim(0); dim < resource.NumDims; dim++ {
		if dim.Name() == key {
			return dim
		}
	}
	panic("workload: unknown resource " + key)
}

// resource decodes one dimension of a vector: vcores may be fractional down
// to a thousandth, the others are whole numbers.
func (d *decoder) resource(dim resource.Dim) int64 {
	if dim != resource.VCores {
		v, _ := d.integer()
		return v
	}
	v, r, line := d.scaledNumber("", 3, math.MaxInt64)
	if r == scaledRounded {
		d.errorf(line, "must be a multiple of 0.001")
	}
	return v
}

func (d *decoder) vector() resource.Vector {
	var v resource.Vector
	d.object(vectorMapping, func(key string, line int) {
		dim := dimOf(key)
		v[dim] = d.resource(dim)
	})
	return v
}

func (d *decoder) externalLoad() *ExternalLoad {
	l := &ExternalLoad{}
	d.object(loadMapping, func(key string, line int) {
		switch key {
		case "points":
			l.Points = []LoadPoint{}
			d.list(func(int) { l.Points = append(l.Points, d.loadPoint()) })
		case "period":
			l.Period = d.duration()
		}
	})
	return l
}

func (d *decoder) loadPoint() LoadPoint {
	var p LoadPoint
	line, ok := d.want(kindArray, "a [time, fraction] pair")
	if !ok {
		return p
	}
	d.src.beginArray()
	n := 0
	for ; d.src.elem(); n++ {
		d.pushIndex(n)
		switch n {
		case 0:
			p.At = d.duration()
		case 1:
			p.Frac = d.float()
		default:
			d.src.skip()
		}
		d.pop()
	}
	if n != 2 && d.src.failure() == nil {
		d.errorf(line, "must be a [time, fraction] pair, got %d elements", n)
	}
	return p
}

func (d *decoder) queue() Queue {
	q := Queue{MaxCapacity: 1}
	d.object(queueMapping, func(key string, line int) {
		switch key {
		case "name":
			q.Name = d.name()
		case "capacity":
			q.Capacity = d.float()
		case "max_capacity":
			q.MaxCapacity = d.float()
		case "weight":
			q.Weight = d.float()
		case "disable_preemption":
			q.DisablePreemption = d.boolean()
		}
	})
	return q
}

// jobs decodes the job list into fixed-size chunks and copies them into a
// slice of the exact length at the end: appending to one slice would, with
// Go's growth factor for large slices, allocate several times the final size
// for a large trace.
func (d *decoder) jobs() []Job {
	const chunk = 1024
	var chunks [][]Job
	cur := make([]Job, 0, 16)
	n := 0
	d.list(func(i int) {
		if len(cur) == cap(cur) {
			chunks = append(chunks, cur)
			cur = make([]Job, 0, min(chunk, 2*cap(cur)))
		}
		cur = append(cur, Job{})
		d.job(&cur[len(cur)-1])
		n++
	})
	if chunks == nil {
		return cur
	}
	jobs := make([]Job, 0, n)
	for _, c := range chunks {
		jobs = append(jobs, c...)
	}
	return append(jobs, cur...)
}

func (d *decoder) job(j *Job) {
	j.Queue = DefaultQueue
	j.AM = DefaultAM
	d.object(jobMapping, func(key string, line int) {
		switch key {
		case "id":
			j.ID = d.str()
		case "name":
			j.Name = d.name()
		case "user":
			j.User = d.name()
		case "submit":
			j.Submit = clock.Time(d.duration())
		case "queue":
			j.Queue = d.name()
		case "priority":
			v, line, ok := d.integerLine()
			if ok && int64(int32(v)) != v {
				d.ruleErrorf(line, "out of range (a 32-bit integer, as a Kubernetes priority)")
			} else {
				j.Priority = int32(v)
			}
		case "min_members":
			v, line, ok := d.integerLine()
			switch {
			case ok && v < 1:
				// Zero in the struct means "none"; the schema asks for
				// a count of at least one.
				d.ruleErrorf(line, "must be > 0")
			case ok && v > MaxTasksPerPhase+1:
				d.ruleErrorf(line, "must be <= %d", MaxTasksPerPhase+1)
			default:
				j.MinMembers = int(v)
			}
		case "gang_timeout":
			v, ok := d.durationOK()
			if ok && v == 0 {
				// Zero in the struct means "the simulator's default", so
				// an explicit zero would be silently dropped.
				d.ruleErrorf(line, "must be > 0")
			}
			j.GangTimeout = v
		case "am":
			j.AM = d.vector()
		case "deadline", "estimate":
			v, ok := d.durationOK()
			if ok && v == 0 {
				// Zero in the struct means "none", so an explicit zero
				// would be silently dropped; the schema asks for > 0.
				d.ruleErrorf(line, "must be > 0")
			}
			if key == "deadline" {
				j.Deadline = v
			} else {
				j.Estimate = v
			}
		case "node_selector":
			j.NodeSelector = d.stringMap()
		case "tolerations":
			j.Tolerations = []Toleration{}
			d.list(func(int) { j.Tolerations = append(j.Tolerations, d.toleration()) })
		case "recorded":
			j.Recorded = d.recorded()
		case "phases":
			j.Phases = d.phases()
		}
	})
}

// stringMap decodes a mapping of strings to strings (labels, a node
// selector), reporting duplicate keys and values that are not strings.
func (d *decoder) stringMap() map[string]string {
	if _, ok := d.want(kindObject, ""); !ok {
		return nil
	}
	m := map[string]string{}
	lines := map[string]int{}
	d.src.beginObject()
	for {
		k, kline, more := d.src.key()
		if !more {
			break
		}
		key := string(k)
		d.push(displayKey(k))
		if first, dup := lines[key]; dup {
			d.errorf(kline, "duplicate key (first at line %d)", first)
			d.src.skip()
		} else {
			lines[key] = kline
			m[key] = d.name()
		}
		d.pop()
	}
	return m
}

func (d *decoder) taint() Taint {
	var t Taint
	d.object(taintMapping, func(key string, line int) {
		switch key {
		case "key":
			t.Key = d.name()
		case "value":
			t.Value = d.name()
		case "effect":
			t.Effect = d.name()
		}
	})
	return t
}

func (d *decoder) toleration() Toleration {
	var t Toleration
	d.object(tolMapping, func(key string, line int) {
		switch key {
		case "key":
			t.Key = d.name()
		case "operator":
			t.Operator = d.name()
		case "value":
			t.Value = d.name()
		case "effect":
			t.Effect = d.name()
		}
	})
	return t
}

func (d *decoder) phases() []Phase {
	ps := d.scratchPhase[:0]
	ok := d.list(func(int) { ps = append(ps, d.phase()) })
	d.scratchPhase = ps[:0]
	if !ok {
		return nil
	}
	if len(d.phaseBlock)+len(ps) > cap(d.phaseBlock) {
		d.phaseBlock = make([]Phase, 0, max(blockSize/8, len(ps)))
	}
	start := len(d.phaseBlock)
	d.phaseBlock = append(d.phaseBlock, ps...)
	clear(ps)
	return d.phaseBlock[start:len(d.phaseBlock):len(d.phaseBlock)]
}

func (d *decoder) phase() Phase {
	p := Phase{StartAfter: 1}
	hasTasks, listLine := false, 0
	ok := d.object(phaseMapping, func(key string, line int) {
		switch key {
		case "name":
			p.Name = d.name()
		case "tasks":
			p.Tasks = d.count()
			hasTasks = true
		case "request":
			p.Request = d.vector()
		case "duration":
			if k, _ := d.src.peek(); k != kindArray {
				p.Durations = d.keepDurations(append(d.scratchDur[:0], d.duration()))
				return
			}
			listLine = line
			ds := d.scratchDur[:0]
			d.list(func(int) { ds = append(ds, d.duration()) })
			d.scratchDur = ds[:0]
			p.Durations = d.keepDurations(ds)
		case "start_after":
			p.StartAfter = d.float()
		case "started":
			p.Started = d.times()
		case "unfinished":
			p.Unfinished = d.count()
		}
	})
	// In the struct one duration means "the same for every task"; in the
	// document only a scalar does, and a list must have one per task.
	if ok && listLine != 0 && len(p.Durations) == 1 && hasTasks && p.Tasks != 1 {
		d.push("duration")
		d.ruleErrorf(listLine, "%s", durationsLenMsg(p.Tasks, 1))
		d.pop()
	}
	return p
}

func (d *decoder) keepDurations(ds []clock.Duration) []clock.Duration {
	if len(d.durBlock)+len(ds) > cap(d.durBlock) {
		d.durBlock = make([]clock.Duration, 0, max(blockSize, len(ds)))
	}
	start := len(d.durBlock)
	d.durBlock = append(d.durBlock, ds...)
	return d.durBlock[start:len(d.durBlock):len(d.durBlock)]
}
