package forecast_test

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/spindle-sched/spindle/kube/forecast"
	"github.com/spindle-sched/spindle/policy"
)

// A driver keeps one History, learns from each snapshot, and forecasts it:
// here a node of 4 CPUs runs one job's two 2-CPU tasks, 40 s into the
// 100 s its kind took before, and a job of four 1-CPU tasks declaring 30 s
// waits for them.
func ExampleRun() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceCPU: apiresource.MustParse("4"), v1.ResourceMemory: apiresource.MustParse("16Gi")}}}
	pod := func(name, job, cpu string, running bool, annotations map[string]string) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "etl", Name: name, UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(now.Add(-time.Minute)), Labels: map[string]string{"spindle.io/job": job},
			Annotations: annotations},
			Spec: v1.PodSpec{SchedulerName: "spindle", RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "c",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse(cpu),
					v1.ResourceMemory: apiresource.MustParse("1Gi")}}}}}}
		if running {
			p.Spec.NodeName = "n1"
			p.Status.Phase = v1.PodRunning
			p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "c", State: v1.ContainerState{
				Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-40 * time.Second))}}}}
		}
		return p
	}
	history := forecast.NewHistory()
	history.Add("etl/nightly-000041#", "nightly", 100*time.Second, []time.Duration{100 * time.Second})
	s := &forecast.Snapshot{Now: now, Nodes: []*v1.Node{node}, SchedulerName: "spindle", History: history, Pods: []*v1.Pod{
		pod("nightly-a", "nightly-000042", "2", true, nil), pod("nightly-b", "nightly-000042", "2", true, nil),
		pod("report-0", "report", "1", false, map[string]string{"spindle.io/estimate": "30s"}),
		pod("report-1", "report", "1", false, nil), pod("report-2", "report", "1", false, nil),
		pod("report-3", "report", "1", false, nil),
	}}
	if _, err := history.Learn(s); err != nil { // nothing has finished here
		panic(err)
	}
	fifo, _, err := policy.Parse("fifo")
	if err != nil {
		panic(err)
	}
	r, err := forecast.Run(s, forecast.Options{PolicyName: "fifo", Policy: fifo})
	if err != nil {
		panic(err)
	}
	for _, j := range r.Jobs {
		fmt.Printf("%s waiting=%v position=%d start=%v finish=%v source=%s\n", j.Key, j.Waiting, j.Position,
			j.Start.Sub(now), j.Finish.Sub(now), j.Source)
	}
	// Output:
	// etl/nightly-000042 waiting=false position=0 start=-40s finish=1m0s source=history
	// etl/report waiting=true position=1 start=1m0s finish=1m30s source=annotation
}
