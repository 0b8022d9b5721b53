package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKubeRecordReportsBadInput(t *testing.T) {
	dir := t.TempDir()
	down := filepath.Join(dir, "down.kubeconfig")
	if err := os.WriteFile(down, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "rec.yaml")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"kube", "record", "--kubeconfig", down}, 2, "no output: pass -o WORKLOAD"},
		{[]string{"kube", "record", "--kubeconfig", down, "-o", out, "-n", "a", "-A"}, 2, "not both"},
		{[]string{"kube", "record", "--kubeconfig", down, "-o", out, "-l", "a in (b"}, 2, "--selector"},
		{[]string{"kube", "record", "--kubeconfig", down, "-o", out, "--running", "maybe"}, 2, "--running: want drop or keep"},
		{[]string{"kube", "record", "--kubeconfig", down, "-o", out, "--duration", "-1s"}, 2, "--duration must not be negative"},
		{[]string{"kube", "record", "--kubeconfig", down, "-o", out}, 1, "list nodes"},
	} {
		var o, e bytes.Buffer
		code := Main(c.args, &o, &e)
		if code != c.code || !strings.Contains(e.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, e.String(), c.code, c.want)
		}
	}
	// A failed recording leaves neither the output nor its temporary file.
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "down.kubeconfig" {
			t.Errorf("left behind %s", e.Name())
		}
	}
}
