// Package section is what the papers' experiments share: the configuration
// of a run, the few statistics every report uses, and the rendering of a
// section's text from the embedded template that holds its prose. Each
// paper's package computes its tables as numbers; its template decides
// every word and every format around them.
package section

import (
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
	"text/template"
)

// Config tunes a run of an experiment.
type Config struct {
	Seeds    int       // seeds per setting (the reports use at least 5)
	Parallel int       // simulations at once; 0 means one per CPU
	Log      io.Writer // progress lines; never nil
	// Cells, when not nil, runs a share of the simulations or replays the
	// figures the shares kept (see Simulate).
	Cells *Cells
}

// SeedList returns the seeds 1..n.
func (c Config) SeedList() []uint64 {
	out := make([]uint64, c.Seeds)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return out
}

// Funcs are the template functions every section may use, beside text/
// template's own (printf, len, index, and, or, not, eq, lt, ...).
var Funcs = template.FuncMap{
	// join joins strings with a separator.
	"join": func(sep string, xs []string) string { return strings.Join(xs, sep) },
	// isNaN reports an undefined figure, which a template shows as a dash
	// of its choice.
	"isNaN": math.IsNaN,
	// last reports whether i is the last index of a list of n.
	"last": func(i, n int) bool { return i == n-1 },
	// repeat repeats s n times (a table's separator row).
	"repeat": strings.Repeat,
}

// Render executes the template file name of fsys on data, with Funcs and
// any functions of the section's own (a format rule of its tables). A
// template that refers to a field the data lacks is an error, not an empty
// string.
func Render(fsys fs.FS, name string, data any, own ...template.FuncMap) (string, error) {
	t := template.New(name).Funcs(Funcs).Option("missingkey=error")
	for _, f := range own {
		t = t.Funcs(f)
	}
	t, err := t.ParseFS(fsys, name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	// printf does not fail on a verb that does not fit its value; it
	// writes %!verb(...) into the text. Such a section is wrong, not
	// merely ugly.
	if i := strings.Index(b.String(), "%!"); i >= 0 {
		end := min(len(b.String()), i+60)
		return "", fmt.Errorf("%s: a format does not fit its value: %q", name, b.String()[i:end])
	}
	return b.String(), nil
}

// Mean is the mean of xs, NaN when there are none.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Deref is *p, or NaN for an undefined figure (a summary's average over no
// completed job).
func Deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
