package replay

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func createOf(name string) action {
	return action{create: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}}
}

// Calls come out one job at a time in turn, each job's in order; a job
// that joins waits for the current round only.
func TestLanesServeJobsInTurn(t *testing.T) {
	l := newLanes()
	for _, c := range []struct {
		job  int
		name string
	}{{1, "a1"}, {1, "a2"}, {1, "a3"}, {2, "b1"}, {-1, "x"}, {2, "b2"}} {
		l.push(c.job, createOf(c.name))
	}
	var got []string
	for range 3 {
		a, ok := l.pop()
		if !ok {
			t.Fatal("closed early")
		}
		got = append(got, a.create.Name)
	}
	l.push(3, createOf("c1")) // joins behind the jobs already waiting
	for range 4 {
		a, _ := l.pop()
		got = append(got, a.create.Name)
	}
	want := []string{"a1", "b1", "x", "a2", "b2", "c1", "a3"}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
	l.push(1, action{delete: "late"})
	l.close()
	if _, ok := l.pop(); ok {
		t.Error("pop after close returned a call")
	}
}
