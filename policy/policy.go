// Package policy is the registry of scheduling policies: it maps the names of
// the command-line contract (fifo, capacity, fair, drf, dress, ...) to
// constructors and documents each one's parameters. Each policy registers
// itself from its own file in this package, so adding one touches no other.
package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/sched"
)

// Factory builds a policy against the core's view.
type Factory func(v *sched.View) (sched.Policy, error)

// Entry describes one policy.
type Entry struct {
	Name    string
	Summary string
	// Rank orders the listing: baselines first, then each paper's schemes.
	Rank int
	// Build reads the parameters and returns the constructor; reading an
	// empty spec lists the parameters.
	Build func(r *params.Reader) Factory
	// WithoutEstimate says what the policy does with a job that has no
	// runtime estimate, for the note a run prints when some lack one;
	// empty for policies that read no estimates.
	WithoutEstimate string
}

// Lookup returns the entry of a policy spec's name ("sjf:..." gives sjf's).
func Lookup(spec string) (Entry, bool) {
	name, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	for _, e := range entries {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

var entries []Entry

// register adds a policy; the file that defines it calls this from init.
func register(e Entry) {
	entries = append(entries, e)
	sort.SliceStable(entries, func(a, b int) bool { return entries[a].Rank < entries[b].Rank })
}

// Entries lists every policy in a fixed order.
func Entries() []Entry { return entries }

// Parameters returns "key: help" lines for the policy's parameters.
func (e Entry) Parameters() []string {
	r := params.NewReader(params.Spec{Name: e.Name})
	e.Build(r)
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
			f := e.Build(r)
			if err := r.Done(); err != nil {
				return nil, sp, fmt.Errorf("policy %w", err)
			}
			return f, sp, nil
		}
	}
	return nil, sp, fmt.Errorf("unknown policy %q (known: %s)", sp.Name, strings.Join(Names(), ", "))
}
