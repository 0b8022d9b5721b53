// Package kubetest starts a real Kubernetes control plane on 127.0.0.1 for
// live tests: etcd and kube-apiserver, and on request kwok (fake nodes whose
// pods run and complete as spindle's kwok stages say), kube-controller-manager
// and kube-scheduler. Every process is started by the test, in its own process
// group, and stopped by PID when the test ends, whether it passed or not.
//
// The binaries are the ones hack/build-kube.sh builds into a cache outside the
// checkout. When they are absent a live test skips with a message that says
// how to build them, except under CI=true or SPINDLE_LIVE=1, where it fails:
// CI must never pass by skipping the live suites.
//
// Convention for live tests (see docs/live-testing.md): name them TestLive*,
// call Start first, and run them alone with
//
//	SPINDLE_LIVE=1 go test -run '^TestLive' ./...
package kubetest

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/spindle-sched/spindle/internal/kubepki"
)

// The versions hack/build-kube.sh builds; they name the cache directory, so
// they must match the script (TestVersionsMatchBuildScript checks).
const (
	KubeVersion = "v1.34.4"
	EtcdVersion = "v3.6.4"
	KwokVersion = "v0.8.0"
)

// Environment variables the harness reads.
const (
	// EnvBin overrides the directory holding the binaries.
	EnvBin = "SPINDLE_KUBE_BIN"
	// EnvLive selects what live tests do: "1" run and fail when the binaries
	// are absent, "0" skip, unset run when the binaries are found and skip
	// (fail under CI=true) when not.
	EnvLive = "SPINDLE_LIVE"
)

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

// Options says which components Start runs besides etcd and kube-apiserver.
type Options struct {
	// Kwok runs kwok with the standard node and pod stages plus spindle's
	// duration-driven pod-complete stage (deploy/kwok).
	Kwok bool
	// ControllerManager runs kube-controller-manager with the controllers a
	// kwok cluster needs (node lifecycle, taint eviction, pod GC, namespace,
	// garbage collector, service accounts, jobs, replica sets, deployments).
	// Without it, nodes are created without the not-ready taint instead.
	ControllerManager bool
	// Scheduler runs kube-scheduler (schedulerName default-scheduler).
	Scheduler bool
	// Nodes is how many kwok nodes (kwok-node-0, ...) Start creates and waits
	// Ready for; it implies Kwok.
	Nodes int
	// NodeCPU, NodeMemory and NodePods are each node's capacity; defaults
	// "32", "256Gi", "110".
	NodeCPU, NodeMemory string
	NodePods            int
}

// Cluster is a running control plane.
type Cluster struct {
	// Config reaches the apiserver as a cluster administrator (system:masters),
	// with QPS 100 and burst 200; copy it to change either.
	Config *rest.Config
	// Client is a clientset built from Config.
	Client kubernetes.Interface
	// Kubeconfig is a kubeconfig file for Config, for processes the test starts.
	Kubeconfig string
	// Dir holds the PKI, etcd's data and a <component>.log per process.
	Dir string

	tb    testing.TB
	procs []*proc
	once  sync.Once
}

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

// Binaries lists the executables Start runs.
var Binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}

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

// inCI reports whether CI is set to a true value, as CI systems do.
func inCI() bool {
	v, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && v
}

// RequireBinaries returns the binary directory, or ends the test: skipped
// (loudly) on a developer machine, failed under CI=true or SPINDLE_LIVE=1.
// SPINDLE_LIVE=0 skips the test in any case.
func RequireBinaries(t testing.TB) string {
	t.Helper()
	live := os.Getenv(EnvLive)
	if live == "0" {
		t.Skip("LIVE TEST SKIPPED: SPINDLE_LIVE=0")
	}
	dir, err := BinDir()
	if err == nil {
		return dir
	}
	msg := fmt.Sprintf("LIVE TEST NOT RUN: %v. Build the binaries once with hack/build-kube.sh "+
		"(about 7 minutes; cached outside the checkout) or point %s at them; see docs/live-testing.md", err, EnvBin)
	if live == "1" || inCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Start brings up a control plane as opts says and registers a cleanup that
// stops it. It fails the test (after stopping what it started) if any
// component does not come up.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	bin := RequireBinaries(t)
	if opts.Nodes > 0 {
		opts.Kwok = true
	}
	c := &Cluster{tb: t, Dir: t.TempDir()}
	// Registered after TempDir, so it runs before the directory is removed.
	t.Cleanup(func() {
		if t.Failed() {
			c.dumpLogs()
		}
		c.Stop()
	})
	if err := c.start(bin, opts); err != nil {
		t.Fatalf("kubetest: %v (logs in %s)", err, c.Dir)
	}
	return c
}

// Stop stops every process Start started, last started first: SIGTERM to
// its process group, SIGKILL after 10 s. It is safe to call more than once.
func (c *Cluster) Stop() {
	c.once.Do(func() {
		for i := len(c.procs) - 1; i >= 0; i-- {
			c.procs[i].stop()
		}
	})
}

func (c *Cluster) start(bin string, opts Options) error {
	ports, err := freePorts(6)
	if err != nil {
		return err
	}
	etcdClient, etcdPeer, apiPort, kcmPort, schedPort, kwokPort := ports[0], ports[1], ports[2], ports[3], ports[4], ports[5]
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	pki, err := kubepki.Write(filepath.Join(c.Dir, "pki"))
	if err != nil {
		return err
	}
	server := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	if err := os.WriteFile(c.Kubeconfig, []byte(pki.Kubeconfig(server)), 0o600); err != nil {
		return err
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
	etcd, err := c.spawn(bin, "etcd", etcdArgs(filepath.Join(c.Dir, "etcd"), etcdClient, etcdPeer)...)
	if err != nil {
		return err
	}
	if err := waitHTTP(ctx, etcd, etcdURL+"/health", nil, `"health":"true"`); err != nil {
		return err
	}

	api, err := c.spawn(bin, "kube-apiserver", apiServerArgs(pki, etcdURL, apiPort, !opts.ControllerManager)...)
	if err != nil {
		return err
	}
	if err := c.waitAPIServer(ctx, api); err != nil {
		return err
	}

	insecure := &tls.Config{InsecureSkipVerify: true} // self-signed health endpoints on 127.0.0.1
	if opts.ControllerManager {
		p, err := c.spawn(bin, "kube-controller-manager", controllerManagerArgs(pki, c.Kubeconfig, kcmPort, filepath.Join(c.Dir, "kcm-certs"))...)
		if err != nil {
			return err
		}
		if err := waitHTTP(ctx, p, fmt.Sprintf("https://127.0.0.1:%d/healthz", kcmPort), insecure, "ok"); err != nil {
			return err
		}
	}
	if opts.Scheduler {
		p, err := c.spawn(bin, "kube-scheduler", schedulerArgs(c.Kubeconfig, schedPort, filepath.Join(c.Dir, "scheduler-certs"))...)
		if err != nil {
			return err
		}
		if err := waitHTTP(ctx, p, fmt.Sprintf("https://127.0.0.1:%d/healthz", schedPort), insecure, "ok"); err != nil {
			return err
		}
	}
	if opts.Kwok {
		stages, err := stageFiles(bin)
		if err != nil {
			return err
		}
		p, err := c.spawn(bin, "kwok", kwokArgs(c.Kubeconfig, kwokPort, stages)...)
		if err != nil {
			return err
		}
		if err := waitHTTP(ctx, p, fmt.Sprintf("http://127.0.0.1:%d/healthz", kwokPort), nil, "ok"); err != nil {
			return err
		}
	}
	if opts.Nodes > 0 {
		cpu, mem, pods := opts.NodeCPU, opts.NodeMemory, opts.NodePods
		if cpu == "" {
			cpu = "32"
		}
		if mem == "" {
			mem = "256Gi"
		}
		if pods == 0 {
			pods = 110
		}
		var names []string
		for i := range opts.Nodes {
			n, err := NewNode(fmt.Sprintf("kwok-node-%d", i), cpu, mem, pods)
			if err != nil {
				return err
			}
			if _, err := c.Client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create node %s: %w", n.Name, err)
			}
			names = append(names, n.Name)
		}
		if err := c.WaitNodesReady(ctx, names...); err != nil {
			return err
		}
	}
	return nil
}

// WaitNodesReady waits until every named node is Ready and carries no
// NoSchedule/NoExecute taint, i.e. a scheduler may place pods on it.
func (c *Cluster) WaitNodesReady(ctx context.Context, names ...string) error {
	return Poll(ctx, 200*time.Millisecond, func() (bool, error) {
		for _, name := range names {
			n, err := c.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			if !NodeReady(n) {
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

func (c *Cluster) waitAPIServer(ctx context.Context, api *proc) error {
	return Poll(ctx, 200*time.Millisecond, func() (bool, error) {
		if err := api.exited(); err != nil {
			return false, err
		}
		body, err := c.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", nil
	})
}

// waitHTTP waits until url answers 200 with a body containing want, failing
// early if p exits.
func waitHTTP(ctx context.Context, p *proc, url string, tlsConfig *tls.Config, want string) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	defer client.CloseIdleConnections()
	err := Poll(ctx, 200*time.Millisecond, func() (bool, error) {
		if err := p.exited(); err != nil {
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
		return fmt.Errorf("%s not healthy at %s: %w", p.name, url, err)
	}
	return nil
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

// proc is one started process, in its own process group.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // set before done is closed
}

func (c *Cluster) spawn(bin, name string, args ...string) (*proc, error) {
	logPath := filepath.Join(c.Dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	c.procs = append(c.procs, p)
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// exited returns an error if p is no longer running.
func (p *proc) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited: %v; last lines of %s:\n%s", p.name, p.err, p.log, tail(p.log, 20))
	default:
		return nil
	}
}

func (p *proc) stop() {
	pgid := p.cmd.Process.Pid // Setpgid makes the group ID the leader's PID
	select {
	case <-p.done:
	default:
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.done
		}
	}
	// Anything the process left in its group goes too; ESRCH (no such
	// group) is the usual, good answer.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

func (c *Cluster) dumpLogs() {
	for _, p := range c.procs {
		c.tb.Logf("---- last lines of %s ----\n%s", p.log, tail(p.log, 30))
	}
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
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
