package policy_test

import (
	"testing"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/policy"
)

// Every scheme says how it reads the queue tree, and every policy how it
// reads priorities: `spindle policies` prints them.
func TestEntriesSayHowTheyReadQueuesAndPriorities(t *testing.T) {
	for _, e := range policy.Entries() {
		if e.Queues == "" || e.Priority == "" {
			t.Errorf("policy %s: queues %q, priority %q", e.Name, e.Queues, e.Priority)
		}
	}
	for _, e := range admission.Entries() {
		if e.Queues == "" {
			t.Errorf("admission controller %s: queues %q", e.Name, e.Queues)
		}
	}
}
