package params

import (
	"fmt"
	"strings"
)

// Entry is one scheme a registry can build: a policy or an admission
// controller. F is what the scheme's Build returns (the core's factory
// type), so policies and admission controllers share one shape.
type Entry[F any] struct {
	// Name is what the command line types before any ":".
	Name string
	// Usage is how to type it when that is more than the name
	// ("static:<vcores>"); empty means Name.
	Usage   string
	Summary string
	// Build reads the scheme's parameters from r and returns what builds
	// it. Called on a spec with no values it must only declare them, which
	// is how the listing learns each scheme's parameters.
	Build func(r *Reader) (F, error)
	// WithoutEstimate says what a policy does with a job that has no
	// runtime estimate, for the note a run prints when some lack one;
	// empty for schemes that read no estimates.
	WithoutEstimate string
	// Queues says how the scheme reads the queue tree (guarantees,
	// maximums, weights) and, where it keeps a pool or a reservation,
	// whether that works within a leaf or across the cluster, and why.
	Queues string
	// Priority says how the scheme reads job priorities.
	Priority string
}

// Label is how the listing names the entry.
func (e Entry[F]) Label() string {
	if e.Usage != "" {
		return e.Usage
	}
	return e.Name
}

// Parameters returns "key: help" lines for the entry's parameters.
func (e Entry[F]) Parameters() []string {
	r := NewReader(Spec{Name: e.Name})
	_, _ = e.Build(r) // an empty spec only declares the keys
	return r.Help()
}

// Registry is an explicit, ordered list of schemes of one kind, built once
// from a literal list (no init-time registration), looked up by name.
type Registry[F any] struct {
	kind    string // "policy", "admission controller": for messages
	entries []Entry[F]
}

// NewRegistry returns a registry of the given entries, in listing order.
// Names must be unique; a duplicate is a programming error and panics at
// start-up, where every test sees it.
func NewRegistry[F any](kind string, entries ...Entry[F]) *Registry[F] {
	seen := map[string]bool{}
	for _, e := range entries {
		if e.Name == "" || seen[e.Name] || e.Build == nil {
			panic(fmt.Sprintf("params: %s registry: entry %q is empty, has no Build, or is listed twice", kind, e.Name))
		}
		seen[e.Name] = true
	}
	return &Registry[F]{kind: kind, entries: entries}
}

// Entries lists the schemes in their fixed order. Callers must not modify
// the slice.
func (g *Registry[F]) Entries() []Entry[F] { return g.entries }

// Names returns the schemes' names in order.
func (g *Registry[F]) Names() []string {
	out := make([]string, len(g.entries))
	for i, e := range g.entries {
		out[i] = e.Name
	}
	return out
}

// Lookup returns the entry of a spec's name ("sjf:..." gives sjf's).
func (g *Registry[F]) Lookup(spec string) (Entry[F], bool) {
	name, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	for _, e := range g.entries {
		if e.Name == strings.TrimSpace(name) {
			return e, true
		}
	}
	return Entry[F]{}, false
}

// Parse builds from "name", "name:arg" or "name:key=value,...", rejecting
// unknown names, unknown keys, unexpected arguments and bad values, each
// with a message that names the scheme and what it accepts.
func (g *Registry[F]) Parse(spec string) (F, Spec, error) {
	var zero F
	sp, err := Parse(spec)
	if err != nil {
		return zero, sp, fmt.Errorf("%s %w", g.kind, err)
	}
	e, ok := g.Lookup(sp.Name)
	if !ok {
		return zero, sp, fmt.Errorf("unknown %s %q (known: %s)", g.kind, sp.Name, strings.Join(g.Names(), ", "))
	}
	r := NewReader(sp)
	f, err := e.Build(r)
	if err == nil {
		err = r.Done()
	}
	if err != nil {
		return zero, sp, fmt.Errorf("%s %w", g.kind, err)
	}
	return f, sp, nil
}
