// Package trace converts public cluster traces into spindle workloads
// (format v1): the Parallel Workloads Archive's Standard Workload Format, the
// Google 2011 cluster trace, the Alibaba 2018 batch trace, the inputs of
// YARN's Scheduler Load Simulator (SLS json and Rumen job histories), and
// snapshots of a Kubernetes cluster (kubectl get pods -o json, read by
// kube/record).
//
// Converters stream their inputs line by line (gzip and sharded directories
// included) and keep only compact per-task state, so memory grows with the
// jobs kept, not with the size of the files. Every malformed record is
// reported as FILE:LINE: what is wrong; with Options.SkipBad such records
// are skipped and counted instead. docs/traces.md states every mapping and
// assumption.
package trace

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/workload"
)

// Unfinished task handling.
const (
	// UnfinishedDrop leaves out tasks that never finished.
	UnfinishedDrop = "drop"
	// UnfinishedTruncate keeps them, running until they ended (killed,
	// failed, evicted) or until the end of the trace.
	UnfinishedTruncate = "truncate"
)

// Options tune a conversion. The zero value gives each format's defaults.
type Options struct {
	// SkipBad turns malformed records into counted warnings instead of
	// stopping at the first one.
	SkipBad bool
	// Nodes sets the number of machines; 0 derives it from the trace.
	Nodes int
	// CoresPerNode is the number of processors (1-vcore tasks) per SWF
	// node; 0 takes MaxProcs/MaxNodes from the header, or 1.
	CoresPerNode int
	// MemoryPerProc is the memory of one SWF processor, in MiB; 0 means 1024.
	MemoryPerProc int64
	// MachineVCores and MachineMemory give the size of the machine that a
	// normalised capacity of 1 stands for (Google: the largest machine;
	// Alibaba: a machine, whose plan_mem is a percentage), and of each SLS
	// node. 0 takes the format's default.
	MachineVCores float64
	MachineMemory int64
	// Unfinished is UnfinishedDrop (the default, "") or UnfinishedTruncate.
	Unfinished string
	// Begin and End keep the jobs submitted in [Begin, End), in the trace's
	// own time; End 0 means no limit.
	Begin, End clock.Duration
	// ArrivalScale multiplies every submit time (after the first is moved
	// to 0); below 1 it packs arrivals closer and raises the load. 0
	// means 1.
	ArrivalScale float64
	// Log, when set, receives Load's warnings: the bad records skipped and
	// what was left out.
	Log io.Writer
	// The kube format's selection, as 'spindle kube record' takes it and
	// with its defaults: the workload is the pods of Schedulers (empty:
	// every scheduler's) that Selector matches (empty: all), in
	// Namespace (empty: all; pods elsewhere are neither workload nor
	// load); the other pods are load from outside the workload.
	// SingleQueue puts every job in queue default; LoadStep is the
	// external load's resolution (0: 10 s).
	Schedulers  []string
	Selector    string
	Namespace   string
	SingleQueue bool
	LoadStep    clock.Duration
}

// maxMemory bounds memory options and requests, in MiB (1 EiB), so that
// sums over a cluster cannot overflow.
const maxMemory = 1 << 40

// Option describes one key of Options, as a command-line flag and as a key
// of a --trace spec.
type Option struct {
	Key   string
	Short string // a one-letter flag, or ""
	Arg   string // what the value is, for --help; "" for a boolean
	Help  string
}

// OptionKeys lists the options in the order --help shows them.
var OptionKeys = []Option{
	{Key: "skip-bad", Help: "skip malformed records, counting them, instead of stopping at the first"},
	{Key: "nodes", Arg: "N", Help: "number of machines (default: from the trace; see docs/traces.md)"},
	{Key: "cores-per-node", Arg: "N", Help: "swf: processors per node, each a 1-vcore task (default: MaxProcs/MaxNodes from the header, else 1)"},
	{Key: "memory-per-proc", Arg: "MiB", Help: "swf: memory of one processor (default 1024)"},
	{Key: "machine-vcores", Arg: "V", Help: "vcores of a machine: google2011 the largest machine (default 32), alibaba2018 a machine (default 96), sls a node (default 10)"},
	{Key: "machine-memory", Arg: "MiB", Help: "memory of that machine (defaults: google2011 131072, alibaba2018 524288, sls 10240)"},
	{Key: "unfinished", Arg: "drop|truncate", Help: "tasks that never finish: drop them, or truncate them (they run until killed, or until the trace ends)"},
	{Key: "begin", Arg: "TIME", Help: "keep jobs submitted at or after this trace time (seconds or a Go duration)"},
	{Key: "end", Arg: "TIME", Help: "keep jobs submitted before this trace time (seconds or a Go duration)"},
	{Key: "arrival-scale", Arg: "F", Help: "multiply every submit time by F, after moving the first to 0: F < 1 raises the load (default 1)"},
	{Key: "namespace", Short: "n", Arg: "NAMESPACE", Help: "kube: keep one namespace's pods only (pods elsewhere are neither workload nor load), as kube record -n"},
	{Key: "selector", Short: "l", Arg: "SELECTOR", Help: "kube: keep in the workload only the pods this label selector matches; the others are external load, as kube record -l"},
	{Key: "scheduler-name", Arg: "NAMES", Help: "kube: the workload is the pods of these schedulers (spec.schedulerName, comma- or |-separated); default every scheduler's. Others' pods are external load"},
	{Key: "single-queue", Help: "kube: put every job in queue default (default: a queue per spindle.io/queue label, else per namespace)"},
	{Key: "load-step", Arg: "TIME", Help: "kube: resolution of the external load, each node group's load averaged over steps this long (default 10s)"},
}

// Set sets the option named key from its text, as a flag would.
func (o *Options) Set(key, value string) error {
	switch key {
	case "skip-bad", "single-queue":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s: want true or false, got %q", key, value)
		}
		if key == "skip-bad" {
			o.SkipBad = b
		} else {
			o.SingleQueue = b
		}
	case "namespace":
		o.Namespace = value
	case "selector":
		if _, err := labels.Parse(value); err != nil {
			return fmt.Errorf("selector %q: %v", value, err)
		}
		o.Selector = value
	case "scheduler-name":
		o.Schedulers = nil
		for _, n := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == '|' }) {
			if n = strings.TrimSpace(n); n != "" {
				o.Schedulers = append(o.Schedulers, n)
			}
		}
	case "load-step":
		d, err := clock.ParseDuration(value)
		if err != nil || d <= 0 || d > maxTime {
			return fmt.Errorf("load-step: want a positive time (seconds or a Go duration), got %q", value)
		}
		o.LoadStep = d
	case "nodes", "cores-per-node":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 || n > workload.MaxNodesPerGroup {
			return fmt.Errorf("%s: want a whole number in [0, %d], got %q", key, workload.MaxNodesPerGroup, value)
		}
		if key == "nodes" {
			o.Nodes = n
		} else {
			o.CoresPerNode = n
		}
	case "memory-per-proc", "machine-memory":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 || n > maxMemory {
			return fmt.Errorf("%s: want a whole number of MiB, got %q", key, value)
		}
		if key == "memory-per-proc" {
			o.MemoryPerProc = n
		} else {
			o.MachineMemory = n
		}
	case "machine-vcores":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || !(f == 0 || f >= 0.001 && f <= 1e9) {
			return fmt.Errorf("machine-vcores: want a number of vcores (at least 0.001), got %q", value)
		}
		o.MachineVCores = f
	case "arrival-scale":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || !(f > 0 && f <= 1e6) {
			return fmt.Errorf("arrival-scale: want a number in (0, 1e6], got %q", value)
		}
		o.ArrivalScale = f
	case "unfinished":
		if value != UnfinishedDrop && value != UnfinishedTruncate {
			return fmt.Errorf("unfinished: want %s or %s, got %q", UnfinishedDrop, UnfinishedTruncate, value)
		}
		o.Unfinished = value
	case "begin", "end":
		d, err := clock.ParseDuration(value)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if d < 0 || d > maxTime {
			return fmt.Errorf("%s: must be in [0, %d s], got %q", key, maxTime/clock.Second, value)
		}
		if key == "begin" {
			o.Begin = d
		} else {
			o.End = d
		}
	default:
		return fmt.Errorf("unknown trace option %q (known: %s)", key, strings.Join(optionNames(), ", "))
	}
	return nil
}

func optionNames() []string {
	out := make([]string, len(OptionKeys))
	for i, o := range OptionKeys {
		out[i] = o.Key
	}
	return out
}

// ParseSpec reads a --trace spec: FORMAT:INPUT[,INPUT...][,KEY=VALUE...].
// A comma-separated piece of the form KEY=VALUE whose KEY is an option is
// an option; every other piece is an input (write ./name=x for a file whose
// name looks like an option).
func ParseSpec(spec string) (format string, inputs []string, opt Options, err error) {
	format, rest, ok := strings.Cut(spec, ":")
	if !ok || format == "" || rest == "" {
		return "", nil, opt, fmt.Errorf("--trace wants FORMAT:INPUT[,INPUT...][,KEY=VALUE...], e.g. swf:log.swf.gz,cores-per-node=2; got %q", spec)
	}
	if _, ok := lookup(format); !ok {
		return "", nil, opt, unknownFormat(format)
	}
	for _, piece := range strings.Split(rest, ",") {
		if k, v, ok := strings.Cut(piece, "="); ok && isOption(k) {
			if err := opt.Set(k, v); err != nil {
				return "", nil, opt, err
			}
			continue
		} else if ok && looksLikeKey(k) {
			return "", nil, opt, fmt.Errorf("--trace %q: unknown trace option %q (known: %s); write ./%s for a file of that name",
				spec, k, strings.Join(optionNames(), ", "), piece)
		}
		if piece == "" {
			return "", nil, opt, fmt.Errorf("--trace %q: empty input name", spec)
		}
		inputs = append(inputs, piece)
	}
	if len(inputs) == 0 {
		return "", nil, opt, fmt.Errorf("--trace %q: no input", spec)
	}
	return format, inputs, opt, nil
}

// looksLikeKey reports whether k has an option's form (lower-case letters,
// digits and dashes, starting with a letter), so that KEY=VALUE with an
// unknown KEY is an error rather than a file name; a path (./name=x) is not.
func looksLikeKey(k string) bool {
	if k == "" || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func isOption(k string) bool {
	for _, o := range OptionKeys {
		if o.Key == k {
			return true
		}
	}
	return false
}

// Format describes a trace format.
type Format struct {
	Name    string
	Summary string // one line for --help
	Inputs  string // what the inputs are
	convert func(c *conv) error
}

// formats lists every input format, by name. Adding a format is adding an
// entry here.
var formats = []Format{
	{
		Name:    "alibaba2018",
		Summary: "Alibaba cluster-trace-v2018 batch workload: batch_task, optionally batch_instance",
		Inputs:  "batch_task and batch_instance files (optionally .gz); each is recognised by its name or its column count",
		convert: convertAlibaba,
	},
	{
		Name:    "google2011",
		Summary: "Google cluster-data 2011: task_events, optionally job_events and machine_events",
		Inputs:  "task_events files or part-* shard directories (optionally .gz), plus job_events and machine_events; each is recognised by its name or its column count",
		convert: convertGoogle,
	},
	{
		Name:    "kube",
		Summary: "a Kubernetes cluster's snapshot: kubectl get pods -A -o json, optionally nodes and events (the recorder's core; see docs/record.md)",
		Inputs:  "pods, and optionally nodes and events, as JSON or YAML files (kubectl get -o json|yaml, streams, raw API lists, kubelet /pods; optionally .gz) or directories laid out by kubectl cluster-info dump --output-directory or must-gather; each object is recognised by its kind, its list's, or its shape",
		convert: convertKube,
	},
	{
		Name:    "sls",
		Summary: "YARN Scheduler Load Simulator input: SLS json jobs, or Rumen job histories",
		Inputs:  "SLS json or Rumen json files (concatenated job objects, or a list of them; optionally .gz)",
		convert: convertSLS,
	},
	{
		Name:    "swf",
		Summary: "Standard Workload Format (Parallel Workloads Archive): one job per record, a task per processor",
		Inputs:  "one or more .swf logs (optionally .gz)",
		convert: convertSWF,
	},
}

// Formats lists the formats by name.
func Formats() []Format { return formats }

func lookup(name string) (Format, bool) {
	for _, f := range formats {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

func unknownFormat(name string) error {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.Name
	}
	return fmt.Errorf("unknown trace format %q (known: %s)", name, strings.Join(names, ", "))
}

// Load converts the inputs of a trace format into a validated workload.
// Warnings (bad records skipped, tasks left out) go to opt.Log when set.
func Load(format string, inputs []string, opt Options) (*workload.Workload, error) {
	w, rep, err := Convert(format, inputs, opt)
	if rep != nil && opt.Log != nil {
		rep.WriteWarnings(opt.Log, "")
	}
	return w, err
}

// Convert converts the inputs of a trace format into a validated workload
// and reports what it read and what it left out. The report is returned
// even on error, as far as reading got.
func Convert(format string, inputs []string, opt Options) (*workload.Workload, *Report, error) {
	if format == "kube" {
		srcs, skipped, err := kubeInputs(inputs)
		if err != nil {
			return nil, nil, err
		}
		w, rep, err := convertSources(format, srcs, opt)
		if rep != nil {
			rep.skip("files in the directories that hold no pods, nodes or events (by their names)", skipped)
		}
		return w, rep, err
	}
	srcs, err := expandInputs(inputs)
	if err != nil {
		return nil, nil, err
	}
	return convertSources(format, srcs, opt)
}

func convertSources(format string, srcs []source, opt Options) (*workload.Workload, *Report, error) {
	f, ok := lookup(format)
	if !ok {
		return nil, nil, unknownFormat(format)
	}
	if len(srcs) == 0 {
		return nil, nil, errors.New("no input")
	}
	if opt.End != 0 && opt.End <= opt.Begin {
		return nil, nil, fmt.Errorf("end (%s) must be after begin (%s)", opt.End, opt.Begin)
	}
	c := &conv{opt: opt, srcs: srcs, rep: &Report{Format: format, Files: len(srcs)}}
	if err := f.convert(c); err != nil {
		return nil, c.rep, err
	}
	return c.w, c.rep, nil
}

// Report says what a conversion read and what it left out.
type Report struct {
	Format  string
	Files   int
	Lines   int64 // lines (or JSON values) read, over all inputs; 0 for kube, which counts objects
	Objects int64 // kube: the objects read (pods, nodes, events and others)
	Records int64 // data records among them
	Jobs    int
	Tasks   int
	Nodes   int
	// Skipped counts what was left out by design (records with no run
	// time, tasks that never finished, ...), by reason, in order of first
	// occurrence.
	Skipped []Count
	// Bad counts malformed records skipped under SkipBad; BadExamples
	// holds the first few messages.
	Bad         int
	BadExamples []string
	// Notes say how the cluster and the times were derived.
	Notes []string
}

// Count is a number of things left out for one reason.
type Count struct {
	Reason string
	N      int64
}

// maxExamples bounds the bad-record messages kept for the summary.
const maxExamples = 5

func (r *Report) skip(reason string, n int64) {
	if n == 0 {
		return
	}
	for i := range r.Skipped {
		if r.Skipped[i].Reason == reason {
			r.Skipped[i].N += n
			return
		}
	}
	r.Skipped = append(r.Skipped, Count{reason, n})
}

func (r *Report) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// WriteWarnings writes the bad records skipped (a count and the first few)
// and what was left out, one line each, each line starting with prefix.
func (r *Report) WriteWarnings(w io.Writer, prefix string) {
	if r.Bad > 0 {
		fmt.Fprintf(w, "%swarning: skipped %d malformed record(s)", prefix, r.Bad)
		if r.Bad > len(r.BadExamples) {
			fmt.Fprintf(w, "; the first %d:", len(r.BadExamples))
		} else {
			fmt.Fprint(w, ":")
		}
		fmt.Fprintln(w)
		for _, m := range r.BadExamples {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "%swarning: left out %d %s\n", prefix, s.N, s.Reason)
	}
}

// RecordError is a malformed record.
type RecordError struct {
	File string
	Line int // 0 when the problem is with the file as a whole
	Msg  string
}

func (e *RecordError) Error() string {
	if e.Line > 0 {
		return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.File + ": " + e.Msg
}

// conv is the state of one conversion.
type conv struct {
	opt  Options
	srcs []source
	rep  *Report
	w    *workload.Workload
}

// bad reports a malformed record: an error to stop on, or nil when bad
// records are skipped (it is then counted).
func (c *conv) bad(file string, line int, format string, args ...any) error {
	e := &RecordError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	if !c.opt.SkipBad {
		return e
	}
	c.rep.Bad++
	if len(c.rep.BadExamples) < maxExamples {
		c.rep.BadExamples = append(c.rep.BadExamples, e.Error())
	}
	return nil
}

func (c *conv) truncate() bool { return c.opt.Unfinished == UnfinishedTruncate }
