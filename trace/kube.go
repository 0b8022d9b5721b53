package trace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/spindle-sched/spindle/kube/record"
)

// convertKube reads a snapshot of a Kubernetes cluster (kubectl get pods
// -A -o json, and optionally its nodes and events; or any tool's dump of
// them, docs/record.md lists which) through kube/record, the recorder's
// core, so that a snapshot and a recording map pods to jobs the one way
// the live scheduler does. Malformed objects are counted and named in the
// report, never fatal, whatever skip-bad says; a file that cannot be read
// on, or is cut short, stops the conversion with its name and where.
func convertKube(c *conv) error {
	if c.opt.Begin != 0 || c.opt.End != 0 || c.opt.ArrivalScale != 0 && c.opt.ArrivalScale != 1 {
		return errors.New("kube: begin, end and arrival-scale do not apply: a snapshot keeps its times as they happened")
	}
	inputs := make([]record.Input, len(c.srcs))
	for i, s := range c.srcs {
		inputs[i] = record.Input{Name: s.name, Open: func() (io.ReadCloser, error) { return s.open() }}
	}
	ro := record.Options{Running: record.RunningDrop, Schedulers: c.opt.Schedulers, SingleQueue: c.opt.SingleQueue,
		LoadStep: time.Duration(c.opt.LoadStep) * time.Microsecond}
	if c.opt.Selector != "" {
		sel, err := labels.Parse(c.opt.Selector)
		if err != nil {
			return fmt.Errorf("selector %q: %w", c.opt.Selector, err)
		}
		ro.Selector = sel
	}
	opt := record.SnapshotOptions{Options: ro, Machine: machine(c.opt.MachineVCores, c.opt.MachineMemory), Nodes: c.opt.Nodes,
		Namespace: c.opt.Namespace}
	if c.truncate() {
		opt.Running = record.RunningKeep
	}
	w, sum, err := record.Snapshot(inputs, opt)
	if sum != nil {
		c.rep.Records = sum.Objects
		c.rep.Objects = sum.Objects
		for _, l := range sum.Left {
			if l.Reason == "malformed objects" {
				c.rep.Bad += int(l.N)
				continue
			}
			c.rep.skip(l.Reason, l.N)
		}
		for _, e := range sum.Malformed {
			if len(c.rep.BadExamples) < maxExamples {
				c.rep.BadExamples = append(c.rep.BadExamples, e)
			}
		}
		for _, x := range sum.External {
			c.rep.note("external load: %d %s", x.N, x.Reason)
		}
		for _, x := range sum.Adjusted {
			c.rep.note("adjusted: %d %s", x.N, x.Reason)
		}
		for _, n := range sum.Notes() {
			c.rep.note("%s", n)
		}
		for _, e := range sum.Examples {
			if !strings.HasPrefix(e, "nodes missing from the node list") {
				continue
			}
			c.rep.note("warning: %s", e)
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

// kubeInputs turns the kube format's paths into sources. A file is read
// as given; a directory is walked the way `kubectl cluster-info dump
// --output-directory` (nodes.json, then NAMESPACE/pods.json and
// events.json) and must-gather (namespaces/NS/core/pods.yaml,
// namespaces/NS/pods/NAME/NAME.yaml, cluster-scoped-resources/core/nodes/
// NAME.yaml) lay a cluster out: the files named pods, nodes, events or
// podgroups, and
// the JSON or YAML files under a directory of those names, in name order.
// The others (services, logs, ...) are skipped and counted.
func kubeInputs(paths []string) (srcs []source, skipped int64, err error) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, 0, fmt.Errorf("trace input: %w", err)
		}
		if !st.IsDir() {
			srcs = append(srcs, fileSource(p))
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") && path != p {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			rel, _ := filepath.Rel(p, path)
			if kubeFile(rel) {
				found = append(found, path)
			} else {
				skipped++
			}
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("trace input: %w", err)
		}
		if len(found) == 0 {
			return nil, 0, fmt.Errorf("trace input %s: the directory holds no pods, nodes, events or podgroups files (pods.json, nodes.yaml, ...: the layouts of kubectl cluster-info dump --output-directory and must-gather)", p)
		}
		sort.Strings(found)
		for _, f := range found {
			srcs = append(srcs, fileSource(f))
		}
	}
	return srcs, skipped, nil
}

var kubeKinds = []string{"pods", "nodes", "events", "podgroups"}

// kubeFile reports whether a file at rel (inside a walked directory) holds
// pods, nodes, events or PodGroups by its name: pods.json, nodes.yaml.gz,
// events.ndjson, podgroups.yaml, or any JSON or YAML file under a
// directory of one of those names.
func kubeFile(rel string) bool {
	base := strings.TrimSuffix(filepath.Base(rel), ".gz")
	ext := filepath.Ext(base)
	switch strings.ToLower(ext) {
	case ".json", ".yaml", ".yml", ".ndjson", ".jsonl":
	default:
		return false
	}
	stem := strings.ToLower(strings.TrimSuffix(base, ext))
	for _, k := range kubeKinds {
		if stem == k {
			return true
		}
	}
	dirs := strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/")
	for _, d := range dirs {
		for _, k := range kubeKinds {
			if strings.EqualFold(d, k) {
				return true
			}
		}
	}
	return false
}
