// Package params parses the "name:key=value,key=value" specs that select a
// policy or admission controller on the command line, and gives typed access
// to the values so that each scheme declares, documents and validates its own
// parameters.
package params

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spindle-sched/spindle/clock"
)

// Spec is a parsed "name:key=value,..." selection.
type Spec struct {
	Name string
	// Arg is a positional argument: the first piece after the colon when
	// it has no "=" ("static:32" gives Arg "32"). Only a scheme that reads
	// it (Reader.Arg) accepts one.
	Arg    string
	HasArg bool
	Values map[string]string
	order  []string // keys as given, for messages
}

// Parse splits "name:k=v,k=v", "name:arg,k=v" (or just "name"). Keys must be
// unique.
func Parse(s string) (Spec, error) {
	name, rest, has := strings.Cut(strings.TrimSpace(s), ":")
	sp := Spec{Name: strings.TrimSpace(name), Values: map[string]string{}}
	if sp.Name == "" {
		return sp, fmt.Errorf("%q: missing name", s)
	}
	if !has {
		return sp, nil
	}
	for i, kv := range strings.Split(rest, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok && i == 0 {
			sp.Arg, sp.HasArg = strings.TrimSpace(kv), true
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return sp, fmt.Errorf("%s: %q is not key=value", sp.Name, kv)
		}
		if _, dup := sp.Values[k]; dup {
			return sp, fmt.Errorf("%s: %s given twice", sp.Name, k)
		}
		sp.Values[k] = v
		sp.order = append(sp.order, k)
	}
	return sp, nil
}

// String renders the spec canonically: name, then keys in the order given.
func (s Spec) String() string {
	var parts []string
	if s.HasArg {
		parts = append(parts, s.Arg)
	}
	for _, k := range s.order {
		parts = append(parts, k+"="+s.Values[k])
	}
	if len(parts) == 0 {
		return s.Name
	}
	return s.Name + ":" + strings.Join(parts, ",")
}

// SplitList splits a comma-separated list of specs where parameters also use
// commas: "fair:max_am_share=-1,drf,capacity:max_am_percent=0.2" gives three
// specs, because a piece with "=" but no ":" continues the previous spec.
func SplitList(s string) []string {
	var out []string
	for _, piece := range strings.Split(s, ",") {
		piece = strings.TrimSpace(piece)
		if piece == "" {
			continue
		}
		if len(out) > 0 && strings.Contains(piece, "=") && !strings.Contains(piece, ":") {
			out[len(out)-1] += "," + piece
			continue
		}
		out = append(out, piece)
	}
	return out
}

// Reader reads a spec's values, records the keys it was asked for and the
// first error, so that unknown keys and bad values are reported together by
// Done.
type Reader struct {
	spec    Spec
	known   map[string]string // key → one-line help
	argHelp string            // set when the scheme reads a positional argument
	err     error
}

// NewReader starts reading spec.
func NewReader(spec Spec) *Reader {
	return &Reader{spec: spec, known: map[string]string{}}
}

func (r *Reader) fail(key, msg string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: %s: %s", r.spec.Name, key, msg)
	}
}

func (r *Reader) lookup(key, help string) (string, bool) {
	r.known[key] = help
	v, ok := r.spec.Values[key]
	return v, ok
}

// Arg returns the positional argument and whether one was given; a scheme
// that calls it accepts one ("static:32"). help names it for the listing.
func (r *Reader) Arg(help string) (string, bool) {
	r.argHelp = help
	return r.spec.Arg, r.spec.HasArg
}

// Failf records a bad value that a scheme found itself (a positional
// argument, or a combination of keys), reported by Done.
func (r *Reader) Failf(key, format string, a ...any) { r.fail(key, fmt.Sprintf(format, a...)) }

// Float reads a number, checking it lies in [lo, hi].
func (r *Reader) Float(key string, def, lo, hi float64, help string) float64 {
	v, ok := r.lookup(key, help)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f != f {
		r.fail(key, fmt.Sprintf("%q is not a number", v))
		return def
	}
	if f < lo || f > hi {
		r.fail(key, fmt.Sprintf("%v is outside [%v, %v]", f, lo, hi))
		return def
	}
	return f
}

// Int reads an integer in [lo, hi].
func (r *Reader) Int(key string, def, lo, hi int, help string) int {
	v, ok := r.lookup(key, help)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		r.fail(key, fmt.Sprintf("%q is not an integer", v))
		return def
	}
	if n < lo || n > hi {
		r.fail(key, fmt.Sprintf("%d is outside [%d, %d]", n, lo, hi))
		return def
	}
	return n
}

// Bool reads true/false (also on/off, yes/no, 1/0).
func (r *Reader) Bool(key string, def bool, help string) bool {
	v, ok := r.lookup(key, help)
	if !ok {
		return def
	}
	switch strings.ToLower(v) {
	case "true", "on", "yes", "1":
		return true
	case "false", "off", "no", "0":
		return false
	}
	r.fail(key, fmt.Sprintf("%q is not a boolean (true/false)", v))
	return def
}

// Duration reads a duration ("10s", or seconds) that must be positive.
func (r *Reader) Duration(key string, def clock.Duration, help string) clock.Duration {
	v, ok := r.lookup(key, help)
	if !ok {
		return def
	}
	d, err := clock.ParseDuration(v)
	if err != nil {
		r.fail(key, err.Error())
		return def
	}
	if d <= 0 {
		r.fail(key, "must be positive")
		return def
	}
	return d
}

// NonNegativeDuration reads a duration ("10s", or seconds) that may be 0.
func (r *Reader) NonNegativeDuration(key string, def clock.Duration, help string) clock.Duration {
	v, ok := r.lookup(key, help)
	if !ok {
		return def
	}
	d, err := clock.ParseDuration(v)
	if err != nil {
		r.fail(key, err.Error())
		return def
	}
	if d < 0 {
		r.fail(key, "must be >= 0")
		return def
	}
	return d
}

// Choice reads one of the allowed words.
func (r *Reader) Choice(key, def string, allowed []string, help string) string {
	v, ok := r.lookup(key, help)
	if !ok {
		return def
	}
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.fail(key, fmt.Sprintf("%q is not one of %s", v, strings.Join(allowed, ", ")))
	return def
}

// Done returns the first bad value, or an error naming every unknown key
// together with the keys that exist.
func (r *Reader) Done() error {
	if r.err != nil {
		return r.err
	}
	if r.spec.HasArg && r.argHelp == "" {
		return fmt.Errorf("%s: takes no positional argument (got %q; parameters are key=value)", r.spec.Name, r.spec.Arg)
	}
	var unknown []string
	for _, k := range r.spec.order {
		if _, ok := r.known[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	keys := make([]string, 0, len(r.known))
	for k := range r.known {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return fmt.Errorf("%s: takes no parameters (got %s)", r.spec.Name, strings.Join(unknown, ", "))
	}
	return fmt.Errorf("%s: unknown parameter %s (known: %s)", r.spec.Name, strings.Join(unknown, ", "), strings.Join(keys, ", "))
}

// Help returns "key: help" lines for every key read, sorted, after a line
// for the positional argument when the scheme takes one.
func (r *Reader) Help() []string {
	keys := make([]string, 0, len(r.known))
	for k := range r.known {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	if r.argHelp != "" {
		out = append(out, "<argument>: "+r.argHelp)
	}
	for _, k := range keys {
		out = append(out, k+": "+r.known[k])
	}
	return out
}
