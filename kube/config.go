package kube

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// FileConfig is the scheduler's configuration file (YAML):
//
//	queues:                  # optional; default: one queue "default"
//	  - {name: prod, capacity: 0.6, max_capacity: 1.0}
//	  - {name: prod.etl, capacity: 0.5}      # shares of its parent, prod
//	  - {name: prod.adhoc, capacity: 0.5, weight: 2}
//	  - {name: batch, capacity: 0.4}
//	default_queue: batch     # where jobs whose queue is not listed go
//	resource_calculator: memory  # or dominant; how AM limits compare
//
// Queues form a tree named by dotted paths, as the workload format's do
// (docs/queues.md): capacity and max_capacity are shares of the parent,
// weight orders siblings under Fair and DRF (default: capacity). Only
// leaves take jobs. A job's queue is its AM's spindle.io/queue label (a
// leaf's path, "prod.etl" or "root.prod.etl"), else its namespace. Without
// a file every job goes to the single queue "default".
type FileConfig struct {
	Queues       []QueueConfig `yaml:"queues"`
	DefaultQueue string        `yaml:"default_queue"`
	// ResourceCalculator is how the resource manager compares amounts of
	// resource, for every policy's AM limit: memory (YARN's default
	// DefaultResourceCalculator; also when empty) or dominant.
	ResourceCalculator string `yaml:"resource_calculator"`
}

// Calculator returns the configured resource calculator.
func (c *FileConfig) Calculator() resource.Calculator {
	calc, _ := resource.ParseCalculator(c.ResourceCalculator) // checked by ParseConfig
	return calc
}

// QueueConfig is one queue: capacity is its guaranteed share of its parent
// (Capacity's guarantee; 0 guarantees nothing), max_capacity what it may
// grow to (default 1), weight its weight among its siblings under Fair and
// DRF (default: its capacity), disable_preemption spares it and the queues
// below it from preemption (YARN's disable_preemption).
type QueueConfig struct {
	Name              string  `yaml:"name"`
	Capacity          float64 `yaml:"capacity"`
	MaxCapacity       float64 `yaml:"max_capacity"`
	Weight            float64 `yaml:"weight"`
	DisablePreemption bool    `yaml:"disable_preemption"`
}

// LoadConfig reads a configuration file; "" gives the default.
func LoadConfig(path string) (*FileConfig, error) {
	if path == "" {
		return defaultConfig(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := ParseConfig(b)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

func defaultConfig() *FileConfig {
	return &FileConfig{Queues: []QueueConfig{{Name: "default", Capacity: 1, MaxCapacity: 1}}, DefaultQueue: "default",
		ResourceCalculator: resource.MemoryCalculator.String()}
}

// ParseConfig parses and checks a configuration; unknown fields are errors
// and every error names its field (with the line for YAML errors).
func ParseConfig(b []byte) (*FileConfig, error) {
	var c FileConfig
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if c.ResourceCalculator == "" {
		c.ResourceCalculator = resource.MemoryCalculator.String()
	}
	if _, err := resource.ParseCalculator(c.ResourceCalculator); err != nil {
		return nil, fmt.Errorf("resource_calculator: %w", err)
	}
	if len(c.Queues) == 0 {
		d := defaultConfig()
		d.ResourceCalculator = c.ResourceCalculator
		if c.DefaultQueue != "" && c.DefaultQueue != "default" {
			return nil, fmt.Errorf("default_queue: %q is not a queue (no queues listed: the only queue is \"default\")", c.DefaultQueue)
		}
		return d, nil
	}
	for i := range c.Queues {
		q := &c.Queues[i]
		if q.Name == "" {
			return nil, fmt.Errorf("queues[%d].name: must be set", i)
		}
		if q.MaxCapacity == 0 {
			q.MaxCapacity = 1
		}
	}
	// The tree's rules are the core's: one implementation, whichever
	// file the tree comes from.
	leaves, err := sched.ValidateQueues(c.QueueSpecs())
	if err != nil {
		return nil, err
	}
	if c.DefaultQueue != "" {
		switch leaf, ok := leaves[sched.QueuePath(c.DefaultQueue)]; {
		case !ok:
			return nil, fmt.Errorf("default_queue: %q is not one of the queues", c.DefaultQueue)
		case !leaf:
			return nil, fmt.Errorf("default_queue: %q is a parent queue; jobs go to leaf queues", c.DefaultQueue)
		}
	}
	return &c, nil
}

// QueueSpecs returns the queues for the core.
func (c *FileConfig) QueueSpecs() []sched.QueueSpec {
	out := make([]sched.QueueSpec, len(c.Queues))
	for i, q := range c.Queues {
		out[i] = sched.QueueSpec{Name: q.Name, Capacity: q.Capacity, MaxCapacity: q.MaxCapacity, Weight: q.Weight, DisablePreemption: q.DisablePreemption}
	}
	return out
}

// listed reports whether name is one of the configured queues ("root." or
// not).
func (c *FileConfig) listed(name string) bool {
	for _, q := range c.Queues {
		if sched.QueuePath(q.Name) == sched.QueuePath(name) {
			return true
		}
	}
	return false
}

// strictQueue reports whether the job's queue was named by another
// scheduler's convention (YuniKorn's queue label or annotation, a Volcano
// PodGroup's queue), whose schedulers refuse a queue that does not exist:
// such a name must be configured, where spindle.io/queue and the namespace
// fall back to default_queue.
func strictQueue(id podIdentity) bool {
	return id.QueueFrom != "" && !strings.HasPrefix(id.QueueFrom, "label "+podmap.LabelQueue)
}

// resolveQueue maps a job's queue name (label or namespace) to a configured
// queue by the core's rule (sched.ResolveQueue): itself when listed
// ("root." or not), else the default queue; "" when neither.
func (c *FileConfig) resolveQueue(name string) string {
	listed := make([]string, len(c.Queues))
	for i, q := range c.Queues {
		listed[i] = q.Name
	}
	return sched.ResolveQueue(listed, c.DefaultQueue, name)
}
