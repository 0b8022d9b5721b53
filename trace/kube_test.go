package trace

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/resource"
)

// testdata/kube holds kubectl's JSON of a real cluster (a local control
// plane under kube-scheduler, written by kube/record's live test): a Spark
// application whose driver still ran, a batch Job of 6 pods (parallelism
// 3), a pod without requests, and a daemonset's pod on each of 2 nodes.
func TestKubeSnapshot(t *testing.T) {
	in := []string{"testdata/kube/pods.json", "testdata/kube/nodes.json", "testdata/kube/events.json"}
	w, rep, err := Convert("kube", in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for i, j := range w.Jobs {
		ids[j.ID] = i
	}
	etl, ok := ids["batch/job/etl"]
	if !ok || len(w.Jobs) != 2 {
		t.Fatalf("jobs %v: want the Job and solo (the application still ran: dropped)", ids)
	}
	j := w.Jobs[etl]
	if j.Tasks() != 6 || len(j.Phases) != 2 || j.Phases[0].Tasks != 3 || j.Phases[0].Request != (resource.Vector{1000, 1024}) || !j.AM.IsZero() {
		t.Errorf("the Job: %+v, want 2 waves of 3 one-CPU tasks and no AM", j.Phases)
	}
	if g := w.Cluster.Nodes; len(g) != 1 || g[0].Count != 2 || g[0].Capacity != (resource.Vector{8000, 32768}) {
		t.Errorf("nodes %+v, want 2 of 8 CPU and 32 GiB", g)
	}
	if rep.Jobs != 2 || rep.Records != 39 {
		t.Errorf("report: %d jobs from %d objects", rep.Jobs, rep.Records)
	}
	var skipped []string
	for _, s := range rep.Skipped {
		skipped = append(skipped, s.Reason)
	}
	if !strings.Contains(strings.Join(skipped, "; "), "jobs still running when the recording stopped") {
		t.Errorf("skipped %v, want the running application named", skipped)
	}
	// With truncate, the application is kept, its driver without an end.
	w, _, err = Convert("kube", in, Options{Unfinished: UnfinishedTruncate})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 3 {
		t.Fatalf("%d jobs with unfinished=truncate, want 3", len(w.Jobs))
	}
	for _, j := range w.Jobs {
		if strings.HasPrefix(j.ID, "spark/") && (j.Recorded.Finished != -1 || j.Tasks() != 5 || len(j.Phases) != 2) {
			t.Errorf("the application %+v recorded %+v: want 5 executors in 2 waves, no end", j.Phases, *j.Recorded)
		}
	}
	// Options that would move the times are refused.
	if _, _, err := Convert("kube", in, Options{ArrivalScale: 0.5}); err == nil || !strings.Contains(err.Error(), "arrival-scale") {
		t.Errorf("arrival-scale: %v", err)
	}
}
