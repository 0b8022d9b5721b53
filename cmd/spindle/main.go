// Command spindle schedules shared, congested data-intensive clusters: it
// simulates YARN-like clusters under the scheduling policies of the DRESS,
// DJSF, Reverse-Adaptive and AutoAdmin papers and their baselines.
package main

import (
	"os"

	"github.com/spindle-sched/spindle/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
