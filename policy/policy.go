// Package policy is the registry of scheduling policies: it maps the names of
// the command-line contract (fifo, capacity, fair, drf, dress, ...) to
// constructors and documents each one's parameters. The list is explicit
// (registry.go), in the order the listing shows it; drivers never import
// this package: they take a sched.PolicyFactory from the command line.
package policy

import (
	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/sched"
)

// Entry describes one policy.
type Entry = params.Entry[sched.PolicyFactory]

// Registry returns the registry of every built-in policy.
func Registry() *params.Registry[sched.PolicyFactory] { return builtin }

// Lookup returns the entry of a policy spec's name ("sjf:..." gives sjf's).
func Lookup(spec string) (Entry, bool) { return builtin.Lookup(spec) }

// Entries lists every policy in a fixed order.
func Entries() []Entry { return builtin.Entries() }

// Names returns the policy names.
func Names() []string { return builtin.Names() }

// Parse builds a factory from "name" or "name:key=value,...", rejecting
// unknown names, unknown keys and bad values.
func Parse(spec string) (sched.PolicyFactory, params.Spec, error) { return builtin.Parse(spec) }
