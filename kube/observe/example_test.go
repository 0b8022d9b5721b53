package observe_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"time"

	"github.com/spindle-sched/spindle/kube/observe"
)

// The driver's side of the recorder: report, publish, and let the HTTP
// side serve what was published.
func Example() {
	rec := observe.NewRecorder(observe.Options{})
	rec.SetRole(observe.RoleLeader)
	rec.SetSynced(true)

	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	rec.Attempt(observe.ResultScheduled, 40*time.Microsecond)
	rec.Decide(observe.Decision{Time: now, Pod: "analytics/spark-pi-driver", Job: "spark-pi", Queue: "etl",
		Node: "node-a", AM: true, Policy: "fair"})
	rec.Bind(observe.BindOK, 3*time.Millisecond)
	err := rec.Publish(&observe.Snapshot{
		Time: now, Policy: "fair", Admission: "none",
		Queues: []observe.QueueStatus{{Name: "etl", Weight: 1, RunningPods: 1, AMsAdmitted: 1}},
		Nodes: []observe.NodeStatus{{Name: "node-a", Capacity: observe.Resources{MilliCPU: 4000, MemoryMiB: 8192},
			Allocated: observe.Resources{MilliCPU: 1000, MemoryMiB: 2048}, Schedulable: true, Pods: 1}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	srv := httptest.NewServer(rec.Handler())
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/api/v1/decisions")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Print(string(body))
	ready, why := rec.Ready()
	fmt.Println(ready, why, rec.Latest().Utilization[0].CPU)
	// Output:
	// {
	//   "time": "2026-11-24T12:00:00Z",
	//   "seq": 1,
	//   "items": [
	//     {
	//       "time": "2026-11-24T12:00:00Z",
	//       "pod": "analytics/spark-pi-driver",
	//       "job": "spark-pi",
	//       "queue": "etl",
	//       "node": "node-a",
	//       "am": true,
	//       "policy": "fair",
	//       "resources": {
	//         "milli_cpu": 0,
	//         "memory_mib": 0
	//       }
	//     }
	//   ]
	// }
	// true leader 0.25
}
