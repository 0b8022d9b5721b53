package observe

import (
	"fmt"
	"time"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// fakeCluster publishes n batches into r, one every 10s, shaped like a
// small Spark cluster: two queues, three jobs (one AM waiting for
// admission), two nodes (one cordoned, with external load) offering 20
// cores to spindle, and spark-pi's CPU rising from 2 cores by 0.3 per batch.
// It returns the last snapshot.
func fakeCluster(r *Recorder, n int) *Snapshot {
	var last *Snapshot
	for i := range n {
		now := t0.Add(time.Duration(i) * 10 * time.Second)
		cpu := int64(2000 + i*300) // of 20000 usable
		s := &Snapshot{
			Time: now, Policy: "dress", Admission: "autoadmin",
			Jobs: []JobStatus{
				{Name: "spark-pi", Namespace: "analytics", Queue: "etl", State: "running", AM: AMRunning,
					PodsRunning: 3, PodsPending: 1, Usage: Resources{MilliCPU: cpu, MemoryMiB: 4096}},
				{Name: "spark-sql-report", Namespace: "analytics", Queue: "adhoc", State: "waiting", AM: AMWaiting,
					AMReason: "AutoAdmin: 5 vcores free after AMs and this one, R_R is 6; waits for running jobs to release", PodsPending: 5, QueuePosition: 1},
				{Name: "lone-pod", Namespace: "default", Queue: "default", State: "done", AM: AMNone, PodsDone: 1},
			},
			Pods: []PodStatus{
				{Pod: "analytics/spark-sql-report-driver", Job: "spark-sql-report", Queue: "adhoc", QueuePosition: 1, AM: true,
					Reason: "job spark-sql-report waits for admission, number 1 in queue adhoc: AutoAdmin: ...", Since: t0},
				{Pod: "analytics/spark-pi-exec-9", Job: "spark-pi", Queue: "etl", Reason: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable.", Since: t0},
			},
			Queues: []QueueStatus{
				{Name: "etl", Weight: 3, Usage: Resources{MilliCPU: cpu, MemoryMiB: 4096}, Share: float64(cpu) / 20000,
					PendingPods: 1, RunningPods: 3, Jobs: 1, AMsAdmitted: 1, Depth: 1, Leaf: true, AbsCapacity: 0.6, PreemptedFrom: 2},
				{Name: "adhoc", Weight: 1, PendingPods: 5, Jobs: 1, AMsWaiting: 1, Depth: 1, Leaf: true, AbsCapacity: 0.4, PreemptedFor: 2},
			},
			Nodes: []NodeStatus{
				{Name: "kwok-node-0", Capacity: Resources{MilliCPU: 12000, MemoryMiB: 32768}, External: Resources{MilliCPU: 0, MemoryMiB: 0},
					Allocated: Resources{MilliCPU: cpu, MemoryMiB: 4096}, Schedulable: true, Pods: 3},
				{Name: "kwok-node-1", Capacity: Resources{MilliCPU: 9000, MemoryMiB: 32768}, External: Resources{MilliCPU: 1000, MemoryMiB: 0},
					Schedulable: false, Reason: "unschedulable (cordoned)"},
			},
			Gauges: map[string]float64{"dress_delta": 0.1 + 0.01*float64(i), "autoadmin_rr_vcores": 6},
		}
		r.Decide(Decision{Time: now, Pod: fmt.Sprintf("analytics/spark-pi-exec-%d", i+1), Job: "spark-pi", Queue: "etl",
			Node: "kwok-node-0", Policy: "dress", Reason: "small-demand pool", Resources: Resources{MilliCPU: 800, MemoryMiB: 1024}})
		if err := r.Publish(s); err != nil {
			panic(err)
		}
		last = s
	}
	return last
}
