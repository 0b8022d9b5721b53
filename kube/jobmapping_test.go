package kube

import (
	"context"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spindle-sched/spindle/kube/podmap"
)

func batchJobPod(job, uid string) podOpt {
	return withLabels(podmap.LabelBatchJobName, job, podmap.LabelBatchControllerUID, uid,
		podmap.LabelLegacyJobName, job, podmap.LabelLegacyControllerUID, uid)
}

// Issue 26 item 4: a batch Job with parallelism 31 and a Spark application
// whose 31 executors wait at the same moment, in one queue, on 31 free
// CPUs. Each Job pod used to be a job of its own, so fair gave the Job 31
// shares to the application's one and the Job took every CPU; as one job
// each, they share.
func TestBatchJobSharesWithSparkExecutors(t *testing.T) {
	e := newEnv(t, readyNode("n", "32", "64Gi", nil))
	s, _ := e.start(e.options("fair", "none"))
	e.add(mkPod("team", "blocker", "31"))
	e.waitBound("team/blocker", "n")
	e.add(mkPod("team", "drv", "1", driver("app")))
	e.waitBound("team/drv", "n")
	e.setPhase("team/drv", v1.PodRunning)
	var keys []string
	for i := range 31 {
		j := mkPod("team", fmt.Sprintf("etl-%d", i), "1", batchJobPod("etl", "uid-etl"))
		x := mkPod("team", fmt.Sprintf("app-exec-%d", i), "1", executor("app"))
		e.add(j)
		e.add(x)
		keys = append(keys, "team/"+j.Name, "team/"+x.Name)
	}
	e.waitFor("the scheduler to hold all 62 pods", func() bool {
		n := 0
		e.onLoop(s, func() {
			for _, k := range keys {
				if ps := s.pods[k]; ps != nil && ps.phase == podAsked {
					n++
				}
			}
		})
		return n == len(keys)
	})
	jobs := map[string]bool{}
	e.onLoop(s, func() {
		for _, k := range keys {
			jobs[s.pods[k].job.key] = true
		}
	})
	if len(jobs) != 2 || !jobs["team/job/etl"] || !jobs["team/app"] {
		t.Fatalf("the 62 pods make jobs %v, want team/job/etl and team/app", jobs)
	}
	if err := e.client.CoreV1().Pods("team").Delete(context.Background(), "blocker", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	count := func() (etl, app int) {
		for _, k := range keys {
			if e.nodeOf(k) == "" {
				continue
			}
			if strings.HasPrefix(k, "team/etl-") {
				etl++
			} else {
				app++
			}
		}
		return
	}
	e.waitFor("31 of the 62 bound", func() bool { a, b := count(); return a+b == 31 })
	e.waitFor("bindings settled", func() bool { return e.quiet(s) })
	etl, app := count()
	t.Logf("the Job got %d CPUs, the Spark application %d executors (+1 for its driver)", etl, app)
	// Fair shares memory equally between the two jobs: 16 pods each, the
	// driver counting for the application.
	if etl != 16 || app != 15 {
		t.Errorf("Job %d, executors %d: want 16 and 15 (equal shares, the driver counted)", etl, app)
	}
}
