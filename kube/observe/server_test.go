package observe

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

func get(t *testing.T, srv *httptest.Server, method, path string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return res, string(b)
}

func decode[T any](t *testing.T, body string) (T, envelope) {
	t.Helper()
	var env struct {
		envelope
		Items T `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		t.Fatalf("decoding %q: %v", body, err)
	}
	return env.Items, env.envelope
}

func TestAPIServesLatestSnapshot(t *testing.T) {
	r := NewRecorder(Options{UtilEvery: 10 * time.Second})
	r.SetRole(RoleLeader)
	r.SetSynced(true)
	fakeCluster(r, 4)
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()

	res, body := get(t, srv, "GET", "/api/v1/jobs")
	if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || ct != "application/json" {
		t.Fatalf("jobs: %d %q", res.StatusCode, ct)
	}
	jobs, env := decode[[]JobStatus](t, body)
	if env.Seq != 4 || !env.Time.Equal(t0.Add(30*time.Second)) {
		t.Errorf("jobs envelope seq %d time %v, want 4 and +30s", env.Seq, env.Time)
	}
	if len(jobs) != 3 || jobs[1].Name != "spark-sql-report" || jobs[1].AM != AMWaiting || !strings.Contains(jobs[1].AMReason, "R_R") {
		t.Errorf("jobs = %+v", jobs)
	}

	if jobs[1].QueuePosition != 1 || jobs[0].QueuePosition != 0 {
		t.Errorf("queue positions %d, %d: want the waiting job first in its queue, the running one none", jobs[1].QueuePosition, jobs[0].QueuePosition)
	}
	_, body = get(t, srv, "GET", "/api/v1/pods")
	pods, _ := decode[[]PodStatus](t, body)
	if len(pods) != 2 || pods[0].QueuePosition != 1 || !pods[0].AM || pods[1].QueuePosition != 0 || !strings.Contains(pods[1].Reason, "0/2 nodes are available") {
		t.Errorf("pods = %+v", pods)
	}
	if strings.Contains(body, `"queue_position":0`) {
		t.Errorf("a pod without a position carries one: %s", body)
	}

	_, body = get(t, srv, "GET", "/api/v1/queues")
	queues, _ := decode[[]QueueStatus](t, body)
	// Fourth batch: CPU 2000+3*300 = 2900 of 20000 usable.
	if len(queues) != 2 || queues[0].Name != "etl" || queues[0].Usage.MilliCPU != 2900 || queues[0].Share != 0.145 || queues[1].PendingPods != 5 {
		t.Errorf("queues = %+v", queues)
	}

	_, body = get(t, srv, "GET", "/api/v1/nodes")
	nodes, _ := decode[[]NodeStatus](t, body)
	if len(nodes) != 2 || nodes[1].Schedulable || nodes[1].External.MilliCPU != 1000 || nodes[0].Allocated.MilliCPU != 2900 {
		t.Errorf("nodes = %+v", nodes)
	}

	_, body = get(t, srv, "GET", "/api/v1/decisions")
	decs, _ := decode[[]Decision](t, body)
	if len(decs) != 4 || decs[0].Pod != "analytics/spark-pi-exec-1" || decs[3].Pod != "analytics/spark-pi-exec-4" || decs[3].Node != "kwok-node-0" {
		t.Errorf("decisions = %+v", decs)
	}

	_, body = get(t, srv, "GET", "/api/v1/utilization")
	util, _ := decode[[]UtilPoint](t, body)
	if len(util) != 4 || util[3].CPU != 0.145 || util[0].CPU != 0.1 || util[3].Memory != 0.0625 || util[3].PendingPods != 6 {
		t.Errorf("utilization = %+v", util)
	}

	_, body = get(t, srv, "GET", "/api/v1/status")
	st, _ := decode[status](t, body)
	if st.Policy != "dress" || st.Admission != "autoadmin" || st.Role != RoleLeader || !st.Synced || st.Gauges["dress_delta"] != 0.13 || st.Jobs != 3 {
		t.Errorf("status = %+v", st)
	}
}

// Before the first Publish every endpoint still answers, with empty lists
// rather than null, so the page and scripts need no special case.
func TestAPIBeforeFirstPublish(t *testing.T) {
	srv := httptest.NewServer(NewRecorder(Options{}).Handler())
	defer srv.Close()
	for _, p := range []string{"jobs", "queues", "nodes", "decisions", "utilization"} {
		res, body := get(t, srv, "GET", "/api/v1/"+p)
		if res.StatusCode != 200 || !strings.Contains(body, `"items": []`) || !strings.Contains(body, `"seq": 0`) {
			t.Errorf("%s: %d %s", p, res.StatusCode, body)
		}
	}
	res, body := get(t, srv, "GET", "/api/v1/status")
	if res.StatusCode != 200 || !strings.Contains(body, `"gauges": {}`) || !strings.Contains(body, `"role": "solo"`) {
		t.Errorf("status: %d %s", res.StatusCode, body)
	}
}

func TestProbes(t *testing.T) {
	r := NewRecorder(Options{})
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	if res, body := get(t, srv, "GET", "/healthz"); res.StatusCode != 200 || body != "ok\n" {
		t.Errorf("healthz: %d %q", res.StatusCode, body)
	}
	if res, body := get(t, srv, "GET", "/readyz"); res.StatusCode != 503 || !strings.Contains(body, "not synced") && !strings.Contains(body, "not ready") {
		t.Errorf("readyz before sync: %d %q, want 503", res.StatusCode, body)
	}
	r.SetRole(RoleLeader)
	r.SetSynced(true)
	if res, body := get(t, srv, "GET", "/readyz"); res.StatusCode != 200 || body != "ok: leader\n" {
		t.Errorf("readyz as synced leader: %d %q", res.StatusCode, body)
	}
	r.SetRole(RoleStandby)
	r.SetSynced(false)
	if res, body := get(t, srv, "GET", "/readyz"); res.StatusCode != 200 || !strings.Contains(body, "standby") {
		t.Errorf("readyz as standby: %d %q", res.StatusCode, body)
	}
}

func TestEveryPathIsReadOnly(t *testing.T) {
	srv := httptest.NewServer(NewRecorder(Options{}).Handler())
	defer srv.Close()
	paths := []string{"/", "/ui/app.js", "/ui/style.css", "/metrics", "/healthz", "/readyz", "/api/v1/status",
		"/api/v1/jobs", "/api/v1/pods", "/api/v1/queues", "/api/v1/nodes", "/api/v1/decisions", "/api/v1/utilization", "/no-such-path"}
	for _, p := range paths {
		for _, m := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"} {
			res, _ := get(t, srv, m, p)
			if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d Allow=%q, want 405 with Allow: GET, HEAD", m, p, res.StatusCode, res.Header.Get("Allow"))
			}
		}
		res, body := get(t, srv, "HEAD", p)
		want := 200
		if p == "/readyz" {
			want = 503
		}
		if p == "/no-such-path" {
			want = 404
		}
		if res.StatusCode != want || body != "" {
			t.Errorf("HEAD %s: %d with %d body bytes, want %d and none", p, res.StatusCode, len(body), want)
		}
	}
}

func TestStatusPageIsSelfContained(t *testing.T) {
	srv := httptest.NewServer(NewRecorder(Options{}).Handler())
	defer srv.Close()
	res, page := get(t, srv, "GET", "/")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("/: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("CSP = %q, want default-src 'self' so nothing loads from elsewhere", csp)
	}
	for _, want := range []string{`src="ui/app.js"`, `href="ui/style.css"`, `id="util-chart"`, `id="queues"`, `id="jobs"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, p := range []string{"/", "/ui/app.js", "/ui/style.css"} {
		_, body := get(t, srv, "GET", p)
		for _, bad := range []string{"http://", "https://", "//cdn"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s refers to %q: the page must work offline", p, bad)
			}
		}
	}
	if res, _ := get(t, srv, "GET", "/ui/app.js"); !strings.Contains(res.Header.Get("Content-Type"), "javascript") {
		t.Errorf("app.js served as %q", res.Header.Get("Content-Type"))
	}
}

func gathered(t *testing.T, r *Recorder) map[string][]*dto.Metric {
	t.Helper()
	mfs, err := r.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*dto.Metric{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf.GetMetric()
	}
	return out
}

// value returns the gauge or counter value of the metric with exactly
// these labels, failing the test when there is none.
func value(t *testing.T, ms map[string][]*dto.Metric, name string, labels ...string) float64 {
	t.Helper()
next:
	for _, m := range ms[name] {
		if len(m.GetLabel())*2 != len(labels) {
			continue
		}
		for i, l := range m.GetLabel() {
			if l.GetName() != labels[2*i] || l.GetValue() != labels[2*i+1] {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	t.Fatalf("no metric %s%v", name, labels)
	return 0
}

func TestMetrics(t *testing.T) {
	r := NewRecorder(Options{})
	r.SetSynced(true)
	r.Attempt(ResultScheduled, 50*time.Microsecond)
	r.Attempt(ResultScheduled, 70*time.Microsecond)
	r.Attempt(ResultWaitingAdmission, 20*time.Microsecond)
	r.Attempt(ResultUnschedulable, 30*time.Microsecond)
	done := make(chan struct{})
	go func() { // bind workers report from their own goroutines
		r.Bind(BindOK, 4*time.Millisecond)
		r.Bind(BindConflict, 9*time.Millisecond)
		close(done)
	}()
	<-done
	fakeCluster(r, 2)

	ms := gathered(t, r)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"spindle_schedule_attempts_total", []string{"result", "scheduled"}, 2},
		{"spindle_schedule_attempts_total", []string{"result", "waiting_admission"}, 1},
		{"spindle_schedule_attempts_total", []string{"result", "unschedulable"}, 1},
		{"spindle_schedule_attempts_total", []string{"result", "error"}, 0},
		{"spindle_scheduling_decision_duration_seconds", []string{"result", "scheduled"}, 2},
		{"spindle_bind_duration_seconds", []string{"result", "ok"}, 1},
		{"spindle_bind_duration_seconds", []string{"result", "conflict"}, 1},
		{"spindle_bind_duration_seconds", []string{"result", "error"}, 0},
		{"spindle_pending_pods", []string{"queue", "adhoc"}, 5},
		{"spindle_pending_pods", []string{"queue", "etl"}, 1},
		{"spindle_running_pods", []string{"queue", "etl"}, 3},
		{"spindle_application_masters", []string{"queue", "etl", "state", "admitted"}, 1},
		{"spindle_application_masters", []string{"queue", "adhoc", "state", "waiting"}, 1},
		{"spindle_queue_usage_cpu_cores", []string{"queue", "etl"}, 2.3},
		{"spindle_queue_usage_memory_bytes", []string{"queue", "etl"}, 4096 << 20},
		{"spindle_queue_share", []string{"queue", "etl"}, 0.115},
		{"spindle_queue_weight", []string{"queue", "etl"}, 3},
		{"spindle_queue_preemptions_total", []string{"direction", "from", "queue", "etl"}, 2},
		{"spindle_queue_preemptions_total", []string{"direction", "for", "queue", "adhoc"}, 2},
		{"spindle_queue_preemptions_total", []string{"direction", "for", "queue", "etl"}, 0},
		{"spindle_policy_value", []string{"admission", "autoadmin", "name", "dress_delta", "policy", "dress"}, 0.11},
		{"spindle_policy_value", []string{"admission", "autoadmin", "name", "autoadmin_rr_vcores", "policy", "dress"}, 6},
		{"spindle_jobs", []string{"state", "waiting"}, 1},
		{"spindle_nodes", []string{"schedulable", "false"}, 1},
		{"spindle_cluster_utilization", []string{"resource", "cpu"}, 0.115},
		{"spindle_cluster_utilization", []string{"resource", "memory"}, 0.0625},
		{"spindle_leader", nil, 1},
		{"spindle_synced", nil, 1},
	} {
		if got := value(t, ms, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	std := []string{"go_goroutines"}
	if hasProc() {
		std = append(std, "process_cpu_seconds_total")
	}
	for _, name := range std {
		if _, ok := ms[name]; !ok {
			t.Errorf("standard collector metric %s missing", name)
		}
	}

	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	res, body := get(t, srv, "GET", "/metrics")
	if res.StatusCode != 200 || !strings.Contains(body, `spindle_policy_value{admission="autoadmin",name="dress_delta",policy="dress"} 0.11`) {
		t.Errorf("/metrics: %d, lacks dress_delta:\n%s", res.StatusCode, body)
	}
}

func TestServeStopsWithContext(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- r.Serve(ctx, ln) }()
	res, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("healthz over a real listener: %v %v", res, err)
	}
	res.Body.Close()
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Serve after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		t.Fatal("server still answers after shutdown")
	}
}

func TestListenNamesFlagOnError(t *testing.T) {
	_, err := Listen("127.0.0.1:notaport")
	if err == nil || !strings.Contains(err.Error(), "--"+AddressFlag) {
		t.Fatalf("err = %v, want one naming --%s", err, AddressFlag)
	}
}
