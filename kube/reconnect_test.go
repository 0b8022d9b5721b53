package kube

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// logBuffer collects what a slog logger writes, safely across goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestReconnectWaitsForTheAPIServer: a request to an address nobody
// listens on waits, is sent again (with its body) once a server listens
// there, and the outage and recovery are logged once each; a request whose
// context ends gives up; an error from a server that did receive the
// request is returned as it is.
func TestReconnectWaitsForTheAPIServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nobody listens: connections are refused

	var logs logBuffer
	rc := &Reconnect{Log: slog.New(slog.NewTextHandler(&logs, nil)), RetryEvery: 20 * time.Millisecond}
	cfg := &rest.Config{}
	rc.Wrap(cfg)
	client := &http.Client{Transport: cfg.WrapTransport(http.DefaultTransport.(*http.Transport).Clone())}

	type answer struct {
		body string
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := client.Post("http://"+addr+"/bind", "text/plain", strings.NewReader("pod-1"))
		if err != nil {
			done <- answer{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- answer{body: string(b)}
	}()
	time.Sleep(200 * time.Millisecond)
	select {
	case a := <-done:
		t.Fatalf("the request returned while the server was down: %+v", a)
	default:
	}
	if !rc.Down() || !strings.Contains(logs.String(), "apiserver unreachable") {
		t.Fatalf("the outage is not noted: down %v, log %q", rc.Down(), logs.String())
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Write(append([]byte("got "), b...))
	})}
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	go srv.Serve(l)
	defer srv.Close()
	select {
	case a := <-done:
		if a.err != nil || a.body != "got pod-1" {
			t.Fatalf("after the server came back: %+v, want the body sent again", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the request did not go through once the server listened")
	}
	if rc.Down() || strings.Count(logs.String(), "apiserver unreachable") != 1 || strings.Count(logs.String(), "apiserver reachable again") != 1 {
		t.Errorf("want one outage and one recovery logged, got:\n%s", logs.String())
	}

	// A request whose context ends while nobody listens gives up.
	srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
	if _, err := client.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("with its context ended: %v, want the deadline", err)
	}
}
