package observe

import (
	"io"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// The event loop publishes while HTTP clients read and Prometheus scrapes,
// and bind workers report from their own goroutines. Run with -race: the
// readers must only ever see whole snapshots, never one being built.
func TestPublishWhileServing(t *testing.T) {
	r := NewRecorder(Options{Decisions: 16, UtilPoints: 8, UtilEvery: time.Nanosecond})
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()

	const batches = 300
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, path := range []string{"/api/v1/jobs", "/api/v1/queues", "/api/v1/decisions", "/api/v1/utilization", "/metrics", "/"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := srv.Client().Get(srv.URL + path)
				if err != nil {
					t.Errorf("GET %s: %v", path, err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					t.Errorf("GET %s: %d", path, res.StatusCode)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // a bind worker
		defer wg.Done()
		for i := 0; i < batches; i++ {
			r.Bind(BindOK, time.Millisecond)
		}
	}()
	var seen []*Snapshot
	for i := 0; i < batches; i++ { // the event loop
		r.Attempt(ResultScheduled, time.Microsecond)
		r.Decide(Decision{Time: t0.Add(time.Duration(i)), Pod: "p"})
		s := &Snapshot{Time: t0.Add(time.Duration(i) * time.Millisecond),
			Queues: []QueueStatus{{Name: "q", PendingPods: i}}}
		if err := r.Publish(s); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			seen = append(seen, r.Latest())
		}
	}
	close(stop)
	wg.Wait()
	for _, s := range seen { // earlier snapshots are intact
		if len(s.Decisions) > 16 || len(s.Utilization) > 8 || s.Queues[0].PendingPods != int(s.Seq-1) {
			t.Errorf("snapshot %d changed: %d decisions, %d samples, pending %d", s.Seq, len(s.Decisions), len(s.Utilization), s.Queues[0].PendingPods)
		}
		if last := s.Utilization[len(s.Utilization)-1]; !last.Time.Equal(s.Time) {
			t.Errorf("snapshot %d: newest sample at %v, want its own time %v", s.Seq, last.Time, s.Time)
		}
	}
}
