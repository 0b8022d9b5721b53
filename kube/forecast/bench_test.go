package forecast

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/workload"
)

// bigSnapshot is the cost case: 1,000 nodes of 8 CPUs, each busy
// with a running task of 6 CPUs that ends at its own time (and one in ten
// with another scheduler's pod), 1,000 waiting pods of 2 to 5 CPUs in 100
// jobs over 4 queues, with a history of every job kind: most waiting pods
// wait for the running tasks to end.
func bigSnapshot() *Snapshot { return bigSnapshotOf(false) }

// bigSnapshotOf is bigSnapshot; with waves, each running task is instead
// a job's first wave beside its AM (1 CPU and 5), and ten finished jobs
// in the snapshot ran two waves, so that every running job is forecast to
// ask for a later wave and the forecast is refined: the cost's worst case.
func bigSnapshotOf(waves bool) *Snapshot {
	var nodes []*v1.Node
	var ps []*v1.Pod
	h := NewHistory()
	queues := []workload.Queue{}
	for q := range 4 {
		queues = append(queues, workload.Queue{Name: fmt.Sprintf("q%d", q), Capacity: 0.25, MaxCapacity: 1})
	}
	for i := range 1000 {
		name := fmt.Sprintf("n%04d", i)
		nodes = append(nodes, mkNode(name, 8))
		run := pb{job: fmt.Sprintf("run-%06d", i), name: fmt.Sprintf("run-%d", i), queue: fmt.Sprintf("q%d", i%4),
			cpu: 6, created: -300 + i%250, node: name, started: ip(-290 + i%250)}
		if waves {
			am := run
			am.name, am.am, am.cpu, am.created, am.started = run.name+"-am", true, 1, run.created-1, ip(*run.started-1)
			run.cpu = 5
			ps = append(ps, am.pod())
		}
		ps = append(ps, run.pod())
		if i%10 == 1 {
			ps = append(ps, pb{job: "x", name: fmt.Sprintf("x-%d", i), scheduler: "default-scheduler", cpu: 2, created: -500, node: name, started: ip(-500)}.pod())
		}
	}
	for k := range 10 {
		h.Add(fmt.Sprintf("old/%d", k), fmt.Sprintf("kind%d", k), time.Duration(60+30*k)*time.Second, []time.Duration{time.Duration(60+30*k) * time.Second})
		h.Add(fmt.Sprintf("oldrun/%d", k), "run", 300*time.Second, nil)
	}
	for j := range 100 {
		for t := range 10 {
			ps = append(ps, pb{job: fmt.Sprintf("kind%d-%06d", j%10, j), name: fmt.Sprintf("w%d-%d", j, t), queue: fmt.Sprintf("q%d", j%4),
				cpu: 2 + (j+t)%4, created: -j}.pod())
		}
	}
	if waves {
		for k := range 10 {
			for _, b := range twoWaves(fmt.Sprintf("done%d", k), fmt.Sprintf("d%d", k)) {
				ps = append(ps, b.pod())
			}
		}
	}
	return snapshot(nodes, ps, h, queues...)
}

func BenchmarkRun1000(b *testing.B) {
	for _, waves := range []bool{false, true} {
		s := bigSnapshotOf(waves)
		for _, p := range []string{"fifo", "fair", "dress"} {
			name := p
			if waves {
				name += "/waves"
			}
			b.Run(name, func(b *testing.B) { benchRun(b, s, p) })
		}
	}
}

func benchRun(b *testing.B, s *Snapshot, p string) {
	o := Options{PolicyName: p, Policy: factory(b, p)}
	var cpu time.Duration
	proc := processCPU()
	for b.Loop() {
		r, err := Run(s, o)
		if err != nil {
			b.Fatal(err)
		}
		cpu += r.CPU
	}
	proc = processCPU() - proc
	// The Run's own CPU (its thread), and the whole process's (the
	// garbage collector's workers too) over the loop.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "run-cpu-ms/op")
	b.ReportMetric(float64(proc.Microseconds())/1000/float64(b.N), "proc-cpu-ms/op")
}
