package cli

import (
	"io"
	"os"
	"runtime/debug"

	"github.com/spindle-sched/spindle/trace"
	"github.com/spindle-sched/spindle/workload"
)

// load reads the workload from -w or --trace.
func (f *runFlags) load(stderr io.Writer) (*workload.Workload, string, error) {
	if err := f.setGC(); err != nil {
		return nil, "", err
	}
	var w *workload.Workload
	var name string
	var err error
	switch {
	case f.workload != "" && f.trace != "":
		return nil, "", usagef("give -w or --trace, not both")
	case f.trace != "":
		name = f.trace
		w, err = loadTrace(f.trace, stderr)
	case f.workload != "":
		name = f.workload
		w, err = workload.Load(f.workload)
	default:
		return nil, "", usagef("no workload: pass -w FILE (see examples/, or 'spindle generate') or --trace FORMAT:INPUT")
	}
	if err != nil {
		return nil, "", err
	}
	return w, name, nil
}

// loadTrace converts a --trace spec, FORMAT:INPUT[,INPUT...][,KEY=VALUE...],
// with the options of 'trace convert' given as KEY=VALUE pieces. What the
// conversion skipped is summarised on stderr.
func loadTrace(spec string, stderr io.Writer) (*workload.Workload, error) {
	format, inputs, opt, err := trace.ParseSpec(spec)
	if err != nil {
		return nil, usageError{err}
	}
	w, rep, err := trace.Convert(format, inputs, opt)
	if rep != nil {
		rep.WriteWarnings(stderr, "spindle: ")
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}

// setGC applies --gc-percent before the workload is loaded, since loading
// builds most of the heap. GOGC in the environment is kept unless the flag
// is given.
func (f *runFlags) setGC() error {
	if f.gcGiven == nil {
		return nil // flags not registered: the runtime's setting stands
	}
	given := f.gcGiven()
	if f.gcPercent <= 0 {
		return usagef("--gc-percent %d: must be positive", f.gcPercent)
	}
	if !given && os.Getenv("GOGC") != "" {
		return nil
	}
	debug.SetGCPercent(f.gcPercent)
	return nil
}
