package sched

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/resource"
)

type quietDriver struct{}

func (quietDriver) Launch(*Container)     {}
func (quietDriver) Stop(*Container)       {}
func (quietDriver) WakeAM(*Job)           {}
func (quietDriver) Reconsider()           {}
func (quietDriver) AcceptLowered()        {}
func (quietDriver) Revisit(*cluster.Node) {}

// headPolicy places the one job's next ask wherever it fits.
type headPolicy struct{ j **Job }

func (p headPolicy) Pick(n *cluster.Node) *Ask {
	if a := (*p.j).NextAsk(); a != nil && a.Request.Fits(n.Free()) {
		return a
	}
	return nil
}

// Check runs after every event in every test; what it is for is catching a
// core whose books have gone wrong. With a simulated job's task placed,
// each kind of corruption the one pass over the live containers looks for
// must be reported.
func TestCheckCatchesCorruption(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(ct *Container) (undo func())
		want    string
	}{
		{"a container that holds more than its node counts", func(ct *Container) func() {
			old := ct.req
			ct.req = ct.req.Add(resource.New(1, 0))
			return func() { ct.req = old }
		}, "containers hold"},
		{"an ended container still live", func(ct *Container) func() {
			old := ct.state
			ct.state = Completed
			return func() { ct.state = old }
		}, "still live"},
		{"a container naming another node", func(ct *Container) func() {
			old := ct.nodeID
			ct.nodeID++
			return func() { ct.nodeID = old }
		}, "names node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var j *Job
			c, err := NewCore(Config{Nodes: []resource.Vector{resource.New(4, 4096), resource.New(4, 4096)}, Driver: quietDriver{}, Debug: true,
				NewPolicy: func(*View) (Policy, error) { return headPolicy{&j}, nil }})
			if err != nil {
				t.Fatal(err)
			}
			if j, err = c.Submit(0, &JobSpec{Key: "j", Queue: "default", Phases: []PhaseSpec{{Tasks: 1, Request: resource.New(1, 1024), StartAfter: 1}}}); err != nil {
				t.Fatal(err)
			}
			c.NodeUpdate(0, c.Cluster().Node(0))
			var ct *Container
			for x := range c.live {
				ct = x
			}
			if ct == nil || ct.state < Allocated {
				t.Fatalf("no task placed: %v", ct)
			}
			if err := c.Check(); err != nil {
				t.Fatalf("before the corruption: %v", err)
			}
			undo := tc.corrupt(ct)
			err = c.Check()
			undo()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check = %v, want an error with %q", err, tc.want)
			}
			if err := c.Check(); err != nil {
				t.Errorf("after undoing it: %v", err)
			}
		})
	}
}
