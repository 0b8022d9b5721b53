package kube

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/resource"
)

// TestRandomArrivalOrders creates Spark applications, AM-less jobs and
// lone pods in random orders (some before the scheduler starts, so that
// it lists them, the rest while it runs), on random nodes, under several
// policies and admission controllers, and drives the pods' lives at
// random, restarting the scheduler once at a random round (it then adopts
// what is bound and lists the rest in creation order). After every step it
// checks what must hold whatever the order:
//   - no node holds more than its allocatable;
//   - no executor is bound while its driver is not;
//   - a Spark application's driver is its job's AM, even when executors
//     were seen first;
//
// and under admission control, that every application finishes.
func TestRandomArrivalOrders(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 15
	}
	configs := []struct{ pol, adm string }{{"fifo", "autoadmin"}, {"fair", "autoadmin"}, {"drf", "none"}, {"dress", "autoadmin"}}
	for seed := range seeds {
		cfg := configs[seed%len(configs)]
		t.Run(fmt.Sprintf("seed=%d/%s/%s", seed, cfg.pol, cfg.adm), func(t *testing.T) {
			randomArrivals(t, uint64(seed), cfg.pol, cfg.adm)
		})
	}
}

type randPod struct {
	pod      *v1.Pod
	key      string
	driver   string // the key of its application's driver, for an executor
	isDriver bool
}

func randomArrivals(t *testing.T, seed uint64, pol, adm string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var nodes []runtime.Object
	capacity := map[string]int64{} // milli-CPU
	smallest := 8
	for i := range 1 + rng.IntN(3) {
		cpu := 2 + rng.IntN(7)
		smallest = min(smallest, cpu)
		name := fmt.Sprintf("n%d", i)
		nodes = append(nodes, readyNode(name, fmt.Sprint(cpu), "64Gi", nil))
		capacity[name] = int64(cpu) * 1000
	}
	milli := func(lo, hi int) string { return fmt.Sprintf("%dm", lo+rng.IntN(hi-lo+1)) }
	var pods []randPod
	for a := range 1 + rng.IntN(4) {
		app := fmt.Sprintf("app-%d", a)
		drv := "spark/" + app + "-driver"
		pods = append(pods, randPod{pod: mkPod("spark", app+"-driver", milli(500, 1000), driver(app)), key: drv, isDriver: true})
		for x := range 1 + rng.IntN(4) {
			name := fmt.Sprintf("%s-exec-%d", app, x)
			// A driver (at most 1 CPU) and any executor fit an empty
			// node together: without that no scheduler can finish.
			pods = append(pods, randPod{pod: mkPod("spark", name, milli(250, min(2000, smallest*1000-1000)), executor(app)), key: "spark/" + name, driver: drv})
		}
	}
	for x := range rng.IntN(3) {
		name := fmt.Sprintf("wc-%d", x)
		pods = append(pods, randPod{pod: mkPod("batch", name, milli(250, 1000), withLabels(LabelJob, "wc")), key: "batch/" + name})
	}
	for x := range rng.IntN(3) {
		name := fmt.Sprintf("lone-%d", x)
		pods = append(pods, randPod{pod: mkPod("batch", name, milli(100, 1000)), key: "batch/" + name})
	}
	rng.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
	// Creation times follow the arrival order.
	for i := range pods {
		pods[i].pod.CreationTimestamp.Time = epoch.Add(time.Duration(i) * time.Second)
	}
	before := rng.IntN(len(pods) + 1)
	objs := append([]runtime.Object{}, nodes...)
	for _, p := range pods[:before] {
		objs = append(objs, p.pod)
	}
	e := newEnv(t, objs...)
	s, stop := e.start(e.options(pol, adm))

	check := func(when string) {
		t.Helper()
		e.settle()
		held := map[string]int64{}
		for _, p := range pods {
			cur := e.pod(p.key)
			if cur == nil || cur.Spec.NodeName == "" {
				continue
			}
			if cur.Status.Phase != v1.PodSucceeded && cur.Status.Phase != v1.PodFailed {
				held[cur.Spec.NodeName] += podmap.PodRequest(cur)[resource.VCores]
			}
			if p.driver != "" && e.nodeOf(p.driver) == "" && e.pod(p.driver) != nil {
				t.Fatalf("%s: executor %s bound to %s before its driver %s", when, p.key, cur.Spec.NodeName, p.driver)
			}
		}
		for n, m := range held {
			if m > capacity[n] {
				t.Fatalf("%s: node %s holds %dm CPU of %dm", when, n, m, capacity[n])
			}
		}
		for _, p := range pods {
			if !p.isDriver {
				continue
			}
			id := podmap.Identify(p.pod)
			js := s.jobs[id.Job]
			if js == nil || js.ended || s.pods[p.key] == nil {
				continue
			}
			if js.am == nil || js.am.key != p.key {
				t.Fatalf("%s: job %s's AM is %v, want its driver %s", when, id.Job, js.am, p.key)
			}
		}
	}
	check("after start")
	for _, p := range pods[before:] {
		e.add(p.pod)
		if rng.IntN(2) == 0 {
			check("after creating " + p.key)
		}
	}
	check("after every pod was created")

	// Drive the pods: a bound pod runs; a running executor, AM-less task or
	// lone pod may end; a driver ends once every executor of its
	// application has.
	done := func(key string) bool {
		p := e.pod(key)
		return p != nil && p.Status.Phase == v1.PodSucceeded
	}
	restartAt := rng.IntN(10)
	for round := range 300 {
		if round == restartAt {
			stop()
			s, stop = e.start(e.options(pol, adm))
			check("after a restart")
		}
		all := true
		for _, p := range pods {
			cur := e.pod(p.key)
			switch {
			case cur.Status.Phase == v1.PodSucceeded:
				continue
			case cur.Spec.NodeName == "":
			case cur.Status.Phase == v1.PodPending:
				e.setPhase(p.key, v1.PodRunning)
			case p.isDriver:
				mine := true
				for _, q := range pods {
					if q.driver == p.key && !done(q.key) {
						mine = false
					}
				}
				if mine {
					e.setPhase(p.key, v1.PodSucceeded)
				}
			case rng.IntN(3) == 0:
				e.setPhase(p.key, v1.PodSucceeded)
			}
			all = false
		}
		check(fmt.Sprintf("round %d", round))
		if all {
			return
		}
		e.advance(time.Second)
	}
	if adm == "none" {
		return // without admission control, drivers may fill the nodes for good
	}
	for _, p := range pods {
		if cur := e.pod(p.key); cur.Status.Phase != v1.PodSucceeded {
			msg := ""
			for _, c := range cur.Status.Conditions {
				if c.Type == v1.PodScheduled {
					msg = c.Message
				}
			}
			t.Errorf("after 300 rounds %s (%v) is %s on %q: %s", p.key, podmap.PodRequest(cur), cur.Status.Phase, cur.Spec.NodeName, msg)
		}
	}
}
