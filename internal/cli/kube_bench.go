package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/spindle-sched/spindle/kube/bench"
	"github.com/spindle-sched/spindle/metrics"
)

func newKubeBench() *cobra.Command {
	var (
		kubeconfig, sched, ns string
		nodes, jobs, pods     int
		qps                   float32
		burst, workers        int
		timeout               time.Duration
		asJSON                bool
	)
	cmd := &cobra.Command{
		Use:   "bench [--kubeconfig FILE] --scheduler-name NAME [--nodes N] [--jobs J] [--pods P]",
		Short: "Measure a scheduler's pods/s and creation-to-binding latency on kwok nodes",
		Long: `bench creates N kwok nodes (32 vcores, 256 GiB, 110 pods each) and P pods in J
jobs (each a Spark application: one driver, spark-role=driver, and its
executors; 0.1 vcore and 128 MiB each) for the scheduler --scheduler-name names, all at once, and waits
until every pod is bound. It prints the pods bound per second (from the first
pod seen to the last seen bound) and the p50/p99 of each pod's delay from
appearing to being bound, both as one watch sees them; then deletes what it
created.

--qps and --burst are this command's own client limits: keep them high, so
creating the pods is not what is measured. The scheduler's limits are set
where it is started (kube-scheduler: --kube-api-qps/--kube-api-burst).

--scheduler-name ` + bench.BinderName + ` measures the apiserver's own ceiling: this
command then also runs a trivial binder that binds each pod to the next node
in turn as fast as it can (256 bindings in flight, a client of its own with
the same --qps and --burst), with no model of resources, jobs or queues. No
scheduler that binds one pod per API call can beat it on the same cluster.`,
		Example: `  spindle kube bench --scheduler-name default-scheduler --nodes 1000 --jobs 5 --pods 5000
  spindle kube bench --scheduler-name spindle --nodes 1000 --jobs 25 --pods 5000
  spindle kube bench --scheduler-name ` + bench.BinderName + ` --nodes 1000 --jobs 5 --pods 5000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cs, err := kubeClient(kubeconfig, qps, burst)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if sched == bench.BinderName {
				bc, err := kubeClient(kubeconfig, qps, burst)
				if err != nil {
					return err
				}
				bctx, cancel := context.WithCancel(ctx)
				done := make(chan error, 1)
				go func() { done <- (&bench.Binder{Client: bc}).Run(bctx) }()
				defer func() { cancel(); <-done }()
			}
			res, err := bench.Run(ctx, bench.Options{
				Client: cs, Namespace: ns, SchedulerName: sched, Nodes: nodes, Jobs: jobs, Pods: pods,
				Workers: workers, Timeout: timeout,
			})
			if err != nil {
				return err
			}
			if asJSON {
				return metrics.WriteJSON(cmd.OutOrStdout(), map[string]any{
					"scheduler": res.Scheduler, "nodes": res.Nodes, "jobs": res.Jobs, "pods": res.Pods, "bound": res.Bound,
					"elapsed_s": res.Elapsed.Seconds(), "pods_per_s": res.PodsPerSec, "create_s": res.Create.Seconds(),
					"p50_s": res.P50.Seconds(), "p99_s": res.P99.Seconds(), "max_s": res.MaxDelay.Seconds(),
				})
			}
			fmt.Fprintln(cmd.OutOrStdout(), res)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default $KUBECONFIG)")
	fl.StringVar(&sched, "scheduler-name", "default-scheduler", "spec.schedulerName of the pods")
	fl.StringVarP(&ns, "namespace", "n", "default", "namespace of the pods")
	fl.IntVar(&nodes, "nodes", 1000, "kwok nodes to create")
	fl.IntVar(&jobs, "jobs", 1, "jobs the pods are split into")
	fl.IntVar(&pods, "pods", 5000, "pods to create")
	fl.IntVar(&workers, "workers", 32, "concurrent create calls")
	fl.Float32Var(&qps, "qps", 5000, "this command's client requests per second")
	fl.IntVar(&burst, "burst", 10000, "this command's client burst")
	fl.DurationVar(&timeout, "timeout", 10*time.Minute, "give up when the pods are not all bound by then")
	fl.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
