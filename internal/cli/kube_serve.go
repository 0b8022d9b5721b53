package cli

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/http"

	"k8s.io/client-go/kubernetes"

	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/kube/webauth"
)

// checkHTTPFlags refuses what would expose the scheduler's state: the API
// names namespaces and pods, so without authentication it is served on
// loopback only.
func checkHTTPFlags(f *scheduleFlags) error {
	switch f.httpAuth {
	case "none", "kubernetes":
	default:
		return usagef("--http-auth: %q is not one of none, kubernetes", f.httpAuth)
	}
	if f.httpAuth == "none" && f.httpAddress != "off" && !webauth.IsLoopback(f.httpAddress) {
		return usagef("--http-address %s is not a loopback address: serving /metrics and /api there needs --http-auth=kubernetes (or keep it on 127.0.0.1 and use kubectl port-forward; see docs/kube-observability.md)", f.httpAddress)
	}
	if f.httpAuth == "none" && (f.trustLoopback || f.tlsCert != "" || f.tlsKey != "") {
		return usagef("--http-trust-loopback, --tls-cert-file and --tls-key-file need --http-auth=kubernetes")
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return usagef("--tls-cert-file and --tls-key-file go together")
	}
	if f.probeAddress != "" && f.probeAddress == f.httpAddress {
		return usagef("--probe-address must differ from --http-address")
	}
	return nil
}

// serveHTTP opens the listeners first, so that a port clash fails at once,
// then serves the recorder: everything on --http-address (behind the
// apiserver's authentication and authorization with --http-auth=kubernetes),
// the probes alone on --probe-address. *stop is set to a function that
// stops serving and waits for it.
func serveHTTP(ctx context.Context, f *scheduleFlags, client kubernetes.Interface, rec *observe.Recorder, log *slog.Logger, stop *func()) error {
	type server struct {
		addr string
		h    http.Handler
		tls  *tls.Config
	}
	var servers []server
	if f.httpAddress != "off" {
		h := rec.Handler()
		var tlsConfig *tls.Config
		if f.httpAuth == "kubernetes" {
			a, err := webauth.New(webauth.Options{Client: client, TrustLoopback: f.trustLoopback, AuthorizedPath: webauth.APIPath})
			if err != nil {
				return err
			}
			h = a.Wrap(h)
			if f.tlsCert != "" {
				tlsConfig, err = webauth.FromFiles(f.tlsCert, f.tlsKey)
			} else {
				tlsConfig, err = webauth.SelfSigned()
			}
			if err != nil {
				return err
			}
		}
		servers = append(servers, server{f.httpAddress, h, tlsConfig})
	}
	if f.probeAddress != "" {
		servers = append(servers, server{f.probeAddress, rec.ProbeHandler(), nil})
	}
	ctx, cancel := context.WithCancel(ctx)
	served := make(chan error, len(servers))
	for i, s := range servers {
		ln, err := observe.Listen(s.addr)
		if err != nil {
			cancel()
			for range i {
				<-served
			}
			return err
		}
		go func() { served <- webauth.Serve(ctx, ln, s.h, s.tls) }()
		scheme := "http"
		if s.tls != nil {
			scheme = "https"
		}
		what := "status"
		if s.addr == f.probeAddress {
			what = "probes"
		}
		log.Info("serving "+what, "address", scheme+"://"+ln.Addr().String(), "auth", map[bool]string{true: f.httpAuth, false: "none"}[what == "status"])
	}
	*stop = func() {
		cancel()
		for range servers {
			if err := <-served; err != nil {
				log.Error("http", "err", err)
			}
		}
	}
	return nil
}
