package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/kube"
	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/policy"
	"github.com/spindle-sched/spindle/sched"
)

type forecastFlags struct {
	namespace string
	policies  []string
	server    string
	json      bool
	timeout   time.Duration
}

func newKubeForecast() *cobra.Command {
	var f forecastFlags
	cmd := &cobra.Command{
		Use:   "forecast [JOB] [-n NAMESPACE] [--policy P ...] [--server URL] [--json]",
		Short: "When will my job start? Ask a running spindle scheduler for its forecasts",
		Long: `forecast asks a running 'spindle kube schedule' (its read-only API, at
--server) for the forecast it makes every few seconds (--forecast-every):
for every job it tracks, when it should start (while it waits) and finish,
from a simulation of the cluster forward under the running policy and
admission controller. It prints one row per job: its queue, its state, its
place among its queue's jobs waiting for admission, the forecast start ("in
about 4 min", and the instant in RFC 3339), the forecast finish, and where
the job's duration estimate came from:

  history     completed jobs of the same name
  annotation  the job's declared estimate (spindle.io/estimate)
  cluster     no estimate of its own: the cluster's median task stands in,
              so trust it less (measured live, such forecasts came early)

A forecast assumes that jobs last as their estimates say; see
docs/forecast.md for how it is made and how accurate it was.

JOB is a job's key as /api/v1/jobs names it (namespace/name; a lone pod is
pod:namespace/name), or its last part with -n or when only one job has it.
--policy P (repeatable) asks the scheduler to also simulate the same
current state under policy P, with its own admission controller, and prints
a table for each: what switching would do to today's backlog, without
recording first. The forecast assumes no new work arrives, other
schedulers' pods hold what they hold now, and nothing is preempted or
evicted from outside (docs/forecast.md, "When not to trust it").

The scheduler serves its API on 127.0.0.1:10261 by default; for one in a
cluster, forward the port (kubectl -n NS port-forward deploy/spindle
10261) and keep --server as is.`,
		Example: `  # every job the scheduler on this machine tracks
  spindle kube forecast
  # one namespace's jobs, and one job
  spindle kube forecast -n etl
  spindle kube forecast -n spark app-42
  # what today's backlog would do under fair and DRESS+
  spindle kube forecast --policy fair --policy dress+
  # for a script
  spindle kube forecast --server http://127.0.0.1:10261 --json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("one JOB at most, got %d: %s", len(args), strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			job := ""
			if len(args) == 1 {
				job = args[0]
			}
			return runForecast(cmd, &f, job)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.namespace, "namespace", "n", "", "only the jobs of this namespace")
	fl.StringArrayVar(&f.policies, "policy", nil, "also simulate the current state under this policy (repeatable; see 'spindle policies')")
	fl.StringVar(&f.server, "server", "http://"+observe.DefaultAddress, "the scheduler's API (its --http-address)")
	fl.BoolVar(&f.json, "json", false, "print JSON instead of a table")
	fl.DurationVar(&f.timeout, "timeout", time.Minute, "give up on the scheduler after this long")
	return cmd
}

// resolvePolicy is the policy registry as the scheduler takes it for
// what-if forecasts (kube.PolicyResolver): package kube imports no scheme.
func resolvePolicy(name string) (sched.PolicyFactory, error) {
	pf, _, err := policy.Parse(name)
	return pf, err
}

var _ kube.PolicyResolver = resolvePolicy

// forecastOutput is what --json prints: the scheduler's forecast (the
// jobs with their forecast fields) and each what-if forecast.
type forecastOutput struct {
	Server   string                `json:"server"`
	Time     time.Time             `json:"time"`
	Forecast *observe.ForecastInfo `json:"forecast"`
	Jobs     []observe.JobStatus   `json:"jobs"`
	WhatIf   []observe.Forecast    `json:"what_if,omitempty"`
}

func runForecast(cmd *cobra.Command, f *forecastFlags, job string) error {
	for _, p := range f.policies {
		if _, err := resolvePolicy(p); err != nil {
			return usagef("--policy %s: %v", p, err)
		}
	}
	base, err := url.Parse(strings.TrimRight(f.server, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return usagef("--server %q: want a URL such as http://%s", f.server, observe.DefaultAddress)
	}
	if f.timeout <= 0 {
		return usagef("--timeout must be positive")
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
	defer cancel()
	c := apiClient{base: base.String(), http: &http.Client{}}
	var status struct {
		Forecast *observe.ForecastInfo `json:"forecast"`
	}
	if _, err := c.get(ctx, "/api/v1/status", &status); err != nil {
		return err
	}
	var jobs []observe.JobStatus
	at, err := c.get(ctx, "/api/v1/jobs", &jobs)
	if err != nil {
		return err
	}
	jobs, err = pickJobs(jobs, f.namespace, job, c.base)
	if err != nil {
		return err
	}
	out := forecastOutput{Server: c.base, Time: at, Forecast: status.Forecast, Jobs: jobs}
	if len(f.policies) > 0 {
		q := url.Values{"policy": f.policies}
		if _, err := c.get(ctx, "/api/v1/forecast?"+q.Encode(), &out.WhatIf); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	if f.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printForecast(w, &out)
	return nil
}

// pickJobs keeps the jobs of namespace ns (all when empty) and, when job
// is given, the one it names: its full key, or the key's last part when
// that names one job only.
func pickJobs(jobs []observe.JobStatus, ns, job, server string) ([]observe.JobStatus, error) {
	var in []observe.JobStatus
	for _, j := range jobs {
		if ns == "" || j.Namespace == ns {
			in = append(in, j)
		}
	}
	if job == "" {
		return in, nil
	}
	var exact, tail []observe.JobStatus
	for _, j := range in {
		switch {
		case j.Name == job || ns != "" && j.Name == ns+"/"+job:
			exact = append(exact, j)
		case strings.HasSuffix(j.Name, "/"+job):
			tail = append(tail, j)
		}
	}
	switch {
	case len(exact) == 1:
		return exact, nil
	case len(exact) == 0 && len(tail) == 1:
		return tail, nil
	case len(exact)+len(tail) > 1:
		var names []string
		for _, j := range append(exact, tail...) {
			names = append(names, j.Name)
		}
		return nil, fmt.Errorf("job %q is ambiguous: it names %s; give the full key", job, strings.Join(names, ", "))
	}
	where := ""
	if ns != "" {
		where = " in namespace " + ns
	}
	return nil, fmt.Errorf("job %q: no such job%s among the %d the scheduler at %s tracks (a job that has finished is no longer tracked)", job, where, len(in), server)
}

func printForecast(w io.Writer, o *forecastOutput) {
	if o.Forecast == nil {
		fmt.Fprintf(w, "the scheduler at %s has no forecast yet (it makes one every --forecast-every; 0 turns them off)\n", o.Server)
	} else {
		fmt.Fprintf(w, "forecast under %s from the state at %s (%s old)", o.Forecast.Policy, rfc3339(o.Forecast.At), roundAge(o.Forecast.AgeSeconds))
		if o.Forecast.Error != "" {
			fmt.Fprintf(w, "; the last attempt failed: %s", o.Forecast.Error)
		}
		fmt.Fprintln(w)
	}
	var cur observe.Forecast
	if o.Forecast != nil {
		cur = observe.CurrentForecast(&observe.Snapshot{Jobs: o.Jobs, Forecast: o.Forecast})
	}
	printForecastTable(w, o.Jobs, cur, o.Time, false)
	for _, wf := range o.WhatIf {
		fmt.Fprintf(w, "\nunder %s instead, simulated from the state at %s (position: in the order jobs would start):\n", wf.Policy, rfc3339(wf.At))
		printForecastTable(w, o.Jobs, wf, wf.At, true)
	}
}

// printForecastTable prints one row per job of jobs, with its forecast in
// f; "in about" counts from now. The position is the job's place in its
// queue's admission order, or with whatIf the order f has its queue's jobs
// start in.
func printForecastTable(w io.Writer, jobs []observe.JobStatus, f observe.Forecast, now time.Time, whatIf bool) {
	if len(jobs) == 0 {
		fmt.Fprintln(w, "no jobs")
		return
	}
	byName := map[string]observe.JobForecast{}
	for _, j := range f.Jobs {
		byName[j.Name] = j
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tQUEUE\tSTATE\tPOSITION\tSTART\tFINISH\tSOURCE")
	for _, j := range jobs {
		p := j.QueuePosition
		fj, ok := byName[j.Name]
		if whatIf {
			p = fj.Position
		}
		pos := "-"
		if p > 0 {
			pos = fmt.Sprint(p)
		}
		start, finish, source := "unknown", "unknown", "-"
		if ok {
			start, finish = forecastStart(fj, f.At, now), rfc3339(fj.Finish)
			if fj.Beyond {
				finish = "-"
			}
			if fj.Source != "" {
				source = fj.Source
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.Name, j.Queue, j.State, pos, start, finish, source)
	}
	_ = tw.Flush()
}

// forecastStart says when a job starts: "in about 4 min (RFC 3339)" while
// it waits, "started RFC 3339" once it runs.
func forecastStart(j observe.JobForecast, at, now time.Time) string {
	switch {
	case j.Beyond:
		return "not within the forecast's horizon"
	case j.Start.IsZero():
		return "unknown"
	case !j.Waits(at):
		return "started " + rfc3339(j.Start)
	}
	return kube.AboutIn(j.Start.Sub(now)) + " (" + rfc3339(j.Start) + ")"
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}

func roundAge(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(time.Second).String()
}

// apiClient reads a running scheduler's read-only API.
type apiClient struct {
	base string
	http *http.Client
}

// get reads path's items into items and returns the snapshot time the
// answer carries.
func (c apiClient) get(ctx context.Context, path string, items any) (time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return time.Time{}, err
	}
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return time.Time{}, fmt.Errorf("the scheduler at %s did not answer %s in time: %w", c.base, path, ctx.Err())
		}
		return time.Time{}, fmt.Errorf("cannot reach a spindle scheduler at %s (is 'spindle kube schedule' running, with --http-address there?): %w", c.base, unwrapURL(err))
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return time.Time{}, fmt.Errorf("%s%s: reading the answer: %w", c.base, path, err)
	}
	if res.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		msg := strings.TrimSpace(string(body))
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		if res.StatusCode == http.StatusNotFound {
			msg = "not found: is this a spindle scheduler, and one that forecasts?"
		}
		return time.Time{}, fmt.Errorf("%s%s: %s: %s", c.base, path, res.Status, msg)
	}
	var env struct {
		Time  time.Time       `json:"time"`
		Items json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return time.Time{}, fmt.Errorf("%s%s: not a spindle API answer: %w", c.base, path, err)
	}
	if err := json.Unmarshal(env.Items, items); err != nil {
		return time.Time{}, fmt.Errorf("%s%s: not a spindle API answer: %w", c.base, path, err)
	}
	return env.Time, nil
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
