package section

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestRender(t *testing.T) {
	fsys := fstest.MapFS{
		"ok.tmpl":      {Data: []byte(`{{printf "%.1f" .X}} {{join ", " .L}}{{if isNaN .N}} –{{end}}`)},
		"badverb.tmpl": {Data: []byte(`{{printf "%d" .X}}`)},
		"missing.tmpl": {Data: []byte(`{{.Y}}`)},
	}
	data := struct {
		X, N float64
		L    []string
	}{1.25, nan(), []string{"a", "b"}}
	got, err := Render(fsys, "ok.tmpl", data)
	if err != nil || got != "1.2 a, b –" {
		t.Errorf("ok: %q, %v", got, err)
	}
	if _, err := Render(fsys, "badverb.tmpl", data); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("a float printed with %%d: err %v", err)
	}
	if _, err := Render(fsys, "missing.tmpl", map[string]any{}); err == nil {
		t.Error("a missing key rendered")
	}
	if _, err := Render(fsys, "missing.tmpl", data); err == nil {
		t.Error("a missing field rendered")
	}
}

func TestMeanDeref(t *testing.T) {
	if m := Mean([]float64{1, 2, 6}); m != 3 {
		t.Errorf("mean %v", m)
	}
	if m := Mean(nil); m == m {
		t.Errorf("mean of nothing %v, want NaN", m)
	}
	x := 2.5
	if Deref(&x) != 2.5 || Deref(nil) == Deref(nil) {
		t.Error("Deref")
	}
	if got := (Config{Seeds: 3}).SeedList(); len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Errorf("seeds %v", got)
	}
}

func nan() float64 { return Mean(nil) }
