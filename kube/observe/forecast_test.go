package observe

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// withForecast publishes a snapshot like fakeCluster's, with a forecast
// made at t0: spark-pi started a minute before, spark-sql-report starts in
// 90 s, and a second waiting job of adhoc is beyond the horizon.
func withForecast(r *Recorder) *Snapshot {
	s := fakeCluster(NewRecorder(Options{}), 1)
	s.Seq, s.Decisions, s.Utilization = 0, nil, nil
	s.Time = t0.Add(3 * time.Second)
	s.Forecast = &ForecastInfo{At: t0, AgeSeconds: 3, Policy: "dress", CPUSeconds: 0.01}
	s.Jobs[0].ForecastStart, s.Jobs[0].ForecastFinish, s.Jobs[0].ForecastSource = t0.Add(-time.Minute), t0.Add(time.Hour), "history"
	s.Jobs[1].ForecastStart, s.Jobs[1].ForecastFinish, s.Jobs[1].ForecastSource = t0.Add(90*time.Second), t0.Add(time.Hour), "cluster"
	s.Jobs = append(s.Jobs, JobStatus{Name: "big", Namespace: "analytics", Queue: "adhoc", State: "waiting", QueuePosition: 2, ForecastBeyond: true, ForecastSource: "annotation"})
	if err := r.Publish(s); err != nil {
		panic(err)
	}
	return s
}

func TestForecastMetrics(t *testing.T) {
	r := NewRecorder(Options{})
	withForecast(r)
	r.ForecastSkipped()
	r.ForecastRan(20*time.Millisecond, nil)
	r.ForecastRan(time.Second, fmt.Errorf("broken"))
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	_, body := get(t, srv, "GET", "/metrics")
	for _, want := range []string{
		"spindle_forecast_age_seconds 3\n",
		`spindle_forecast_runs_total{result="error"} 1` + "\n",
		`spindle_forecast_runs_total{result="ok"} 1` + "\n",
		"spindle_forecast_skipped_total 1\n",
		"spindle_forecast_duration_seconds_count 2\n",
		`spindle_forecast_waiting_jobs{beyond="false",queue="adhoc"} 1` + "\n",
		`spindle_forecast_waiting_jobs{beyond="false",queue="etl"} 0` + "\n",
		`spindle_forecast_waiting_jobs{beyond="true",queue="adhoc"} 1` + "\n",
		// Only a queue with a job expected within the horizon has a
		// wait: adhoc's, 90 s.
		`spindle_forecast_wait_seconds{queue="adhoc"} 90` + "\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(body, `spindle_forecast_wait_seconds{queue="etl"}`) {
		t.Error("a queue with no waiting job has a forecast wait")
	}
}

func TestForecastEndpoint(t *testing.T) {
	r := NewRecorder(Options{})
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()

	res, body := get(t, srv, "GET", "/api/v1/forecast")
	if res.StatusCode != 503 || !strings.Contains(body, `"error":"no forecast yet`) {
		t.Errorf("before any forecast: %d %s", res.StatusCode, body)
	}
	res, body = get(t, srv, "GET", "/api/v1/forecast?policy=fair")
	if res.StatusCode != 503 || !strings.Contains(body, "does not simulate other policies") {
		t.Errorf("what-if without a hook: %d %s", res.StatusCode, body)
	}

	withForecast(r)
	res, body = get(t, srv, "GET", "/api/v1/forecast")
	fs, _ := decode[[]Forecast](t, body)
	if res.StatusCode != 200 || len(fs) != 1 || fs[0].Policy != "dress" || !fs[0].At.Equal(t0) || len(fs[0].Jobs) != 4 ||
		fs[0].Jobs[1].Name != "spark-sql-report" || !fs[0].Jobs[1].Start.Equal(t0.Add(90*time.Second)) || !fs[0].Jobs[3].Beyond {
		t.Errorf("current forecast: %d %+v", res.StatusCode, fs)
	}
	_, body = get(t, srv, "GET", "/api/v1/status")
	if !strings.Contains(body, `"forecast": {`) || !strings.Contains(body, `"age_seconds": 3`) {
		t.Errorf("status lacks the forecast: %s", body)
	}

	var asked [][]string
	r.SetWhatIf(func(_ context.Context, names []string) ([]Forecast, error) {
		asked = append(asked, names)
		for _, n := range names {
			if n == "nope" {
				return nil, fmt.Errorf("%w %q", ErrUnknownPolicy, n)
			}
			if n == "broken" {
				return nil, fmt.Errorf("forecast under broken: the simulation failed")
			}
		}
		out := make([]Forecast, len(names))
		for i, n := range names {
			out[i] = Forecast{Policy: n, At: t0}
		}
		return out, nil
	})
	res, body = get(t, srv, "GET", "/api/v1/forecast?policy=fair&policy=dress%2B")
	fs, _ = decode[[]Forecast](t, body)
	if res.StatusCode != 200 || len(fs) != 2 || fs[0].Policy != "fair" || fs[1].Policy != "dress+" {
		t.Errorf("what-if: %d %s", res.StatusCode, body)
	}
	res, body = get(t, srv, "GET", "/api/v1/forecast?policy=nope")
	if res.StatusCode != 400 || !strings.Contains(body, `unknown policy \"nope\"`) {
		t.Errorf("unknown policy: %d %s", res.StatusCode, body)
	}
	res, body = get(t, srv, "GET", "/api/v1/forecast?policy=broken")
	if res.StatusCode != 503 || !strings.Contains(body, "the simulation failed") {
		t.Errorf("failed what-if: %d %s", res.StatusCode, body)
	}
	if res, _ := get(t, srv, "POST", "/api/v1/forecast?policy=fair"); res.StatusCode != 405 {
		t.Errorf("POST: %d, want 405", res.StatusCode)
	}
	if len(asked) != 3 {
		t.Errorf("what-ifs asked %v, want 3 (not the POST)", asked)
	}
	r.SetWhatIf(nil)
	if res, _ := get(t, srv, "GET", "/api/v1/forecast?policy=fair"); res.StatusCode != 503 {
		t.Errorf("after SetWhatIf(nil): %d, want 503", res.StatusCode)
	}
}

// What-ifs run one at a time: a second waits for the first.
func TestWhatIfOneAtATime(t *testing.T) {
	r := NewRecorder(Options{})
	withForecast(r)
	in := make(chan struct{}, 2)
	release := make(chan struct{})
	running, most := 0, 0
	r.SetWhatIf(func(context.Context, []string) ([]Forecast, error) {
		running++
		most = max(most, running)
		in <- struct{}{}
		<-release
		running--
		return []Forecast{}, nil
	})
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	done := make(chan int, 2)
	for range 2 {
		go func() {
			res, err := srv.Client().Get(srv.URL + "/api/v1/forecast?policy=fair")
			if err != nil {
				done <- 0
				return
			}
			res.Body.Close()
			done <- res.StatusCode
		}()
	}
	<-in
	select {
	case <-in:
		t.Fatal("a second what-if ran beside the first")
	case <-time.After(200 * time.Millisecond):
	}
	release <- struct{}{}
	<-in
	release <- struct{}{}
	for range 2 {
		if code := <-done; code != 200 {
			t.Errorf("status %d", code)
		}
	}
	if most != 1 {
		t.Errorf("%d what-ifs at once, want 1", most)
	}
}
