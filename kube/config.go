package kube

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// FileConfig is the scheduler's configuration file (YAML):
//
//	queues:                  # optional; default: one queue "default"
//	  - {name: spark, capacity: 0.7, max_capacity: 1.0}
//	  - {name: batch, capacity: 0.3}
//	default_queue: batch     # where jobs whose queue is not listed go
//	resource_calculator: memory  # or dominant; how AM limits compare
//
// A job's queue is its AM's spindle.io/queue label, else its namespace.
// Without a file every job goes to the single queue "default".
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

// QueueConfig is one queue: capacity is its guaranteed share (Capacity's
// guarantee, Fair's weight), max_capacity what it may grow to (default 1).
type QueueConfig struct {
	Name        string  `yaml:"name"`
	Capacity    float64 `yaml:"capacity"`
	MaxCapacity float64 `yaml:"max_capacity"`
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
	seen := map[string]bool{}
	for i := range c.Queues {
		q := &c.Queues[i]
		if q.Name == "" {
			return nil, fmt.Errorf("queues[%d].name: must be set", i)
		}
		if seen[q.Name] {
			return nil, fmt.Errorf("queues[%d].name: %q listed twice", i, q.Name)
		}
		seen[q.Name] = true
		if !(q.Capacity > 0 && q.Capacity <= 1) {
			return nil, fmt.Errorf("queues[%d].capacity: %v not in (0, 1]", i, q.Capacity)
		}
		if q.MaxCapacity == 0 {
			q.MaxCapacity = 1
		}
		if !(q.MaxCapacity >= q.Capacity && q.MaxCapacity <= 1) {
			return nil, fmt.Errorf("queues[%d].max_capacity: %v not in [capacity, 1]", i, q.MaxCapacity)
		}
	}
	if c.DefaultQueue != "" && !seen[c.DefaultQueue] {
		return nil, fmt.Errorf("default_queue: %q is not one of the queues", c.DefaultQueue)
	}
	return &c, nil
}

// QueueSpecs returns the queues for the core.
func (c *FileConfig) QueueSpecs() []sched.QueueSpec {
	out := make([]sched.QueueSpec, len(c.Queues))
	for i, q := range c.Queues {
		out[i] = sched.QueueSpec{Name: q.Name, Capacity: q.Capacity, MaxCapacity: q.MaxCapacity}
	}
	return out
}

// resolveQueue maps a job's queue name (label or namespace) to a configured
// queue: itself when listed, else the default queue; "" when neither.
func (c *FileConfig) resolveQueue(name string) string {
	for _, q := range c.Queues {
		if q.Name == name {
			return name
		}
	}
	return c.DefaultQueue
}
