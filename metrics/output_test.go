package metrics

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/workload"
)

func TestWriteExternalLoadFile(t *testing.T) {
	dir := t.TempDir()
	if err := WriteExternalLoadFile(dir, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ExternalLoadFile)); !os.IsNotExist(err) {
		t.Fatalf("a run without external load got %s (%v)", ExternalLoadFile, err)
	}
	l := &workload.ExternalLoad{Points: []workload.LoadPoint{{At: 0, Frac: 0.1}, {At: 1500 * clock.Millisecond, Frac: 1.0 / 3}}, Period: 30 * clock.Second}
	if err := WriteExternalLoadFile(dir, l); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ExternalLoadFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"points":[[0,0.1],[1.5,0.3333333333333333]],"period_s":30}` + "\n"; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
