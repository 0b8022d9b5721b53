package traces

import (
	"io"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/experiments/internal/section"
)

// The traces experiment end to end on the small hand-made SWF log.
func TestTracesSmallLog(t *testing.T) {
	t.Setenv(NASAEnv, "../../trace/testdata/small.swf")
	body, err := Run(section.Config{Seeds: 2, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"6 records. 2 records with run time <= 0 (unknown or zero) are left out. 1 records with no processor count are left out. That leaves 3 jobs and 14 tasks.",
		"The cluster is 4 nodes of 2 processor(s) (1 vcore and 1024 MiB each), sized by the header's MaxProcs (8).",
		"### Arrival scale 1\n",
		"### Arrival scale 0.5\n",
		"| fifo | 3/3 |",
		"| fair | 3/3 |",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %q in:\n%s", want, body)
		}
	}
}

func TestTracesMissingLog(t *testing.T) {
	t.Setenv(NASAEnv, "no/such/log.swf")
	_, err := Run(section.Config{Seeds: 1, Log: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "SPINDLE_NASA_SWF=no/such/log.swf") {
		t.Errorf("got %v", err)
	}
}
