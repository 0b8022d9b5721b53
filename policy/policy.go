// Package policy is the registry of scheduling policies: it maps the names of
// the command-line contract (fifo, capacity, fair, drf, ...) to constructors
// and documents each one's parameters.
package policy

import (
	"fmt"
	"strings"

	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/policy/capacity"
	"github.com/spindle-sched/spindle/policy/fair"
	"github.com/spindle-sched/spindle/policy/fifo"
	"github.com/spindle-sched/spindle/sched"
)

// Factory builds a policy against the core's view.
type Factory func(v *sched.View) (sched.Policy, error)

// Entry describes one policy.
type Entry struct {
	Name    string
	Summary string
	// build reads the parameters and returns the constructor; reading an
	// empty spec lists the parameters.
	build func(r *params.Reader) Factory
}

var entries = []Entry{
	{"fifo", "first in, first out: every free resource goes to the earliest job that can use it", func(r *params.Reader) Factory {
		cfg := fifo.Params(r)
		return func(v *sched.View) (sched.Policy, error) { return fifo.New(v, cfg), nil }
	}},
	{"capacity", "YARN Capacity: queues with guaranteed and maximum capacity, most under-served queue first, FIFO inside a queue, AM limit per queue", func(r *params.Reader) Factory {
		cfg := capacity.Params(r)
		return func(v *sched.View) (sched.Policy, error) { return capacity.New(v, cfg), nil }
	}},
	{"fair", "YARN Fair: the job furthest below its instantaneous fair share (memory) first, AM share limit", func(r *params.Reader) Factory {
		cfg := fair.Params(r, fair.Memory)
		return func(v *sched.View) (sched.Policy, error) { return fair.New(v, cfg), nil }
	}},
	{"drf", "dominant resource fairness: the job with the lowest dominant share first, AM share limit", func(r *params.Reader) Factory {
		cfg := fair.Params(r, fair.DRF)
		return func(v *sched.View) (sched.Policy, error) { return fair.New(v, cfg), nil }
	}},
}

// Entries lists every policy in a fixed order.
func Entries() []Entry { return entries }

// Parameters returns "key: help" lines for the policy's parameters.
func (e Entry) Parameters() []string {
	r := params.NewReader(params.Spec{Name: e.Name})
	e.build(r)
	return r.Help()
}

// Names returns the policy names.
func Names() []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name
	}
	return out
}

// Parse builds a factory from "name" or "name:key=value,...", rejecting
// unknown names, unknown keys and bad values.
func Parse(spec string) (Factory, params.Spec, error) {
	sp, err := params.Parse(spec)
	if err != nil {
		return nil, sp, fmt.Errorf("policy %w", err)
	}
	for _, e := range entries {
		if e.Name == sp.Name {
			r := params.NewReader(sp)
			f := e.build(r)
			if err := r.Done(); err != nil {
				return nil, sp, fmt.Errorf("policy %w", err)
			}
			return f, sp, nil
		}
	}
	return nil, sp, fmt.Errorf("unknown policy %q (known: %s)", sp.Name, strings.Join(Names(), ", "))
}
