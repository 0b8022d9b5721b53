package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// wallField matches the host time a run took, in a table row or a JSON
// field: the one thing allowed to differ between two runs.
var wallField = regexp.MustCompile(`(?m)^ *wall \(s\).*$|"wall_s": ?[0-9.e+-]+`)

func withoutWall(b []byte) []byte { return wallField.ReplaceAll(b, []byte("wall")) }

// Commands that run independent simulations concurrently must print the
// same bytes (and write the same files) whatever -j is, so that a sweep on
// a many-core machine is the sweep a laptop would have run.
func TestParallelOutputIsByteIdentical(t *testing.T) {
	aa := genAutoAdmin(t, "--am", "2", "--task", "2", "--jobs", "24")
	cases := []struct {
		name string
		args []string
		dir  bool // the command takes -o DIR
	}{
		{"compare table", []string{"compare", "-w", "../../examples/mixed.yaml", "-p", "fifo,capacity,fair,drf,sjf,dress,tetris,djsf", "--seed", "3", "-q"}, false},
		{"compare json", []string{"compare", "-w", tiny, "-p", "fifo,fair:max_am_share=-1,drf,tetris", "--json"}, true},
		{"sweep table", []string{"sweep", "-w", aa, "-p", "fair:max_am_share=-1", "--static", "0:40:10", "--with", "autoadmin", "--seeds", "3"}, false},
		{"sweep json", []string{"sweep", "-w", aa, "-p", "fair:max_am_share=-1", "--static", "0:40:10", "--with", "autoadmin+", "--seeds", "2", "--json"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var outs [2][]byte
			var dirs [2]string
			for i, j := range []int{1, 4} {
				args := append(append([]string{}, c.args...), "-j", strconv.Itoa(j))
				if c.dir {
					dirs[i] = filepath.Join(t.TempDir(), "out")
					args = append(args, "-o", dirs[i])
				}
				out, errOut, code := run(t, args...)
				if code != 0 {
					t.Fatalf("-j %d: exit %d: %s", j, code, errOut)
				}
				if len(out) == 0 {
					t.Fatalf("-j %d printed nothing", j)
				}
				outs[i] = withoutWall([]byte(out))
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Fatalf("-j 1 and -j 4 printed different output:\n%s\n---\n%s", outs[0], outs[1])
			}
			if c.dir {
				compareTrees(t, dirs[0], dirs[1])
			}
		})
	}
}

// compareTrees checks that two result directories hold the same files with
// the same contents, host time aside.
func compareTrees(t *testing.T, a, b string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		x, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil {
			return err
		}
		if !bytes.Equal(withoutWall(x), withoutWall(y)) {
			t.Errorf("%s differs between -j 1 and -j 4", rel)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Fatalf("only %d files written", n)
	}
}

// experimentsFlag runs TestExperimentsParallelIsByteIdentical, which runs
// three whole experiments twice: several minutes of CPU, most of what
// go test ./... would spend. .ci/run runs it as a step of its own.
var experimentsFlag = flag.Bool("experiments", false, "also run TestExperimentsParallelIsByteIdentical (minutes; .ci/run runs it)")

// The reproduction reports run their simulations concurrently too; the
// section they print must not depend on how many ran at once. (djsf is left
// out: one seed of it takes tens of seconds.) Each experiment's package
// checks the same of its own runs on a few cases (experiments/adaptive
// TestRunAllIgnoresParallelism, experiments/autoadmin TestStaticSweep, and
// runner's ordered RunAll through TestParallelOutputIsByteIdentical); this
// is the whole command, end to end.
func TestExperimentsParallelIsByteIdentical(t *testing.T) {
	if !*experimentsFlag {
		t.Skip("runs three whole experiments twice; run with -experiments (.ci/run does)")
	}
	for _, name := range []string{"dress", "adaptive", "autoadmin"} {
		t.Run(name, func(t *testing.T) {
			var outs [2]string
			for i, j := range []string{"1", "4"} {
				out, errOut, code := run(t, "experiments", name, "--seeds", "1", "--print", "-j", j)
				if code != 0 {
					t.Fatalf("-j %s: exit %d: %s", j, code, errOut)
				}
				if !strings.Contains(out, "|") {
					t.Fatalf("-j %s printed no table:\n%s", j, out)
				}
				outs[i] = out
			}
			if outs[0] != outs[1] {
				t.Fatalf("-j 1 and -j 4 printed different sections:\n%s\n---\n%s", outs[0], outs[1])
			}
		})
	}
}
