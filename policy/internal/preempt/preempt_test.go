package preempt

import (
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/params"
	"github.com/spindle-sched/spindle/sched"
)

func TestParams(t *testing.T) {
	capDef := sched.DefaultPreemption()
	fairDef := sched.DefaultPreemption()
	fairDef.ByWeight = true
	for _, tt := range []struct {
		spec             string
		def              sched.Preemption
		on, obs, balance bool
		err              string
	}{
		{spec: "capacity", def: capDef},
		{spec: "capacity:preemption=off", def: capDef},
		{spec: "capacity:preemption=on", def: capDef, on: true},
		{spec: "capacity:preemption=true", def: capDef, on: true},
		{spec: "capacity:preemption=observe", def: capDef, on: true, obs: true},
		{spec: "capacity:preemption=on,preempt_balance=on", def: capDef, on: true, balance: true},
		{spec: "capacity:preemption=maybe", def: capDef, err: `"maybe" is not one of off, on, observe`},
		// Fair balances to its fair shares: the cap is Capacity's.
		{spec: "fair:preemption=on,preempt_balance=on", def: fairDef, err: "preempt_balance"},
		{spec: "fair:preemption=observe", def: fairDef, on: true, obs: true},
	} {
		s, err := params.Parse(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		r := params.NewReader(s)
		got := Params(r, tt.def)
		err = r.Done()
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one containing %q", tt.spec, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.spec, err)
			continue
		}
		if (got != nil) != tt.on || got != nil && (got.Observe != tt.obs || got.Balance != tt.balance) {
			t.Errorf("%s: %+v, want on %v observe %v balance %v", tt.spec, got, tt.on, tt.obs, tt.balance)
		}
	}
}
