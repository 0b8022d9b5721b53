package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/runner"
	"github.com/spindle-sched/spindle/runner/simtest"
)

// Under Kubernetes timing a burst of pods is bound no faster than the
// scheduler's client-side limit lets the Bindings through, whichever
// policy placed them. One node of 200 vcores; 150 one-vcore tasks of 10 s,
// asked at 0, no AM, no launch delay.
//
//	api_qps 50, api_burst 100 (the defaults, unset or given): 100 bound at
//	  0, then one every 20 ms: the 150th at 1.0 s, ending at 11 s: JCT 11.
//	api_qps 10: the 150th at 50 × 100 ms = 5 s: JCT 15.
//	api_burst 150, or api_qps 0 (no limit): all at 0: JCT 10.
//	YARN timing with every heartbeat and delay zero (ideal): no
//	  apiserver, no limit: JCT 10.
func TestAPILimitPacesBindings(t *testing.T) {
	const doc = `
version: 1
cluster:
  nodes: [{count: 1, vcores: 200, memory_mb: 409600}]
  CLUSTER
jobs:
  - {id: A, submit: 0s, am: {vcores: 0, memory_mb: 0}, phases: [{tasks: 150, request: {vcores: 1, memory_mb: 1024}, duration: 10s}]}
`
	for _, c := range []struct {
		cluster string
		jct     float64
	}{
		{"timing: kubernetes\n  launch_delay: 0s", 11},
		{"timing: kubernetes\n  launch_delay: 0s\n  api_qps: 50\n  api_burst: 100", 11},
		{"timing: kubernetes\n  launch_delay: 0s\n  api_qps: 10", 15},
		{"timing: kubernetes\n  launch_delay: 0s\n  api_burst: 150", 10},
		{"timing: kubernetes\n  launch_delay: 0s\n  api_qps: 0", 10},
		{"ideal: true", 10},
	} {
		for _, pol := range []string{"kube-scheduler", "fifo", "fair", "dress+"} {
			o := simtest.Run(t, strings.Replace(doc, "CLUSTER", c.cluster, 1), runner.Spec{Policy: pol, Admission: "none"})
			if len(o.Jobs) != 1 || o.Jobs[0].JCT == nil {
				t.Fatalf("%s, %q: job A did not finish", pol, c.cluster)
			}
			if got := *o.Jobs[0].JCT; fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", c.jct) {
				t.Errorf("%s, %q: JCT %v, want %v", pol, c.cluster, got, c.jct)
			}
		}
	}
}
