package localcluster

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/spindle-sched/spindle/internal/controlplane/kubepki"
)

func TestVersionsMatchBuildScript(t *testing.T) {
	script, err := os.ReadFile("../../../hack/build-kube.sh")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"KUBE_VERSION": KubeVersion, "ETCD_VERSION": EtcdVersion, "KWOK_VERSION": KwokVersion} {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)`).FindSubmatch(script)
		if m == nil {
			t.Errorf("hack/build-kube.sh sets no %s", name)
			continue
		}
		if string(m[1]) != want {
			t.Errorf("hack/build-kube.sh %s=%s, harness expects %s: the cache directories differ", name, m[1], want)
		}
	}
}

func TestBinDirNamesWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvBin, dir)
	if err := os.WriteFile(filepath.Join(dir, "etcd"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Present but not executable counts as missing.
	if err := os.WriteFile(filepath.Join(dir, "kwok"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := BinDir()
	if got != dir {
		t.Errorf("BinDir() dir = %s, want %s", got, dir)
	}
	if err == nil {
		t.Fatal("BinDir() found all binaries in a directory holding only etcd")
	}
	msg := err.Error()
	for _, b := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"} {
		if !strings.Contains(msg, b) {
			t.Errorf("error %q does not name %s", msg, b)
		}
	}
	if strings.Contains(msg, "etcd,") || strings.HasPrefix(msg, "etcd") {
		t.Errorf("error %q names etcd, which is present", msg)
	}
}

func TestDefaultBinDirIsVersionedAndOutsideTheCheckout(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/cache-root")
	got := DefaultBinDir()
	for _, want := range []string{"/cache-root/spindle/", KubeVersion, EtcdVersion, KwokVersion, "/bin"} {
		if !strings.Contains(got, want) {
			t.Errorf("DefaultBinDir() = %s, lacks %s", got, want)
		}
	}
}

func TestNewNode(t *testing.T) {
	n, err := NewNode("n1", "8", "16Gi", 50)
	if err != nil {
		t.Fatal(err)
	}
	if n.Annotations[KwokNodeAnnotation] != "fake" {
		t.Errorf("annotations = %v, want %s=fake", n.Annotations, KwokNodeAnnotation)
	}
	cpu := n.Status.Allocatable[corev1.ResourceCPU]
	mem := n.Status.Capacity[corev1.ResourceMemory]
	pods := n.Status.Allocatable[corev1.ResourcePods]
	if cpu.MilliValue() != 8000 || mem.Value() != 16<<30 || pods.Value() != 50 {
		t.Errorf("capacity cpu=%s memory=%s pods=%s, want 8, 16Gi, 50", cpu.String(), mem.String(), pods.String())
	}
	if _, err := NewNode("n2", "lots", "1Gi", 1); err == nil || !strings.Contains(err.Error(), "cpu") {
		t.Errorf("NewNode with cpu=lots: err = %v, want one naming cpu", err)
	}
}

// Every address a component listens on or advertises is loopback.
func TestArgsStayOnLoopback(t *testing.T) {
	var all []string
	all = append(all, etcdArgs("/d", 1, 2)...)
	all = append(all, apiServerArgs(kubepki.Files{}, "http://127.0.0.1:1", 3, true)...)
	all = append(all, controllerManagerArgs(kubepki.Files{}, "/k", 4, "/c")...)
	all = append(all, schedulerArgs("/k", 5, "/c")...)
	all = append(all, kwokArgs("/k", 6, nil)...)
	checked := 0
	for _, a := range all {
		name, value, _ := strings.Cut(a, "=")
		if !strings.Contains(name, "url") && !strings.Contains(name, "address") && !strings.Contains(name, "servers") &&
			name != "--initial-cluster" && name != "--node-ip" {
			continue
		}
		checked++
		if !strings.Contains(value, "127.0.0.1") {
			t.Errorf("%s is not loopback", a)
		}
	}
	if checked < 12 {
		t.Errorf("checked only %d address flags; the filter above no longer matches the arguments", checked)
	}
}

func TestStartRejectsExtraArgsForUnknownComponent(t *testing.T) {
	_, err := Start(t.Context(), t.TempDir(), t.TempDir(), Options{ExtraArgs: map[string][]string{"kubelet": {"--v=4"}}})
	if err == nil || !strings.Contains(err.Error(), `"kubelet"`) {
		t.Errorf("Start with ExtraArgs for kubelet: err = %v, want one naming kubelet", err)
	}
}
