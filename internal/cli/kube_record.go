package cli

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/spindle-sched/spindle/kube/record"
	"github.com/spindle-sched/spindle/kube/record/listwatch"
	"github.com/spindle-sched/spindle/workload"
)

func newKubeRecord() *cobra.Command {
	var (
		kubeconfig, ns, selector, out, running string
		allNS, singleQueue, quiet              bool
		schedulers                             []string
		duration, jobIdle, loadStep            time.Duration
		qps                                    float32
		burst                                  int
	)
	cmd := &cobra.Command{
		Use:   "record [--kubeconfig F] [-n NAMESPACE | -A] [-l SELECTOR] [--duration D] -o WORKLOAD",
		Short: "Record a running cluster's workload, read-only, for 'spindle whatif'",
		Long: `record watches a running Kubernetes cluster and writes what ran as a spindle
workload (format v1), to simulate under every policy beside the run as it
happened ('spindle whatif'). It only lists and watches pods and nodes
(deploy/record-rbac.yaml grants exactly that), and works whichever scheduler
placed the pods: record the cluster as it runs today.

What it writes (docs/record.md has every rule):
- jobs mapped from pods as 'spindle kube schedule' maps them: Spark
  applications by spark-app-selector, spindle.io/job, JobSets, batch/v1 Jobs
  (by their labels or owner), each other pod a job of its own; the AM is the
  driver (spark-role=driver or spindle.io/role=am);
- each job's submit time (its first pod's creation), AM and task requests as
  kube-scheduler counts them, each task's duration from its first container's
  start to its last's end, and its tasks in waves: a task created once one of
  the current wave has ended opens the next phase;
- the nodes by allocatable, in groups; what daemonsets, static pods,
  services (pods of ReplicaSets, Deployments, StatefulSets), pods of
  schedulers not named by --scheduler-name and pods outside --selector hold
  on them, as each group's external load over time;
- the Kubernetes timing preset, with the pod start latency measured from the
  pods (binding to container start), and the run as recorded (when each job
  was admitted, started and ended) for whatif's "as recorded" column.

A job is written as soon as it is over, so memory follows what runs, not
what ran. Jobs that had ended before the recording began are left out (use
'spindle trace convert --from kube' on a snapshot for those). Jobs still
running when it stops are left out, or with --running keep kept with the
time their pods ran so far as a lower bound. It stops after --duration, or
on Ctrl-C / SIGTERM, and prints on stderr what it recorded and what it left
out, and why.`,
		Example: `  spindle kube record -A --duration 2h -o cluster.json.gz
  spindle kube record -n spark -l team=etl --running keep -o etl.yaml
  spindle whatif -w cluster.json.gz -p kube-scheduler,fair,drf,dress`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("no output: pass -o WORKLOAD (.yaml, .json, optionally .gz)")
			}
			if allNS && ns != "" {
				return usagef("give --namespace or --all-namespaces, not both")
			}
			if duration < 0 {
				return usagef("--duration must not be negative")
			}
			opt := record.Options{Schedulers: schedulers, Running: running, SingleQueue: singleQueue, JobIdle: jobIdle, LoadStep: loadStep}
			if selector != "" {
				sel, err := labels.Parse(selector)
				if err != nil {
					return usagef("--selector %q: %v", selector, err)
				}
				opt.Selector = sel
			}
			if running != record.RunningDrop && running != record.RunningKeep {
				return usagef("--running: want %s or %s, got %q", record.RunningDrop, record.RunningKeep, running)
			}
			cs, err := scheduleClient(kubeconfig, qps, burst, "spindle-record", nil)
			if err != nil {
				return err
			}
			// Volcano's PodGroups (a gang's minimum and queue) come
			// through the dynamic client, where the cluster serves them.
			dyn, err := dynamicClient(kubeconfig, qps, burst, "spindle-record", nil)
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			f, err := createOutput(out)
			if err != nil {
				return err
			}
			defer f.abort()
			s, err := workload.NewStreamer(f.w, f.format)
			if err != nil {
				return err
			}
			rec, err := record.NewRecorder(s, opt)
			if err != nil {
				return usageError{err}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			wo := listwatch.Options{Namespace: ns, Duration: duration, Dynamic: dyn}
			if !quiet {
				wo.Progress = stderr
				scope := "every namespace"
				if ns != "" {
					scope = "namespace " + ns
				}
				fmt.Fprintf(stderr, "recording %s to %s; Ctrl-C ends it\n", scope, out)
			}
			werr := listwatch.Watch(ctx, cs, rec, wo)
			sum, cerr := rec.Close(time.Now())
			if sum != nil {
				sum.Write(stderr)
			}
			if werr != nil {
				return werr
			}
			if cerr != nil {
				return cerr
			}
			if err := f.commit(); err != nil {
				return err
			}
			if !quiet {
				fmt.Fprintf(stderr, "wrote %s\n", out)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default $KUBECONFIG, else the in-cluster configuration)")
	fl.StringVarP(&ns, "namespace", "n", "", "record one namespace only (pods elsewhere are neither workload nor external load)")
	fl.BoolVarP(&allNS, "all-namespaces", "A", false, "record every namespace (the default)")
	fl.StringVarP(&selector, "selector", "l", "", "keep in the workload only the pods this label selector matches; the others are external load")
	fl.StringSliceVar(&schedulers, "scheduler-name", nil, "the workload is the pods of these schedulers (spec.schedulerName); default every scheduler's. Others' pods are external load")
	fl.DurationVar(&duration, "duration", 0, "stop after this long; 0 runs until Ctrl-C or SIGTERM")
	fl.StringVarP(&out, "out", "o", "", "the workload to write: JSON when the name ends in .json, YAML otherwise; .gz compresses")
	fl.StringVar(&running, "running", record.RunningDrop, "jobs still running at the end: drop them, or keep them with the time run so far as a lower bound")
	fl.BoolVar(&singleQueue, "single-queue", false, "put every job in one queue, default, as 'spindle kube schedule' does without --config (default: a queue per spindle.io/queue label, else per namespace, with equal shares)")
	fl.DurationVar(&jobIdle, "job-idle", 60*time.Second, "a job without an AM (a batch Job, spindle.io/job pods) is written once none of its pods has been left for this long")
	fl.DurationVar(&loadStep, "load-step", 10*time.Second, "resolution of the external load: each node group's load is averaged over steps this long")
	fl.Float32Var(&qps, "qps", 20, "client-side requests per second to the apiserver (a list, then watches: few are needed)")
	fl.IntVar(&burst, "burst", 40, "client-side request burst")
	fl.BoolVarP(&quiet, "quiet", "q", false, "no progress lines on stderr (the summary is still printed)")
	return cmd
}

// output is a workload file written under a temporary name and renamed into
// place by commit, so that a reader never sees half a recording and a
// failed one leaves any earlier file alone.
type output struct {
	path   string
	tmp    *os.File
	zw     *gzip.Writer
	w      io.Writer
	format workload.Format
	done   bool
}

func createOutput(path string) (*output, error) {
	name, gz := strings.CutSuffix(path, ".gz")
	o := &output{path: path, format: workload.YAML}
	if strings.HasSuffix(name, ".json") {
		o.format = workload.JSON
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	o.tmp, o.w = tmp, tmp
	if gz {
		o.zw = gzip.NewWriter(tmp)
		o.w = o.zw
	}
	return o, nil
}

func (o *output) commit() error {
	if o.zw != nil {
		if err := o.zw.Close(); err != nil {
			return err
		}
	}
	if err := o.tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := o.tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(o.tmp.Name(), o.path); err != nil {
		return err
	}
	o.done = true
	return nil
}

// abort removes the temporary file unless commit succeeded.
func (o *output) abort() {
	if !o.done {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
	}
}
