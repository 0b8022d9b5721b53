package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/spindle-sched/spindle/kube/forecast"
	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/sched"
)

// fakeForecaster stands in for forecast.Run: it records each snapshot and
// options it is given, blocks while gate is set until a value comes on it,
// and answers with what answer returns.
type fakeForecaster struct {
	mu      sync.Mutex
	snaps   []*forecast.Snapshot
	opts    []forecast.Options
	gate    chan struct{}
	started chan struct{} // told, when not nil, each time a run begins
	answer  func(*forecast.Snapshot, forecast.Options) (*forecast.Result, error)
}

func (f *fakeForecaster) run(s *forecast.Snapshot, o forecast.Options) (*forecast.Result, error) {
	f.mu.Lock()
	f.snaps = append(f.snaps, s)
	f.opts = append(f.opts, o)
	gate, started := f.gate, f.started
	f.mu.Unlock()
	if started != nil {
		started <- struct{}{}
	}
	if gate != nil {
		<-gate
	}
	return f.answer(s, o)
}

func (f *fakeForecaster) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.snaps)
}

// startsIn answers with each waiting pod's job forecast to start wait
// after the snapshot, and to finish 10 min after that; running jobs
// started a minute before it.
func startsIn(wait map[string]time.Duration) func(*forecast.Snapshot, forecast.Options) (*forecast.Result, error) {
	return func(s *forecast.Snapshot, o forecast.Options) (*forecast.Result, error) {
		r := &forecast.Result{At: s.Now, Policy: o.PolicyName, CPU: 3 * time.Millisecond}
		seen := map[string]bool{}
		for _, p := range s.Pods {
			id := identify(p)
			if p.Spec.SchedulerName != s.SchedulerName || seen[id.Job] {
				continue
			}
			seen[id.Job] = true
			j := forecast.Job{Key: id.Job, Namespace: p.Namespace, Queue: "default", Source: forecast.SourceCluster}
			if d, ok := wait[id.Job]; ok && p.Spec.NodeName == "" {
				j.Waiting, j.Start = true, s.Now.Add(d)
				if d < 0 {
					j.Start, j.Beyond = time.Time{}, true
				}
			} else {
				j.Start = s.Now.Add(-time.Minute)
			}
			if !j.Beyond {
				j.Finish = j.Start.Add(10 * time.Minute)
			}
			r.Jobs = append(r.Jobs, j)
		}
		return r, nil
	}
}

func (e *env) forecastOptions(f *fakeForecaster) (Options, *observe.Recorder) {
	o := e.options("fifo", "static:3")
	o.AdmissionName = "static:3"
	o.ForecastEvery = 5 * time.Second
	o.Forecast = f.run
	o.StatusEvery = time.Second
	o.StatusAfter = time.Second
	rec := observe.NewRecorder(observe.Options{})
	o.Observe = rec
	return o, rec
}

// metricValue reads one sample of the recorder's registry: the metric
// name with the labels given as name=value pairs; ok false when absent.
func metricValue(t *testing.T, rec *observe.Recorder, name string, labels ...string) (float64, bool) {
	t.Helper()
	mfs, err := rec.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for i := 0; i < len(labels); i += 2 {
				if have[labels[i]] != labels[i+1] {
					continue next
				}
			}
			switch {
			case m.Gauge != nil:
				return m.GetGauge().GetValue(), true
			case m.Counter != nil:
				return m.GetCounter().GetValue(), true
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount()), true
			}
		}
	}
	return 0, false
}

// A forecast still running when the next falls due makes that one
// skipped and counted, never queued; the snapshot it got holds the
// informers' own objects, not copies.
func TestForecastSkipsWhileOneRuns(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	f := &fakeForecaster{gate: make(chan struct{}), answer: startsIn(nil)}
	o, rec := e.forecastOptions(f)
	e.start(o)
	e.add(mkPod("batch", "p1", "1"))
	e.waitBound("batch/p1", "a")
	fc := e.st.Scheduler().fc
	if fc.running {
		t.Fatalf("a forecast ran before one was due")
	}
	e.advance(5 * time.Second)
	if !fc.running {
		t.Fatalf("no forecast started after one period")
	}
	for i := range 3 {
		e.advance(5 * time.Second)
		if got := e.st.Scheduler().fc.skipped; got != i+1 {
			t.Fatalf("after %d more periods skipped = %d, want %d", i+1, got, i+1)
		}
	}
	if v, ok := metricValue(t, rec, "spindle_forecast_skipped_total"); !ok || v != 3 {
		t.Errorf("spindle_forecast_skipped_total = %v (present %v), want 3", v, ok)
	}
	f.gate <- struct{}{}
	if err := e.st.AwaitForecast(); err != nil {
		t.Fatal(err)
	}
	if f.calls() != 1 {
		t.Fatalf("%d forecasts ran while the first ran, want none (skipped, not queued)", f.calls()-1)
	}
	if err := e.st.AwaitForecast(); err == nil {
		t.Error("AwaitForecast with none running did not fail")
	}
	if v, _ := metricValue(t, rec, "spindle_forecast_runs_total", "result", "ok"); v != 1 {
		t.Errorf("spindle_forecast_runs_total{result=ok} = %v, want 1", v)
	}
	// Due again one period after the last due instant, not at once.
	close(f.gate)
	e.advance(4 * time.Second)
	if fc.running {
		t.Fatalf("a forecast started before its period")
	}
	e.advance(time.Second)
	if !fc.running {
		t.Fatalf("the second forecast did not start once due")
	}
	if err := e.st.AwaitForecast(); err != nil {
		t.Fatal(err)
	}
	if f.calls() != 2 {
		t.Fatalf("%d forecasts, want 2", f.calls())
	}

	snap := f.snaps[0]
	if want := epoch.Add(time.Hour + 5*time.Second); !snap.Now.Equal(want) {
		t.Errorf("snapshot at %v, want %v", snap.Now, want)
	}
	if len(snap.Nodes) != 1 || len(snap.Pods) != 1 || snap.SchedulerName != "spindle" || snap.DefaultQueue != "default" ||
		len(snap.Queues) != 1 || snap.Queues[0].Name != "default" || snap.Calculator != e.st.Scheduler().o.Config.Calculator() || snap.History == nil {
		t.Fatalf("snapshot = %+v", snap)
	}
	obj, _, _ := e.st.pods.GetByKey("batch/p1")
	if snap.Pods[0] != obj.(*v1.Pod) {
		t.Error("the snapshot's pod is a copy: it should be the informer's object, shared read only")
	}
	if o := f.opts[0]; o.PolicyName != "fifo" || o.Policy == nil || o.Admission == nil {
		t.Errorf("options = %+v, want the running policy and admission", o)
	}
}

// The forecast reaches the API's jobs, the status, the gauges and the
// waiting pods' condition messages; a message is rewritten only when its
// rounded words change.
func TestForecastIsPublished(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	f := &fakeForecaster{answer: startsIn(map[string]time.Duration{"spark/app-2": 4*time.Minute + 10*time.Second, "spark/app-3": -1})}
	o, rec := e.forecastOptions(f)
	e.start(o)
	// static:3 keeps 3 of 4 vcores for tasks: one driver is admitted.
	e.add(mkPod("spark", "drv1", "1", driver("app-1")))
	e.waitBound("spark/drv1", "a")
	e.add(mkPod("spark", "drv2", "1", driver("app-2")))
	e.add(mkPod("spark", "drv3", "1", driver("app-3")))
	e.staysUnbound("spark/drv2")
	e.advance(5 * time.Second)
	if err := e.st.AwaitForecast(); err != nil {
		t.Fatal(err)
	}
	at := e.st.Now()
	e.advance(time.Second) // a status refresh publishes it
	snap := rec.Latest()
	if snap.Forecast == nil || !snap.Forecast.At.Equal(at) || snap.Forecast.AgeSeconds != 1 || snap.Forecast.Policy != "fifo" || snap.Forecast.CPUSeconds != 0.003 {
		t.Fatalf("forecast info = %+v, want at %v, 1 s old", snap.Forecast, at)
	}
	jobs := map[string]observe.JobStatus{}
	for _, j := range snap.Jobs {
		jobs[j.Name] = j
	}
	j1, j2, j3 := jobs["spark/app-1"], jobs["spark/app-2"], jobs["spark/app-3"]
	if !j2.ForecastStart.Equal(at.Add(4*time.Minute+10*time.Second)) || !j2.ForecastFinish.Equal(j2.ForecastStart.Add(10*time.Minute)) || j2.ForecastSource != "cluster" || j2.ForecastBeyond {
		t.Errorf("waiting job = %+v", j2)
	}
	if !j1.ForecastStart.Equal(at.Add(-time.Minute)) || j1.ForecastFinish.IsZero() {
		t.Errorf("running job = %+v, want its start and a finish", j1)
	}
	if !j3.ForecastBeyond || !j3.ForecastStart.IsZero() || !j3.ForecastFinish.IsZero() {
		t.Errorf("job beyond the horizon = %+v, want no start or finish", j3)
	}
	b, err := json.Marshal(j3)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "forecast_start") || !strings.Contains(string(b), `"forecast_beyond":true`) {
		t.Errorf("a job without a forecast start carries one: %s", b)
	}
	if b, _ := json.Marshal(j2); !strings.Contains(string(b), `"forecast_start":"2026-01-01T01:04:15Z"`) {
		t.Errorf("forecast_start is not RFC 3339 to the second: %s", b)
	}
	if v, ok := metricValue(t, rec, "spindle_forecast_wait_seconds", "queue", "default"); !ok || v != 250 {
		t.Errorf("spindle_forecast_wait_seconds{queue=default} = %v (present %v), want 250", v, ok)
	}
	if v, _ := metricValue(t, rec, "spindle_forecast_waiting_jobs", "queue", "default", "beyond", "true"); v != 1 {
		t.Errorf("jobs beyond the horizon = %v, want 1", v)
	}
	if v, _ := metricValue(t, rec, "spindle_forecast_age_seconds"); v != 1 {
		t.Errorf("forecast age = %v, want 1", v)
	}

	cond := func(key string) string {
		for _, c := range e.pod(key).Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse {
				return c.Message
			}
		}
		return ""
	}
	patches := func(name string) int {
		n := 0
		for _, a := range e.client.Actions() {
			if pa, ok := a.(k8stesting.PatchAction); ok && pa.GetSubresource() == "status" && pa.GetName() == name {
				n++
			}
		}
		return n
	}
	e.settle()
	// 4 min 10 s after the forecast, 1 s ago.
	if got := cond("spark/drv2"); !strings.Contains(got, "number 1 in queue default") || !strings.HasSuffix(got, "; expected to start in about 4 min") {
		t.Errorf("drv2's condition = %q", got)
	}
	if got := cond("spark/drv3"); !strings.HasSuffix(got, "; not expected to start within 24 h") {
		t.Errorf("drv3's condition = %q", got)
	}
	// Written once without the forecast (before it came), once with it.
	base := patches("drv2")
	if base != 2 {
		t.Fatalf("drv2's condition written %d times, want 2", base)
	}
	// Ten more refreshes: 3 min 59 s to go, still "about 4 min".
	for range 10 {
		e.advance(time.Second)
	}
	if n := patches("drv2"); n != base {
		t.Errorf("drv2's condition written %d more times while its rounded forecast stayed, want none", n-base)
	}
	// 3 min 29 s to go: "about 3 min", written once more.
	for range 30 {
		e.advance(time.Second)
	}
	if got := cond("spark/drv2"); !strings.HasSuffix(got, "; expected to start in about 3 min") {
		t.Errorf("drv2's condition = %q, want about 3 min", got)
	}
	if n := patches("drv2"); n != base+1 {
		t.Errorf("drv2's condition written %d more times, want 1", n-base)
	}
}

// A forecast that fails keeps the last good one published and says why.
func TestForecastErrorKeepsTheLastOne(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	f := &fakeForecaster{answer: startsIn(nil)}
	o, rec := e.forecastOptions(f)
	e.start(o)
	e.add(mkPod("batch", "p1", "1"))
	e.waitBound("batch/p1", "a")
	e.advance(5 * time.Second)
	if err := e.st.AwaitForecast(); err != nil {
		t.Fatal(err)
	}
	good := e.st.Now()
	f.answer = func(*forecast.Snapshot, forecast.Options) (*forecast.Result, error) {
		return nil, errors.New("the simulation broke")
	}
	e.advance(5 * time.Second)
	if err := e.st.AwaitForecast(); err != nil {
		t.Fatal(err)
	}
	e.advance(time.Second)
	info := rec.Latest().Forecast
	if info == nil || !info.At.Equal(good) || info.Error != "the simulation broke" || info.AgeSeconds != 6 {
		t.Fatalf("forecast info = %+v, want the one at %v, 6 s old, and the error", info, good)
	}
	if j := rec.Latest().Jobs[0]; j.ForecastStart.IsZero() {
		t.Errorf("job lost its forecast: %+v", j)
	}
	if v, _ := metricValue(t, rec, "spindle_forecast_runs_total", "result", "error"); v != 1 {
		t.Errorf("spindle_forecast_runs_total{result=error} = %v, want 1", v)
	}
}

// What-if forecasts resolve each policy name through the resolver the
// command line gives, run the same state under each, and refuse an
// unknown name before simulating anything.
func TestWhatIfForecasts(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	f := &fakeForecaster{answer: startsIn(map[string]time.Duration{"pod:batch/p2": time.Minute})}
	o, _ := e.forecastOptions(f)
	o.ResolvePolicy = func(name string) (sched.PolicyFactory, error) {
		pf, _, err := policy.Parse(name)
		return pf, err
	}
	e.start(o)
	e.add(mkPod("batch", "p1", "4"))
	e.add(mkPod("batch", "p2", "4"))
	e.waitBound("batch/p1", "a")
	_, err := e.st.WhatIf("fair", "no-such-policy")
	if !errors.Is(err, observe.ErrUnknownPolicy) || !strings.Contains(err.Error(), `"no-such-policy"`) {
		t.Fatalf("unknown policy: err = %v", err)
	}
	if f.calls() != 0 {
		t.Fatalf("%d simulations ran before the names were checked", f.calls())
	}
	got, err := e.st.WhatIf("fair", "drf")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Policy != "fair" || got[1].Policy != "drf" || f.snaps[0] != f.snaps[1] {
		t.Fatalf("what-if = %+v, want fair then drf from one snapshot", got)
	}
	if o := f.opts[0]; o.Admission == nil || o.Policy == nil {
		t.Errorf("options = %+v, want the scheduler's admission and fair's factory", o)
	}
	var p2 *observe.JobForecast
	for i := range got[0].Jobs {
		if got[0].Jobs[i].Name == "pod:batch/p2" {
			p2 = &got[0].Jobs[i]
		}
	}
	if p2 == nil || !p2.Start.Equal(e.st.Now().Add(time.Minute)) {
		t.Errorf("batch/p2 = %+v", p2)
	}
}

// Under Run, the forecast runs on a goroutine of its own: one that never
// ends does not hold up a binding, and /api/v1/forecast?policy=P reaches
// the loop for its state.
func TestRunForecastsOffTheLoop(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil), mkPod("ns", "p1", "1"))
	started := make(chan struct{}, 8)
	gate := make(chan struct{})
	defer close(gate)
	f := &fakeForecaster{gate: gate, started: started, answer: startsIn(nil)}
	o, rec := e.forecastOptions(f)
	o.ResolvePolicy = func(name string) (sched.PolicyFactory, error) {
		pf, _, err := policy.Parse(name)
		return pf, err
	}
	decided := make(chan Decision, 1)
	o.OnDecision = func(d Decision) { decided <- d }
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx) }()
	for _, want := range []string{"a forecast", "a decision"} {
		select {
		case <-started:
			if want != "a forecast" {
				t.Fatal("a second forecast started while the first ran")
			}
		case d := <-decided:
			if d.Pod != "ns/p1" || d.Err != nil {
				t.Errorf("decision %+v", d)
			}
			if want != "a decision" {
				// The binding came first; the forecast must still start.
				<-started
			}
		case err := <-errc:
			t.Fatalf("Run returned: %v", err)
		case <-time.After(time.Minute):
			t.Fatalf("no %s within a minute", want)
		}
	}
	srv := httptest.NewServer(rec.Handler())
	defer srv.Close()
	get := func(path string) (int, string) {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	// The periodic forecast is held at its gate; what-ifs do not wait
	// for it (they have their own gate, one at a time).
	f.mu.Lock()
	f.gate, f.started = nil, nil
	f.mu.Unlock()
	code, body := get("/api/v1/forecast?policy=fair")
	if code != 200 || !strings.Contains(body, `"policy": "fair"`) || !strings.Contains(body, `"name": "pod:ns/p1"`) {
		t.Errorf("what-if: %d %s", code, body)
	}
	code, body = get("/api/v1/forecast?policy=fair&policy=nope")
	if code != 400 || !strings.Contains(body, `unknown policy \"nope\"`) {
		t.Errorf("unknown policy: %d %s", code, body)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("Run: %v", err)
	}
	code, body = get("/api/v1/forecast?policy=fair")
	if code != 503 {
		t.Errorf("after Run ended: %d %s, want 503", code, body)
	}
}

func TestAboutIn(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Minute, "shortly"},
		{29 * time.Second, "shortly"},
		{30 * time.Second, "in about 1 min"},
		{89 * time.Second, "in about 1 min"},
		{90 * time.Second, "in about 2 min"},
		{4*time.Minute + 29*time.Second, "in about 4 min"},
		{4*time.Minute + 30*time.Second, "in about 5 min"},
		{9*time.Minute + 29*time.Second, "in about 9 min"},
		{9*time.Minute + 30*time.Second, "in about 10 min"},
		{12*time.Minute + 29*time.Second, "in about 10 min"},
		{12*time.Minute + 30*time.Second, "in about 15 min"},
		{57*time.Minute + 29*time.Second, "in about 55 min"},
		{57*time.Minute + 30*time.Second, "in about 1 h"},
		{84*time.Minute + 59*time.Second, "in about 1 h 20 min"},
		{114*time.Minute + 59*time.Second, "in about 1 h 50 min"},
		{115 * time.Minute, "in about 2 h"},
		{5*time.Hour + 29*time.Minute, "in about 5 h"},
		{24 * time.Hour, "in about 24 h"},
	} {
		if got := AboutIn(c.d); got != c.want {
			t.Errorf("AboutIn(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// Without ForecastEvery nothing forecasts and nothing is published.
func TestNoForecastWhenOff(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	f := &fakeForecaster{answer: startsIn(nil)}
	o, rec := e.forecastOptions(f)
	o.ForecastEvery = 0
	e.start(o)
	e.add(mkPod("batch", "p1", "1"))
	e.waitBound("batch/p1", "a")
	for range 3 {
		e.advance(5 * time.Second)
	}
	if f.calls() != 0 || rec.Latest().Forecast != nil {
		t.Errorf("%d forecasts ran, info %+v, with forecasts off", f.calls(), rec.Latest().Forecast)
	}
	if _, err := e.st.WhatIf("fair"); err == nil {
		t.Error("a what-if ran with forecasts off")
	}
	if fmt.Sprint(rec.Latest().Jobs[0].ForecastStart) != fmt.Sprint(time.Time{}) {
		t.Error("a job carries a forecast with forecasts off")
	}
}

// End to end through the real forecast, computed by hand: a 4-CPU node
// runs a task declared to take 60 s that started 20 s before the
// scheduler's clock; a 4-CPU pod declared to take 30 s waits for it. The
// forecast, made 5 s later, has the runner end 35 s on (60 s less the 25 s
// it has run) and the waiting pod start then and finish 30 s after.
func TestForecastEndToEnd(t *testing.T) {
	start := epoch.Add(time.Hour)
	running := mkPod("batch", "long", "4", boundTo("a", v1.PodRunning), annotations("spindle.io/estimate", "60s"))
	running.Status.StartTime = &metav1.Time{Time: start.Add(-20 * time.Second)}
	// A lone pod that restarts always is a service to the forecast (as to
	// kube record), load that never ends: these are batch tasks.
	never := func(p *v1.Pod) { p.Spec.RestartPolicy = v1.RestartPolicyNever }
	never(running)
	e := newEnv(t, readyNode("a", "4", "8Gi", nil), running)
	o := e.options("fifo", "none")
	o.ForecastEvery = 5 * time.Second
	o.StatusEvery, o.StatusAfter = time.Second, time.Second
	rec := observe.NewRecorder(observe.Options{})
	o.Observe = rec
	e.start(o)
	e.add(mkPod("batch", "next", "4", annotations("spindle.io/estimate", "30s"), never))
	e.staysUnbound("batch/next")
	e.advance(5 * time.Second)
	if err := e.st.AwaitForecast(); err != nil {
		t.Fatal(err)
	}
	at := start.Add(5 * time.Second)
	e.advance(time.Second)
	snap := rec.Latest()
	if snap.Forecast == nil || snap.Forecast.Error != "" || !snap.Forecast.At.Equal(at) {
		t.Fatalf("forecast = %+v", snap.Forecast)
	}
	jobs := map[string]observe.JobStatus{}
	for _, j := range snap.Jobs {
		jobs[j.Name] = j
	}
	long, next := jobs["pod:batch/long"], jobs["pod:batch/next"]
	if !long.ForecastStart.Equal(start.Add(-20*time.Second)) || !long.ForecastFinish.Equal(at.Add(35*time.Second)) || long.ForecastSource != "annotation" {
		t.Errorf("running job: start %v finish %v source %q; want %v, %v, annotation", long.ForecastStart, long.ForecastFinish, long.ForecastSource,
			start.Add(-20*time.Second), at.Add(35*time.Second))
	}
	if !next.ForecastStart.Equal(at.Add(35*time.Second)) || !next.ForecastFinish.Equal(at.Add(65*time.Second)) || next.ForecastSource != "annotation" {
		t.Errorf("waiting job: start %v finish %v source %q; want %v, %v, annotation", next.ForecastStart, next.ForecastFinish, next.ForecastSource,
			at.Add(35*time.Second), at.Add(65*time.Second))
	}
	e.settle()
	var msg string
	for _, c := range e.pod("batch/next").Status.Conditions {
		if c.Type == v1.PodScheduled {
			msg = c.Message
		}
	}
	// 34 s to go when the condition is written: about a minute.
	if !strings.HasSuffix(msg, "; expected to start in about 1 min") {
		t.Errorf("condition = %q", msg)
	}
}

// A forecast that took a second of CPU makes the next due ten seconds
// later, not one period: forecasts take at most a tenth of one core.
func TestForecastKeepsToItsShareOfACore(t *testing.T) {
	e := newEnv(t, readyNode("a", "4", "8Gi", nil))
	f := &fakeForecaster{answer: func(s *forecast.Snapshot, o forecast.Options) (*forecast.Result, error) {
		return &forecast.Result{At: s.Now, Policy: o.PolicyName, CPU: time.Second}, nil
	}}
	o, _ := e.forecastOptions(f)
	e.start(o)
	e.add(mkPod("batch", "p1", "1"))
	e.waitBound("batch/p1", "a")
	fc := e.st.Scheduler().fc
	e.advance(5 * time.Second)
	if err := e.st.AwaitForecast(); err != nil {
		t.Fatal(err)
	}
	// Due at 5 s; took 1 s of CPU: the next is due at 5 + 10 s, the one
	// after at 15 + 10 s.
	for _, step := range []struct {
		advance time.Duration
		calls   int
	}{{5 * time.Second, 1}, {4 * time.Second, 1}, {time.Second, 2}} {
		e.advance(step.advance)
		if fc.running {
			if err := e.st.AwaitForecast(); err != nil {
				t.Fatal(err)
			}
		}
		if got := f.calls(); got != step.calls {
			t.Fatalf("after %v more: %d forecasts, want %d", step.advance, got, step.calls)
		}
	}
	if fc.skipped != 0 {
		t.Errorf("skipped = %d: a forecast not due is not skipped", fc.skipped)
	}
}
