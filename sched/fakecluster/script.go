package fakecluster

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/internal/datadriven"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// Script plays scripted live-cluster scenarios (internal/datadriven files)
// through a fake cluster, one event per command, checking the invariants
// after each (Settle). Every command prints what the core asked of the
// cluster (launches, lost containers) and any error the core returned. The
// commands, one handler each:
//
//	new [policy=P] [admission=A] [queues=a,b] [maxam=N] [gangtimeout=DURATION] [nodes=n0:4:4096,...]
//	node add|capacity|held name=N res=CPU:MEM · node remove|cordon|uncordon name=N
//	node name=N slots=S [held=H] · node name=N pool=P
//	submit job=J [am=CPU:MEM] [queue=Q] [demand=CPU:MEM] [estimate=DURATION] [min=N] [timeout=DURATION] [phases=TASKSxCPU:MEM,...] (with phases: a simulated job; min: a gang of N, timeout its own)
//	ask job=J key=K res=CPU:MEM [class=C] [only=n1,n2] [pool=P] [am]
//	cancel job=J key=K · endjob job=J · run key=K · end key=K state=S · refuse key=K
//	adopt job=J key=K node=N res=CPU:MEM [am]
//	advance by=DURATION · state · why job=J (the core's WaitReason)
//
// Regenerate a file's expected outputs with -rewrite and review the diff.
type Script struct {
	// Cluster is the cluster the script built with new; nil before.
	Cluster *Cluster
	// pools are the nodes' pools, by node name, that "ask pool=P" requests
	// are constrained to; "node name=N pool=P" changes one and tells the
	// core (ConstraintsChanged), as a live driver does when a node's labels
	// change.
	pools map[string]string
}

// handler runs one command against the script's cluster.
type handler func(s *Script, c *datadriven.Case) ([]string, error)

// commands is the scenario language: one handler per command.
var commands = map[string]handler{
	"new":     cmdNew,
	"node":    cmdNode,
	"submit":  cmdSubmit,
	"ask":     cmdAsk,
	"cancel":  cmdCancel,
	"endjob":  cmdEndJob,
	"run":     cmdRun,
	"end":     cmdEnd,
	"refuse":  cmdRefuse,
	"adopt":   cmdAdopt,
	"advance": cmdAdvance,
	"state":   cmdState,
	"why":     cmdWhy,
}

// RunDir plays every testdata file matching dir/*.txt as a subtest.
func RunDir(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files in %s: %v", dir, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { RunFile(t, f) })
	}
}

// RunFile plays one scenario file.
func RunFile(t *testing.T, path string) {
	t.Helper()
	s := &Script{}
	datadriven.RunFile(t, path, func(t *testing.T, c *datadriven.Case) string {
		out, err := s.Step(c)
		if err != nil {
			t.Fatal(err)
		}
		return out
	})
}

// Step runs one case and returns its output. An error the core returns is
// part of the output; the error Step returns is the scenario's own fault
// (a command before new, an unknown command) or a broken invariant, which
// ends the scenario.
func (s *Script) Step(c *datadriven.Case) (string, error) {
	h, ok := commands[c.Cmd]
	if !ok {
		return "", fmt.Errorf("%s: unknown command %q", c.Pos, c.Cmd)
	}
	if c.Cmd != "new" && s.Cluster == nil {
		return "", fmt.Errorf("%s: the scenario must start with new", c.Pos)
	}
	out, err := h(s, c)
	if err != nil {
		out = append(out, "error: "+err.Error())
	}
	if fc := s.Cluster; fc != nil {
		if err := fc.Settle(); err != nil {
			return "", fmt.Errorf("%s: after %s: %w", c.Pos, c.Cmd, err)
		}
		out = append(fc.TakeLog(), out...)
	}
	return strings.Join(out, "\n"), nil
}

func vec(c *datadriven.Case, key string) (resource.Vector, error) {
	s := c.Get(key, "")
	if s == "" {
		return resource.Vector{}, fmt.Errorf("%s: %s needs %s=CPU:MEM", c.Pos, c.Cmd, key)
	}
	return ParseVec(s)
}

var states = map[string]sched.ContainerState{
	"completed": sched.Completed, "failed": sched.Failed, "killed": sched.Killed,
	"preempted": sched.Preempted, "lost": sched.Lost, "running": sched.Running, "acquired": sched.Acquired,
}

func cmdNew(s *Script, c *datadriven.Case) ([]string, error) {
	cfg := Config{Policy: c.Get("policy", ""), Admission: c.Get("admission", "")}
	for _, q := range c.List("queues") {
		cfg.Queues = append(cfg.Queues, sched.QueueSpec{Name: q, Capacity: 1 / float64(len(c.List("queues"))), MaxCapacity: 1})
	}
	if n := c.Get("maxam", ""); n != "" {
		if _, err := fmt.Sscan(n, &cfg.MaxAMAttempts); err != nil {
			return nil, fmt.Errorf("%s: maxam: %w", c.Pos, err)
		}
	}
	if d := c.Get("gangtimeout", ""); d != "" {
		var err error
		if cfg.GangTimeout, err = clock.ParseDuration(d); err != nil {
			return nil, fmt.Errorf("%s: gangtimeout: %w", c.Pos, err)
		}
	}
	for _, n := range c.List("nodes") {
		name, res, _ := strings.Cut(n, ":")
		v, err := ParseVec(res)
		if err != nil {
			return nil, err
		}
		cfg.Nodes = append(cfg.Nodes, v)
		cfg.NodeNames = append(cfg.NodeNames, name)
	}
	fc, err := New(cfg)
	if err != nil {
		return nil, err
	}
	s.Cluster, s.pools = fc, map[string]string{}
	return nil, nil
}

func cmdNode(s *Script, c *datadriven.Case) ([]string, error) {
	fc := s.Cluster
	name := c.Get("name", "")
	if c.Has("add") {
		v, err := vec(c, "res")
		if err != nil {
			return nil, err
		}
		return nil, fc.AddNode(name, v)
	}
	n, err := fc.Node(name)
	if err != nil {
		return nil, err
	}
	switch {
	case c.Has("remove"):
		return nil, fc.RemoveNode(name)
	case c.Has("cordon"), c.Has("uncordon"):
		return nil, fc.Core.SetNodeSchedulable(fc.Now, n.ID(), c.Has("uncordon"))
	case c.Has("slots"):
		var slots, held int
		if _, err := fmt.Sscan(c.Get("slots", ""), &slots); err != nil {
			return nil, fmt.Errorf("%s: slots: %w", c.Pos, err)
		}
		if h := c.Get("held", ""); h != "" {
			if _, err := fmt.Sscan(h, &held); err != nil {
				return nil, fmt.Errorf("%s: held: %w", c.Pos, err)
			}
		}
		return nil, fc.Core.SetNodeSlots(fc.Now, n.ID(), slots, held)
	case c.Has("capacity"), c.Has("held"):
		v, err := vec(c, "res")
		if err != nil {
			return nil, err
		}
		if c.Has("held") {
			return nil, fc.Core.SetNodeExternal(fc.Now, n.ID(), v)
		}
		return nil, fc.Core.SetNodeCapacity(fc.Now, n.ID(), v)
	case c.Has("pool"):
		s.pools[name] = c.Get("pool", "")
		return nil, fc.Core.ConstraintsChanged(fc.Now, n.ID())
	}
	return nil, fmt.Errorf("%s: node what?", c.Pos)
}

func cmdSubmit(s *Script, c *datadriven.Case) ([]string, error) {
	spec := sched.JobSpec{Key: c.Get("job", ""), Queue: c.Get("queue", "default"), Open: !c.Has("phases")}
	var err error
	if c.Has("am") {
		if spec.AM, err = vec(c, "am"); err != nil {
			return nil, err
		}
	}
	if c.Has("demand") {
		if spec.Demand, err = vec(c, "demand"); err != nil {
			return nil, err
		}
	}
	if e := c.Get("estimate", ""); e != "" {
		if spec.Estimate, err = clock.ParseDuration(e); err != nil {
			return nil, fmt.Errorf("%s: estimate: %w", c.Pos, err)
		}
	}
	if n := c.Get("min", ""); n != "" {
		if _, err := fmt.Sscan(n, &spec.MinMembers); err != nil {
			return nil, fmt.Errorf("%s: min: %w", c.Pos, err)
		}
	}
	if d := c.Get("timeout", ""); d != "" {
		if spec.GangTimeout, err = clock.ParseDuration(d); err != nil {
			return nil, fmt.Errorf("%s: timeout: %w", c.Pos, err)
		}
	}
	for _, p := range c.List("phases") {
		n, res, _ := strings.Cut(p, "x")
		var tasks int
		if _, err := fmt.Sscan(n, &tasks); err != nil {
			return nil, fmt.Errorf("%s: phase %q: %w", c.Pos, p, err)
		}
		v, err := ParseVec(res)
		if err != nil {
			return nil, err
		}
		spec.Phases = append(spec.Phases, sched.PhaseSpec{Tasks: tasks, Request: v, StartAfter: 1})
	}
	_, err = s.Cluster.Submit(spec)
	return nil, err
}

func cmdAsk(s *Script, c *datadriven.Case) ([]string, error) {
	v, err := vec(c, "res")
	if err != nil {
		return nil, err
	}
	r := sched.Request{Key: c.Get("key", ""), Resource: v, Class: c.Get("class", ""), AM: c.Has("am")}
	if only := c.List("only"); only != nil {
		r.Eligible = func(n *cluster.Node) bool { return slices.Contains(only, n.Name()) }
	}
	if pool := c.Get("pool", ""); pool != "" {
		pools := s.pools
		r.Eligible = func(n *cluster.Node) bool { return pools[n.Name()] == pool }
	}
	return nil, s.Cluster.Ask(c.Get("job", ""), r)
}

func cmdCancel(s *Script, c *datadriven.Case) ([]string, error) {
	fc := s.Cluster
	j, err := fc.Job(c.Get("job", ""))
	if err != nil {
		return nil, err
	}
	return nil, fc.Core.Cancel(fc.Now, j, c.Get("key", ""))
}

func cmdEndJob(s *Script, c *datadriven.Case) ([]string, error) {
	fc := s.Cluster
	j, err := fc.Job(c.Get("job", ""))
	if err != nil {
		return nil, err
	}
	return nil, fc.Core.EndJob(fc.Now, j)
}

func cmdRun(s *Script, c *datadriven.Case) ([]string, error) {
	return nil, s.Cluster.Run(c.Get("key", ""))
}

func cmdEnd(s *Script, c *datadriven.Case) ([]string, error) {
	st, ok := states[c.Get("state", "")]
	if !ok {
		return nil, fmt.Errorf("%s: unknown state %q", c.Pos, c.Get("state", ""))
	}
	return nil, s.Cluster.End(c.Get("key", ""), st)
}

func cmdRefuse(s *Script, c *datadriven.Case) ([]string, error) {
	return nil, s.Cluster.Refuse(c.Get("key", ""), "bind failed")
}

func cmdAdopt(s *Script, c *datadriven.Case) ([]string, error) {
	v, err := vec(c, "res")
	if err != nil {
		return nil, err
	}
	return nil, s.Cluster.Adopt(c.Get("job", ""), c.Get("key", ""), c.Get("node", ""), v, c.Has("am"))
}

// cmdAdvance moves the clock and runs the periodic tick that fell due.
func cmdAdvance(s *Script, c *datadriven.Case) ([]string, error) {
	fc := s.Cluster
	d, err := clock.ParseDuration(c.Get("by", ""))
	if err != nil {
		return nil, fmt.Errorf("%s: by: %w", c.Pos, err)
	}
	fc.Now = fc.Now.Add(d)
	if next := fc.Core.NextTick(fc.Now - 1); next <= fc.Now {
		fc.Core.Tick(next)
	}
	return nil, nil
}

func cmdState(s *Script, _ *datadriven.Case) ([]string, error) {
	return []string{s.Cluster.State()}, nil
}

func cmdWhy(s *Script, c *datadriven.Case) ([]string, error) {
	fc := s.Cluster
	j, err := fc.Job(c.Get("job", ""))
	if err != nil {
		return nil, err
	}
	return []string{fc.Core.WaitReason(j)}, nil
}
