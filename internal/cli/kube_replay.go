package cli

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/spindle-sched/spindle/kube/replay"
	"github.com/spindle-sched/spindle/metrics"
	"github.com/spindle-sched/spindle/workload"
)

// kubeClient builds a client from a kubeconfig file (default $KUBECONFIG)
// with the given client-side rate limits.
func kubeClient(kubeconfig string, qps float32, burst int) (*kubernetes.Clientset, error) {
	if kubeconfig == "" {
		kubeconfig = os.Getenv("KUBECONFIG")
	}
	if kubeconfig == "" {
		return nil, usagef("no cluster: pass --kubeconfig FILE or set KUBECONFIG (hack/local-cluster.sh up prints one)")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	if qps <= 0 || burst <= 0 {
		return nil, usagef("--qps and --burst must be positive")
	}
	cfg.QPS, cfg.Burst = qps, burst
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	// Fail early and plainly when the cluster is down, rather than on the
	// first node the command creates.
	if _, err := cs.Discovery().ServerVersion(); err != nil {
		return nil, fmt.Errorf("cannot reach the apiserver %s (kubeconfig %s): %w", cfg.Host, kubeconfig, err)
	}
	return cs, nil
}

func newKubeReplay() *cobra.Command {
	var (
		wl, kubeconfig, out, sched, ns, runID string
		scale                                 float64
		stall, timeout                        time.Duration
		qps                                   float32
		burst                                 int
		asJSON, keep, quiet                   bool
	)
	cmd := &cobra.Command{
		Use:   "replay -w WORKLOAD [--kubeconfig FILE] [-o DIR] [--time-scale F] [--scheduler-name NAME]",
		Short: "Play a workload as pods on kwok nodes and measure it like 'simulate'",
		Long: `replay plays a spindle workload on a Kubernetes cluster that runs kwok: it creates
the workload's machines as kwok nodes (labelled spindle.io/replay=RUN, removed
afterwards), submits each job's driver pod at its submit time and, once the
driver runs, acts as the application: it creates the task pods phase by phase
(honouring start_after), each annotated with its duration for kwok to end it,
re-creates task pods that fail or are lost (as Spark does), and deletes the
driver when every task has succeeded.

Pods name --scheduler-name (spindle by default; default-scheduler is
kube-scheduler) and carry what a submitter declares: labels spindle.io/job,
spindle.io/role=am|task, spindle.io/queue; the driver's annotations
spindle.io/estimate, spindle.io/deadline and spindle.io/demand. The duration
annotation (spindle.io/replay-duration) is for kwok only.

--time-scale F multiplies submit times, durations, estimates and deadlines by
F for the live run (0.1 plays a 12-minute workload in 72 s); every output is
reported back in workload time. The run ends when every job has finished, or
as deadlocked when, with every job submitted and no task pod running, nothing
changes for --stall-timeout (drivers holding every cpu while their executors
wait is the classic case).

-o DIR writes summary.json, jobs.csv, timeline.csv and report.html, as
'simulate' does, measured from the pod transitions the replayer observes.
Ctrl-C stops the run and removes its nodes and pods.`,
		Example: `  hack/local-cluster.sh up --scheduler
  spindle kube replay -w examples/mixed.yaml --scheduler-name default-scheduler --time-scale 0.1 -o out/live`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if wl == "" {
				return usagef("no workload: pass -w FILE")
			}
			if !(scale > 0) {
				return usagef("--time-scale must be > 0, got %v", scale)
			}
			w, err := workload.Load(wl)
			if err != nil {
				return err
			}
			cs, err := kubeClient(kubeconfig, qps, burst)
			if err != nil {
				return err
			}
			opt := replay.Options{
				Workload: w, WorkloadName: wl, Client: cs, Namespace: ns, SchedulerName: sched,
				TimeScale: scale, RunID: runID, StallTimeout: stall, Timeout: timeout, KeepObjects: keep,
			}
			if !quiet {
				opt.Progress = cmd.ErrOrStderr()
			}
			r, err := replay.New(opt)
			if err != nil {
				return usageError{err}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if !quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "replay %s: %d jobs, %d tasks on %d kwok nodes, scheduler %s, time scale %v\n",
					r.RunID(), len(w.Jobs), w.TotalTasks(), w.Cluster.NumNodes(), opt.SchedulerName, scale)
			}
			res, err := r.Play(ctx)
			if err != nil {
				return err
			}
			if !quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "replay %s: done in %s wall, %d pods created (%d task retries)\n",
					res.Run, res.Wall.Round(time.Millisecond), res.PodsCreated, res.TaskRetries)
			}
			if out != "" {
				if err := metrics.WriteRunDir(out, res.Summary, res.Jobs, replay.SimTimeline(res.Timeline), w.Cluster.Capacity()); err != nil {
					return err
				}
				if err := writeRunReport(out); err != nil {
					return err
				}
			}
			if asJSON {
				return metrics.WriteJSON(cmd.OutOrStdout(), res.Summary)
			}
			printTable(cmd.OutOrStdout(), []*metrics.Summary{res.Summary})
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&wl, "workload", "w", "", "workload file (YAML or JSON, format v1)")
	fl.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default $KUBECONFIG)")
	fl.StringVarP(&out, "out", "o", "", "write summary.json, jobs.csv, timeline.csv and report.html into this directory")
	fl.Float64Var(&scale, "time-scale", 1, "multiply submit times and durations by this for the live run")
	fl.StringVar(&sched, "scheduler-name", "spindle", "spec.schedulerName of the pods (default-scheduler: kube-scheduler)")
	fl.StringVarP(&ns, "namespace", "n", "default", "namespace of the pods")
	fl.StringVar(&runID, "run-id", "", "name prefix and spindle.io/replay label of the run's nodes and pods (default: generated)")
	fl.DurationVar(&stall, "stall-timeout", 60*time.Second, "end as deadlocked after this long (wall) without progress and no task running")
	fl.DurationVar(&timeout, "timeout", 0, "stop after this long (wall); 0: no limit")
	fl.Float32Var(&qps, "qps", 100, "client-side requests per second to the apiserver")
	fl.IntVar(&burst, "burst", 200, "client-side request burst")
	fl.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	fl.BoolVar(&keep, "keep", false, "leave the run's nodes and pods in place afterwards")
	fl.BoolVarP(&quiet, "quiet", "q", false, "no progress lines on stderr")
	return cmd
}
