package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// ManifestFile is the manifest's name in a shard's output directory.
const ManifestFile = "shard.json"

// Format names the manifest's layout, so a later layout is refused, not
// misread.
const Format = "spindle-shard/v1"

// Manifest describes one shard's part of a run. Every field but Shard and
// Ran is the same in every shard of one run; Merge refuses a shard whose
// fields differ.
type Manifest struct {
	Format  string `json:"format"`
	Command string `json:"command"`
	Version string `json:"spindle_version"`
	// Workload is the workload as named on the command line (it is recorded
	// in every summary) and the SHA-256 of its bytes.
	Workload Workload `json:"workload"`
	// Options are the command's settings that shape every cell (admission,
	// seed, estimates...), as KEY=VALUE strings, sorted.
	Options []string `json:"options"`
	// Cells is the whole run's cell list in canonical order, every shard's.
	Cells []Cell `json:"cells"`
	// Shard is this part, I/N.
	Shard string `json:"shard"`
	// Ran are the positions in Cells this shard ran, which Spec.Pick fixes.
	Ran []int `json:"ran"`
}

// Workload identifies the workload a run read.
type Workload struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// Cell is one independent simulation (or, for whatif's baseline, the
// simulation and the recorded run it reproduces). Runs are the run
// directories it writes, in the order the unsharded run lists them.
type Cell struct {
	Key  string   `json:"key"`
	Runs []string `json:"runs,omitempty"`
}

// Fingerprint is the SHA-256 of files' bytes, in order, each preceded by
// its length so that moving bytes between files changes the hash.
func Fingerprint(files ...string) (string, error) {
	h := sha256.New()
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("fingerprint workload: %w", err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return "", fmt.Errorf("fingerprint workload: %w", err)
		}
		fmt.Fprintf(h, "%d\n", st.Size())
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("fingerprint workload %s: %w", path, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// NewManifest fills a manifest for shard s of a run over cells.
func NewManifest(command, version string, w Workload, options []string, cells []Cell, s Spec) *Manifest {
	opts := append([]string{}, options...)
	sort.Strings(opts)
	return &Manifest{Format: Format, Command: command, Version: version, Workload: w, Options: opts,
		Cells: cells, Shard: s.String(), Ran: s.Pick(len(cells))}
}

// Write writes dir/shard.json, creating dir.
func (m *Manifest) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, ManifestFile), err)
	}
	path := filepath.Join(dir, ManifestFile)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Read reads dir/shard.json.
func Read(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dir); serr != nil {
				return nil, fmt.Errorf("shard %s: %w", dir, serr)
			}
			return nil, fmt.Errorf("shard %s: no %s: not the output of a run with --shard", dir, ManifestFile)
		}
		return nil, fmt.Errorf("shard %s: %w", dir, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("%s: format %q, this spindle reads %q", path, m.Format, Format)
	}
	return &m, nil
}

// Spec parses the manifest's shard.
func (m *Manifest) Spec() (Spec, error) { return Parse(m.Shard) }

// Part is one shard's output: its directory and manifest.
type Part struct {
	Dir      string
	Manifest *Manifest
	spec     Spec
}

// Check reads the manifests of dirs and checks that they are the shards
// 0..N-1 of one run, each once: same command, spindle version, workload,
// options and cells, and each having run exactly its cells. It returns the
// parts in shard order. Errors name the offending shard's directory.
func Check(dirs []string) ([]Part, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no shard directories given")
	}
	var parts []Part
	for _, d := range dirs {
		m, err := Read(d)
		if err != nil {
			return nil, err
		}
		s, err := m.Spec()
		if err != nil {
			return nil, fmt.Errorf("shard %s: %w", d, err)
		}
		if want := s.Pick(len(m.Cells)); !reflect.DeepEqual(m.Ran, want) {
			return nil, fmt.Errorf("shard %s (%s): it ran cells %v, but shard %s of %d cells is %v: the manifest is damaged",
				d, m.Shard, m.Ran, m.Shard, len(m.Cells), want)
		}
		parts = append(parts, Part{Dir: d, Manifest: m, spec: s})
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].spec.Index < parts[j].spec.Index })
	ref := parts[0]
	for _, p := range parts[1:] {
		if err := sameRun(ref, p); err != nil {
			return nil, err
		}
	}
	n := ref.spec.Count
	seen := map[int]string{}
	for _, p := range parts {
		if prev, ok := seen[p.spec.Index]; ok {
			return nil, fmt.Errorf("shard %s is given twice: %s and %s", p.Manifest.Shard, prev, p.Dir)
		}
		seen[p.spec.Index] = p.Dir
	}
	var missing []string
	for i := range n {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shard %s missing (%d of %d given)", plural(missing), len(parts), n)
	}
	return parts, nil
}

func plural(s []string) string {
	if len(s) == 1 {
		return s[0] + " is"
	}
	if len(s) > 6 {
		return fmt.Sprintf("%s ... %s (%d shards) are", strings.Join(s[:3], ", "), s[len(s)-1], len(s))
	}
	return strings.Join(s, ", ") + " are"
}

// sameRun says how p differs from ref, if it does, naming p as foreign.
func sameRun(ref, p Part) error {
	a, b := ref.Manifest, p.Manifest
	foreign := func(what, theirs, ours string) error {
		return fmt.Errorf("shard %s (%s) is from another run: its %s is %s, shard %s (%s) has %s",
			p.Dir, b.Shard, what, theirs, ref.Dir, a.Shard, ours)
	}
	switch {
	case a.Command != b.Command:
		return foreign("command", b.Command, a.Command)
	case a.Version != b.Version:
		return foreign("spindle version", b.Version, a.Version)
	case a.Workload.SHA256 != b.Workload.SHA256:
		return foreign("workload", fmt.Sprintf("%s (sha256 %.12s)", b.Workload.Name, b.Workload.SHA256),
			fmt.Sprintf("%s (sha256 %.12s)", a.Workload.Name, a.Workload.SHA256))
	case a.Workload.Name != b.Workload.Name:
		return foreign("workload name", b.Workload.Name, a.Workload.Name)
	case !reflect.DeepEqual(cellKeys(a.Cells), cellKeys(b.Cells)):
		return foreign("cell list (policies, admissions, seeds)", strings.Join(cellKeys(b.Cells), ","), strings.Join(cellKeys(a.Cells), ","))
	case !reflect.DeepEqual(a.Cells, b.Cells):
		return foreign("run directories", fmt.Sprint(b.Cells), fmt.Sprint(a.Cells))
	case !reflect.DeepEqual(a.Options, b.Options):
		return foreign("option list", strings.Join(b.Options, " "), strings.Join(a.Options, " "))
	case ref.spec.Count != p.spec.Count:
		return foreign("shard count", fmt.Sprint(p.spec.Count), fmt.Sprint(ref.spec.Count))
	}
	return nil
}

func cellKeys(cs []Cell) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Key
	}
	return out
}
