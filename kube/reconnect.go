package kube

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// Reconnect makes a client ride out an apiserver outage instead of backing
// off through it. Without it, a request to an apiserver that is down fails
// at once, and client-go's informers then wait before trying again, twice
// as long each time (0.8 s to 30 s, plus up to as much again of jitter):
// after a 20 s outage the next attempt comes 10 to 30 s after the
// apiserver answers again, and nothing binds meanwhile (kube-scheduler
// waits as long). With it, a request that never reached the apiserver (its
// connection was refused) is sent again every RetryEvery until it is, or
// until its context ends: the informers, bindings and status writes that
// wait see one slow request, never an error, and all go on within
// RetryEvery of the apiserver answering. The outage and the recovery are
// logged once each.
//
// Only requests the apiserver never received are repeated, so a binding is
// never sent twice; one cut off mid-flight fails as before.
type Reconnect struct {
	Log        *slog.Logger
	RetryEvery time.Duration // default 250 ms

	mu    sync.Mutex
	down  bool
	since time.Time
	// now is the clock; tests replace it.
	now func() time.Time
}

// Wrap installs r on cfg's transport; clients built from cfg afterwards
// use it. Several clients may share one Reconnect.
func (r *Reconnect) Wrap(cfg *rest.Config) {
	prev := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if prev != nil {
			rt = prev(rt)
		}
		return &reconnectTransport{r: r, next: rt}
	}
}

// Down reports whether the apiserver is unreachable now, as the last
// request found.
func (r *Reconnect) Down() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.down
}

func (r *Reconnect) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

func (r *Reconnect) failed(req *http.Request, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		return
	}
	r.down, r.since = true, r.clock()
	if r.Log != nil {
		r.Log.Warn("apiserver unreachable; requests wait for it and are sent again as soon as it answers",
			"host", req.URL.Host, "err", err)
	}
}

func (r *Reconnect) answered() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.down {
		return
	}
	r.down = false
	if r.Log != nil {
		r.Log.Info("apiserver reachable again", "down_for", r.clock().Sub(r.since).Round(time.Millisecond).String())
	}
}

type reconnectTransport struct {
	r    *Reconnect
	next http.RoundTripper
}

func (t *reconnectTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	every := t.r.RetryEvery
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	for {
		resp, err := t.next.RoundTrip(req)
		if err == nil {
			t.r.answered()
			return resp, nil
		}
		if !notSent(err) {
			return resp, err
		}
		// The request never reached the apiserver: send it again once it
		// may answer, with a fresh body.
		t.r.failed(req, err)
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return resp, err
			}
			body, berr := req.GetBody()
			if berr != nil {
				return resp, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
		timer := time.NewTimer(every)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, errors.Join(err, req.Context().Err())
		case <-timer.C:
		}
	}
}

// notSent reports whether err says the request never reached the server:
// the connection was refused.
func notSent(err error) bool { return utilnet.IsConnectionRefused(err) }
