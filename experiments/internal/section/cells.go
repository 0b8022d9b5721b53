package section

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/runner"
)

// Cells makes an experiment's simulations, its cells, shardable: a run with
// a share (spindle experiments --shard I/N) simulates only the cells it
// owns and keeps what the section needs of each; a replay (spindle merge)
// simulates nothing and hands the experiment the kept figures of every
// cell instead, so that it writes the section one unsharded run writes.
//
// Cells are numbered in the order the experiment asks for them, through
// Simulate. That order depends only on the experiment and its seeds,
// never on a simulation's result: every share and the replay meet the
// same cells in the same order, which the keys recorded here let the
// caller check.
type Cells struct {
	owns   func(k int) bool // a share: whether it runs cell k; nil in a replay
	keys   []string
	kept   map[int]json.RawMessage
	replay bool
	used   int
}

// Share is a run of the cells owns picks.
func Share(owns func(k int) bool) *Cells {
	return &Cells{owns: owns, kept: map[int]json.RawMessage{}}
}

// Replay reads back kept, every cell's figures by position, instead of
// simulating.
func Replay(kept map[int]json.RawMessage) *Cells {
	return &Cells{kept: kept, replay: true}
}

// Keys are the cells met so far, in order (CellKey of each).
func (c *Cells) Keys() []string { return c.keys }

// Kept are the figures a share kept, by cell position.
func (c *Cells) Kept() map[int]json.RawMessage { return c.kept }

// Unused reports a replay's kept figures that no cell asked for (the
// shards ran another experiment than this one).
func (c *Cells) Unused() int { return len(c.kept) - c.used }

// Partial reports whether this run simulates only a share of the cells:
// the experiment then skips its reductions, the figures of the cells it
// does not own being zero.
func (cfg Config) Partial() bool { return cfg.Cells != nil && !cfg.Cells.replay }

// CellKey names a simulation by what shapes it, for a share's manifest.
func CellKey(sp runner.Spec) string {
	est := string(sp.Estimates.Source)
	if sp.Estimates.Error != 0 {
		est += "~" + strconv.FormatFloat(sp.Estimates.Error, 'g', -1, 64)
	}
	k := fmt.Sprintf("workload=%q policy=%s", sp.WorkloadName, sp.Policy)
	if sp.Admission != "" {
		k += " admission=" + sp.Admission
	}
	if est != "" {
		k += " estimates=" + est
	}
	if sp.ForecastError != 0 {
		k += " forecast-error=" + strconv.FormatFloat(sp.ForecastError, 'g', -1, 64)
	}
	return k + " seed=" + strconv.FormatUint(sp.Seed, 10)
}

// Simulate runs specs, the experiment's next cells, and reduces each
// outcome to what the section keeps of it with keep (i is the cell's index
// in specs). T must survive a JSON round trip exactly (exported fields, no
// NaN): every run passes its figures through one, as a replay reads them
// back, so that a merged section is the unsharded one byte for byte. done,
// if not nil, is called with the count of finished simulations.
//
// With cfg.Cells a share, only its cells run and the others' figures are
// zero (cfg.Partial); a replay runs nothing. Calls must come one after
// another, in an order that does not depend on any result.
func Simulate[T any](cfg Config, specs []runner.Spec, keep func(i int, o *runner.Outcome) (T, error), done func(n int)) ([]T, error) {
	c := cfg.Cells
	base := 0
	if c != nil {
		base = len(c.keys)
		for _, sp := range specs {
			c.keys = append(c.keys, CellKey(sp))
		}
	}
	out := make([]T, len(specs))
	if c != nil && c.replay {
		for i := range specs {
			raw, ok := c.kept[base+i]
			if !ok {
				return nil, fmt.Errorf("cell %d (%s): no shard kept its figures", base+i, c.keys[base+i])
			}
			if err := json.Unmarshal(raw, &out[i]); err != nil {
				return nil, fmt.Errorf("cell %d (%s): %w", base+i, c.keys[base+i], err)
			}
			c.used++
		}
		return out, nil
	}
	var mine []int
	for i := range specs {
		if c == nil || c.owns(base+i) {
			mine = append(mine, i)
		}
	}
	run := make([]runner.Spec, len(mine))
	for j, i := range mine {
		run[j] = specs[i]
	}
	outs, err := runner.RunAll(run, cfg.Parallel, done)
	if err != nil {
		return nil, err
	}
	for j, i := range mine {
		v, err := keep(i, outs[j])
		if err != nil {
			return nil, err
		}
		outs[j] = nil // the figures are kept; the outcome may go
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%s: keep: %w", CellKey(specs[i]), err)
		}
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return nil, fmt.Errorf("%s: keep: %w", CellKey(specs[i]), err)
		}
		if c != nil {
			c.kept[base+i] = raw
		}
	}
	return out, nil
}

// Plain is a copy of a summary without its policy and admission reports,
// for a cell's figures: a report comes back from JSON as raw bytes, not as
// its type, so a section keeps the report it reads as a field of its own.
func Plain(s *metrics.Summary) *metrics.Summary {
	c := *s
	c.Reports = nil
	return &c
}
