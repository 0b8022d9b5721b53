package observe

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// DefaultAddress is where the HTTP side listens unless told otherwise:
// loopback only, so that nothing is exposed by accident. The port is not
// kube-scheduler's 10259, so both can run on one host (as the live tests
// and the benchmark against kube-scheduler do).
const DefaultAddress = "127.0.0.1:10261"

// AddressFlag is the name of the command-line flag that sets the listen
// address; deploy/ manifests use it.
const AddressFlag = "http-address"

//go:embed ui
var uiFiles embed.FS

// Handler returns the read-only HTTP API:
//
//	/                  status page (queues, jobs, nodes, decisions, utilization)
//	/ui/...            the page's script and style, embedded in the binary
//	/metrics           Prometheus metrics
//	/healthz, /livez   200 while the process serves
//	/readyz            200 when ready (see Ready), else 503
//	/api/v1/status     policy, admission, role, sync state, policy gauges
//	/api/v1/jobs       JobStatus items
//	/api/v1/pods       PodStatus items: the pending pods, their queue position and why they wait
//	/api/v1/queues     QueueStatus items
//	/api/v1/nodes      NodeStatus items
//	/api/v1/decisions  the last placements, oldest first
//	/api/v1/utilization  the utilization ring, oldest first
//	/api/v1/forecast   Forecast items: the last forecast; with ?policy=P
//	                   (repeatable), the current state simulated under each
//	                   policy P instead (SetWhatIf)
//
// Every path answers GET and HEAD only; any other method gets 405.
func (r *Recorder) Handler() http.Handler {
	mux := http.NewServeMux()
	ui, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the embed pattern above guarantees the directory
	}
	mux.Handle("/ui/", http.StripPrefix("/ui/", http.FileServerFS(ui)))
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, req *http.Request) {
		http.ServeFileFS(w, req, ui, "index.html")
	})
	mux.Handle("/metrics", promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	r.probes(mux)
	api := func(path string, items func(*Snapshot) any) {
		mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			s := r.Latest()
			if s == nil {
				s = &Snapshot{Role: r.Role(), Synced: r.Synced()}
			}
			writeJSON(w, items(s), s)
		})
	}
	api("/api/v1/status", func(s *Snapshot) any {
		return status{Policy: s.Policy, Admission: s.Admission, Role: r.Role(), Synced: r.Synced(),
			Gauges: orEmpty(s.Gauges), Jobs: len(s.Jobs), Queues: len(s.Queues), Nodes: len(s.Nodes), Forecast: s.Forecast}
	})
	mux.HandleFunc("/api/v1/forecast", r.serveForecast)
	api("/api/v1/jobs", func(s *Snapshot) any { return nonNil(s.Jobs) })
	api("/api/v1/pods", func(s *Snapshot) any { return nonNil(s.Pods) })
	api("/api/v1/queues", func(s *Snapshot) any { return nonNil(s.Queues) })
	api("/api/v1/nodes", func(s *Snapshot) any { return nonNil(s.Nodes) })
	api("/api/v1/decisions", func(s *Snapshot) any { return nonNil(s.Decisions) })
	api("/api/v1/utilization", func(s *Snapshot) any { return nonNil(s.Utilization) })
	return readOnly(mux)
}

// status is the body of /api/v1/status.
type status struct {
	Policy    string             `json:"policy"`
	Admission string             `json:"admission"`
	Role      Role               `json:"role"`
	Synced    bool               `json:"synced"`
	Gauges    map[string]float64 `json:"gauges"`
	Jobs      int                `json:"jobs"`
	Queues    int                `json:"queues"`
	Nodes     int                `json:"nodes"`
	Forecast  *ForecastInfo      `json:"forecast,omitempty"`
}

// WhatIf simulates the scheduler's current state under each named policy,
// in order. An unknown name is an error wrapping ErrUnknownPolicy. It runs
// on the HTTP request's goroutine and must not touch the scheduler's state
// but through the scheduler's own means (its event loop).
type WhatIf func(ctx context.Context, policies []string) ([]Forecast, error)

// ErrUnknownPolicy marks a WhatIf error that is the caller's: the policy
// name is not one the scheduler knows.
var ErrUnknownPolicy = errors.New("unknown policy")

// SetWhatIf makes /api/v1/forecast?policy=P answer through f; nil stops
// it. Any goroutine.
func (r *Recorder) SetWhatIf(f WhatIf) {
	if f == nil {
		r.whatIf.Store(nil)
		return
	}
	r.whatIf.Store(&f)
}

// serveForecast answers /api/v1/forecast: the last forecast, or with
// ?policy=P the what-if forecasts. One what-if runs at a time (each is a
// forward simulation of the whole cluster): a second request waits for
// the first.
func (r *Recorder) serveForecast(w http.ResponseWriter, req *http.Request) {
	s := r.Latest()
	if s == nil {
		s = &Snapshot{Role: r.Role(), Synced: r.Synced()}
	}
	names := req.URL.Query()["policy"]
	if len(names) == 0 {
		if s.Forecast == nil {
			writeError(w, http.StatusServiceUnavailable, "no forecast yet: the scheduler has not made one (or does not forecast: --forecast-every 0)")
			return
		}
		writeJSON(w, []Forecast{CurrentForecast(s)}, s)
		return
	}
	f := r.whatIf.Load()
	if f == nil {
		writeError(w, http.StatusServiceUnavailable, "this scheduler does not simulate other policies: it does not forecast (--forecast-every 0) or has not synced yet")
		return
	}
	select {
	case r.whatIfBusy <- struct{}{}:
		defer func() { <-r.whatIfBusy }()
	case <-req.Context().Done():
		return
	}
	out, err := (*f)(req.Context(), names)
	switch {
	case errors.Is(err, ErrUnknownPolicy):
		writeError(w, http.StatusBadRequest, err.Error())
	case err != nil:
		writeError(w, http.StatusServiceUnavailable, err.Error())
	default:
		writeJSON(w, out, s)
	}
}

// CurrentForecast is the forecast s's jobs carry, as a Forecast.
func CurrentForecast(s *Snapshot) Forecast {
	f := Forecast{Jobs: []JobForecast{}}
	if s.Forecast != nil {
		f.Policy, f.At, f.CPUSeconds = s.Forecast.Policy, s.Forecast.At, s.Forecast.CPUSeconds
	}
	for _, j := range s.Jobs {
		f.Jobs = append(f.Jobs, JobForecast{Name: j.Name, Namespace: j.Namespace, Queue: j.Queue,
			Start: j.ForecastStart, Finish: j.ForecastFinish, Beyond: j.ForecastBeyond, Source: j.ForecastSource})
	}
	return f
}

// apiError is the body of an API answer that is not 200.
type apiError struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(apiError{msg})
}

// envelope wraps every API answer with the snapshot it came from, so a
// client polling several endpoints can tell whether they agree.
type envelope struct {
	Time  time.Time `json:"time,omitzero"`
	Seq   uint64    `json:"seq"`
	Items any       `json:"items"`
}

func writeJSON(w http.ResponseWriter, items any, s *Snapshot) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// The header is sent; an encoding error now means the client went away.
	_ = enc.Encode(envelope{Time: s.Time, Seq: s.Seq, Items: items})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func orEmpty(m map[string]float64) map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	return m
}

// readOnly refuses every method but GET and HEAD, and sets headers that
// keep the page self-contained: no script, style or connection to anything
// but this server.
func readOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: this API is read-only", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, req)
	})
}

// Serve serves Handler on ln until ctx ends, then shuts down gracefully
// (giving open requests up to five seconds).
func (r *Recorder) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: r.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("observe: serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("observe: shutting down %s: %w", ln.Addr(), err)
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("observe: serving on %s: %w", ln.Addr(), err)
	}
	return nil
}

// Listen opens addr (host:port; DefaultAddress when empty) for Serve. The
// driver listens before it starts informers, so that a port clash fails
// the command at once instead of after a sync.
func Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = DefaultAddress
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("observe: --http-address %s: %w", addr, err)
	}
	return ln, nil
}
