package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKubeCommandsReportBadInput(t *testing.T) {
	dir := t.TempDir()
	down := filepath.Join(dir, "down.kubeconfig")
	// Port 1 on loopback: nothing listens, the dial fails at once.
	if err := os.WriteFile(down, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", "")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"kube", "replay"}, 2, "no workload: pass -w FILE"},
		{[]string{"kube", "replay", "-w", "../../examples/tiny.json"}, 2, "no cluster: pass --kubeconfig FILE or set KUBECONFIG"},
		{[]string{"kube", "replay", "-w", "../../examples/tiny.json", "--time-scale", "-1"}, 2, "--time-scale must be > 0"},
		{[]string{"kube", "replay", "-w", "missing.yaml", "--kubeconfig", down}, 1, "missing.yaml"},
		{[]string{"kube", "replay", "-w", "../../examples/tiny.json", "--kubeconfig", down}, 1, "cannot reach the apiserver https://127.0.0.1:1"},
		{[]string{"kube", "replay", "-w", "../../examples/tiny.json", "--kubeconfig", filepath.Join(dir, "none")}, 1, "kubeconfig " + filepath.Join(dir, "none")},
		{[]string{"kube", "bench", "--kubeconfig", down}, 1, "cannot reach the apiserver"},
		{[]string{"kube", "bench"}, 2, "no cluster"},
	} {
		var out, errb bytes.Buffer
		code := Main(c.args, &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}

func TestKubeHelpNamesTheContract(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"kube", "replay", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, s := range []string{"spindle.io/replay-duration", "--time-scale", "--stall-timeout", "summary.json", "default-scheduler"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("help lacks %q", s)
		}
	}
}
