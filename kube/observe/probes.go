package observe

import (
	"fmt"
	"net/http"
)

// ProbeHandler serves the probes alone, for a listener of their own that
// needs no authentication (the kubelet sends none):
//
//	/healthz, /livez   200 while the process serves
//	/readyz            200 when ready (see Ready), else 503
//
// Handler serves the same paths beside everything else.
func (r *Recorder) ProbeHandler() http.Handler {
	mux := http.NewServeMux()
	r.probes(mux)
	return readOnly(mux)
}

func (r *Recorder) probes(mux *http.ServeMux) {
	alive := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	}
	mux.HandleFunc("/healthz", alive)
	mux.HandleFunc("/livez", alive)
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		ok, why := r.Ready()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready:", why)
			return
		}
		fmt.Fprintln(w, "ok:", why)
	})
}
