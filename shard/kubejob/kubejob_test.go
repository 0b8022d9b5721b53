package kubejob

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

func spec() Spec {
	return Spec{Name: "sw", Namespace: "ns", Image: "spindle:dev", Shards: 3, BackoffLimitPerIndex: 2,
		StorageSize: "1Gi", WorkloadFile: "dir/w.yaml", Workload: []byte("version: 1\n"),
		Args: []string{"compare", "-q", "-p", "fifo,fair", "--seed", "3"}, CPU: "1", Memory: "1Gi"}
}

// decode reads a YAML stream back strictly: an unknown field fails.
func decode(t *testing.T, b []byte) []runtime.Object {
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

func TestObjects(t *testing.T) {
	objs, err := Objects(spec())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteYAML(&buf, objs...); err != nil {
		t.Fatal(err)
	}
	back := decode(t, buf.Bytes())
	if len(back) != 3 {
		t.Fatalf("%d objects, want ConfigMap, PVC, Job", len(back))
	}
	cm := back[0].(*corev1.ConfigMap)
	if cm.Name != "sw-workload" || cm.Namespace != "ns" || cm.Data["w.yaml"] != "version: 1\n" {
		t.Errorf("ConfigMap %s/%s data %v", cm.Namespace, cm.Name, cm.Data)
	}
	pvc := back[1].(*corev1.PersistentVolumeClaim)
	if pvc.Name != "sw-results" || !reflect.DeepEqual(pvc.Spec.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}) {
		t.Errorf("PVC %s %v", pvc.Name, pvc.Spec.AccessModes)
	}
	job := back[2].(*batchv1.Job)
	js := job.Spec
	if *js.CompletionMode != batchv1.IndexedCompletion || *js.Completions != 3 || *js.Parallelism != 3 || *js.BackoffLimitPerIndex != 2 {
		t.Errorf("job spec: mode %v completions %d parallelism %d backoffLimitPerIndex %d", *js.CompletionMode, *js.Completions, *js.Parallelism, *js.BackoffLimitPerIndex)
	}
	pod := js.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %s: backoffLimitPerIndex needs Never", pod.RestartPolicy)
	}
	c := pod.Containers[0]
	want := "compare -w /workload/w.yaml -q -p fifo,fair --seed 3 --shard $(JOB_COMPLETION_INDEX)/3 -o /results/sw/shard-$(JOB_COMPLETION_INDEX)"
	if got := strings.Join(c.Args, " "); got != want {
		t.Errorf("args\n got %s\nwant %s", got, want)
	}
	if len(c.Env) != 1 || c.Env[0].Name != IndexVar || !strings.Contains(c.Env[0].ValueFrom.FieldRef.FieldPath, "job-completion-index") {
		t.Errorf("env %+v", c.Env)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		vols[v.Name] = v
	}
	if mounts["workload"] != WorkloadDir || vols["workload"].ConfigMap.Name != "sw-workload" ||
		mounts["results"] != ResultsDir || vols["results"].PersistentVolumeClaim.ClaimName != "sw-results" {
		t.Errorf("mounts %v volumes %+v", mounts, vols)
	}
	if *pod.SecurityContext.RunAsUser != User || *pod.SecurityContext.FSGroup != User {
		t.Errorf("security context %+v", pod.SecurityContext)
	}

	// --storage uses that claim and makes none; --parallelism caps pods.
	s := spec()
	s.Storage, s.Parallelism = "shared", 2
	objs, err = Objects(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("with --storage: %d objects, want ConfigMap and Job", len(objs))
	}
	job = objs[1].(*batchv1.Job)
	if job.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "shared" || *job.Spec.Parallelism != 2 {
		t.Errorf("claim %s parallelism %d", job.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName, *job.Spec.Parallelism)
	}
}

func TestMergeJob(t *testing.T) {
	job, err := MergeJob(spec())
	if err != nil {
		t.Fatal(err)
	}
	c := job.Spec.Template.Spec.Containers[0]
	want := "merge -o /results/sw/merged /results/sw/shard-0 /results/sw/shard-1 /results/sw/shard-2"
	if got := strings.Join(c.Args, " "); got != want {
		t.Errorf("args\n got %s\nwant %s", got, want)
	}
	if job.Spec.CompletionMode != nil || job.Name != "sw-merge" {
		t.Errorf("merge job %s mode %v", job.Name, job.Spec.CompletionMode)
	}
}

func TestWorkloadKey(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"w.yaml", "w.yaml"},
		{"/a/b/month.json.gz", "month.json.gz"},
		{"my workload.yaml", "workload"},
		{"my workload.json.gz", "workload.gz"},
	} {
		s := Spec{WorkloadFile: tc.file}
		if got := s.workloadKey(); got != tc.want {
			t.Errorf("%q: key %q, want %q", tc.file, got, tc.want)
		}
	}
}

func TestBinaryWorkload(t *testing.T) {
	s := spec()
	s.WorkloadFile, s.Workload = "w.json.gz", []byte{0x1f, 0x8b, 0, 0xff}
	objs, err := Objects(s)
	if err != nil {
		t.Fatal(err)
	}
	cm := objs[0].(*corev1.ConfigMap)
	if !bytes.Equal(cm.BinaryData["w.json.gz"], s.Workload) || len(cm.Data) != 0 {
		t.Errorf("gzip workload not in binaryData: %+v", cm)
	}
}

func TestSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		mod  func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Name = "Bad_Name" }, "--name \"Bad_Name\""},
		{func(s *Spec) { s.Namespace = "a.b" }, "--namespace \"a.b\""},
		{func(s *Spec) { s.Image = "" }, "no image"},
		{func(s *Spec) { s.Shards = 0 }, "--shards must be at least 1"},
		{func(s *Spec) { s.BackoffLimitPerIndex = -1 }, "--retries"},
		{func(s *Spec) { s.CPU = "lots" }, "--cpu \"lots\""},
		{func(s *Spec) { s.Workload = noise(MaxConfigMap + 1) }, "more than a ConfigMap holds (1 MiB): pass --storage CLAIM"},
		{func(s *Spec) { s.Args = nil }, "no command"},
	} {
		s := spec()
		tc.mod(&s)
		if _, err := Objects(s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// noise is n bytes that gzip cannot shrink.
func noise(n int) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{1}).Read(b)
	return b
}

// gunzip fails the test unless b is gzip of want.
func gunzip(t *testing.T, b, want []byte) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("gunzipped %d bytes (%v), want the workload's %d", len(got), err, len(want))
	}
}

// Where the workload goes: as it is while it fits a ConfigMap, gzipped
// into binaryData when only its gzip fits, on an existing claim when not
// even that fits, nowhere when there is none (experiments).
func TestPlace(t *testing.T) {
	big := []byte(strings.Repeat("{\"id\": \"job\", \"submit\": \"1s\"}\n", 2*MaxConfigMap/30))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(noise(MaxConfigMap + 10))
	zw.Close()
	for _, tc := range []struct {
		name, file string
		data       []byte
		storage    string
		want       Placement // Data is checked apart
		wantErr    string
	}{
		{"fits", "w.yaml", []byte("version: 1\n"), "", Placement{Path: "/workload/w.yaml", Key: "w.yaml"}, ""},
		{"exactly the limit", "w.json", bytes.Repeat([]byte("x"), MaxConfigMap), "", Placement{Path: "/workload/w.json", Key: "w.json"}, ""},
		{"gzip fits", "d/w.json", big, "", Placement{Path: "/workload/w.json.gz", Key: "w.json.gz", Gzipped: true}, ""},
		{"gzip fits, a claim given", "w.json", big, "shared", Placement{Path: "/workload/w.json.gz", Key: "w.json.gz", Gzipped: true}, ""},
		{"too large, no claim", "w.json", noise(MaxConfigMap + 1), "", Placement{}, "pass --storage CLAIM"},
		{"too large, on the claim", "w.json", noise(MaxConfigMap + 1), "shared", Placement{Path: "/results/sw/workload/w.json.gz", Key: "w.json.gz", Gzipped: true, OnClaim: true}, ""},
		{"gzip already, too large", "w.json.gz", gz.Bytes(), "shared", Placement{Path: "/results/sw/workload/w.json.gz", Key: "w.json.gz", OnClaim: true}, ""},
		{"no workload", "", nil, "", Placement{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec()
			s.WorkloadFile, s.Workload, s.Storage = tc.file, tc.data, tc.storage
			pl, err := s.Place()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data := pl.Data
			pl.Data = nil
			if !reflect.DeepEqual(pl, tc.want) {
				t.Errorf("placement %+v, want %+v", pl, tc.want)
			}
			switch {
			case pl.Gzipped:
				gunzip(t, data, tc.data)
			default:
				if !bytes.Equal(data, tc.data) {
					t.Errorf("data of %d bytes, want the workload's %d", len(data), len(tc.data))
				}
			}
			objs, err := Objects(s)
			if err != nil {
				t.Fatal(err)
			}
			var cm *corev1.ConfigMap
			var job *batchv1.Job
			for _, o := range objs {
				switch o := o.(type) {
				case *corev1.ConfigMap:
					cm = o
				case *batchv1.Job:
					job = o
				}
			}
			args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
			vols := map[string]bool{}
			for _, v := range job.Spec.Template.Spec.Volumes {
				vols[v.Name] = true
			}
			inCM := pl.Path != "" && !pl.OnClaim
			if (cm != nil) != inCM || vols["workload"] != inCM {
				t.Errorf("ConfigMap %v, workload volume %v; want both %v", cm != nil, vols["workload"], inCM)
			}
			if inCM {
				var got []byte
				if v, ok := cm.Data[pl.Key]; ok {
					got = []byte(v)
				} else {
					got = cm.BinaryData[pl.Key]
				}
				if !bytes.Equal(got, data) || len(cm.Data)+len(cm.BinaryData) != 1 {
					t.Errorf("ConfigMap holds %d bytes under %q, want %d", len(got), pl.Key, len(data))
				}
				if pl.Gzipped && cm.BinaryData[pl.Key] == nil {
					t.Error("a gzipped workload not in binaryData")
				}
			}
			if pl.Path == "" && strings.Contains(args, " -w ") || pl.Path != "" && !strings.HasPrefix(args, "compare -w "+pl.Path+" ") {
				t.Errorf("args %s: want -w %q", args, pl.Path)
			}
		})
	}
}

// An experiment's merge writes its markdown file on the claim.
func TestMergeFile(t *testing.T) {
	s := spec()
	s.Workload, s.Args, s.MergeFile = nil, []string{"experiments", "dress", "--seeds", "5"}, "EXPERIMENTS.md"
	job, err := MergeJob(s)
	if err != nil {
		t.Fatal(err)
	}
	want := "merge -o /results/sw/EXPERIMENTS.md /results/sw/shard-0 /results/sw/shard-1 /results/sw/shard-2"
	if got := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "); got != want {
		t.Errorf("args\n got %s\nwant %s", got, want)
	}
}
