package report

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The run directories under testdata/ were written by
//
//	spindle compare -q -w ../../examples/tiny.json -p fifo,fair,drf -o tiny
//	spindle compare -q -w goals.yaml -p fifo,fair -o goals
//
// with the summaries cut to the keys the report reads and wall_s fixed,
// and two hand-written report sections added to goals/ (a "testsection" in
// the generic shape for fair, an "opaque" array for fifo). They are inputs:
// the golden files under testdata/golden/ are what the report draws from
// them. Run `go test ./report -update` after an intended change to the
// drawing, and look at the result in a browser.
var update = flag.Bool("update", false, "rewrite the golden files")

var testOpt = Options{Generator: "spindle test"}

func render(t *testing.T, dir string) string {
	t.Helper()
	runs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, runs, testOpt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if got != string(want) {
		g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		line := func(ls []string) string {
			if i < len(ls) {
				return ls[i]
			}
			return "(end of file)"
		}
		t.Errorf("%s differs from the golden file at line %d:\n got: %.300s\nwant: %.300s\n(run go test ./report -update after an intended change)", path, i+1, line(g), line(w))
	}
}

// TestGoldenSVG compares every chart of the two tiny reports with its
// golden SVG, and the whole pages too.
func TestGoldenSVG(t *testing.T) {
	for _, ds := range []string{"tiny", "goals"} {
		runs, err := Load(filepath.Join("testdata", ds))
		if err != nil {
			t.Fatal(err)
		}
		p := build(runs, testOpt)
		n := 0
		for _, s := range p.Sections {
			for _, f := range s.Figures {
				golden(t, ds+"-"+f.ID+".svg", string(f.SVG))
				n++
			}
		}
		want := map[string]int{"tiny": 5, "goals": 7}[ds]
		if n != want {
			t.Errorf("%s: %d charts, want %d", ds, n, want)
		}
		golden(t, ds+"-report.html", render(t, filepath.Join("testdata", ds)))
	}
}

// element is a parsed element of the page, with its children.
type element struct {
	name  string
	attrs map[string]string
	kids  []*element
	text  string
}

// parse reads the page as strict XML: the template writes it so, which
// checks that every element is closed and every attribute quoted.
func parse(t *testing.T, page string) *element {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	root := &element{name: "#root"}
	stack := []*element{root}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			e := &element{name: x.Name.Local, attrs: map[string]string{}}
			for _, a := range x.Attr {
				name := a.Name.Local
				if a.Name.Space != "" {
					name = a.Name.Space + ":" + name
				}
				e.attrs[name] = a.Value
			}
			top := stack[len(stack)-1]
			top.kids = append(top.kids, e)
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			stack[len(stack)-1].text += string(x)
		}
	}
	if len(stack) != 1 {
		t.Fatalf("%d elements left open", len(stack)-1)
	}
	return root
}

func (e *element) walk(f func(*element)) {
	f(e)
	for _, k := range e.kids {
		k.walk(f)
	}
}

func (e *element) all(name string) []*element {
	var out []*element
	e.walk(func(x *element) {
		if x.name == name {
			out = append(out, x)
		}
	})
	return out
}

func (e *element) hasClass(c string) bool {
	for _, f := range strings.Fields(e.attrs["class"]) {
		if f == c {
			return true
		}
	}
	return false
}

// TestSelfContained checks that the page loads nothing: no element that
// fetches, no reference that is not to the page itself, no URL at all.
func TestSelfContained(t *testing.T) {
	for _, ds := range []string{"tiny", "goals"} {
		page := render(t, filepath.Join("testdata", ds))
		if !strings.HasPrefix(page, "<!DOCTYPE html>\n") {
			t.Errorf("%s: no doctype", ds)
		}
		for _, bad := range []string{"http:", "https:", "//cdn", "@import", "url(", "@font-face"} {
			if strings.Contains(strings.ToLower(page), bad) {
				t.Errorf("%s: page contains %q", ds, bad)
			}
		}
		root := parse(t, page)
		forbidden := map[string]bool{"script": true, "link": true, "img": true, "iframe": true, "object": true,
			"embed": true, "audio": true, "video": true, "source": true, "base": true, "form": true, "image": true, "use": true}
		ids := map[string]bool{}
		root.walk(func(e *element) {
			if forbidden[e.name] {
				t.Errorf("%s: <%s> element", ds, e.name)
			}
			for k, v := range e.attrs {
				switch k {
				case "href", "src", "xlink:href", "action", "srcset", "poster", "data":
					if !strings.HasPrefix(v, "#") {
						t.Errorf("%s: <%s %s=%q> refers outside the page", ds, e.name, k, v)
					}
				case "id":
					if ids[v] {
						t.Errorf("%s: id %q twice", ds, v)
					}
					ids[v] = true
				}
				if strings.HasPrefix(k, "on") {
					t.Errorf("%s: event handler %s on <%s>", ds, k, e.name)
				}
			}
		})
		// Every in-page link has a target.
		for _, a := range root.all("a") {
			if !ids[strings.TrimPrefix(a.attrs["href"], "#")] {
				t.Errorf("%s: link %q has no target", ds, a.attrs["href"])
			}
		}
	}
}

// TestSectionsAndSeries checks that each section has its chart and that
// each chart draws one series per run (plus the external-load band).
func TestSectionsAndSeries(t *testing.T) {
	type want struct{ charts, series, tables int }
	cases := map[string]map[string]want{
		"tiny": {
			"summary": {0, 0, 1}, "wait": {1, 3, 0}, "jct": {1, 3, 0}, "cdf": {1, 3, 0},
			"throughput": {1, 3, 0}, "utilization": {1, 3, 0}, "jobs": {0, 0, 1},
		},
		"goals": {
			"summary": {0, 0, 1}, "wait": {1, 2, 0}, "jct": {1, 2, 0}, "cdf": {1, 2, 0},
			"throughput": {1, 2, 0}, "utilization": {1, 3, 0}, "goals": {1, 2, 1},
			"internals-opaque": {0, 0, 0}, "internals-testsection": {1, 2, 2}, "jobs": {0, 0, 1},
		},
	}
	for ds, sections := range cases {
		root := parse(t, render(t, filepath.Join("testdata", ds)))
		got := map[string]bool{}
		for _, sec := range root.all("section") {
			id := sec.attrs["id"]
			got[id] = true
			w, ok := sections[id]
			if !ok {
				t.Errorf("%s: unexpected section %q", ds, id)
				continue
			}
			var charts []*element
			sec.walk(func(e *element) {
				if e.name == "figure" && e.hasClass("chart") {
					charts = append(charts, e)
				}
			})
			if len(charts) != w.charts {
				t.Errorf("%s/%s: %d charts, want %d", ds, id, len(charts), w.charts)
			}
			if n := len(sec.all("table")); n != w.tables {
				t.Errorf("%s/%s: %d tables, want %d", ds, id, n, w.tables)
			}
			for _, c := range charts {
				series := 0
				c.walk(func(e *element) {
					if e.name == "g" && e.hasClass("series") {
						series++
					}
				})
				if series != w.series {
					t.Errorf("%s/%s: %d series, want %d", ds, id, series, w.series)
				}
				if c.attrs["data-series"] != strconv.Itoa(w.series) {
					t.Errorf("%s/%s: data-series %q, want %d", ds, id, c.attrs["data-series"], w.series)
				}
				svgs := c.all("svg")
				if len(svgs) != 1 {
					t.Fatalf("%s/%s: %d svg elements", ds, id, len(svgs))
				}
				// Title, axis labels with units and a legend.
				var texts []string
				svgs[0].walk(func(e *element) {
					if e.name == "text" {
						texts = append(texts, e.text)
					}
				})
				joined := strings.Join(texts, "|")
				if len(svgs[0].all("g")) == 0 || !strings.Contains(joined, "|") {
					t.Errorf("%s/%s: chart has no text", ds, id)
				}
				legends := 0
				svgs[0].walk(func(e *element) {
					if e.name == "g" && e.hasClass("legend") {
						legends++
					}
				})
				if legends != 1 {
					t.Errorf("%s/%s: %d legends", ds, id, legends)
				}
				if id != "internals-testsection" && !regexp.MustCompile(`\((s|min|h|d|%)\)`).MatchString(joined) {
					t.Errorf("%s/%s: no axis label with a unit in %q", ds, id, joined)
				}
			}
		}
		for id := range sections {
			if !got[id] {
				t.Errorf("%s: section %q missing", ds, id)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	a := render(t, filepath.Join("testdata", "goals"))
	b := render(t, filepath.Join("testdata", "goals"))
	if a != b {
		t.Fatal("two renderings of the same directory differ")
	}
}

// TestBest checks the highlighted cells against the goals data: fair waits
// less (7 s vs 22 s for small-c) and both complete every job.
func TestBest(t *testing.T) {
	runs, err := Load(filepath.Join("testdata", "goals"))
	if err != nil {
		t.Fatal(err)
	}
	tab := summaryTable(runs)
	row := func(label string) []cell {
		for _, r := range tab.Rows {
			if r[0].Text == label {
				return r[1:]
			}
		}
		t.Fatalf("no row %q", label)
		return nil
	}
	if w := row("wait avg (s)"); w[0].Class != "" || w[1].Class != "best" || w[0].Text != "9.8" || w[1].Text != "6.0" {
		t.Errorf("wait avg: %+v", w)
	}
	if c := row("jobs completed"); c[0].Class != "" || c[1].Class != "" || c[0].Text != "4/4" {
		t.Errorf("jobs completed (a tie is not highlighted): %+v", c)
	}
	if m := row("makespan (s)"); m[0].Class != "" || m[1].Class != "" {
		t.Errorf("equal makespans: %+v", m)
	}
	if g := row("goals met (fraction)"); g[0].Text != "0.333" || g[0].Class != "" {
		t.Errorf("goals: %+v", g)
	}
	for _, r := range tab.Rows {
		if r[0].Text == "wall (s)" {
			t.Error("the table shows wall time, which differs between identical runs")
		}
	}
}

func TestSingleRun(t *testing.T) {
	runs, err := Load(filepath.Join("testdata", "goals", "fair"))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Name != "fair" {
		t.Fatalf("runs %v", runs)
	}
	var b bytes.Buffer
	if err := Render(&b, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	root := parse(t, b.String())
	for _, td := range root.all("td") {
		if td.hasClass("best") {
			t.Error("a single run highlights a best value")
		}
	}
	if !strings.Contains(b.String(), "Policy internals: Reserved ratio") {
		t.Error("the generic section's title is not used")
	}
}

// TestEscaping: section data cannot inject markup.
func TestEscaping(t *testing.T) {
	page := render(t, filepath.Join("testdata", "goals"))
	if strings.Contains(page, "<script>") || strings.Contains(page, "<b>") {
		t.Error("section data reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;") || !strings.Contains(page, "small-a, small-c &lt;b&gt;") {
		t.Error("escaped section data not shown")
	}
}
