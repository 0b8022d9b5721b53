package sched_test

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
	"github.com/spindle-sched/spindle/sched/fakecluster"
)

// TestScenarios plays the scripted live-cluster scenarios of
// testdata/*.txt through the fake cluster, one event per command, checking
// the invariants after each (fakecluster.Settle). Regenerate the expected
// outputs with -rewrite and review the diff.
//
// Commands:
//
//	new [policy=P] [admission=A] [queues=a,b] [maxam=N] [nodes=n0:4:4096,...]
//	node add|capacity|held name=N res=CPU:MEM · node remove|cordon|uncordon name=N
//	node name=N slots=S [held=H] · node name=N pool=P
//	submit job=J [am=CPU:MEM] [queue=Q] [demand=CPU:MEM] [phases=TASKSxCPU:MEM,...] (with phases: a simulated job)
//	ask job=J key=K res=CPU:MEM [class=C] [only=n1,n2] [pool=P] [am]
//	cancel job=J key=K · endjob job=J · run key=K · end key=K state=S · refuse key=K
//	adopt job=J key=K node=N res=CPU:MEM [am]
//	advance by=DURATION · state · why job=J (the core's WaitReason)
//
// Every command prints what the core asked of the cluster (launches, lost
// containers) and any error the core returned.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var fc *fakecluster.Cluster
			datadriven.RunFile(t, f, func(t *testing.T, c *datadriven.Case) string {
				if c.Cmd != "new" && fc == nil {
					t.Fatalf("%s: the scenario must start with new", c.Pos)
				}
				out, err := step(&fc, c)
				if err != nil {
					out = append(out, "error: "+err.Error())
				}
				if fc != nil {
					if err := fc.Settle(); err != nil {
						t.Fatalf("%s: after %s: %v", c.Pos, c.Cmd, err)
					}
					out = append(fc.TakeLog(), out...)
				}
				if c.Cmd == "state" {
					out = append(out, fc.State())
				}
				return strings.Join(out, "\n")
			})
		})
	}
}

func vec(c *datadriven.Case, key string) (resource.Vector, error) {
	s := c.Get(key, "")
	if s == "" {
		return resource.Vector{}, fmt.Errorf("%s: %s needs %s=CPU:MEM", c.Pos, c.Cmd, key)
	}
	return fakecluster.ParseVec(s)
}

var states = map[string]sched.ContainerState{
	"completed": sched.Completed, "failed": sched.Failed, "killed": sched.Killed,
	"preempted": sched.Preempted, "lost": sched.Lost, "running": sched.Running, "acquired": sched.Acquired,
}

// pools are the nodes' pools, by node name, that "ask pool=P" requests
// are constrained to; "node name=N pool=P" changes one and tells the core
// (ConstraintsChanged), as a live driver does when a node's labels change.
var pools = map[string]string{}

func step(fcp **fakecluster.Cluster, c *datadriven.Case) ([]string, error) {
	fc := *fcp
	switch c.Cmd {
	case "new":
		clear(pools)
		cfg := fakecluster.Config{Policy: c.Get("policy", ""), Admission: c.Get("admission", "")}
		for _, q := range c.List("queues") {
			cfg.Queues = append(cfg.Queues, sched.QueueSpec{Name: q, Capacity: 1 / float64(len(c.List("queues"))), MaxCapacity: 1})
		}
		if n := c.Get("maxam", ""); n != "" {
			if _, err := fmt.Sscan(n, &cfg.MaxAMAttempts); err != nil {
				return nil, err
			}
		}
		for _, n := range c.List("nodes") {
			name, res, _ := strings.Cut(n, ":")
			v, err := fakecluster.ParseVec(res)
			if err != nil {
				return nil, err
			}
			cfg.Nodes = append(cfg.Nodes, v)
			cfg.NodeNames = append(cfg.NodeNames, name)
		}
		var err error
		*fcp, err = fakecluster.New(cfg)
		return nil, err
	case "node":
		name := c.Get("name", "")
		n, nerr := fc.Node(name)
		switch {
		case c.Has("add"):
			v, err := vec(c, "res")
			if err != nil {
				return nil, err
			}
			return nil, fc.AddNode(name, v)
		case nerr != nil:
			return nil, nerr
		case c.Has("remove"):
			return nil, fc.RemoveNode(name)
		case c.Has("cordon"), c.Has("uncordon"):
			return nil, fc.Core.SetNodeSchedulable(fc.Now, n.ID(), c.Has("uncordon"))
		case c.Has("capacity"):
			v, err := vec(c, "res")
			if err != nil {
				return nil, err
			}
			return nil, fc.Core.SetNodeCapacity(fc.Now, n.ID(), v)
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
		case c.Has("pool"):
			pools[name] = c.Get("pool", "")
			return nil, fc.Core.ConstraintsChanged(fc.Now, n.ID())
		case c.Has("held"):
			v, err := vec(c, "res")
			if err != nil {
				return nil, err
			}
			return nil, fc.Core.SetNodeExternal(fc.Now, n.ID(), v)
		}
		return nil, fmt.Errorf("%s: node what?", c.Pos)
	case "submit":
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
		for _, p := range c.List("phases") {
			n, res, _ := strings.Cut(p, "x")
			var tasks int
			if _, err := fmt.Sscan(n, &tasks); err != nil {
				return nil, fmt.Errorf("%s: phase %q: %w", c.Pos, p, err)
			}
			v, err := fakecluster.ParseVec(res)
			if err != nil {
				return nil, err
			}
			spec.Phases = append(spec.Phases, sched.PhaseSpec{Tasks: tasks, Request: v, StartAfter: 1})
		}
		_, err = fc.Submit(spec)
		return nil, err
	case "ask":
		v, err := vec(c, "res")
		if err != nil {
			return nil, err
		}
		r := sched.Request{Key: c.Get("key", ""), Resource: v, Class: c.Get("class", ""), AM: c.Has("am")}
		if only := c.List("only"); only != nil {
			r.Eligible = func(n *cluster.Node) bool { return slices.Contains(only, n.Name()) }
		}
		if pool := c.Get("pool", ""); pool != "" {
			r.Eligible = func(n *cluster.Node) bool { return pools[n.Name()] == pool }
		}
		return nil, fc.Ask(c.Get("job", ""), r)
	case "cancel", "endjob":
		j, err := fc.Job(c.Get("job", ""))
		if err != nil {
			return nil, err
		}
		if c.Cmd == "endjob" {
			return nil, fc.Core.EndJob(fc.Now, j)
		}
		return nil, fc.Core.Cancel(fc.Now, j, c.Get("key", ""))
	case "run":
		return nil, fc.Run(c.Get("key", ""))
	case "end":
		s, ok := states[c.Get("state", "")]
		if !ok {
			return nil, fmt.Errorf("%s: unknown state %q", c.Pos, c.Get("state", ""))
		}
		return nil, fc.End(c.Get("key", ""), s)
	case "refuse":
		return nil, fc.Refuse(c.Get("key", ""), "bind failed")
	case "adopt":
		v, err := vec(c, "res")
		if err != nil {
			return nil, err
		}
		return nil, fc.Adopt(c.Get("job", ""), c.Get("key", ""), c.Get("node", ""), v, c.Has("am"))
	case "advance":
		d, err := clock.ParseDuration(c.Get("by", ""))
		if err != nil {
			return nil, err
		}
		fc.Now = fc.Now.Add(d)
		if next := fc.Core.NextTick(fc.Now - 1); next <= fc.Now {
			fc.Core.Tick(next)
		}
		return nil, nil
	case "state":
		return nil, nil
	case "why":
		j, err := fc.Job(c.Get("job", ""))
		if err != nil {
			return nil, err
		}
		return []string{fc.Core.WaitReason(j)}, nil
	}
	return nil, fmt.Errorf("%s: unknown command %q", c.Pos, c.Cmd)
}
