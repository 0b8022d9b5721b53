package params

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/clock"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in     string
		name   string
		values map[string]string
		canon  string
		err    string
	}{
		{in: "fair", name: "fair", values: map[string]string{}, canon: "fair"},
		{in: " fair:max_am_share=-1 ", name: "fair", values: map[string]string{"max_am_share": "-1"}, canon: "fair:max_am_share=-1"},
		{in: "dress:theta=0.1,pw=10s", name: "dress", values: map[string]string{"theta": "0.1", "pw": "10s"}, canon: "dress:theta=0.1,pw=10s"},
		{in: "x:a=1,,b=2", name: "x", values: map[string]string{"a": "1", "b": "2"}, canon: "x:a=1,b=2"},
		{in: ":a=1", err: "missing name"},
		{in: "static:32", name: "static", values: map[string]string{}, canon: "static:32"},
		{in: "x:a,b=2", name: "x", values: map[string]string{"b": "2"}, canon: "x:a,b=2"},
		{in: "x:b=2,a", err: "not key=value"},
		{in: "x:=1", err: "not key=value"},
		{in: "x:a=1,a=2", err: "given twice"},
	}
	for _, tt := range tests {
		sp, err := Parse(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || sp.Name != tt.name || len(sp.Values) != len(tt.values) || sp.String() != tt.canon {
			t.Errorf("Parse(%q) = %+v (%q), %v", tt.in, sp, sp.String(), err)
		}
		for k, v := range tt.values {
			if sp.Values[k] != v {
				t.Errorf("Parse(%q)[%s] = %q, want %q", tt.in, k, sp.Values[k], v)
			}
		}
	}
}

func TestSplitList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"fifo,fair", []string{"fifo", "fair"}},
		{"fair:max_am_share=-1,drf", []string{"fair:max_am_share=-1", "drf"}},
		{"dress:theta=0.2,pw=5s,capacity,fifo:strict=true", []string{"dress:theta=0.2,pw=5s", "capacity", "fifo:strict=true"}},
		{" , fifo ,", []string{"fifo"}},
	}
	for _, tt := range tests {
		if got := SplitList(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SplitList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestReader(t *testing.T) {
	read := func(s string) (*Reader, float64, int, bool, clock.Duration, string) {
		sp, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		r := NewReader(sp)
		f := r.Float("f", 0.5, 0, 1, "a fraction")
		i := r.Int("i", 3, 1, 10, "a count")
		b := r.Bool("b", false, "a switch")
		d := r.Duration("d", clock.Second, "a period")
		c := r.Choice("c", "on", []string{"on", "off"}, "a mode")
		return r, f, i, b, d, c
	}
	r, f, i, b, d, c := read("p")
	if err := r.Done(); err != nil || f != 0.5 || i != 3 || b || d != clock.Second || c != "on" {
		t.Fatalf("defaults: %v %v %v %v %v %v", err, f, i, b, d, c)
	}
	r, f, i, b, d, c = read("p:f=0.25,i=7,b=yes,d=1.5s,c=off")
	if err := r.Done(); err != nil || f != 0.25 || i != 7 || !b || d != 1500*clock.Millisecond || c != "off" {
		t.Fatalf("values: %v %v %v %v %v %v", err, f, i, b, d, c)
	}
	if help := r.Help(); len(help) != 5 || help[0] != "b: a switch" {
		t.Fatalf("help %q", help)
	}
	for in, want := range map[string]string{
		"p:f=2":     "p: f: 2 is outside [0, 1]",
		"p:f=x":     `p: f: "x" is not a number`,
		"p:f=NaN":   `p: f: "NaN" is not a number`,
		"p:i=1.5":   `p: i: "1.5" is not an integer`,
		"p:i=11":    "p: i: 11 is outside [1, 10]",
		"p:b=maybe": `p: b: "maybe" is not a boolean (true/false)`,
		"p:d=-1s":   "p: d: must be positive",
		"p:c=half":  `p: c: "half" is not one of on, off`,
		"p:zz=1":    "p: unknown parameter zz (known: b, c, d, f, i)",
	} {
		r, _, _, _, _, _ := read(in)
		if err := r.Done(); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
	sp, _ := Parse("none:x=1")
	if err := NewReader(sp).Done(); err == nil || !strings.Contains(err.Error(), "takes no parameters") {
		t.Errorf("a parameterless spec with a key: %v", err)
	}
}

// A positional argument is accepted only by a scheme that reads it, and
// the registry names the scheme and what went wrong.
func TestRegistryArguments(t *testing.T) {
	g := NewRegistry("thing",
		Entry[int]{Name: "plain", Build: func(r *Reader) (int, error) { return int(r.Float("k", 1, 0, 10, "a number")), nil }},
		Entry[int]{Name: "amount", Usage: "amount:<n>", Build: func(r *Reader) (int, error) {
			arg, ok := r.Arg("how many")
			if !ok {
				return 0, errors.New("needs an amount")
			}
			return len(arg), nil
		}})
	tests := []struct {
		spec string
		want int
		err  string
	}{
		{spec: "plain", want: 1},
		{spec: "plain:k=3", want: 3},
		{spec: "plain:7", err: "thing plain: takes no positional argument"},
		{spec: "plain:q=1", err: "unknown parameter q (known: k)"},
		{spec: "amount:123", want: 3},
		{spec: "amount", err: "thing needs an amount"},
		{spec: "amount:1,k=2", err: "amount: takes no parameters (got k)"},
		{spec: "nope", err: `unknown thing "nope" (known: plain, amount)`},
	}
	for _, tt := range tests {
		got, _, err := g.Parse(tt.spec)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) error %v, want %q", tt.spec, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tt.spec, got, err, tt.want)
		}
	}
	if p := g.Entries()[1].Parameters(); len(p) != 1 || !strings.HasPrefix(p[0], "<argument>: how many") {
		t.Errorf("amount's parameters: %q", p)
	}
	if l := g.Entries()[1].Label(); l != "amount:<n>" {
		t.Errorf("label %q", l)
	}
}

func TestNonNegativeDuration(t *testing.T) {
	for in, want := range map[string]clock.Duration{"p": 5 * clock.Second, "p:d=0": 0, "p:d=0s": 0, "p:d=2.5": 2500 * clock.Millisecond} {
		sp, _ := Parse(in)
		r := NewReader(sp)
		if got := r.NonNegativeDuration("d", 5*clock.Second, "a wait"); got != want || r.Done() != nil {
			t.Errorf("%s: %v (%v), want %v", in, got, r.Done(), want)
		}
	}
	for in, want := range map[string]string{"p:d=-1s": "p: d: must be >= 0", "p:d=x": "p: d: "} {
		sp, _ := Parse(in)
		r := NewReader(sp)
		r.NonNegativeDuration("d", clock.Second, "a wait")
		if err := r.Done(); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}
