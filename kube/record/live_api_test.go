package record_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/spindle-sched/spindle/internal/controlplane/kubetest"
	"github.com/spindle-sched/spindle/internal/controlplane/localcluster"
	"github.com/spindle-sched/spindle/kube/podmap"
	"github.com/spindle-sched/spindle/kube/record"
	"github.com/spindle-sched/spindle/resource"
	"github.com/spindle-sched/spindle/workload"
)

// applyRecorderRBAC creates deploy/namespace.yaml and deploy/record-rbac.yaml
// and returns a kubeconfig that acts as the recorder's ServiceAccount
// (impersonated by the cluster's administrator): a recorder that needed
// anything beyond what the manifest grants would be refused.
func applyRecorderRBAC(t *testing.T, c *kubetest.Cluster) string {
	t.Helper()
	ctx := context.Background()
	for _, f := range []string{"../../deploy/namespace.yaml", "../../deploy/record-rbac.yaml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			switch o := obj.(type) {
			case *corev1.Namespace:
				_, err = c.Client.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
			case *corev1.ServiceAccount:
				_, err = c.Client.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
			case *rbacv1.ClusterRole:
				_, err = c.Client.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
			case *rbacv1.ClusterRoleBinding:
				_, err = c.Client.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
			default:
				t.Fatalf("%s: unexpected %T", f, obj)
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
	}
	cfg, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		a.Impersonate = "system:serviceaccount:spindle-system:spindle-recorder"
	}
	out := filepath.Join(t.TempDir(), "recorder.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, out); err != nil {
		t.Fatal(err)
	}
	// The identity can list pods but not, say, read them one by one.
	rc, err := clientcmd.BuildConfigFromFlags("", out)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(rc)
	if _, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		t.Fatalf("the recorder's identity cannot list pods: %v", err)
	}
	if _, err := cs.CoreV1().Nodes().Get(ctx, "kwok-node-0", metav1.GetOptions{}); err == nil {
		t.Fatal("the recorder's identity may get a node: the role grants more than list and watch")
	}
	return out
}

// snapshotTo writes what kubectl get pods -A -o json, kubectl get nodes -o
// json and kubectl get events -A -o json would print into dir.
func snapshotTo(t *testing.T, c *kubetest.Cluster, dir string) []string {
	t.Helper()
	ctx := context.Background()
	type list struct {
		APIVersion string            `json:"apiVersion"`
		Items      []any             `json:"items"`
		Kind       string            `json:"kind"`
		Metadata   map[string]string `json:"metadata"`
	}
	write := func(name, kind string, items []any) string {
		b, err := json.MarshalIndent(list{APIVersion: "v1", Items: items, Kind: "List", Metadata: map[string]string{"resourceVersion": ""}}, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pods, err := c.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	events, err := c.Client.CoreV1().Events("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ps, ns, es []any
	for i := range pods.Items {
		p := pods.Items[i]
		p.Kind, p.APIVersion, p.ManagedFields = "Pod", "v1", nil
		ps = append(ps, p)
	}
	for i := range nodes.Items {
		n := nodes.Items[i]
		n.Kind, n.APIVersion, n.ManagedFields = "Node", "v1", nil
		ns = append(ns, n)
	}
	for i := range events.Items {
		e := events.Items[i]
		e.Kind, e.APIVersion, e.ManagedFields = "Event", "v1", nil
		es = append(es, e)
	}
	return []string{write("pods.json", "Pod", ps), write("nodes.json", "Node", ns), write("events.json", "Event", es)}
}

// Issue 27 item 4 (c): pods created through the API as the real tools
// create them, recorded by 'spindle kube record' running as the
// ServiceAccount deploy/record-rbac.yaml defines, under kube-scheduler:
//   - a Spark 3.5 application as spark-submit's driver makes it: the driver,
//     then four executors (spark-exec-id, an ownerReference to the driver),
//     and a fifth once the first has ended (dynamic allocation); the driver
//     is deleted when they are done, as Spark's is;
//   - a batch/v1 Job of parallelism 3 and completions 6, whose pods the Job
//     controller of kube-controller-manager creates;
//   - a pod without requests, and a daemonset's pod on each node.
//
// The same cluster is then converted from a snapshot (kubectl's JSON), and
// both hold the same jobs.
func TestLiveRecordsSparkAndBatchJob(t *testing.T) {
	c := kubetest.Start(t, kubetest.Options{Nodes: 2, NodeCPU: "8", NodeMemory: "32Gi", ControllerManager: true, Scheduler: true})
	bin := buildSpindle(t)
	ctx := context.Background()
	cs := c.Client
	for _, ns := range []string{"spark", "batch"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kubeconfig := applyRecorderRBAC(t, c)
	out := filepath.Join(t.TempDir(), "recorded.yaml")
	p, err := c.Run("recorder", bin, "kube", "record", "--kubeconfig", kubeconfig, "-A", "-o", out, "--job-idle", "5s", "--load-step", "2s", "--running", "keep")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)

	yes := true
	req := func(cpu, mem string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: apiresource.MustParse(cpu), corev1.ResourceMemory: apiresource.MustParse(mem)}
	}
	spec := func(r corev1.ResourceList) corev1.PodSpec {
		zero := int64(0)
		return corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: &zero,
			Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/fake:1", Resources: corev1.ResourceRequirements{Requests: r}}}}
	}
	create := func(ns string, pod *corev1.Pod) *corev1.Pod {
		t.Helper()
		out, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	wait := func(what string, cond func() (bool, error)) { t.Helper(); waitLive(t, what, cond) }
	phase := func(ns, name string) corev1.PodPhase {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return ""
		}
		return p.Status.Phase
	}

	// A daemonset's pod on each node (no daemonset controller runs here:
	// the pods are created as it would, owned by a real DaemonSet).
	dsSpec := spec(req("500m", "512Mi"))
	dsSpec.RestartPolicy = corev1.RestartPolicyAlways
	ds, err := cs.AppsV1().DaemonSets("kube-system").Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}}, Spec: dsSpec}}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		s := dsSpec
		s.NodeName = fmt.Sprintf("kwok-node-%d", i)
		create("kube-system", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("agent-%d", i), Labels: map[string]string{"app": "agent"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &yes}}}, Spec: s})
	}

	// The Spark application.
	const app = "spark-8d6b5e0a4c1f4e2b"
	sparkLabels := func(role string, extra ...string) map[string]string {
		l := map[string]string{podmap.LabelSparkApp: app, "spark-app-name": "pi", podmap.LabelSparkRole: role}
		for i := 0; i < len(extra); i += 2 {
			l[extra[i]] = extra[i+1]
		}
		return l
	}
	drv := create("spark", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pi-driver", Labels: sparkLabels("driver")}, Spec: spec(req("1", "1408Mi"))})
	wait("the driver running", func() (bool, error) { return phase("spark", "pi-driver") == corev1.PodRunning, nil })
	executor := func(id int, d string) {
		create("spark", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pi-exec-%d", id),
			Labels:          sparkLabels("executor", "spark-exec-id", fmt.Sprint(id), "spark-exec-resourceprofile-id", "0"),
			Annotations:     map[string]string{kubetest.ReplayDurationAnnotation: d},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: drv.Name, UID: drv.UID, Controller: &yes}}},
			Spec: spec(req("1", "2432Mi"))})
	}
	for id, d := range []string{"4s", "10s", "10s", "10s"} {
		executor(id+1, d)
	}

	// The batch Job.
	par, comp := int32(3), int32(6)
	tmpl := spec(req("1", "1Gi"))
	if _, err := cs.BatchV1().Jobs("batch").Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "etl"},
		Spec: batchv1.JobSpec{Parallelism: &par, Completions: &comp, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{kubetest.ReplayDurationAnnotation: "5s"}}, Spec: tmpl}}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A pod that requests nothing.
	solo := spec(nil)
	create("batch", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "solo", Annotations: map[string]string{kubetest.ReplayDurationAnnotation: "3s"}}, Spec: solo})

	wait("executor 1 done", func() (bool, error) { return phase("spark", "pi-exec-1") == corev1.PodSucceeded, nil })
	executor(5, "4s")
	wait("every executor done", func() (bool, error) {
		for id := 1; id <= 5; id++ {
			if phase("spark", fmt.Sprintf("pi-exec-%d", id)) != corev1.PodSucceeded {
				return false, nil
			}
		}
		return true, nil
	})
	wait("the Job complete", func() (bool, error) {
		j, err := cs.BatchV1().Jobs("batch").Get(ctx, "etl", metav1.GetOptions{})
		return err == nil && j.Status.Succeeded == comp, err
	})
	wait("solo done", func() (bool, error) { return phase("batch", "solo") == corev1.PodSucceeded, nil })

	// The snapshot, while the driver still runs.
	snap := snapshotTo(t, c, t.TempDir())
	if dir := os.Getenv("SPINDLE_WRITE_KUBE_TESTDATA"); dir != "" {
		for _, f := range snap {
			b, _ := os.ReadFile(f)
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cs.CoreV1().Pods("spark").Delete(ctx, "pi-driver", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(8 * time.Second) // the Job's idle time, and the driver's end
	if err := p.Exited(); err != nil {
		t.Fatal(err)
	}
	if err := sigint(p); err != nil {
		t.Fatalf("the recorder: %v\n%s", err, localcluster.Tail(p.Log, 40))
	}
	summary := localcluster.Tail(p.Log, 30)
	t.Logf("the recorder's summary:\n%s", summary)
	w := loadWorkload(t, out)

	jobs := map[string]*workload.Job{}
	for i := range w.Jobs {
		jobs[w.Jobs[i].ID] = &w.Jobs[i]
	}
	spark := jobs["spark/"+app]
	if spark == nil {
		t.Fatalf("no job spark/%s in %v", app, keys(jobs))
	}
	if spark.AM != (resource.Vector{1000, 1408}) || spark.Name != "pi" || spark.Queue != "spark" {
		t.Errorf("spark job %+v: want a 1 CPU / 1408 MiB driver, name pi, queue spark", *spark)
	}
	if len(spark.Phases) != 2 || spark.Phases[0].Tasks != 4 || spark.Phases[1].Tasks != 1 ||
		spark.Phases[1].StartAfter != 0.25 || spark.Phases[0].Request != (resource.Vector{1000, 2432}) {
		t.Errorf("spark phases %+v: want 4 executors, then 1 once a quarter of them ended", spark.Phases)
	}
	if r := spark.Recorded; r == nil || r.Finished < 0 || r.AMStarted < 0 {
		t.Errorf("spark recorded %+v: want the driver's start and end", r)
	}
	etl := jobs["batch/job/etl"]
	if etl == nil {
		t.Fatalf("no job batch/job/etl in %v", keys(jobs))
	}
	if !etl.AM.IsZero() || etl.Tasks() != 6 || len(etl.Phases) < 2 || etl.Phases[0].Tasks != 3 {
		t.Errorf("the Job %+v: want no AM, 6 tasks, a first wave of 3 then the rest", etl.Phases)
	}
	for k, ph := range etl.Phases {
		for i := range ph.Tasks {
			if d := ph.Duration(i).Seconds(); d < 4 || d > 7.5 {
				t.Errorf("the Job's phase %d task %d ran %.2f s, want about 5", k, i, d)
			}
		}
	}
	if s := jobs["pod:batch/solo"]; s == nil || s.Phases[0].Request != (resource.Vector{1, 0}) {
		t.Errorf("solo %+v: want one task of 1m CPU (a pod without requests)", s)
	}
	if len(w.Jobs) != 3 {
		t.Errorf("jobs %v, want the application, the Job and solo", keys(jobs))
	}
	ext := w.Cluster.Nodes[0].External
	if len(ext) == 0 || ext[len(ext)-1].Held != (resource.Vector{500, 512}) {
		t.Errorf("external steps %+v: want the daemonset's 0.5 CPU and 512 MiB per node at the end", ext)
	}
	for _, line := range []string{"external load: 2 daemonset pods", "pods without requests"} {
		if !strings.Contains(summary, line) {
			t.Errorf("the summary lacks %q", line)
		}
	}

	// The snapshot holds the same jobs (the driver still ran then: kept
	// with --running keep's equivalent, truncate).
	in := make([]record.Input, len(snap))
	for i, f := range snap {
		in[i] = record.Input{Name: f, Open: func() (io.ReadCloser, error) { return os.Open(f) }}
	}
	sw, ssum, err := record.Snapshot(in, record.SnapshotOptions{Options: record.Options{Running: record.RunningKeep}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	ssum.Write(&b)
	t.Logf("the snapshot's summary:\n%s", b.String())
	if len(sw.Jobs) != len(w.Jobs) {
		t.Errorf("the snapshot has %d jobs, the recording %d", len(sw.Jobs), len(w.Jobs))
	}
	for i := range sw.Jobs {
		sj := &sw.Jobs[i]
		rj := jobs[sj.ID]
		if rj == nil {
			t.Errorf("job %s of the snapshot is not recorded", sj.ID)
			continue
		}
		if sj.Tasks() != rj.Tasks() || sj.AM != rj.AM || len(sj.Phases) != len(rj.Phases) {
			t.Errorf("job %s: snapshot %d tasks in %d phases, AM %v; recording %d in %d, AM %v", sj.ID, sj.Tasks(), len(sj.Phases), sj.AM, rj.Tasks(), len(rj.Phases), rj.AM)
		}
	}
}

func keys(m map[string]*workload.Job) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// sigint ends p as Ctrl-C would and waits for it.
func sigint(p *localcluster.Process) error {
	if err := syscallKill(p.PID); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		return errors.New("no exit within 60 s of SIGINT")
	}
}
