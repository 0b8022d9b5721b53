package scenario

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// DRESSStream is a workload DRESS was not evaluated on: a steady stream of
// small MapReduce jobs with a few large jobs submitted into it. It shows what
// a reservation for small jobs costs the large ones when small jobs never
// stop coming.
type DRESSStream struct {
	Nodes      int
	NodeVCores int64
	NodeMemory int64 // MiB
	// Small jobs arrive as a Poisson process with mean gap Gap until Span.
	Gap, Span clock.Duration
	// Large jobs are submitted at these times.
	Large []clock.Time
	Seed  uint64
}

// DefaultDRESSStream is the setting of the issue that found the starvation:
// 5 nodes of <20 vcores, 40 GB>, a small job about every second for 900 s and
// large jobs at 30, 230, 430 and 630 s.
var DefaultDRESSStream = DRESSStream{
	Nodes: 5, NodeVCores: 20, NodeMemory: 40 * 1024, Gap: clock.Second, Span: 900 * clock.Second,
	Large: []clock.Time{clock.Time(30 * clock.Second), clock.Time(230 * clock.Second), clock.Time(430 * clock.Second), clock.Time(630 * clock.Second)},
	Seed:  1,
}

// The stream's job shapes; every container, AMs included, is <1 vcore, 2 GB>.
const (
	streamSmallMaps, streamSmallReduces = 4, 1
	streamSmallMap, streamSmallReduce   = 12 * clock.Second, 6 * clock.Second
	streamLargeMaps, streamLargeReduces = 60, 10
	streamLargeMap, streamLargeReduce   = 40 * clock.Second, 30 * clock.Second
)

// DRESSStreamModel describes the model for --help.
const DRESSStreamModel = `Cluster: --nodes (5) nodes of <20 vcores, 40 GB>; every container, AMs
included, is <1 vcore, 2 GB>, so the cluster holds 100 containers.

Small jobs: an AM, 4 maps of 12 s, then 1 reduce of 6 s. They arrive as a
Poisson process with a mean gap of --gap (1 s) until --span (900 s).

Large jobs: an AM, 60 maps of 40 s, then 10 reduces of 30 s, submitted at
--large (30,230,430,630 s).

Task durations are exact: the point of the workload is the arrival pattern,
not task variation.`

// Generate builds the workload.
func (s DRESSStream) Generate() (*workload.Workload, error) {
	switch {
	case s.Nodes <= 0:
		return nil, fmt.Errorf("dress-stream: --nodes must be positive")
	case s.NodeVCores <= 0 || s.NodeMemory < 2048:
		return nil, fmt.Errorf("dress-stream: a node must hold at least one <1 vcore, 2 GB> container")
	case s.Gap <= 0:
		return nil, fmt.Errorf("dress-stream: --gap must be positive")
	case s.Span < 0:
		return nil, fmt.Errorf("dress-stream: --span must not be negative")
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x73747265)) // "stre"
	w := &workload.Workload{
		Version: workload.Version,
		Cluster: workload.Cluster{
			Nodes:       []workload.NodeGroup{{Count: s.Nodes, Capacity: resource.New(s.NodeVCores, s.NodeMemory)}},
			LaunchDelay: workload.DefaultLaunchDelay, LaunchJitter: workload.DefaultLaunchJitter,
		},
	}
	c := resource.New(1, 2048)
	job := func(id string, at clock.Time, maps, reduces int, mapD, redD clock.Duration) workload.Job {
		return workload.Job{ID: id, Name: id, Queue: workload.DefaultQueue, Submit: at, AM: c, Phases: []workload.Phase{
			{Name: "map", Tasks: maps, Request: c, Durations: []clock.Duration{mapD}, StartAfter: 1},
			{Name: "reduce", Tasks: reduces, Request: c, Durations: []clock.Duration{redD}, StartAfter: 1},
		}}
	}
	var jobs []workload.Job
	n := 0
	for t := 0.0; ; t += rng.ExpFloat64() * s.Gap.Seconds() {
		at := clock.Time(millis(t))
		if t == 0 {
			at = 0
		}
		if clock.Duration(at) > s.Span {
			break
		}
		n++
		jobs = append(jobs, job(fmt.Sprintf("small-%04d", n), at, streamSmallMaps, streamSmallReduces, streamSmallMap, streamSmallReduce))
	}
	for i, at := range s.Large {
		if at < 0 {
			return nil, fmt.Errorf("dress-stream: --large: negative submit time %v", at)
		}
		jobs = append(jobs, job(fmt.Sprintf("large-%d", i+1), at, streamLargeMaps, streamLargeReduces, streamLargeMap, streamLargeReduce))
	}
	// Submission order; the sort is stable, so at one instant small jobs
	// come first and keep their numbering.
	slices.SortStableFunc(jobs, func(a, b workload.Job) int { return cmp.Compare(a.Submit, b.Submit) })
	w.Jobs = jobs
	return finish("dress-stream", w)
}
