package autoadmin_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/admission/autoadmin"
	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
	"github.com/spindle-sched/spindle/sched/fakecluster"
)

// nodeAttrs are what a node's placement constraints read: labels (a zone,
// a disk) and taints (spot, gpu), as the driver last reported them.
type nodeAttrs struct {
	zone, disk string
	spot, gpu  bool
}

// placeClass is a placement class as a live driver derives one from a
// pod's node selector, affinity and tolerations: its name (Request.Class)
// and the predicate its requests carry. A nil predicate may use any node.
type placeClass struct {
	name     string
	eligible func(*cluster.Node) bool
}

// classes are the placement classes the random jobs draw from, over the
// attributes in attrs: a zone selector that tolerates nothing, one that
// tolerates gpu, a disk selector that tolerates every taint, the untolerated
// taints alone (class "", as a pod with no constraints of its own on a
// tainted cluster), and no constraint at all.
func classes(attrs map[string]*nodeAttrs) []placeClass {
	at := func(n *cluster.Node) nodeAttrs {
		if a := attrs[n.Name()]; a != nil {
			return *a
		}
		return nodeAttrs{}
	}
	return []placeClass{
		{"zone-a", func(n *cluster.Node) bool { a := at(n); return a.zone == "a" && !a.spot && !a.gpu }},
		{"zone-b+gpu", func(n *cluster.Node) bool { a := at(n); return a.zone == "b" && !a.spot }},
		{"ssd+all", func(n *cluster.Node) bool { return at(n).disk == "ssd" }},
		{"", func(n *cluster.Node) bool { a := at(n); return !a.spot && !a.gpu }},
		{"", nil},
	}
}

// nodeShapes are the capacities nodes join with or change to: mixed
// sizes, odd ones (7 and 6 vcores) that change the granularity, and a
// memory-tight node.
var nodeShapes = []resource.Vector{
	resource.New(8, 32768), resource.New(16, 65536), resource.New(32, 131072),
	resource.New(7, 28672), resource.New(6, 24576), resource.New(12, 49152), resource.New(8, 8192),
}

// reqShapes are the AM and executor requests of the random jobs: all even
// in vcores, so that a node of odd size is what makes the granularity fine.
var reqShapes = []resource.Vector{resource.New(2, 2048), resource.New(2, 4096), resource.New(4, 8192)}

// propJob is a random job as the test drives it: an Open job whose driver
// (the AM) and executors carry the requests of one placement class.
type propJob struct {
	key   string
	class placeClass
	exec  resource.Vector
	execs int
	asked bool
}

// incState is one random run: the fake cluster, its node attributes, the
// jobs, and the controller under test.
type incState struct {
	t     *testing.T
	rng   *rand.Rand
	fc    *fakecluster.Cluster
	ctrl  *autoadmin.Controller
	attrs map[string]*nodeAttrs
	cls   []placeClass
	names []string // nodes that have not left, in join order
	next  int      // the next node name's number
	jobs  []*propJob
	log   []string // the events so far, for the failure message
}

func (s *incState) randAttrs() *nodeAttrs {
	a := &nodeAttrs{zone: []string{"a", "b", "c"}[s.rng.IntN(3)], disk: []string{"ssd", "hdd"}[s.rng.IntN(2)]}
	a.spot, a.gpu = s.rng.IntN(4) == 0, s.rng.IntN(5) == 0
	return a
}

func (s *incState) node(name string) *cluster.Node {
	n, err := s.fc.Node(name)
	if err != nil {
		s.t.Fatal(err)
	}
	return n
}

// step applies one random event and returns what it did; "" when the
// event drawn did not apply (no node to change).
func (s *incState) step() (string, error) {
	fc, rng := s.fc, s.rng
	fc.Now = fc.Now.Add(clock.Second)
	pick := func() string { return s.names[rng.IntN(len(s.names))] }
	k := rng.IntN(100)
	if len(s.names) == 0 {
		k = 0
	}
	switch {
	case k < 15: // a node joins
		name := fmt.Sprint("n", s.next)
		s.next++
		a, c := s.randAttrs(), nodeShapes[rng.IntN(len(nodeShapes))]
		s.attrs[name] = a
		s.names = append(s.names, name)
		return fmt.Sprintf("join %s %v %+v", name, c, *a), fc.AddNode(name, c)
	case k < 25: // a node leaves
		name := pick()
		s.names = slices.DeleteFunc(s.names, func(x string) bool { return x == name })
		return "remove " + name, fc.RemoveNode(name)
	case k < 40: // cordoned or NotReady, or back
		name := pick()
		n := s.node(name)
		return fmt.Sprintf("schedulable %s %v", name, !n.Schedulable()), fc.Core.SetNodeSchedulable(fc.Now, n.ID(), !n.Schedulable())
	case k < 55: // relabelled or retainted
		name := pick()
		a := s.randAttrs()
		s.attrs[name] = a
		return fmt.Sprintf("relabel %s %+v", name, *a), fc.Core.ConstraintsChanged(fc.Now, s.node(name).ID())
	case k < 65: // its allocatable changes
		name, c := pick(), nodeShapes[rng.IntN(len(nodeShapes))]
		return fmt.Sprintf("capacity %s %v", name, c), fc.Core.SetNodeCapacity(fc.Now, s.node(name).ID(), c)
	case k < 72: // others' pods come or go
		name := pick()
		n := s.node(name)
		held := resource.New(int64(rng.IntN(3)), int64(rng.IntN(3))*2048).Min(n.Capacity())
		return fmt.Sprintf("external %s %v", name, held), fc.Core.SetNodeExternal(fc.Now, n.ID(), held)
	case k < 80 && len(s.jobs) < 6: // a pinned job is submitted
		j := &propJob{key: fmt.Sprint("j", len(s.jobs)), class: s.cls[rng.IntN(len(s.cls))],
			exec: reqShapes[rng.IntN(len(reqShapes))], execs: 1 + rng.IntN(2)}
		s.jobs = append(s.jobs, j)
		am := reqShapes[rng.IntN(len(reqShapes))]
		if _, err := fc.Submit(sched.JobSpec{Key: j.key, Open: true, AM: am}); err != nil {
			return "", err
		}
		return fmt.Sprintf("submit %s class %q AM %v", j.key, j.class.name, am),
			fc.Ask(j.key, sched.Request{Key: j.key + "-driver", Resource: am, AM: true, Class: j.class.name, Eligible: j.class.eligible})
	default: // the jobs take a step
		return "jobs step", s.jobsStep()
	}
}

// jobsStep runs the containers the core placed, asks for each job's
// executors once its driver runs, ends some running executors, and ends
// a driver once its executors are done.
func (s *incState) jobsStep() error {
	fc := s.fc
	for _, k := range fc.Live() {
		ct, err := fc.Container(k)
		if err != nil {
			return err
		}
		switch {
		case ct.State() == sched.Acquired:
			err = fc.Run(k)
		case ct.State() == sched.Running && !ct.IsAM() && s.rng.IntN(2) == 0:
			err = fc.End(k, sched.Completed)
		}
		if err != nil {
			return err
		}
	}
	for _, j := range s.jobs {
		job, err := fc.Job(j.key)
		if err != nil {
			return err
		}
		if job.State() != sched.Active {
			continue
		}
		if !j.asked {
			j.asked = true
			for i := range j.execs {
				r := sched.Request{Key: fmt.Sprintf("%s-exec-%d", j.key, i), Resource: j.exec, Class: j.class.name, Eligible: j.class.eligible}
				if err := fc.Ask(j.key, r); err != nil {
					return err
				}
			}
			continue
		}
		if job.Pending() == 0 && job.LiveContainers() == 1 {
			if err := fc.End(j.key+"-driver", sched.Completed); err != nil {
				return err
			}
		}
	}
	return nil
}

// check compares the controller's incremental totals with a recomputation.
func (s *incState) check(when string) {
	s.t.Helper()
	if err := autoadmin.Verify(s.ctrl); err != nil {
		s.t.Fatalf("%s: %v\nevents:\n  %s", when, err, strings.Join(s.log, "\n  "))
	}
}

// TestIncrementalTotalsMatchRecomputation: after every node event of a
// random live cluster (joins with random labels, taints and capacities,
// removals, cordons and uncordons, relabels, capacity changes, others'
// pods coming and going), with a few jobs pinned by random placement
// classes running on it, AutoAdmin's incrementally kept totals (C_R, the
// node shapes, the granularity, the RIC, every pool, the guard's per-node
// state) equal what a walk over the current cluster computes from scratch
// (Verify). They are checked right after the event, before any node
// heartbeat could refresh a record the event forgot, and again once the
// cluster has settled.
func TestIncrementalTotalsMatchRecomputation(t *testing.T) {
	const seeds, events = 100, 200
	var cover coverage
	for _, adm := range []string{"autoadmin", "autoadmin+", "autoadmin:guard=false,dims=vcores"} {
		for seed := range uint64(seeds) {
			cover.add(runIncremental(t, adm, seed, events))
		}
	}
	// The comparisons must have covered what they claim to: pools of
	// several classes, and containers on the nodes that change.
	t.Logf("%+v", cover)
	if cover.pools < seeds || cover.withContainers < seeds*events/2 || cover.finished == 0 {
		t.Errorf("the random runs cover too little: %+v", cover)
	}
}

// coverage counts what the random runs exercised.
type coverage struct {
	pools          int // pools followed at the end of a run, summed
	withContainers int // events after which some container was live
	finished       int // jobs that finished
}

func (c *coverage) add(d coverage) {
	c.pools += d.pools
	c.withContainers += d.withContainers
	c.finished += d.finished
}

func runIncremental(t *testing.T, adm string, seed uint64, events int) coverage {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	s := &incState{t: t, rng: rng, attrs: map[string]*nodeAttrs{}}
	s.cls = classes(s.attrs)
	// Zero to three nodes are there when the core is built.
	var start []resource.Vector
	for range rng.IntN(4) {
		name := fmt.Sprint("n", s.next)
		s.next++
		s.attrs[name] = s.randAttrs()
		s.names = append(s.names, name)
		start = append(start, nodeShapes[rng.IntN(len(nodeShapes))])
	}
	fc, err := fakecluster.New(fakecluster.Config{Policy: "fair:max_am_share=-1", Admission: adm,
		Nodes: start, NodeNames: slices.Clone(s.names)})
	if err != nil {
		t.Fatal(err)
	}
	s.fc = fc
	ctrl, ok := fc.Core.Admission().(*autoadmin.Controller)
	if !ok {
		t.Fatalf("%s: admission is %T, not the AutoAdmin controller", adm, fc.Core.Admission())
	}
	s.ctrl = ctrl
	s.log = append(s.log, fmt.Sprintf("%s seed %d: start %v", adm, seed, start))
	s.check("at start")
	var cover coverage
	for range events {
		what, err := s.step()
		s.log = append(s.log, what)
		if err != nil {
			t.Fatalf("%s: %v\nevents:\n  %s", what, err, strings.Join(s.log, "\n  "))
		}
		s.check("after " + what)
		if err := fc.Settle(); err != nil {
			t.Fatalf("settling after %s: %v\nevents:\n  %s", what, err, strings.Join(s.log, "\n  "))
		}
		s.check("settled after " + what)
		if len(fc.Live()) > 0 {
			cover.withContainers++
		}
	}
	cover.pools = autoadmin.Pools(ctrl)
	for _, j := range s.jobs {
		if job, _ := fc.Job(j.key); job.State() == sched.Finished {
			cover.finished++
		}
	}
	return cover
}

// TestIncrementalTotalsCases are the smallest event sequences on which the
// random runs found the incremental totals wrong, each checked after every
// event as they are.
func TestIncrementalTotalsCases(t *testing.T) {
	small, odd := resource.New(8, 32768), resource.New(7, 28672)
	cases := []struct {
		name   string
		adm    string
		start  []resource.Vector
		events []func(fc *fakecluster.Cluster) error
	}{
		{
			// Safe's granularity was kept as a running gcd that a node
			// joining could only make finer: after the 7-vcore node left
			// it stayed at 1 vcore, where a controller built on the
			// 8-vcore node alone has 8.
			name:  "a node of odd size joins and leaves",
			adm:   "autoadmin+",
			start: []resource.Vector{small},
			events: []func(fc *fakecluster.Cluster) error{
				func(fc *fakecluster.Cluster) error { return fc.AddNode("odd", odd) },
				func(fc *fakecluster.Cluster) error { return fc.RemoveNode("odd") },
			},
		},
		{
			// The guard plans around what others hold on a node now,
			// but ClusterChanged refreshed it only when the node's
			// counted capacity changed: it went on offering the whole
			// node until its next heartbeat.
			name:  "others' pods take part of a node",
			adm:   "autoadmin",
			start: []resource.Vector{small},
			events: []func(fc *fakecluster.Cluster) error{
				func(fc *fakecluster.Cluster) error {
					return fc.Core.SetNodeExternal(fc.Now, 0, resource.New(0, 4096))
				},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var names []string
			for i := range tc.start {
				names = append(names, fmt.Sprint("n", i))
			}
			fc, err := fakecluster.New(fakecluster.Config{Admission: tc.adm, Nodes: tc.start, NodeNames: names})
			if err != nil {
				t.Fatal(err)
			}
			ctrl, ok := fc.Core.Admission().(*autoadmin.Controller)
			if !ok {
				t.Fatalf("admission is %T, not the AutoAdmin controller", fc.Core.Admission())
			}
			for i, ev := range tc.events {
				if err := ev(fc); err != nil {
					t.Fatal(err)
				}
				if err := autoadmin.Verify(ctrl); err != nil {
					t.Fatalf("after event %d: %v", i+1, err)
				}
			}
		})
	}
}
