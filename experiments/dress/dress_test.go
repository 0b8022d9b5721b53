package dress_test

import (
	"io"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/experiments/dress"
	"github.com/spindle-sched/spindle/experiments/internal/section"
)

// One seed of the DRESS report: every table is there, next to the paper's
// figures, with no undefined number.
func TestDRESSReport(t *testing.T) {
	body, err := dress.Run(section.Config{Seeds: 1, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go run ./cmd/spindle experiments dress", "### Table II columns", "### Small jobs",
		"### Target", "### The release estimator", "### Sensitivity", "1028.6", "27.6 %", "76.1 %", "dress:estimator=off",
		"### Every workload, every baseline", "### Target: large jobs in the stream", "### Which release estimate",
		"### Where DRESS loses, and dress+", "### The stream with a larger AM limit", "Where dress+ still loses", "Stream of small jobs", "heterogeneous containers", "| dress+ |", "`dress+:lend=off`"} {
		if !strings.Contains(body, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(body, "NaN") || strings.Contains(body, "Inf") {
		t.Errorf("report has undefined numbers:\n%s", body)
	}
}
