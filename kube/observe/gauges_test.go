package observe

import (
	"maps"
	"testing"

	"github.com/spindle-sched/spindle/admission/autoadmin"
	"github.com/spindle-sched/spindle/cluster"
	"github.com/spindle-sched/spindle/policy/dress"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// The real schemes expose what PolicyGauges looks for; a renamed method
// breaks this build rather than silently dropping the gauge.
var (
	_ deltaSource       = (*dress.Policy)(nil)
	_ reservationSource = (*autoadmin.Controller)(nil)
)

type fakePolicy struct{}

func (fakePolicy) Pick(*cluster.Node) *sched.Ask { return nil }

type fakeDress struct {
	fakePolicy
	delta float64
}

func (f fakeDress) Delta() float64 { return f.delta }

type fakeAdmit struct{}

func (fakeAdmit) Admit(*sched.Job) bool { return true }

type fakeAutoAdmin struct {
	fakeAdmit
	rr resource.Vector
}

func (f fakeAutoAdmin) Reservation() resource.Vector { return f.rr }

func TestPolicyGauges(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    sched.Policy
		a    sched.Admission
		want map[string]float64
	}{
		{"no internals", fakePolicy{}, nil, map[string]float64{}},
		{"dress", fakeDress{delta: 0.25}, fakeAdmit{}, map[string]float64{"dress_delta": 0.25}},
		{"autoadmin", fakePolicy{}, fakeAutoAdmin{rr: resource.Vector{resource.VCores: 2500}},
			map[string]float64{"autoadmin_rr_vcores": 2.5, "autoadmin_rr_memory_mib": 0}},
		{"both", fakeDress{delta: 0.1}, fakeAutoAdmin{rr: resource.Vector{resource.VCores: 4000, resource.Memory: 8192}},
			map[string]float64{"dress_delta": 0.1, "autoadmin_rr_vcores": 4, "autoadmin_rr_memory_mib": 8192}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PolicyGauges(tc.p, tc.a)
			if !maps.Equal(got, tc.want) {
				t.Fatalf("PolicyGauges = %v, want %v", got, tc.want)
			}
			// Every name is one Publish accepts.
			if err := NewRecorder(Options{}).Publish(&Snapshot{Gauges: got}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
