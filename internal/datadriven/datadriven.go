// Package datadriven runs scripted test files: each case is a command line,
// optional input lines, a "----" separator and the output expected, ended by
// a blank line. Lines starting with # between cases are comments. A test
// hands each case to a function and compares what it returns with the
// expected text; with -rewrite the files are rewritten with what it returned
// instead, for review in the diff.
//
//	node add name=n1 cpu=4 mem=4096
//	----
//	node n1 id=0
//
// Arguments are words, either bare ("am") or key=value ("cpu=4");
// key=a,b gives a list.
package datadriven

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite datadriven test files with the output produced")

// Case is one scripted step.
type Case struct {
	Pos   string // file:line of the command
	Cmd   string
	Args  []Arg
	Input string // lines between the command and the separator
	Want  string
	// Comment is the comment lines before the case, kept by a rewrite.
	Comment string
}

// Arg is one word of a command line.
type Arg struct {
	Key  string
	Vals []string // nil for a bare word
}

// Has reports whether the command carries argument key.
func (c *Case) Has(key string) bool {
	_, ok := c.lookup(key)
	return ok
}

// Get returns the value of key=value, or def when absent.
func (c *Case) Get(key, def string) string {
	a, ok := c.lookup(key)
	if !ok || len(a.Vals) == 0 {
		return def
	}
	return strings.Join(a.Vals, ",")
}

// List returns the values of key=a,b,..., or nil.
func (c *Case) List(key string) []string {
	a, _ := c.lookup(key)
	return a.Vals
}

func (c *Case) lookup(key string) (Arg, bool) {
	for _, a := range c.Args {
		if a.Key == key {
			return a, true
		}
	}
	return Arg{}, false
}

// Parse reads the cases of a file's text; name is used in positions and
// errors.
func Parse(name, text string) ([]Case, error) {
	var cases []Case
	sc := bufio.NewScanner(strings.NewReader(text))
	line := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return sc.Text(), true
	}
	var comment []string
	for {
		l, ok := next()
		if !ok {
			return cases, sc.Err()
		}
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "#") {
			comment = append(comment, t)
			continue
		}
		c := Case{Pos: fmt.Sprintf("%s:%d", name, line), Comment: strings.Join(comment, "\n")}
		comment = nil
		fields := strings.Fields(t)
		c.Cmd = fields[0]
		for _, f := range fields[1:] {
			k, v, kv := strings.Cut(f, "=")
			a := Arg{Key: k}
			if kv {
				a.Vals = strings.Split(v, ",")
			}
			c.Args = append(c.Args, a)
		}
		var input []string
		for {
			l, ok = next()
			if !ok {
				return nil, fmt.Errorf("%s: no ---- after the command", c.Pos)
			}
			if l == "----" {
				break
			}
			input = append(input, l)
		}
		c.Input = strings.Join(input, "\n")
		var want []string
		for {
			l, ok = next()
			if !ok || l == "" {
				break
			}
			want = append(want, l)
		}
		c.Want = strings.Join(want, "\n")
		cases = append(cases, c)
	}
}

// Format renders cases back into file text, with the given outputs in place
// of the expected ones.
func Format(cases []Case, outputs []string) string {
	var b strings.Builder
	for i, c := range cases {
		if i > 0 {
			b.WriteString("\n")
		}
		if c.Comment != "" {
			b.WriteString(c.Comment + "\n")
		}
		b.WriteString(c.Cmd)
		for _, a := range c.Args {
			b.WriteString(" " + a.Key)
			if a.Vals != nil {
				b.WriteString("=" + strings.Join(a.Vals, ","))
			}
		}
		b.WriteString("\n")
		if c.Input != "" {
			b.WriteString(c.Input + "\n")
		}
		b.WriteString("----\n")
		if out := strings.TrimRight(outputs[i], "\n"); out != "" {
			b.WriteString(out + "\n")
		}
	}
	return b.String()
}

// RunFile runs every case of file path through f in order and fails t where
// the output differs from the expected; with -rewrite it rewrites the file
// instead, keeping the comments before each case.
func RunFile(t *testing.T, path string, f func(t *testing.T, c *Case) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := Parse(path, string(data))
	if err != nil {
		t.Fatal(err)
	}
	outputs := make([]string, len(cases))
	for i := range cases {
		c := &cases[i]
		out := strings.TrimRight(f(t, c), "\n")
		outputs[i] = out
		if !*rewrite && out != c.Want {
			t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", c.Pos, c.Cmd, out, c.Want)
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(Format(cases, outputs)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
