package cli

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestKubeScheduleHelp(t *testing.T) {
	out, _, code := run(t, "kube", "schedule", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--kubeconfig", "--policy", "--admission", "--config", "--scheduler-name", "--leader-elect", "--http-address", "--probe-address", "--http-auth", "spindle.io/job", "spark-role=driver"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestKubeScheduleBadInput(t *testing.T) {
	dir := t.TempDir()
	badCfg := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badCfg, []byte("queues: [{name: a, capacity: 2}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noCluster := filepath.Join(dir, "missing-kubeconfig")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"kube", "schedule"}, 2, "no policy"},
		{[]string{"kube", "schedule", "-p", "nosuch"}, 2, `unknown policy "nosuch"`},
		{[]string{"kube", "schedule", "-p", "fifo", "-a", "static"}, 2, "static needs an amount"},
		{[]string{"kube", "schedule", "-p", "fifo", "--log-level", "loud"}, 2, "--log-level"},
		{[]string{"kube", "schedule", "-p", "fifo", "--config", badCfg}, 1, "queues[0].capacity"},
		{[]string{"kube", "schedule", "-p", "fifo", "--kubeconfig", noCluster}, 1, "missing-kubeconfig"},
		// The API names namespaces and pods: not on the network without
		// authentication.
		{[]string{"kube", "schedule", "-p", "fifo", "--http-address", "0.0.0.0:10261"}, 2, "needs --http-auth=kubernetes"},
		{[]string{"kube", "schedule", "-p", "fifo", "--http-address", ":10261"}, 2, "is not a loopback address"},
		{[]string{"kube", "schedule", "-p", "fifo", "--http-auth", "basic"}, 2, `--http-auth: "basic"`},
		{[]string{"kube", "schedule", "-p", "fifo", "--http-trust-loopback"}, 2, "need --http-auth=kubernetes"},
		{[]string{"kube", "schedule", "-p", "fifo", "--http-auth", "kubernetes", "--tls-cert-file", "c.pem"}, 2, "go together"},
		{[]string{"kube", "schedule", "-p", "fifo", "--probe-address", "127.0.0.1:10261"}, 2, "must differ"},
	}
	for _, c := range cases {
		_, errOut, code := run(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

func TestLeaderElectionOneReplicaSchedules(t *testing.T) {
	client := fake.NewClientset()
	f := &scheduleFlags{name: "spindle", leaseNamespace: "kube-system"}
	log := slog.New(slog.DiscardHandler)
	leading := make(chan string, 2)
	replica := func(name string) (cancel func(), done chan error) {
		ctx, cancel := context.WithCancel(context.Background())
		done = make(chan error, 1)
		go func() {
			done <- runLeader(ctx, client, f, log, func(ctx context.Context) error {
				leading <- name
				<-ctx.Done()
				return nil
			})
		}()
		return cancel, done
	}
	stopA, doneA := replica("a")
	if got := <-leading; got != "a" {
		t.Fatalf("%s leads first, want a", got)
	}
	stopB, doneB := replica("b")
	defer func() { stopB(); <-doneB }()
	select {
	case got := <-leading:
		t.Fatalf("%s leads while a holds the lease", got)
	case <-time.After(3 * time.Second):
	}
	stopA() // a steps down and releases the lease: b takes over
	if err := <-doneA; err != nil {
		t.Fatalf("a: %v", err)
	}
	select {
	case got := <-leading:
		if got != "b" {
			t.Fatalf("%s leads, want b", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("b never took over the released lease")
	}
	lease, err := client.CoordinationV1().Leases("kube-system").Get(context.Background(), "spindle", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Fatalf("lease = %+v, %v", lease, err)
	}
}

// TestKubeScheduleDefaultAdmissionIsAutoAdmin: what a user gets without
// asking must prevent the burst-of-drivers deadlock (docs/kube.md).
func TestKubeScheduleDefaultAdmissionIsAutoAdmin(t *testing.T) {
	fl := newKubeSchedule().Flags().Lookup("admission")
	if fl == nil || fl.DefValue != "autoadmin" {
		t.Fatalf("-a defaults to %v, want autoadmin", fl)
	}
}
