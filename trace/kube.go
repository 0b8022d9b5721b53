package trace

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spindle-sched/spindle/kube/record"
)

// convertKube reads a snapshot of a Kubernetes cluster (kubectl get pods
// -A -o json, and optionally its nodes and events) through kube/record, the
// recorder's core, so that a snapshot and a recording map pods to jobs the
// one way the live scheduler does. Malformed objects are counted and named
// in the report, never fatal, whatever skip-bad says; a file that is not
// such a list, or is cut short, stops the conversion with its name and
// item.
func convertKube(c *conv) error {
	if c.opt.Begin != 0 || c.opt.End != 0 || c.opt.ArrivalScale != 0 && c.opt.ArrivalScale != 1 {
		return errors.New("kube: begin, end and arrival-scale do not apply: a snapshot keeps its times as they happened")
	}
	inputs := make([]record.Input, len(c.srcs))
	for i, s := range c.srcs {
		inputs[i] = record.Input{Name: s.name, Open: func() (io.ReadCloser, error) { return s.open() }}
	}
	opt := record.SnapshotOptions{Options: record.Options{Running: record.RunningDrop},
		Machine: machine(c.opt.MachineVCores, c.opt.MachineMemory), Nodes: c.opt.Nodes}
	if c.truncate() {
		opt.Running = record.RunningKeep
	}
	w, sum, err := record.Snapshot(inputs, opt)
	if sum != nil {
		c.rep.Records = sum.Objects
		c.rep.Lines = sum.Objects
		for _, l := range sum.Left {
			if l.Reason == "malformed objects" {
				c.rep.Bad += int(l.N)
				continue
			}
			c.rep.skip(l.Reason, l.N)
		}
		for _, e := range sum.Examples {
			if len(c.rep.BadExamples) < maxExamples && strings.Contains(e, "items[") {
				c.rep.BadExamples = append(c.rep.BadExamples, e)
			}
		}
		for _, x := range sum.External {
			c.rep.note("external load: %d %s", x.N, x.Reason)
		}
		for _, x := range sum.Adjusted {
			c.rep.note("adjusted: %d %s", x.N, x.Reason)
		}
		if sum.LaunchDelay > 0 {
			c.rep.note("timing: kubernetes, pod start latency %s (median, from one-second stamps), jitter %.2f", sum.LaunchDelay, sum.LaunchJitter)
		}
	}
	if err != nil {
		var fe *record.FileError
		if errors.As(err, &fe) {
			return err
		}
		names := make([]string, len(c.srcs))
		for i, s := range c.srcs {
			names[i] = s.name
		}
		return fmt.Errorf("%s: %w", strings.Join(names, ", "), err)
	}
	c.w = w
	c.rep.Jobs, c.rep.Tasks, c.rep.Nodes = len(w.Jobs), w.TotalTasks(), w.Cluster.NumNodes()
	return nil
}
