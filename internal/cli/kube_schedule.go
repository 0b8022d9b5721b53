package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/spindle-sched/spindle/admission"
	"github.com/spindle-sched/spindle/kube"
	"github.com/spindle-sched/spindle/kube/observe"
	"github.com/spindle-sched/spindle/policy"
)

type scheduleFlags struct {
	kubeconfig, policy, admission, config, name string
	leaderElect                                 bool
	leaseNamespace, leaseName                   string
	workers                                     int
	qps                                         float32
	burst                                       int
	logLevel, httpAddress                       string
	probeAddress, httpAuth                      string
	trustLoopback                               bool
	tlsCert, tlsKey                             string
	forecastEvery, forecastHorizon              time.Duration
}

func newKubeSchedule() *cobra.Command {
	var f scheduleFlags
	cmd := &cobra.Command{
		Use:   "schedule -p POLICY [-a ADMISSION] [--kubeconfig FILE] [--config FILE] [--scheduler-name spindle] [--leader-elect]",
		Short: "Schedule a Kubernetes cluster's pods with a spindle policy (a secondary scheduler)",
		Long: `Run as a Kubernetes scheduler: bind every pod whose spec.schedulerName is
--scheduler-name (default spindle) to a node chosen by the scheduling policy,
after the admission controller lets its job in.

Pods form jobs: those sharing the spindle.io/job label (else Spark's
spark-app-selector) are one job, whose AM is the pod labelled
spark-role=driver or spindle.io/role=am; any other pod is a one-task job. A
job's queue is its spindle.io/queue label, else its namespace, mapped to the
queues of --config (YAML: queues with capacity and max_capacity, and a
default_queue). A node offers its allocatable less what pods of other
schedulers request on it; nodeSelector, required node affinity, taints and
tolerations, cordoned and NotReady nodes are respected, and so is each
node's pods allocatable. Executors are never bound before their driver is;
a driver held by admission control stays Pending with PodScheduled=False and
an Event saying what it waits for.

Admission control is AutoAdmin unless -a says otherwise: it admits a driver
only while the drivers leave room for executors, which is what keeps a burst
of Spark applications from filling the cluster with drivers whose executors
can never run (binding executors only after their driver does not prevent
that). -a none turns it off. A job whose driver fits no node waits
without holding back any other, and each queue is admitted in its own
order.

No state is kept outside the apiserver: on start the scheduler lists nodes
and pods and adopts the pods already bound, so a restart loses nothing and
binds nothing twice. With --leader-elect, replicas share a Lease and only
the holder schedules. See docs/kube.md.

Without --kubeconfig (and without KUBECONFIG) the in-cluster configuration
is used.`,
		Example: `  spindle kube schedule --kubeconfig ~/.kube/config -p fair -a autoadmin
  spindle kube schedule -p dress --config queues.yaml --leader-elect --lease-namespace spindle-system`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSchedule(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default $KUBECONFIG, else the in-cluster configuration)")
	fl.StringVarP(&f.policy, "policy", "p", "", "scheduling policy, e.g. fifo, fair, drf, dress (see 'spindle policies')")
	fl.StringVarP(&f.admission, "admission", "a", "autoadmin", "admission controller: autoadmin (the default: it keeps room for executors so that a burst of drivers cannot deadlock the cluster), autoadmin+, static:<vcores>, or none (no protection; see 'spindle policies')")
	fl.StringVar(&f.config, "config", "", "configuration file (YAML): queues with capacity and max_capacity, default_queue")
	fl.StringVar(&f.name, "scheduler-name", "spindle", "schedule the pods whose spec.schedulerName is this")
	fl.BoolVar(&f.leaderElect, "leader-elect", false, "take a coordination.k8s.io Lease before scheduling, so that several replicas can run")
	fl.StringVar(&f.leaseNamespace, "lease-namespace", "kube-system", "namespace of the leader-election Lease")
	fl.StringVar(&f.leaseName, "lease-name", "", "name of the leader-election Lease (default the scheduler name)")
	fl.IntVar(&f.workers, "bind-workers", kube.DefaultBindWorkers, "bindings in flight at most (the client's --qps and --burst still bound their rate)")
	fl.Float32Var(&f.qps, "qps", 50, "client-side limit on API requests per second, for bindings and reads; Events and pod conditions have a second client with the same limits")
	fl.IntVar(&f.burst, "burst", 100, "client-side burst of API requests")
	fl.StringVar(&f.logLevel, "log-level", "info", "log level on stderr: debug, info, warn, error")
	fl.StringVar(&f.httpAddress, "http-address", observe.DefaultAddress, "serve /metrics, the read-only JSON API (/api/v1/...), the status page and the probes here; \"off\" serves nothing")
	fl.StringVar(&f.probeAddress, "probe-address", "", "also serve the probes (/healthz, /livez, /readyz), and only them, here, over HTTP without authentication (for the kubelet)")
	fl.StringVar(&f.httpAuth, "http-auth", "none", "who may read --http-address: none (anyone who reaches it; loopback addresses only) or kubernetes (HTTPS; a bearer token the apiserver authenticates (TokenReview) and authorizes to get the path (SubjectAccessReview); probes stay open)")
	fl.BoolVar(&f.trustLoopback, "http-trust-loopback", false, "with --http-auth=kubernetes, serve requests from loopback without a token (in a pod: kubectl port-forward and the container itself)")
	fl.StringVar(&f.tlsCert, "tls-cert-file", "", "with --http-auth=kubernetes, the serving certificate (PEM); default a self-signed one made at start")
	fl.StringVar(&f.tlsKey, "tls-key-file", "", "the key of --tls-cert-file (PEM)")
	fl.DurationVar(&f.forecastEvery, "forecast-every", kube.DefaultForecastEvery, "forecast when every job should start and finish this often, off the scheduling loop ('spindle kube forecast' reads it); 0 turns forecasts off")
	fl.DurationVar(&f.forecastHorizon, "forecast-horizon", 24*time.Hour, "how far ahead forecasts simulate; a job not started by then is reported as beyond it")
	return cmd
}

func runSchedule(cmd *cobra.Command, f *scheduleFlags) error {
	if f.policy == "" {
		return usagef("no policy: pass -p POLICY (known: %s)", strings.Join(policy.Names(), ", "))
	}
	pf, _, err := policy.Parse(f.policy)
	if err != nil {
		return usageError{err}
	}
	af, err := admission.Parse(f.admission)
	if err != nil {
		return usageError{err}
	}
	if f.workers <= 0 {
		return usagef("--bind-workers must be positive")
	}
	if f.qps <= 0 || f.burst <= 0 {
		return usagef("--qps and --burst must be positive")
	}
	if err := checkHTTPFlags(f); err != nil {
		return err
	}
	if f.forecastEvery < 0 || f.forecastHorizon <= 0 {
		return usagef("--forecast-every must be 0 (off) or positive, and --forecast-horizon positive")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return usagef("--log-level: %q is not one of debug, info, warn, error", f.logLevel)
	}
	cfg, err := kube.LoadConfig(f.config)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
	// Both clients wait out an apiserver outage and go on the moment it
	// answers, rather than backing off through it (kube.Reconnect).
	rc := &kube.Reconnect{Log: log}
	client, err := scheduleClient(f.kubeconfig, f.qps, f.burst, "spindle-scheduler", rc)
	if err != nil {
		return err
	}
	// Events and PodScheduled conditions go through a client of their own,
	// with its own rate limiter (as kube-scheduler's Events do), so that
	// what the scheduler says about waiting pods never slows its bindings.
	statusClient, err := scheduleClient(f.kubeconfig, f.qps, f.burst, "spindle-scheduler-status", rc)
	if err != nil {
		return err
	}
	// Other schedulers' custom resources (Volcano's PodGroups) are read
	// through the dynamic client, where the cluster serves them.
	dyn, err := dynamicClient(f.kubeconfig, f.qps, f.burst, "spindle-scheduler", rc)
	if err != nil {
		return err
	}
	rec := observe.NewRecorder(observe.Options{})
	s, err := kube.New(kube.Options{
		Client: client, StatusClient: statusClient, Dynamic: dyn, SchedulerName: f.name, Policy: pf, PolicyName: f.policy, Admission: af, AdmissionName: f.admission,
		Config: cfg, BindWorkers: f.workers, Log: log, Observe: rec,
		ForecastEvery: f.forecastEvery, ForecastHorizon: f.forecastHorizon, ResolvePolicy: resolvePolicy,
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopServing := func() {}
	if err := serveHTTP(ctx, f, statusClient, rec, log, &stopServing); err != nil {
		return err
	}
	defer stopServing()
	log.Info("starting", "scheduler", f.name, "policy", f.policy, "admission", f.admission, "leader_elect", f.leaderElect)
	if !f.leaderElect {
		rec.SetRole(observe.RoleSolo)
		return s.Run(ctx)
	}
	rec.SetRole(observe.RoleStandby)
	return runLeader(ctx, client, f, log, func(ctx context.Context) error {
		rec.SetRole(observe.RoleLeader)
		return s.Run(ctx)
	})
}

// runLeader runs run while this replica holds the Lease; losing it ends
// the process's scheduling (the next holder re-reads the cluster).
func runLeader(ctx context.Context, client kubernetes.Interface, f *scheduleFlags, log *slog.Logger, run func(context.Context) error) error {
	host, _ := os.Hostname()
	id := host + "_" + rand.String(8)
	name := f.leaseName
	if name == "" {
		name = f.name
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: f.leaseNamespace, Name: name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var runErr error
	lost := false
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, ReleaseOnCancel: true,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		Name: name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				log.Info("leading", "lease", f.leaseNamespace+"/"+name, "identity", id)
				runErr = run(ctx)
				cancel()
			},
			OnStoppedLeading: func() {
				log.Info("stopped leading", "lease", f.leaseNamespace+"/"+name)
				lost = parent.Err() == nil
				cancel()
			},
			OnNewLeader: func(who string) {
				if who != id {
					log.Info("another replica leads", "leader", who)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	le.Run(ctx)
	if runErr == nil && lost {
		runErr = fmt.Errorf("lost the lease %s/%s", f.leaseNamespace, name)
	}
	return runErr
}

// scheduleClient builds a client from a kubeconfig file, $KUBECONFIG, or
// the in-cluster configuration, in that order.
func scheduleClient(kubeconfig string, qps float32, burst int, userAgent string, rc *kube.Reconnect) (*kubernetes.Clientset, error) {
	cfg, err := restConfig(kubeconfig, qps, burst, userAgent, rc)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	return cs, nil
}

// dynamicClient is scheduleClient's dynamic twin, for custom resources.
func dynamicClient(kubeconfig string, qps float32, burst int, userAgent string, rc *kube.Reconnect) (*dynamic.DynamicClient, error) {
	cfg, err := restConfig(kubeconfig, qps, burst, userAgent, rc)
	if err != nil {
		return nil, err
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	return dc, nil
}

// restConfig reads kubeconfig (else $KUBECONFIG, else the in-cluster
// config) with the client's rate limits and user agent.
func restConfig(kubeconfig string, qps float32, burst int, userAgent string, rc *kube.Reconnect) (*rest.Config, error) {
	if kubeconfig == "" {
		kubeconfig = os.Getenv("KUBECONFIG")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		if kubeconfig == "" {
			return nil, fmt.Errorf("no --kubeconfig and not in a cluster: %w", err)
		}
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = qps, burst
	cfg.UserAgent = userAgent
	if rc != nil {
		rc.Wrap(cfg)
	}
	return cfg, nil
}
