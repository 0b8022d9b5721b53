package observe

import (
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/sched"
)

// The internals a scheme exposes, matched by method rather than by type so
// that this package depends on no policy: DRESS's reserve ratio and
// AutoAdmin's reservation.
type (
	deltaSource       interface{ Delta() float64 }
	reservationSource interface{ Reservation() resource.Vector }
)

// PolicyGauges returns the internals of the core's policy and admission
// controller for Snapshot.Gauges: "dress_delta" (DRESS's δ, the share
// reserved for small-demand jobs) and "autoadmin_rr_vcores" /
// "autoadmin_rr_memory_mib" (AutoAdmin's reservation R_R; a dimension it does
// not reserve in reads 0). Schemes without internals add nothing. Event
// loop only: it reads the core's state.
func PolicyGauges(p sched.Policy, a sched.Admission) map[string]float64 {
	g := map[string]float64{}
	if d, ok := p.(deltaSource); ok {
		g["dress_delta"] = d.Delta()
	}
	if r, ok := a.(reservationSource); ok {
		rr := r.Reservation()
		g["autoadmin_rr_vcores"] = float64(rr[resource.VCores]) / resource.MilliPerVCore
		g["autoadmin_rr_memory_mib"] = float64(rr[resource.Memory])
	}
	return g
}
