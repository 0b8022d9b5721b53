package datadriven

import (
	"strings"
	"testing"
)

func TestParseAndFormatRoundTrip(t *testing.T) {
	text := `# a comment
node add name=n1 cpu=4,8 bare
----
node n1 id=0
two lines

# second
state
input line
----
`
	cases, err := Parse("f.txt", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases, want 2", len(cases))
	}
	c := cases[0]
	if c.Pos != "f.txt:2" || c.Cmd != "node" || c.Comment != "# a comment" || c.Want != "node n1 id=0\ntwo lines" {
		t.Errorf("first case parsed as %+v", c)
	}
	if !c.Has("add") || !c.Has("bare") || c.Has("x") || c.Get("name", "") != "n1" || c.Get("x", "d") != "d" || strings.Join(c.List("cpu"), "|") != "4|8" {
		t.Errorf("arguments parsed as %+v", c.Args)
	}
	if cases[1].Input != "input line" || cases[1].Want != "" {
		t.Errorf("second case parsed as %+v", cases[1])
	}
	if got := Format(cases, []string{cases[0].Want, ""}); got != text {
		t.Errorf("round trip:\n%s\nwant:\n%s", got, text)
	}
}

func TestParseErrors(t *testing.T) {
	if _, err := Parse("f.txt", "cmd\nno separator\n"); err == nil || !strings.Contains(err.Error(), "f.txt:1") {
		t.Errorf("missing separator: error %v, want one naming f.txt:1", err)
	}
}

// FuzzParse: no input may panic the reader, and what it reads formats back
// to text it reads the same way.
func FuzzParse(f *testing.F) {
	f.Add("cmd a=1,2 b\n----\nout\n\n# c\nnext\nin\n----\n")
	f.Add("x\n----")
	f.Add("----\n----\n")
	f.Fuzz(func(t *testing.T, text string) {
		cases, err := Parse("f", text)
		if err != nil {
			return
		}
		outs := make([]string, len(cases))
		for i, c := range cases {
			outs[i] = c.Want
		}
		again, err := Parse("f", Format(cases, outs))
		if err != nil {
			t.Fatalf("formatted cases do not parse: %v", err)
		}
		if len(again) != len(cases) {
			t.Fatalf("%d cases read back as %d", len(cases), len(again))
		}
	})
}
