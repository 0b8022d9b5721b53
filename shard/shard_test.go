package shard

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/quick"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Spec
		err  string
	}{
		{"0/1", Spec{0, 1}, ""},
		{"3/4", Spec{3, 4}, ""},
		{" 2/10 ", Spec{2, 10}, ""},
		{"4/4", Spec{}, "I must be in 0..3"},
		{"-1/4", Spec{}, "I must be in 0..3"},
		{"0/0", Spec{}, "N must be at least 1"},
		{"1", Spec{}, "want I/N"},
		{"a/4", Spec{}, "whole numbers"},
		{"1/b", Spec{}, "whole numbers"},
		{"", Spec{}, "want I/N"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if got.String() != strings.TrimSpace(tc.in) {
			t.Errorf("String() = %q, want %q", got.String(), strings.TrimSpace(tc.in))
		}
	}
}

func TestPick(t *testing.T) {
	for _, tc := range []struct {
		s    Spec
		n    int
		want []int
	}{
		{Spec{0, 1}, 3, []int{0, 1, 2}},
		{Spec{0, 2}, 5, []int{0, 2, 4}},
		{Spec{1, 2}, 5, []int{1, 3}},
		{Spec{2, 3}, 7, []int{2, 5}},
		{Spec{4, 8}, 3, []int{}},
		{Spec{0, 4}, 0, []int{}},
	} {
		if got := tc.s.Pick(tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v.Pick(%d) = %v, want %v", tc.s, tc.n, got, tc.want)
		}
	}
}

// Every N covers every cell exactly once, with shard sizes at most one
// apart, and Owns agrees with Pick.
func TestPickPartitions(t *testing.T) {
	f := func(n8, c8 uint8) bool {
		n, cells := int(n8%40)+1, int(c8%100)
		count := make([]int, cells)
		lo, hi := cells, 0
		for i := range n {
			s := Spec{i, n}
			p := s.Pick(cells)
			lo, hi = min(lo, len(p)), max(hi, len(p))
			for _, k := range p {
				if !s.Owns(k) {
					return false
				}
				count[k]++
			}
		}
		for _, c := range count {
			if c != 1 {
				return false
			}
		}
		return hi-lo <= 1
	}
	if err := quick.Check(f, nil); err != nil {
		t.Error(err)
	}
}

func cells(keys ...string) []Cell {
	var out []Cell
	for _, k := range keys {
		out = append(out, Cell{Key: "policy=" + k, Runs: []string{k}})
	}
	return out
}

// writeShards writes the manifests of an n-shard run into dir/p0...; mod
// changes shard i's manifest before it is written.
func writeShards(t *testing.T, dir string, n int, mod func(i int, m *Manifest)) []string {
	t.Helper()
	var dirs []string
	for i := range n {
		m := NewManifest("compare", "1.0", Workload{Name: "w.yaml", SHA256: "abc"}, []string{"seed=1", "admission=none"},
			cells("fifo", "fair", "drf"), Spec{i, n})
		if mod != nil {
			mod(i, m)
		}
		d := filepath.Join(dir, "p"+string(rune('0'+i)))
		if err := m.Write(d); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	ok := writeShards(t, filepath.Join(dir, "ok"), 3, nil)
	// Given out of order: parts come back in shard order.
	parts, err := Check([]string{ok[2], ok[0], ok[1]})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range parts {
		if p.Dir != ok[i] {
			t.Errorf("part %d is %s, want %s", i, p.Dir, ok[i])
		}
	}
	other := func(name string, mod func(i int, m *Manifest)) []string {
		return writeShards(t, filepath.Join(dir, name), 3, func(i int, m *Manifest) {
			if i == 1 {
				mod(i, m)
			}
		})
	}
	for _, tc := range []struct {
		name string
		dirs []string
		want string
	}{
		{"missing", ok[:2], "shard 2/3 is missing (2 of 3 given)"},
		{"two missing", ok[:1], "shard 1/3, 2/3 are missing"},
		{"duplicated", []string{ok[0], ok[1], ok[1], ok[2]}, "shard 1/3 is given twice"},
		{"not a shard", []string{ok[0], dir}, "no shard.json"},
		{"absent", []string{ok[0], filepath.Join(dir, "nope")}, "no such file"},
		{"version", other("version", func(_ int, m *Manifest) { m.Version = "2.0" }), "spindle version is 2.0"},
		{"workload", other("workload", func(_ int, m *Manifest) { m.Workload.SHA256 = "def" }), "its workload is w.yaml (sha256 def)"},
		{"policies", other("policies", func(_ int, m *Manifest) { m.Cells = cells("fifo", "drf", "fair"); m.Ran = []int{1} }),
			"its cell list (policies, admissions, seeds) is policy=fifo,policy=drf,policy=fair"},
		{"options", other("options", func(_ int, m *Manifest) { m.Options = []string{"admission=none", "seed=2"} }), "its option list is admission=none seed=2"},
		{"command", other("command", func(_ int, m *Manifest) { m.Command = "whatif" }), "its command is whatif"},
		{"count", other("count", func(_ int, m *Manifest) { m.Shard = "1/4"; m.Ran = []int{1} }), "its shard count is 4"},
		{"damaged", other("damaged", func(_ int, m *Manifest) { m.Ran = []int{0} }), "the manifest is damaged"},
	} {
		_, err := Check(tc.dirs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Check = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	// A foreign shard is named by its directory.
	_, err = Check(other("named", func(_ int, m *Manifest) { m.Version = "9" }))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "named", "p1")+" (1/3)") {
		t.Errorf("foreign shard not named: %v", err)
	}
}

func TestReadRefusesOtherFormat(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"format":"spindle-shard/v9"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), `format "spindle-shard/v9"`) {
		t.Errorf("Read = %v", err)
	}
}

func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b, c, d := write("a", "ab"), write("b", "c"), write("c", "a"), write("d", "bc")
	h1, err := Fingerprint(a, b)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := Fingerprint(c, d)
	h3, _ := Fingerprint(write("e", "ab"), write("f", "c"))
	if h1 == h2 {
		t.Error("moving a byte between files kept the hash")
	}
	if h1 != h3 {
		t.Error("the same bytes in other files changed the hash")
	}
	if _, err := Fingerprint(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing file gave a hash")
	}
}
