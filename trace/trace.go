// Package trace converts public cluster traces into spindle workloads.
package trace

import (
	"fmt"

	"github.com/spindle-sched/spindle/workload"
)

// Options tune a conversion.
type Options struct{}

// Load converts the inputs of a trace format into a workload.
func Load(format string, inputs []string, opt Options) (*workload.Workload, error) {
	return nil, fmt.Errorf("unknown trace format %q", format)
}
