package metrics

import (
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// Outcome is what a run measured, whichever driver ran it: the simulator
// fills it from its own clock, a live replay from what its watch saw. The
// summary and jobs.csv are computed from it alone.
type Outcome struct {
	Jobs       []JobResult // in workload order
	Deadlocked bool
	Stuck      []StuckJob
	Events     uint64
	End        clock.Time // time when the run stopped
	// UtilArea is the integral of the dominant allocated share over time
	// (share × µs) up to LastTaskDone.
	UtilArea     float64
	LastTaskDone clock.Time
	// EndArea is the same integral up to End: what a run that stopped
	// deadlocked held over the span it covered; EndShare is the dominant
	// share held at End.
	EndArea, EndShare float64
	// ExternalUnmet is external demand that found no room, in
	// vcore-seconds and MiB-seconds; zero without external load.
	ExternalUnmet [2]float64
	// ReducesPreempted counts the tasks MapReduce AMs killed to make room
	// for the phase before them (reduces preempted for maps); their work
	// was lost and done again.
	ReducesPreempted int
	// Timeline samples the cluster's allocation.
	Timeline []Sample
}

// JobResult is one job's timeline as the resource manager observed it;
// times are -1 where the job never got there.
type JobResult struct {
	Index                                              int // position in the workload
	Submit, Admit, AMStart, FirstRun, LastDone, Finish clock.Time
	Demand                                             resource.Vector
	DemandContainers                                   int
}

// Sample is the cluster's allocation at a time.
type Sample struct {
	T         clock.Time
	Allocated resource.Vector
}

// StuckJob is a job that could not finish, with what it held and asked for
// when the run stopped: who holds what is what explains a deadlock. The
// holdings are for displays; summary.json keeps only id and state.
type StuckJob struct {
	ID    string `json:"id"`
	State string `json:"state"`
	// Held is what the job's live containers hold, in Containers
	// containers; Asking is how many containers it still asks for.
	Held       resource.Vector `json:"-"`
	Containers int             `json:"-"`
	Asking     int             `json:"-"`
}
