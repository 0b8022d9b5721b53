package bench

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/kube"
	"github.com/spindle-sched/spindle/policy"
)

var (
	profileOut     = flag.String("kube-bench-profile", "", "run TestLiveBenchProfile and write spindle's CPU profile to this file")
	oneClient      = flag.Bool("kube-bench-one-client", false, "TestLiveBenchProfile: post Events on the main client, as spindle did before it had an event client")
	profileQPS     = flag.Int("kube-bench-profile-qps", 50, "TestLiveBenchProfile: spindle's client QPS (the burst is twice it)")
	profileWorkers = flag.Int("kube-bench-profile-workers", 0, "TestLiveBenchProfile: spindle's bind workers (0: its default)")
	profileJobs    = flag.Int("kube-bench-profile-jobs", 5, "TestLiveBenchProfile: jobs the 5000 pods are split into")
	profileOld     = flag.Bool("kube-bench-profile-old", false, "TestLiveBenchProfile: spindle as it was before issue 26: 16 bind workers, and every pending pod's reason written at the first status period")
)

// requestCounter counts a client's API requests by verb and resource, as
// the client sends them (after its rate limiter let them through).
type requestCounter struct {
	mu     sync.Mutex
	counts map[string]int
	// took sums each kind's request latency, from sending to the
	// response's headers.
	took map[string]time.Duration
}

func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		k := req.Method + " " + resourceOf(req.URL.Path)
		if req.URL.Query().Get("watch") == "true" {
			k = "WATCH " + resourceOf(req.URL.Path)
		}
		start := time.Now()
		resp, err := rt.RoundTrip(req)
		d := time.Since(start)
		c.mu.Lock()
		c.counts[k]++
		if c.took == nil {
			c.took = map[string]time.Duration{}
		}
		c.took[k] += d
		c.mu.Unlock()
		return resp, err
	})
}

func (c *requestCounter) get(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[k]
}

func (c *requestCounter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.counts))
	for k := range c.counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-28s %6d  mean %v\n", k, c.counts[k], (c.took[k] / time.Duration(max(c.counts[k], 1))).Round(time.Millisecond))
	}
	return b.String()
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// resourceOf names the resource (and subresource) of an API path:
// /api/v1/namespaces/ns/pods/p/binding is "pods/binding".
func resourceOf(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	// Skip the group prefix: api/v1 or apis/group/version.
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return path
	}
	if len(parts) >= 2 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	switch len(parts) {
	case 0:
		return "namespaces"
	case 1, 2:
		return parts[0]
	}
	return parts[0] + "/" + parts[2]
}

func TestResourceOf(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v1/namespaces/default/pods/p1/binding":                   "pods/binding",
		"/api/v1/namespaces/default/pods/p1/status":                    "pods/status",
		"/api/v1/namespaces/default/events":                            "events",
		"/api/v1/pods":                                                 "pods",
		"/api/v1/nodes/n1":                                             "nodes",
		"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x": "leases",
		"/version": "/version",
	} {
		if got := resourceOf(path); got != want {
			t.Errorf("resourceOf(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestLiveBenchProfile runs spindle in this process on one benchmark cell
// (1000 kwok nodes, 5 jobs x 1000 pods, client QPS 50/100, the default),
// counts its API requests by verb and resource and writes a CPU profile:
//
//	go test ./kube/bench -run TestLiveBenchProfile -kube-bench-profile /tmp/spindle.pprof -timeout 30m -v
//
// It asserts that every pod is bound with at least one binding each and,
// unless -kube-bench-one-client, that bindings are the only writes on the
// main client. With -kube-bench-one-client Events and conditions share the
// main client, as they did before spindle had a status client.
func TestLiveBenchProfile(t *testing.T) {
	if *profileOut == "" {
		t.Skip("NOT RUN: profiling a benchmark cell takes minutes; run with -kube-bench-profile FILE (see the doc comment)")
	}
	kubetest.RequireBinaries(t)
	c := kubetest.Start(t, kubetest.Options{Kwok: true})
	counters := map[string]*requestCounter{}
	client := func(name string) kubernetes.Interface {
		cfg := rest.CopyConfig(c.Config)
		cfg.QPS, cfg.Burst = float32(*profileQPS), 2**profileQPS
		rc := &requestCounter{counts: map[string]int{}}
		counters[name] = rc
		cfg.WrapTransport = rc.wrap
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	pf, _, err := policy.Parse("fifo")
	if err != nil {
		t.Fatal(err)
	}
	main := client("main")
	var events kubernetes.Interface
	if !*oneClient {
		events = client("status")
	}
	o := kube.Options{Client: main, StatusClient: events, SchedulerName: "spindle", Policy: pf, PolicyName: "fifo", BindWorkers: *profileWorkers}
	if *profileOld {
		o.BindWorkers, o.StatusAfter = 16, time.Nanosecond
	}
	s, err := kube.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	f, err := os.Create(*profileOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{Client: benchClient(t, c), SchedulerName: "spindle", Nodes: 1000, Jobs: *profileJobs, Pods: 5000, Timeout: 20 * time.Minute, KeepPods: true})
	pprof.StopCPUProfile()
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	for _, name := range []string{"main", "status"} {
		if counters[name] == nil {
			continue
		}
		t.Logf("spindle's %s client, requests by verb and resource:\n%s", name, counters[name])
	}
	m := counters["main"]
	binds := m.get("POST pods/binding")
	if binds < res.Bound {
		t.Errorf("%d bindings for %d pods bound", binds, res.Bound)
	}
	others := m.get("PATCH pods/status") + m.get("POST events") + m.get("PATCH events")
	if *oneClient {
		t.Logf("bindings are %d of the main client's %d writes", binds, binds+others)
	} else if others != 0 {
		t.Errorf("the main client wrote %d conditions and Events besides %d bindings; they belong on the status client", others, binds)
	}
}
