package record

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Random pod lives, in random interleavings, with the troubles a real
// cluster has (pods deleted at any point, stamps out of order, pods without
// requests, requests larger than every node, pods on nodes never listed,
// pods without a creation time): every recording parses as a valid
// workload, and every pod that ran is either in it or counted as left out.
func TestRecordProperties(t *testing.T) {
	withJobs := 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		running := RunningDrop
		if seed%2 == 1 {
			running = RunningKeep
		}
		f, buf := newFake(t, Options{Running: running, JobIdle: 3e9}, node("a", "4", "8Gi"), node("b", "8", "16Gi"))
		type ev struct {
			at float64
			do func(now float64)
		}
		var evs []ev
		pods := 5 + rng.IntN(40)
		for i := range pods {
			name := fmt.Sprintf("p%d", i)
			key := "ns/" + name
			var opts []podOpt
			switch rng.IntN(5) {
			case 0:
				opts = append(opts, sparkExec(fmt.Sprintf("app%d", rng.IntN(3)), i))
			case 1:
				opts = append(opts, sparkDriver(fmt.Sprintf("app%d", rng.IntN(3))))
			case 2:
				opts = append(opts, batchJob(fmt.Sprintf("job%d", rng.IntN(3)), fmt.Sprintf("u%d", rng.IntN(2))))
			case 3:
				opts = append(opts, daemonset())
			}
			if rng.IntN(8) == 0 {
				opts = append(opts, noRequests())
			}
			if rng.IntN(10) == 0 {
				opts = append(opts, func(p *v1.Pod) { p.CreationTimestamp = metav1.Time{} })
			}
			cpu := []string{"100m", "1", "2", "16"}[rng.IntN(4)]
			nodeName := []string{"a", "b", "ghost"}[rng.IntN(3)]
			t0 := rng.Float64() * 50
			life := []float64{t0, t0 + rng.Float64()*5, 0, 0}
			life[2] = life[1] + rng.Float64()*5
			life[3] = life[2] + rng.Float64()*30
			stop := rng.IntN(6) // how far the pod gets: 0 created ... 3 ended, 4 deleted after, 5 deleted early
			evs = append(evs, ev{life[0], func(now float64) { f.create(at(now), "ns", name, cpu, "1Gi", opts...) }})
			if stop >= 1 && stop != 5 {
				evs = append(evs, ev{life[1], func(now float64) { f.bind(at(now), key, nodeName) }})
			}
			if stop >= 2 && stop != 5 {
				evs = append(evs, ev{life[2], func(now float64) { f.run(at(now), key) }})
			}
			if stop >= 3 && stop != 5 {
				ph := v1.PodSucceeded
				if rng.IntN(5) == 0 {
					ph = v1.PodFailed
				}
				evs = append(evs, ev{life[3], func(now float64) { f.end(at(now), key, ph) }})
			}
			if stop >= 4 {
				evs = append(evs, ev{life[3] + 1 + rng.Float64(), func(now float64) { f.delete(at(now), key) }})
			}
			if rng.IntN(10) == 0 {
				// A stamp from a clock ahead of ours.
				evs = append(evs, ev{life[2] + 0.1, func(now float64) {
					if p := f.pod[key]; p != nil {
						p = p.DeepCopy()
						p.CreationTimestamp = stamp(at(now + 50))
						f.report(at(now), p)
					}
				}})
			}
		}
		sort.SliceStable(evs, func(a, b int) bool { return evs[a].at < evs[b].at })
		if err := f.r.Begin(at(0)); err != nil {
			t.Fatal(err)
		}
		for i, e := range evs {
			e.do(e.at)
			if i%7 == 0 {
				if err := f.r.Tick(at(e.at)); err != nil {
					t.Fatal(err)
				}
			}
		}
		s, err := f.r.Close(at(100))
		if err != nil && s.Jobs > 0 {
			t.Fatalf("seed %d: %v\n%s", seed, err, buf.String())
		}
		if s.Jobs == 0 {
			continue
		}
		withJobs++
		if s.Pods > pods {
			t.Errorf("seed %d: %d pods recorded of %d created", seed, s.Pods, pods)
		}
		w, err := parse(buf)
		if err != nil {
			t.Fatalf("seed %d: the recording does not parse: %v\n%s", seed, err, buf.String())
		}
		if len(w.Jobs) != s.Jobs || w.TotalTasks() != s.Tasks {
			t.Errorf("seed %d: summary says %d jobs %d tasks, the workload has %d and %d", seed, s.Jobs, s.Tasks, len(w.Jobs), w.TotalTasks())
		}
	}
	if withJobs < 250 {
		t.Errorf("only %d of 300 random recordings held a job: the generator tests too little", withJobs)
	}
}
