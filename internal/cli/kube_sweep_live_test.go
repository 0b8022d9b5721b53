package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/shard/kubejob"
)

// decodeManifests reads 'kube sweep' output strictly (an unknown field
// fails).
func decodeManifests(t *testing.T, b []byte) []runtime.Object {
	t.Helper()
	strict := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out []runtime.Object
	for {
		doc, err := r.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		o, _, err := strict.Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("decode %s: %v", doc, err)
		}
		out = append(out, o)
	}
}

// create sends o to the apiserver, as a server-side dry run (every
// admission and validation step, nothing stored) or for real.
func create(t *testing.T, cs kubernetes.Interface, o runtime.Object, dry bool) {
	t.Helper()
	ctx := context.Background()
	opt := metav1.CreateOptions{}
	if dry {
		opt.DryRun = []string{metav1.DryRunAll}
	}
	var err error
	switch o := o.(type) {
	case *corev1.ConfigMap:
		_, err = cs.CoreV1().ConfigMaps(o.Namespace).Create(ctx, o, opt)
	case *corev1.PersistentVolumeClaim:
		_, err = cs.CoreV1().PersistentVolumeClaims(o.Namespace).Create(ctx, o, opt)
	case *batchv1.Job:
		_, err = cs.BatchV1().Jobs(o.Namespace).Create(ctx, o, opt)
	default:
		t.Fatalf("unexpected object %T", o)
	}
	if err != nil {
		t.Fatalf("create %T (dry run %v): %v", o, dry, err)
	}
}

// The manifests 'kube sweep' prints pass a server-side dry run on a real
// apiserver; applied for real, the Job controller makes one pod per index
// with the index on it. kwok runs no containers, so each pod's command is
// then run as a process the way its container would (the index from the
// pod's annotation, the ConfigMap's file at /workload, a directory for the
// claim), the merge Job's command joins the parts, and the result is what
// one 'compare -o' writes. Run alone with
// SPINDLE_LIVE=1 go test -p 1 -run '^TestLiveKubeSweep' ./internal/cli
func TestLiveKubeSweepDryRunAndShardsAsTheJobRunsThem(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{ControllerManager: true})
	const ns, shards = "sweeps", 3
	pols := "fifo,capacity,fair:max_am_share=-1,drf,dress+"
	args := []string{"kube", "sweep", "-w", "../../examples/mixed.yaml", "-p", pols, "--seed", "2",
		"--shards", "3", "--image", "registry.example/spindle:dev", "--namespace", ns, "--name", "sw"}
	stdout, stderr, code := run(t, args...)
	if code != 0 {
		t.Fatalf("kube sweep: exit %d: %s", code, stderr)
	}
	objs := decodeManifests(t, []byte(stdout))
	mstdout, stderr, code := run(t, append(args, "--merge")...)
	if code != 0 {
		t.Fatalf("kube sweep --merge: exit %d: %s", code, stderr)
	}
	mergeObjs := decodeManifests(t, []byte(mstdout))
	if len(objs) != 3 || len(mergeObjs) != 1 {
		t.Fatalf("%d objects and %d merge objects, want 3 and 1", len(objs), len(mergeObjs))
	}
	if _, err := c.Client.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, o := range append(append([]runtime.Object{}, objs...), mergeObjs...) {
		create(t, c.Client, o, true)
	}
	// Every other command kube sweep shards, and a workload over a
	// ConfigMap's 1 MiB (gzipped into binaryData), pass the same dry run.
	big := filepath.Join(t.TempDir(), "big.json")
	if _, stderr, code := run(t, "generate", "synthetic", "--jobs", "2000", "-o", big); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	rec := filepath.Join(t.TempDir(), "rec.yaml")
	if err := os.WriteFile(rec, []byte(recordedDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{
		{"sweep", "-w", "../../examples/am-burst.yaml", "-p", "fair:max_am_share=-1", "--static", "0:20:5"},
		{"whatif", "-w", rec, "-p", "fifo,fair"},
		{"experiments", "dress", "--seeds", "1"},
		{"compare", "-w", big, "-p", "fifo,fair"},
	} {
		for _, merge := range []bool{false, true} {
			a := []string{"kube", "sweep", "--shards", "3", "--image", "registry.example/spindle:dev", "--namespace", ns, "--name", "sw-" + cmd[0]}
			if merge {
				a = append(a, "--merge")
			}
			out, stderr, code := run(t, append(append(a, "--"), cmd...)...)
			if code != 0 {
				t.Fatalf("kube sweep -- %s (merge %v): exit %d: %s", cmd[0], merge, code, stderr)
			}
			for _, o := range decodeManifests(t, []byte(out)) {
				if cm, ok := o.(*corev1.ConfigMap); ok && cmd[0] == "compare" && len(cm.BinaryData["big.json.gz"]) == 0 {
					t.Errorf("the 2000-job workload is not gzipped into binaryData: %d data keys", len(cm.Data))
				}
				create(t, c.Client, o, true)
			}
		}
	}
	for _, o := range objs {
		create(t, c.Client, o, false)
	}

	// The Job controller's pods, one per index.
	var pods []corev1.Pod
	deadline := time.Now().Add(60 * time.Second)
	for {
		l, err := c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=sw"})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) == shards {
			pods = l.Items
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pods of job sw after 60 s, want %d", len(l.Items), shards)
		}
		time.Sleep(200 * time.Millisecond)
	}

	dir := t.TempDir()
	bin := filepath.Join(dir, "spindle")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/spindle").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	wdir, rdir, mount := podFS(t, dir, objs[0].(*corev1.ConfigMap))
	seen := map[string]bool{}
	var wg sync.WaitGroup
	errs := make([]error, len(pods))
	outs := make([][]byte, len(pods))
	for i, p := range pods {
		idx, ok := p.Annotations["batch.kubernetes.io/job-completion-index"]
		if !ok || seen[idx] {
			t.Fatalf("pod %s: index %q (seen %v)", p.Name, idx, seen)
		}
		seen[idx] = true
		var a []string
		for _, x := range p.Spec.Containers[0].Args {
			a = append(a, mount.Replace(strings.ReplaceAll(x, "$("+kubejob.IndexVar+")", idx)))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = exec.Command(bin, a...).CombinedOutput()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard pod %s: %v\n%s", pods[i].Name, err, outs[i])
		}
	}
	mj := mergeObjs[0].(*batchv1.Job)
	var ma []string
	for _, x := range mj.Spec.Template.Spec.Containers[0].Args {
		ma = append(ma, mount.Replace(x))
	}
	if out, err := exec.Command(bin, ma...).CombinedOutput(); err != nil {
		t.Fatalf("merge %v: %v\n%s", ma, err, out)
	}
	whole := filepath.Join(dir, "whole")
	key := "mixed.yaml"
	if out, err := exec.Command(bin, "compare", "-q", "-w", filepath.Join(wdir, key), "-p", pols, "--seed", "2", "-o", whole).CombinedOutput(); err != nil {
		t.Fatalf("compare: %v\n%s", err, out)
	}
	sameTree(t, whole, filepath.Join(rdir, "sw", "merged"))
}
