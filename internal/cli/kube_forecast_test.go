package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spindle-sched/spindle/kube/observe"
)

var forecastT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// forecastServer serves a scheduler's API with three jobs and a forecast
// made 2 s before the snapshot: etl/report runs, etl/nightly is number 1
// in its queue and starts in 4 min 10 s, pod:ml/train in 2 h.
func forecastServer(t *testing.T, withForecast bool) *httptest.Server {
	t.Helper()
	r := observe.NewRecorder(observe.Options{})
	at := forecastT0.Add(-2 * time.Second)
	snap := &observe.Snapshot{Time: forecastT0, Policy: "fifo", Admission: "autoadmin", Jobs: []observe.JobStatus{
		{Name: "etl/report", Namespace: "etl", Queue: "etl", State: "running",
			ForecastStart: at.Add(-time.Minute), ForecastFinish: at.Add(9 * time.Minute), ForecastSource: "history"},
		{Name: "etl/nightly", Namespace: "etl", Queue: "etl", State: "waiting for admission", QueuePosition: 1,
			ForecastStart: at.Add(4*time.Minute + 10*time.Second), ForecastFinish: at.Add(30 * time.Minute), ForecastSource: "annotation"},
		{Name: "pod:ml/train", Namespace: "ml", Queue: "ml", State: "admitted, AM not running",
			ForecastStart: at.Add(2 * time.Hour), ForecastFinish: at.Add(3 * time.Hour), ForecastSource: "cluster"},
	}}
	if withForecast {
		snap.Forecast = &observe.ForecastInfo{At: at, AgeSeconds: 2, Policy: "fifo", CPUSeconds: 0.004}
	} else {
		for i := range snap.Jobs {
			j := &snap.Jobs[i]
			j.ForecastStart, j.ForecastFinish, j.ForecastSource = time.Time{}, time.Time{}, ""
		}
	}
	if err := r.Publish(snap); err != nil {
		t.Fatal(err)
	}
	if withForecast {
		r.SetWhatIf(whatIf)
	}
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(srv.Close)
	return srv
}

// whatIf answers every policy but capacity with etl/nightly a minute after
// forecastT0 and pod:ml/train beyond the horizon.
func whatIf(_ context.Context, names []string) ([]observe.Forecast, error) {
	var out []observe.Forecast
	for _, n := range names {
		if n == "capacity" {
			// Known to this command, not to the scheduler.
			return nil, fmt.Errorf("%w %q: not served here", observe.ErrUnknownPolicy, n)
		}
		out = append(out, observe.Forecast{Policy: n, At: forecastT0, Jobs: []observe.JobForecast{
			{Name: "etl/nightly", Namespace: "etl", Queue: "etl", Start: forecastT0.Add(time.Minute), Finish: forecastT0.Add(20 * time.Minute), Source: "annotation", Position: 2},
			{Name: "pod:ml/train", Namespace: "ml", Queue: "ml", Beyond: true, Source: "cluster"},
		}})
	}
	return out, nil
}

func TestKubeForecastTable(t *testing.T) {
	srv := forecastServer(t, true)
	out, errOut, code := run(t, "kube", "forecast", "--server", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"forecast under fifo from the state at 2026-03-01T11:59:58Z (2s old)",
		"JOB           QUEUE  STATE                     POSITION  START                                  FINISH                SOURCE",
		"etl/report    etl    running                   -         started 2026-03-01T11:58:58Z           2026-03-01T12:08:58Z  history",
		// 4 min 8 s from the snapshot: about 4 min.
		"etl/nightly   etl    waiting for admission     1         in about 4 min (2026-03-01T12:04:08Z)  2026-03-01T12:29:58Z  annotation",
		"pod:ml/train  ml     admitted, AM not running  -         in about 2 h (2026-03-01T13:59:58Z)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, _, code = run(t, "kube", "forecast", "--server", srv.URL, "-n", "etl", "nightly")
	if code != 0 || !strings.Contains(out, "etl/nightly") || strings.Contains(out, "etl/report") || strings.Contains(out, "ml/train") {
		t.Errorf("-n etl nightly: exit %d\n%s", code, out)
	}
	out, _, code = run(t, "kube", "forecast", "--server", srv.URL, "train")
	if code != 0 || !strings.Contains(out, "pod:ml/train") || strings.Contains(out, "etl/") {
		t.Errorf("train: exit %d\n%s", code, out)
	}
	out, _, code = run(t, "kube", "forecast", "--server", srv.URL, "-n", "ml")
	if code != 0 || strings.Count(out, "\n") != 3 {
		t.Errorf("-n ml: exit %d, want the header, its title and one row:\n%s", code, out)
	}

	out, errOut, code = run(t, "kube", "forecast", "--server", srv.URL, "--policy", "fair", "-n", "etl")
	if code != 0 {
		t.Fatalf("--policy fair: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"under fair instead, simulated from the state at 2026-03-01T12:00:00Z (position: in the order jobs would start):",
		"etl/nightly  etl    waiting for admission  2         in about 1 min (2026-03-01T12:01:00Z)  2026-03-01T12:20:00Z  annotation",
		// Not in fair's answer: no forecast for it.
		"etl/report   etl    running                -         unknown",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--policy fair lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = run(t, "kube", "forecast", "--server", srv.URL, "--policy", "fair", "train")
	if !strings.Contains(out, "pod:ml/train  ml     admitted, AM not running  -         not within the forecast's horizon  -") {
		t.Errorf("a job beyond the horizon:\n%s", out)
	}
}

func TestKubeForecastJSON(t *testing.T) {
	srv := forecastServer(t, true)
	out, errOut, code := run(t, "kube", "forecast", "--server", srv.URL, "--json", "--policy", "drf", "nightly")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got forecastOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(got.Jobs) != 1 || got.Jobs[0].Name != "etl/nightly" || got.Jobs[0].ForecastSource != "annotation" ||
		!got.Jobs[0].ForecastStart.Equal(forecastT0.Add(4*time.Minute+8*time.Second)) {
		t.Errorf("jobs = %+v", got.Jobs)
	}
	if got.Forecast == nil || got.Forecast.Policy != "fifo" || len(got.WhatIf) != 1 || got.WhatIf[0].Policy != "drf" {
		t.Errorf("forecast %+v, what-if %+v", got.Forecast, got.WhatIf)
	}
	if !strings.Contains(out, `"forecast_start": "2026-03-01T12:04:08Z"`) {
		t.Errorf("forecast_start not in RFC 3339:\n%s", out)
	}
}

func TestKubeForecastErrors(t *testing.T) {
	srv := forecastServer(t, true)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"nope"}, 1, `job "nope": no such job among the 3 the scheduler at ` + srv.URL + ` tracks`},
		{[]string{"-n", "ml", "nightly"}, 1, `job "nightly": no such job in namespace ml among the 1`},
		{[]string{"--policy", "no-such-policy"}, 2, `--policy no-such-policy: unknown policy "no-such-policy"`},
		{[]string{"--policy", "capacity"}, 1, `/api/v1/forecast?policy=capacity: 400 Bad Request: unknown policy "capacity": not served here`},
		{[]string{"a", "b"}, 2, "one JOB at most, got 2: a b"},
		{[]string{"--server", "127.0.0.1:10261"}, 2, `--server "127.0.0.1:10261": want a URL such as http://127.0.0.1:10261`},
	} {
		args := append([]string{"kube", "forecast"}, c.args...)
		if !strings.HasPrefix(c.args[0], "--server") {
			args = append(args, "--server", srv.URL)
		}
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.want) || strings.Count(strings.TrimSpace(errb.String()), "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q on one line (and a usage hint for exit 2)", c.args, code, errb.String(), c.code, c.want)
		}
	}
	// Port 1 on loopback: nothing listens.
	_, errOut, code := run(t, "kube", "forecast", "--server", "http://127.0.0.1:1")
	if code != 1 || !strings.Contains(errOut, "cannot reach a spindle scheduler at http://127.0.0.1:1 (is 'spindle kube schedule' running") {
		t.Errorf("no scheduler: exit %d, %q", code, errOut)
	}
	// A scheduler that does not forecast: the table says so, and --policy
	// is refused by it.
	off := forecastServer(t, false)
	out, errOut, code := run(t, "kube", "forecast", "--server", off.URL)
	if code != 0 || !strings.Contains(out, "has no forecast yet") || !strings.Contains(out, "etl/nightly   etl    waiting for admission     1         unknown  unknown  -") {
		t.Errorf("no forecast: exit %d, %s\n%s", code, errOut, out)
	}
	_, errOut, code = run(t, "kube", "forecast", "--server", off.URL, "--policy", "fair")
	if code != 1 || !strings.Contains(errOut, "503 Service Unavailable: this scheduler does not simulate other policies") {
		t.Errorf("--policy on a scheduler that does not forecast: exit %d, %q", code, errOut)
	}
}

func TestKubeForecastHelpHasExamples(t *testing.T) {
	out, _, code := run(t, "kube", "forecast", "--help")
	for _, want := range []string{"spindle kube forecast -n spark app-42", "--policy fair --policy dress+", "--json", "history", "annotation", "cluster"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help lacks %q (exit %d)", want, code)
		}
	}
}
