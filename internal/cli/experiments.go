package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/experiments"
	"github.com/spindle-sched/spindle/shard"
)

func newExperiments() *cobra.Command {
	cfg := experiments.Config{Seeds: 5}
	var out string
	var print bool
	var sh shardFlag
	cmd := &cobra.Command{
		Use:   "experiments NAME [--seeds N] [-o EXPERIMENTS.md] [--shard I/N -o DIR]",
		Short: "Regenerate a reproduction report section of EXPERIMENTS.md",
		Long: `Run one paper's evaluation over several seeds and write its section of
EXPERIMENTS.md in place (other sections are kept), next to the paper's own
numbers. --print writes the section to stdout instead.

--shard I/N -o DIR runs only shard I of the experiment's simulations and
writes what the section needs of each to DIR; 'spindle merge -o
EXPERIMENTS.md DIR...' then writes the section one run without --shard
writes, byte for byte.

Experiments:
` + experimentList(),
		Example: `  spindle experiments dress --seeds 5
  spindle experiments djsf --seeds 1 --print
  spindle experiments dress --seeds 5 --shard 0/2 -o part0 &
  spindle experiments dress --seeds 5 --shard 1/2 -o part1
  wait; spindle merge -o EXPERIMENTS.md part0 part1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkParallel(cmd, cfg.Parallel); err != nil {
				return err
			}
			e, ok := experiments.Lookup(args[0])
			if !ok {
				var names []string
				for _, x := range experiments.All() {
					names = append(names, x.Name)
				}
				return usagef("unknown experiment %q (known: %s)", args[0], strings.Join(names, ", "))
			}
			if cfg.Seeds < 1 {
				return usagef("--seeds must be at least 1")
			}
			cfg.Log = cmd.ErrOrStderr()
			if sh.on() {
				if print {
					return usagef("--shard writes its part to -o DIR, not a section: --print the merged section with 'spindle merge'")
				}
				if !cmd.Flags().Changed("out") {
					out = ""
				}
				if err := sh.parse(out); err != nil {
					return err
				}
				return runExperimentsShard(cmd, e, cfg, sh.spec, out)
			}
			body, err := e.Run(cfg)
			if err != nil {
				return err
			}
			if print {
				fmt.Fprintln(cmd.OutOrStdout(), body)
				return nil
			}
			if err := experiments.WriteSection(out, e, body); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote section %q of %s\n", e.Name, out)
			return nil
		},
	}
	cmd.Flags().IntVar(&cfg.Seeds, "seeds", cfg.Seeds, "seeds per setting")
	cmd.Flags().IntVarP(&cfg.Parallel, "parallel", "j", 0, "simulations at once (default: one per CPU)")
	cmd.Flags().StringVarP(&out, "out", "o", "EXPERIMENTS.md", "the markdown file to update")
	cmd.Flags().BoolVar(&print, "print", false, "print the section instead of writing the file")
	sh.register(cmd)
	return cmd
}

// experimentList is the registry's experiments, one a line, for --help.
func experimentList() string {
	var b strings.Builder
	for _, e := range experiments.All() {
		fmt.Fprintf(&b, "  %-10s %s\n", e.Name, e.Title)
	}
	return strings.TrimRight(b.String(), "\n")
}

// keptFile holds the figures a shard of an experiment kept, by cell.
const keptFile = "kept.json"

// keptCell is one cell's figures in keptFile.
type keptCell struct {
	Cell    int             `json:"cell"`
	Figures json.RawMessage `json:"figures"`
}

// experimentID stands for the workload of an experiment's shards: the
// experiment generates its own workloads, which its cells' keys name, so
// the keys' hash tells one experiment or seed count from another.
func experimentID(name string, keys []string) shard.Workload {
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintln(h, k)
	}
	return shard.Workload{Name: "experiment " + name, SHA256: hex.EncodeToString(h.Sum(nil))}
}

func experimentOptions(name string, seeds int) []string {
	return []string{"experiment=" + name, "seeds=" + strconv.Itoa(seeds)}
}

// runExperimentsShard runs shard s of e's simulations and writes the
// figures it kept and its manifest to out (the manifest last: a shard that
// failed leaves none, and merge names it missing).
func runExperimentsShard(cmd *cobra.Command, e experiments.Experiment, cfg experiments.Config, s shard.Spec, out string) error {
	cells := experiments.Share(s.Owns)
	cfg.Cells = cells
	if _, err := e.Run(cfg); err != nil {
		return err
	}
	keys := cells.Keys()
	mc := make([]shard.Cell, len(keys))
	for i, k := range keys {
		mc[i] = shard.Cell{Key: k}
	}
	m := shard.NewManifest("experiments", version(), experimentID(e.Name, keys), experimentOptions(e.Name, cfg.Seeds), mc, s)
	kept := cells.Kept()
	list := make([]keptCell, 0, len(m.Ran))
	for _, k := range m.Ran {
		raw, ok := kept[k]
		if !ok {
			return fmt.Errorf("experiments %s: shard %s did not run its cell %d (%s)", e.Name, s, k, keys[k])
		}
		list = append(list, keptCell{Cell: k, Figures: raw})
	}
	if len(kept) != len(list) {
		return fmt.Errorf("experiments %s: shard %s ran %d cells, %d of them its own", e.Name, s, len(kept), len(list))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	b, err := json.Marshal(list)
	if err != nil {
		return fmt.Errorf("experiments %s: %w", e.Name, err)
	}
	path := filepath.Join(out, keptFile)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	noteShard(cmd.ErrOrStderr(), s, m)
	return m.Write(out)
}

// mergeExperiments replays an experiment on the figures its shards kept
// and writes its section into the markdown file out, as 'spindle
// experiments NAME -o out' does.
func mergeExperiments(cmd *cobra.Command, out string, parts []shard.Part) error {
	m := parts[0].Manifest
	opt := optionMap(m)
	e, ok := experiments.Lookup(opt["experiment"])
	if !ok {
		return fmt.Errorf("merge: shard %s: experiment %q is not one of this spindle's", parts[0].Dir, opt["experiment"])
	}
	seeds, err := strconv.Atoi(opt["seeds"])
	if err != nil || seeds < 1 {
		return fmt.Errorf("merge: shard %s: seeds %q", parts[0].Dir, opt["seeds"])
	}
	kept := map[int]json.RawMessage{}
	for _, p := range parts {
		path := filepath.Join(p.Dir, keptFile)
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("merge: shard %s: %w", p.Manifest.Shard, err)
		}
		var list []keptCell
		if err := json.Unmarshal(b, &list); err != nil {
			return fmt.Errorf("merge: %s: %w", path, err)
		}
		got := make([]int, len(list))
		for i, c := range list {
			got[i] = c.Cell
			kept[c.Cell] = c.Figures
		}
		if !slices.Equal(got, p.Manifest.Ran) {
			return fmt.Errorf("merge: %s holds cells %v, shard %s ran %v", path, got, p.Manifest.Shard, p.Manifest.Ran)
		}
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return fmt.Errorf("merge: -o %s is a directory; the shards of an experiment merge into its markdown file (EXPERIMENTS.md)", out)
	}
	cells := experiments.Replay(kept)
	body, err := e.Run(experiments.Config{Seeds: seeds, Log: io.Discard, Cells: cells})
	if err != nil {
		return fmt.Errorf("merge: experiment %s: %w", e.Name, err)
	}
	keys := cells.Keys()
	if len(keys) != len(m.Cells) || cells.Unused() != 0 {
		return fmt.Errorf("merge: experiment %s asks for %d cells here, its shards ran %d: they come from another spindle", e.Name, len(keys), len(m.Cells))
	}
	for i, k := range keys {
		if k != m.Cells[i].Key {
			return fmt.Errorf("merge: experiment %s's cell %d is %s here, %s in its shards: they come from another spindle", e.Name, i, k, m.Cells[i].Key)
		}
	}
	if err := experiments.WriteSection(out, e, body); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote section %q of %s\n", e.Name, out)
	return nil
}
