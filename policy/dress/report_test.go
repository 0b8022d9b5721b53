package dress_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/policy/dress"
)

// The report reads the section back with this type: what the policy writes
// must read back equal, and a point short of a member must be refused.
func TestReportRoundTrip(t *testing.T) {
	in := dress.Report{Variant: "dress+", Theta: 0.1, Classify: "total", Estimator: true, IntervalS: 1, HorizonS: 9,
		Release: "phase", Demand: "usable", Lend: true, Floor: 0.2, SmallJobs: 3, LargeJobs: 1,
		Delta:       dress.DeltaReport{Initial: 0.1, Final: 0.2, Min: 0.1, Max: 0.3, Mean: 0.15, Lo: 0.05, Hi: 0.9},
		Adjustments: 2, Branches: map[string]int{"a": 1, "b": 1},
		Accuracy:    dress.Accuracy{Intervals: 2, MAE: 1.5, MAEZero: 2, MAEPersistence: 1, PredictedMean: 3, ActualMean: 2},
		SeriesEvery: 1, Series: []dress.Point{{T: 1, Delta: 0.1, Predicted: 2.5, Actual: 3}, {T: 2, Delta: 0.2, Predicted: 0, Actual: 0}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out dress.Report
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("read back %+v\nwrote %+v", out, in)
	}
	for _, bad := range []string{
		`{"series": [{"delta": 0.1, "predicted": 1, "actual": 1}]}`,
		`{"series": [{"t_s": 1, "predicted": 1, "actual": 1}]}`,
		`{"series": [{"t_s": 1, "delta": 0.1, "actual": 1}]}`,
		`{"series": [{"t_s": 1, "delta": 0.1, "predicted": 1, "actual": null}]}`,
	} {
		var r dress.Report
		if err := json.Unmarshal([]byte(bad), &r); err == nil || !strings.Contains(err.Error(), "want t_s, delta, predicted and actual") {
			t.Errorf("%s: err %v, want one naming the members", bad, err)
		}
	}
}
