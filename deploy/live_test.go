package deploy

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
)

// apply creates every namespace, ServiceAccount and RBAC object of deploy/
// on the cluster, as `kubectl apply -f deploy/` would.
func apply(t *testing.T, m manifests, cs kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	// Namespaces first: the rest lives in them.
	for _, kind := range []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"} {
		for key, o := range m.objs {
			if !strings.HasPrefix(key, kind+"/") {
				continue
			}
			var err error
			switch o := o.(type) {
			case *corev1.Namespace:
				_, err = cs.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
			case *corev1.ServiceAccount:
				_, err = cs.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
			case *rbacv1.ClusterRole:
				_, err = cs.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
			case *rbacv1.ClusterRoleBinding:
				_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
			case *rbacv1.Role:
				_, err = cs.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
			case *rbacv1.RoleBinding:
				_, err = cs.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
			default:
				t.Fatalf("apply: %s is %T", key, o)
			}
			if err != nil {
				t.Fatalf("apply %s: %v", key, err)
			}
		}
	}
}

// token returns a fresh token of the ServiceAccount ns/name.
func token(t *testing.T, cs kubernetes.Interface, ns, name string) string {
	t.Helper()
	exp := int64(3600)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), name,
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s/%s: %v", ns, name, err)
	}
	return tr.Status.Token
}

// tokenKubeconfig writes a kubeconfig that reaches the cluster as the
// bearer of tok, and nothing more.
func tokenKubeconfig(t *testing.T, c *kubetest.Cluster, tok string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local"] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthority: c.Config.CAFile, CertificateAuthorityData: c.Config.CAData}
	cfg.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: tok}
	cfg.Contexts["sa"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "sa"}
	cfg.CurrentContext = "sa"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// The Deployment's own settings, run on the ServiceAccount's own token
// against a real apiserver with deploy/'s RBAC applied: the scheduler
// takes its Lease and binds a pod (the ClusterRole and Role suffice), and
// its HTTP side serves metrics and the API to a ServiceAccount bound to
// spindle-status-reader, refuses one without that binding (403) and a
// request without a token (401), while the probes answer anyone.
func TestLiveDeploymentRunsOnItsServiceAccount(t *testing.T) {
	kubetest.RequireBinaries(t)
	m := load(t)
	c := kubetest.Start(t, kubetest.Options{Kwok: true, Nodes: 1, NodeCPU: "8", NodeMemory: "16Gi", NodePods: 110})
	apply(t, m, c.Client)
	ctx := context.Background()
	for _, sa := range []string{"reader", "stranger"} {
		if _, err := c.Client.CoreV1().ServiceAccounts("spindle-system").Create(ctx,
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "reader-spindle"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "spindle-status-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "reader", Namespace: "spindle-system"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(t.TempDir(), "spindle")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/spindle").CombinedOutput(); err != nil {
		t.Fatalf("build spindle: %v\n%s", err, out)
	}
	httpAddr, probeAddr := freePort(t), freePort(t)
	kc := tokenKubeconfig(t, c, token(t, c.Client, "spindle-system", "spindle"))
	// The Deployment's arguments, but on loopback addresses, without
	// --http-trust-loopback (every request here comes from loopback), and
	// with the default queue config.
	cmd := exec.Command(bin, "kube", "schedule", "--kubeconfig", kc, "--leader-elect", "--lease-namespace=spindle-system",
		"-p", "fifo", "--http-address="+httpAddr, "--http-auth=kubernetes", "--probe-address="+probeAddr)
	logPath := filepath.Join(t.TempDir(), "spindle.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		logf.Close()
		b, _ := os.ReadFile(logPath)
		if t.Failed() {
			t.Logf("---- spindle log ----\n%s", b)
		}
		if strings.Contains(string(b), "forbidden") {
			t.Errorf("the scheduler was refused something its RBAC should grant:\n%s", b)
		}
	})

	// It schedules, on its own token.
	zero := int64(0)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{SchedulerName: "spindle", TerminationGracePeriodSeconds: &zero,
			Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/x:1"}}},
	}
	if _, err := c.Client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		p, err := c.Client.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
		if err == nil && p.Spec.NodeName != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod not bound by the scheduler on its ServiceAccount's token")
		}
		time.Sleep(200 * time.Millisecond)
	}
	lease, err := c.Client.CoordinationV1().Leases("spindle-system").Get(ctx, "spindle", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("Lease spindle-system/spindle: %v %+v", err, lease)
	}

	// The HTTP side: HTTPS with a self-signed certificate, as kube-scheduler's.
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(url, tok string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	reader, stranger := token(t, c.Client, "spindle-system", "reader"), token(t, c.Client, "spindle-system", "stranger")
	base := "https://" + httpAddr
	for _, tc := range []struct {
		path, tok, who string
		code           int
		body           string
	}{
		{"/api/v1/jobs", reader, "reader", 200, `"items"`},
		{"/api/v1/decisions", reader, "reader", 200, "default/p"},
		{"/metrics", reader, "reader", 200, "spindle_"},
		{"/", reader, "reader", 200, "<html"},
		{"/api/v1/jobs", stranger, "stranger", 403, `"system:serviceaccount:spindle-system:stranger" may not get path "/spindle/api/v1/jobs"`},
		{"/metrics", stranger, "stranger", 403, "may not get"},
		{"/api/v1/decisions", "", "no token", 401, "bearer token"},
		{"/api/v1/jobs", "not-a-token", "a made-up token", 401, "did not accept"},
		{"/readyz", "", "no token", 200, "ok"},
	} {
		var code int
		var body string
		// Decisions appear with the next snapshot (every second).
		for end := time.Now().Add(30 * time.Second); ; {
			code, body = get(base+tc.path, tc.tok)
			if code == tc.code && strings.Contains(body, tc.body) || time.Now().After(end) {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		if code != tc.code || !strings.Contains(body, tc.body) {
			t.Errorf("GET %s as %s: %d %.200q, want %d containing %q", tc.path, tc.who, code, body, tc.code, tc.body)
		}
	}
	// The probe port answers the probes over plain HTTP, and nothing else.
	for path, want := range map[string]int{"/healthz": 200, "/livez": 200, "/readyz": 200, "/api/v1/jobs": 404, "/metrics": 404} {
		resp, err := hc.Get("http://" + probeAddr + path)
		if err != nil {
			t.Fatalf("probe %s: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("probe port %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}
