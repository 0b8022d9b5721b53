// Package localcluster runs a real Kubernetes control plane on 127.0.0.1:
// etcd and kube-apiserver, and on request kwok (fake nodes whose pods run and
// complete as spindle's kwok stages say), kube-controller-manager and
// kube-scheduler, from the binaries hack/build-kube.sh builds.
//
// Both the live test harness (internal/controlplane/kubetest) and hack/local-cluster.sh
// start clusters through it, so a test and a developer's cluster run the same
// command lines. Every process runs in its own process group and its PID is
// written to <Dir>/<name>.pid, so it can be stopped by PID and never by name.
package localcluster

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/spindle-sched/spindle/internal/controlplane/kubepki"
)

// The versions hack/build-kube.sh builds; they name the cache directory, so
// they must match the script (a test checks).
const (
	KubeVersion = "v1.37.2"
	EtcdVersion = "v3.7.0"
	KwokVersion = "v0.8.0"
)

// EnvBin overrides the directory holding the binaries.
const EnvBin = "SPINDLE_KUBE_BIN"

// Annotations the kwok stages act on.
const (
	// KwokNodeAnnotation marks a Node as one kwok manages.
	KwokNodeAnnotation = "kwok.x-k8s.io/node"
	// ReplayDurationAnnotation on a pod holds how long it runs once Running,
	// as a Go duration ("90s", "1m30s", "2.5s"); kwok then marks it
	// Succeeded. A pod without it runs until deleted. Only the replayer writes
	// it and only kwok reads it: a scheduler must never look at it.
	ReplayDurationAnnotation = "spindle.io/replay-duration"
)

// Binaries lists the executables a cluster may run.
var Binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}

// DefaultBinDir is where hack/build-kube.sh puts the binaries when
// SPINDLE_KUBE_BIN is not set.
func DefaultBinDir() string {
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	key := fmt.Sprintf("kube-%s-etcd-%s-kwok-%s-%s-%s", KubeVersion, EtcdVersion, KwokVersion, runtime.GOOS, runtime.GOARCH)
	return filepath.Join(cache, "spindle", key, "bin")
}

// BinDir returns the directory holding every binary in Binaries: $SPINDLE_KUBE_BIN
// if set, else DefaultBinDir. The error names what is missing.
func BinDir() (string, error) {
	dir := os.Getenv(EnvBin)
	if dir == "" {
		dir = DefaultBinDir()
	}
	var missing []string
	for _, b := range Binaries {
		if info, err := os.Stat(filepath.Join(dir, b)); err != nil || info.Mode()&0o111 == 0 {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return dir, fmt.Errorf("%s missing in %s", strings.Join(missing, ", "), dir)
	}
	return dir, nil
}

// Options says which components Start runs besides etcd and kube-apiserver.
type Options struct {
	// Kwok runs kwok with kwok's standard "fast" node and pod stages plus
	// spindle's duration-driven pod-complete stage (deploy/kwok).
	Kwok bool
	// ControllerManager runs kube-controller-manager with the controllers a
	// kwok cluster needs (see controllers). Without it, new nodes are not
	// tainted not-ready, since nothing would remove the taint.
	ControllerManager bool
	// Scheduler runs kube-scheduler (schedulerName default-scheduler).
	Scheduler bool
	// Nodes is how many kwok nodes (kwok-node-0, ...) Start creates and waits
	// Ready for; it implies Kwok.
	Nodes int
	// NodeCPU, NodeMemory and NodePods are each node's capacity; defaults
	// "32", "256Gi", 110.
	NodeCPU, NodeMemory string
	NodePods            int
	// Detach starts every process in a session of its own, to outlive the
	// caller (hack/local-cluster.sh). Otherwise, on Linux, the kernel kills
	// each process when the caller dies, so a crashed test leaves nothing.
	Detach bool
	// ExtraArgs appends flags to a component's command line, by binary name,
	// e.g. {"kube-apiserver": {"--max-requests-inflight=2000"}}. A flag
	// given twice takes its last value, so these override the defaults.
	ExtraArgs map[string][]string
	// RepoDir is the repository root holding deploy/kwok; default: found by
	// walking up from the working directory to go.mod.
	RepoDir string
}

// Cluster is a running control plane.
type Cluster struct {
	// Config reaches the apiserver as a cluster administrator (system:masters),
	// with QPS 100 and burst 200; copy it to change either.
	Config *rest.Config
	// Client is a clientset built from Config.
	Client kubernetes.Interface
	// Kubeconfig is a kubeconfig file for Config, for processes the caller starts.
	Kubeconfig string
	// Dir holds the PKI, etcd's data, and a <name>.log and <name>.pid per process.
	Dir string
	// Procs are the processes, in start order.
	Procs []*Process

	once sync.Once
}

// Process is one started component.
type Process struct {
	Name string
	PID  int // also its process group ID
	Log  string

	cmd  *exec.Cmd
	done chan struct{}
	err  error // set before done is closed

	// What started it, for Restart.
	path   string
	args   []string
	detach bool
}

// Start brings up a control plane in dir from the binaries in bin. On error
// it stops whatever it had started and says which component failed, with
// the end of its log.
func Start(ctx context.Context, bin, dir string, opts Options) (*Cluster, error) {
	if opts.Nodes > 0 {
		opts.Kwok = true
	}
	for name := range opts.ExtraArgs {
		if !slices.Contains(Binaries, name) {
			return nil, fmt.Errorf("ExtraArgs for %q: not a component (want one of %s)", name, strings.Join(Binaries, ", "))
		}
	}
	c := &Cluster{Dir: dir}
	if err := c.start(ctx, bin, opts); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// Stop stops every process, last started first: SIGTERM to its process
// group, SIGKILL after 10 s, then SIGKILL to the group for anything it left.
// It is safe to call more than once.
func (c *Cluster) Stop() {
	c.once.Do(func() {
		for i := len(c.Procs) - 1; i >= 0; i-- {
			c.Procs[i].stop()
		}
	})
}

func (c *Cluster) start(ctx context.Context, bin string, opts Options) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	var stages []string
	if opts.Kwok {
		var err error
		if stages, err = StageFiles(bin, opts.RepoDir); err != nil {
			return err
		}
	}
	ports, err := freePorts(6)
	if err != nil {
		return err
	}
	etcdClient, etcdPeer, apiPort, kcmPort, schedPort, kwokPort := ports[0], ports[1], ports[2], ports[3], ports[4], ports[5]

	pki, err := kubepki.Write(filepath.Join(c.Dir, "pki"))
	if err != nil {
		return err
	}
	server := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	if err := os.WriteFile(c.Kubeconfig, []byte(pki.Kubeconfig(server)), 0o600); err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	c.Config = &rest.Config{
		Host:            server,
		TLSClientConfig: rest.TLSClientConfig{CAFile: pki.CACert, CertFile: pki.AdminCert, KeyFile: pki.AdminKey},
		QPS:             100,
		Burst:           200,
	}
	if c.Client, err = kubernetes.NewForConfig(c.Config); err != nil {
		return err
	}

	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)
	etcd, err := c.spawn(bin, "etcd", opts, etcdArgs(filepath.Join(c.Dir, "etcd"), etcdClient, etcdPeer)...)
	if err != nil {
		return err
	}
	if err := waitHTTP(ctx, etcd, etcdURL+"/health", nil, `"health":"true"`); err != nil {
		return err
	}

	api, err := c.spawn(bin, "kube-apiserver", opts, apiServerArgs(pki, etcdURL, apiPort, !opts.ControllerManager)...)
	if err != nil {
		return err
	}
	if err := c.waitAPIServer(ctx, api); err != nil {
		return err
	}

	insecure := &tls.Config{InsecureSkipVerify: true} // self-signed health endpoints on 127.0.0.1
	if opts.ControllerManager {
		p, err := c.spawn(bin, "kube-controller-manager", opts, controllerManagerArgs(pki, c.Kubeconfig, kcmPort, filepath.Join(c.Dir, "kcm-certs"))...)
		if err != nil {
			return err
		}
		if err := waitHTTP(ctx, p, fmt.Sprintf("https://127.0.0.1:%d/healthz", kcmPort), insecure, "ok"); err != nil {
			return err
		}
	}
	if opts.Scheduler {
		p, err := c.spawn(bin, "kube-scheduler", opts, schedulerArgs(c.Kubeconfig, schedPort, filepath.Join(c.Dir, "scheduler-certs"))...)
		if err != nil {
			return err
		}
		if err := waitHTTP(ctx, p, fmt.Sprintf("https://127.0.0.1:%d/healthz", schedPort), insecure, "ok"); err != nil {
			return err
		}
	}
	if opts.Kwok {
		p, err := c.spawn(bin, "kwok", opts, kwokArgs(c.Kubeconfig, kwokPort, stages)...)
		if err != nil {
			return err
		}
		if err := waitHTTP(ctx, p, fmt.Sprintf("http://127.0.0.1:%d/healthz", kwokPort), nil, "ok"); err != nil {
			return err
		}
	}
	if opts.Nodes > 0 {
		if err := c.AddNodes(ctx, opts.Nodes, opts.NodeCPU, opts.NodeMemory, opts.NodePods); err != nil {
			return err
		}
	}
	return nil
}

// AddNodes creates kwok nodes kwok-node-0 .. kwok-node-<n-1> (those that
// exist already are kept) with the given capacity ("" and 0 take the
// defaults "32", "256Gi", 110) and waits until all are Ready and untainted.
func (c *Cluster) AddNodes(ctx context.Context, n int, cpu, memory string, pods int) error {
	if cpu == "" {
		cpu = "32"
	}
	if memory == "" {
		memory = "256Gi"
	}
	if pods == 0 {
		pods = 110
	}
	var names []string
	for i := range n {
		node, err := NewNode(fmt.Sprintf("kwok-node-%d", i), cpu, memory, pods)
		if err != nil {
			return err
		}
		if _, err := c.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create node %s: %w", node.Name, err)
		}
		names = append(names, node.Name)
	}
	if err := c.WaitNodesReady(ctx, names...); err != nil {
		return fmt.Errorf("nodes not ready: %w", err)
	}
	return nil
}

// WaitNodesReady waits until every named node is Ready and carries no
// NoSchedule/NoExecute taint, i.e. a scheduler may place pods on it.
func (c *Cluster) WaitNodesReady(ctx context.Context, names ...string) error {
	return Poll(ctx, 200*time.Millisecond, func() (bool, error) {
		for _, name := range names {
			n, err := c.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil || !NodeReady(n) {
				return false, nil
			}
			for _, t := range n.Spec.Taints {
				if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
					return false, nil
				}
			}
		}
		return true, nil
	})
}

// NodeReady reports whether n's Ready condition is True.
func NodeReady(n *corev1.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// NewNode returns a Node kwok will manage, with the given capacity (also its
// allocatable). cpu and memory are Kubernetes quantities ("32", "256Gi").
func NewNode(name, cpu, memory string, pods int) (*corev1.Node, error) {
	rl := corev1.ResourceList{}
	for _, q := range []struct {
		name  corev1.ResourceName
		value string
	}{{corev1.ResourceCPU, cpu}, {corev1.ResourceMemory, memory}, {corev1.ResourcePods, strconv.Itoa(pods)}} {
		v, err := resource.ParseQuantity(q.value)
		if err != nil {
			return nil, fmt.Errorf("node %s: %s %q: %w", name, q.name, q.value, err)
		}
		rl[q.name] = v
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{KwokNodeAnnotation: "fake"},
			Labels: map[string]string{
				"kubernetes.io/hostname": name,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
			},
		},
		// The apiserver keeps a Node's status on create (a kubelet registers
		// that way); kwok's node-initialize stage keeps the capacity it finds.
		Status: corev1.NodeStatus{Capacity: rl, Allocatable: rl.DeepCopy()},
	}, nil
}

// Poll calls cond every interval until it returns true, returns an error, or
// ctx ends.
func Poll(ctx context.Context, interval time.Duration, cond func() (bool, error)) error {
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("condition not met: %w", ctx.Err())
		case <-time.After(interval):
		}
	}
}

func (c *Cluster) waitAPIServer(ctx context.Context, api *Process) error {
	err := Poll(ctx, 200*time.Millisecond, func() (bool, error) {
		if err := api.Exited(); err != nil {
			return false, err
		}
		body, err := c.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", nil
	})
	if err != nil {
		return fmt.Errorf("kube-apiserver not ready at %s: %w", c.Config.Host, withLog(err, api))
	}
	return nil
}

// waitHTTP waits until url answers 200 with a body containing want, failing
// early if p exits.
func waitHTTP(ctx context.Context, p *Process, url string, tlsConfig *tls.Config, want string) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	defer client.CloseIdleConnections()
	err := Poll(ctx, 200*time.Millisecond, func() (bool, error) {
		if err := p.Exited(); err != nil {
			return false, err
		}
		resp, err := client.Get(url)
		if err != nil {
			return false, nil
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		return resp.StatusCode == http.StatusOK && strings.Contains(buf.String(), want), nil
	})
	if err != nil {
		return fmt.Errorf("%s not healthy at %s: %w", p.Name, url, withLog(err, p))
	}
	return nil
}

// withLog adds the end of p's log to a wait that timed out; an error from
// Exited carries it already.
func withLog(err error, p *Process) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w; last lines of %s:\n%s", err, p.Log, Tail(p.Log, 15))
	}
	return err
}

// freePorts returns n distinct ports free on 127.0.0.1 at the time of the call.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Run starts the executable at path as one more process of the cluster:
// output to <Dir>/<name>.log, its own process group, and stopped with the
// rest by Stop (a test's spindle scheduler, say). It is not waited for; use
// Exited to see whether it still runs and Kill to end it abruptly. name must
// be unique within the cluster, as it names the log and pid files.
func (c *Cluster) Run(name, path string, args ...string) (*Process, error) {
	for _, p := range c.Procs {
		if p.Name == name {
			return nil, fmt.Errorf("process name %q already used in this cluster", name)
		}
	}
	return c.start1(name, path, false, args...)
}

func (c *Cluster) spawn(bin, name string, opts Options, args ...string) (*Process, error) {
	args = append(args, opts.ExtraArgs[name]...)
	return c.start1(name, filepath.Join(bin, name), opts.Detach, args...)
}

func (c *Cluster) start1(name, path string, detach bool, args ...string) (*Process, error) {
	logPath := filepath.Join(c.Dir, name+".log")
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr(detach)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{Name: name, PID: cmd.Process.Pid, Log: logPath, cmd: cmd, done: make(chan struct{}), path: path, args: args, detach: detach}
	c.Procs = append(c.Procs, p)
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	pidfile := filepath.Join(c.Dir, name+".pid")
	if err := os.WriteFile(pidfile, []byte(strconv.Itoa(p.PID)+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("pidfile: %w", err)
	}
	return p, nil
}

// Restart starts p's command again, with the same arguments (so the same
// ports and data directory), once p has exited: a test kills a component
// with Kill, waits as long as it likes, and restarts it. The new process
// appends to the same log and replaces p in Procs, so Stop stops it. For
// kube-apiserver it returns once the apiserver answers /readyz.
func (c *Cluster) Restart(ctx context.Context, p *Process) (*Process, error) {
	if err := p.Exited(); err == nil {
		return nil, fmt.Errorf("restart %s: it still runs (PID %d); Kill it first", p.Name, p.PID)
	}
	i := slices.Index(c.Procs, p)
	if i < 0 {
		return nil, fmt.Errorf("restart %s: not a process of this cluster", p.Name)
	}
	np, err := c.start1(p.Name, p.path, p.detach, p.args...)
	if err != nil {
		return nil, err
	}
	// start1 appended the new process; it takes the old one's place, so
	// Stop keeps its order.
	c.Procs[i] = np
	c.Procs = c.Procs[:len(c.Procs)-1]
	if p.Name == "kube-apiserver" {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if err := c.waitAPIServer(ctx, np); err != nil {
			return np, err
		}
	}
	return np, nil
}

// Process returns the component or process started under name, or nil.
func (c *Cluster) Process(name string) *Process {
	for _, p := range c.Procs {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Exited returns an error, with the end of the log, if p is no longer running.
func (p *Process) Exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited: %v; last lines of %s:\n%s", p.Name, p.err, p.Log, Tail(p.Log, 20))
	default:
		return nil
	}
}

// Kill sends SIGKILL to p's process group (kill -9: no chance to clean
// up) and waits until p has exited.
func (p *Process) Kill() {
	_ = syscall.Kill(-p.PID, syscall.SIGKILL)
	<-p.done
}

// Wait blocks until p exits and returns how it ended.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

func (p *Process) stop() {
	select {
	case <-p.done:
	default:
		_ = syscall.Kill(-p.PID, syscall.SIGTERM) // the group ID is the leader's PID
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-p.PID, syscall.SIGKILL)
			<-p.done
		}
	}
	// Anything the process left in its group goes too; ESRCH (no such
	// group) is the usual answer.
	if err := syscall.Kill(-p.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		fmt.Fprintf(os.Stderr, "localcluster: kill group %d (%s): %v\n", p.PID, p.Name, err)
	}
}

// Tail returns the last n lines of the file at path.
func Tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
