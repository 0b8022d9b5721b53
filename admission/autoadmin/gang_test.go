package autoadmin_test

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/admission/autoadmin"
	"github.com/spindle-sched/spindle/sched"
)

// AutoAdmin counts a gang's minimum as it counts a driver. The paper's
// controller on 8 nodes of 8 vcores (C_R = 64, R_R = 26 while nothing
// runs), a burst of 60 jobs, each an AM of 1 vcore and 3 tasks of 1 vcore:
// a job is admitted while 64 − held − need ≥ 26, need being its AM (1),
// or, for a gang, its minimum (AM first, then tasks): 38 jobs without a
// minimum (held ≤ 37), 19 gangs of 2 (need 2, held ≤ 36), 9 gangs of 4
// (need 4, held ≤ 34). The gang admission of the core alone would let 32
// gangs of 2 or 16 of 4 in: ARC is what stops them here.
func TestGangMinimumCountsAsDriver(t *testing.T) {
	for _, c := range []struct {
		min          int
		wantAdmitted int
		wantWhy      string
	}{
		{0, 38, "vcores 26 left after admitted AMs, AM needs 1, reserve R_R = 26"},
		{2, 19, "vcores 26 left after admitted AMs, gang minimum needs 2, reserve R_R = 26"},
		{4, 9, "vcores 28 left after admitted AMs, gang minimum needs 4, reserve R_R = 26"},
	} {
		t.Run(strings.Repeat("g", c.min), func(t *testing.T) {
			h, ctl := harness(t, 8, autoadmin.Paper())
			var js []*sched.Job
			for i := range 60 {
				spec := job(i, 1, 1, 3)
				spec.MinMembers = c.min
				js = append(js, h.Submit(spec))
			}
			if got := admitted(js); got != c.wantAdmitted {
				t.Errorf("admitted %d, want %d", got, c.wantAdmitted)
			}
			if why := ctl.WaitReason(js[len(js)-1]); !strings.Contains(why, c.wantWhy) {
				t.Errorf("the last job waits because %q, want it to say %q", why, c.wantWhy)
			}
		})
	}
}
