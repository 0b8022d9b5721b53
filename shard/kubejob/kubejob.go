// Package kubejob writes the Kubernetes manifests that run a sharded
// spindle command (compare, sweep, whatif, experiments) as an Indexed Job:
// one pod per shard, the shard taken from JOB_COMPLETION_INDEX, each
// writing its part to a shared volume, and a second Job that merges the
// parts once every shard has succeeded.
//
// The workload reaches the pods in a ConfigMap, gzipped into binaryData
// when it is larger than a ConfigMap holds and its gzip is not; a workload
// larger than that is read from the results claim, where it is copied
// before the Job is applied (Placement says which).
//
// An Indexed Job is Kubernetes' own engine for independent, numbered work
// items: completions N runs each index once to success, and
// backoffLimitPerIndex retries a failed index alone (its pod is replaced,
// restartPolicy Never) without failing the others.
package kubejob

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/scheme"
)

// Where the pod sees the workload and the shared storage.
const (
	WorkloadDir = "/workload"
	ResultsDir  = "/results"
)

// User is the uid and gid the image runs as (hack/image).
const User = 65532

// MaxConfigMap is the most workload bytes put in a ConfigMap: Kubernetes
// refuses an object over 1 MiB, and the rest of the object needs room.
const MaxConfigMap = 1000 * 1024

// IndexVar is the variable Kubernetes sets to a pod's index in an Indexed
// Job.
const IndexVar = "JOB_COMPLETION_INDEX"

// Spec is a sharded run to put in a cluster.
type Spec struct {
	// Name names the Job and prefixes the other objects.
	Name, Namespace string
	Image           string
	Shards          int
	// Parallelism is how many shards run at once (0: all).
	Parallelism int
	// BackoffLimitPerIndex is how many times a failed shard is retried.
	BackoffLimitPerIndex int
	// Storage is an existing PersistentVolumeClaim every pod can write
	// (ReadWriteMany); "" makes one of StorageSize.
	Storage     string
	StorageSize string
	// WorkloadFile is the workload's file name and Workload its bytes, put
	// in a ConfigMap (or read from the claim: see Placement). No workload
	// (experiments generate their own) makes no ConfigMap.
	WorkloadFile string
	Workload     []byte
	// Args are spindle's arguments for the run, without -w, --shard and -o,
	// e.g. compare -q -p fifo,fair --seed 3; -w goes after the command's
	// name.
	Args []string
	// MergeFile, when set, is the file under the run's directory on the
	// claim that the merge writes (an experiment's EXPERIMENTS.md); else
	// the merge writes the directory "merged".
	MergeFile string
	// CPU and Memory are each shard pod's requests.
	CPU, Memory string
}

var keyRE = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

func (s *Spec) check() error {
	if errs := validation.IsDNS1123Subdomain(s.Name); len(errs) > 0 || len(s.Name) > 50 {
		return fmt.Errorf("--name %q: want a lower-case DNS name of at most 50 characters (%s)", s.Name, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Label(s.Namespace); len(errs) > 0 {
		return fmt.Errorf("--namespace %q: %s", s.Namespace, strings.Join(errs, "; "))
	}
	if s.Image == "" {
		return fmt.Errorf("no image: pass --image, the image 'go run ./hack/image' builds, pushed where the cluster pulls from")
	}
	if s.Shards < 1 {
		return fmt.Errorf("--shards must be at least 1, got %d", s.Shards)
	}
	if s.BackoffLimitPerIndex < 0 {
		return fmt.Errorf("--retries must be at least 0, got %d", s.BackoffLimitPerIndex)
	}
	if s.Parallelism < 0 {
		return fmt.Errorf("--parallelism must be at least 0, got %d", s.Parallelism)
	}
	if len(s.Args) == 0 {
		return fmt.Errorf("no command to run in the shards")
	}
	for _, q := range []struct{ flag, v string }{{"--cpu", s.CPU}, {"--memory", s.Memory}, {"--storage-size", s.StorageSize}} {
		if _, err := resource.ParseQuantity(q.v); err != nil {
			return fmt.Errorf("%s %q: %v", q.flag, q.v, err)
		}
	}
	return nil
}

// workloadKey is the workload's key in the ConfigMap, its file name where
// that is a valid key.
func (s *Spec) workloadKey() string {
	base := path.Base(strings.ReplaceAll(s.WorkloadFile, `\`, "/"))
	if keyRE.MatchString(base) && base != "." && base != ".." {
		return base
	}
	if strings.HasSuffix(base, ".gz") {
		return "workload.gz"
	}
	return "workload"
}

// Placement is where the shards read the workload from.
type Placement struct {
	// Path is the workload's path in the pods; it is the workload's name in
	// every summary. Empty when there is no workload.
	Path string
	// Key and Data are the ConfigMap's key and bytes, Gzipped when the
	// workload was gzipped to fit.
	Key     string
	Data    []byte
	Gzipped bool
	// OnClaim is set when the workload, even gzipped, is larger than a
	// ConfigMap holds: the shards read Path on the results claim, where it
	// must be copied (Data) before the Job is applied.
	OnClaim bool
}

// Place decides where the workload goes: as it is in a ConfigMap when it
// fits, gzipped into binaryData when its gzip fits (spindle reads a .gz
// workload as it is), else on the results claim, which must then be an
// existing one (--storage) so that the workload can be copied onto it
// before the shards start.
func (s *Spec) Place() (Placement, error) {
	if s.Workload == nil {
		return Placement{}, nil
	}
	key := s.workloadKey()
	if len(s.Workload) <= MaxConfigMap {
		return Placement{Path: WorkloadDir + "/" + key, Key: key, Data: s.Workload}, nil
	}
	data, gz := s.Workload, false
	if !isGzip(data) {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if _, err := zw.Write(data); err != nil {
			return Placement{}, fmt.Errorf("gzip workload %s: %w", s.WorkloadFile, err)
		}
		if err := zw.Close(); err != nil {
			return Placement{}, fmt.Errorf("gzip workload %s: %w", s.WorkloadFile, err)
		}
		data, gz, key = buf.Bytes(), true, key+".gz"
	}
	if len(data) <= MaxConfigMap {
		return Placement{Path: WorkloadDir + "/" + key, Key: key, Data: data, Gzipped: gz}, nil
	}
	if s.Storage == "" {
		return Placement{}, fmt.Errorf("workload %s is %.1f MiB (%.1f MiB gzipped), more than a ConfigMap holds (1 MiB): pass --storage CLAIM, an existing ReadWriteMany claim, and copy the workload onto it as the manifests' comments then say",
			s.WorkloadFile, mib(len(s.Workload)), mib(len(data)))
	}
	return Placement{Path: s.ClaimWorkloadDir() + "/" + key, Key: key, Data: data, Gzipped: gz, OnClaim: true}, nil
}

func mib(n int) float64 { return float64(n) / (1 << 20) }

// isGzip reports whether b starts with gzip's magic bytes.
func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// ClaimWorkloadDir is where, on the results claim, the shards read a
// workload too large for a ConfigMap.
func (s *Spec) ClaimWorkloadDir() string { return fmt.Sprintf("%s/%s/workload", ResultsDir, s.Name) }

// PartDir is shard i's output directory in the pod.
func (s *Spec) PartDir(i string) string { return fmt.Sprintf("%s/%s/shard-%s", ResultsDir, s.Name, i) }

// MergedDir is where the merge Job writes the merged run (a file when
// MergeFile is set).
func (s *Spec) MergedDir() string {
	if s.MergeFile != "" {
		return fmt.Sprintf("%s/%s/%s", ResultsDir, s.Name, s.MergeFile)
	}
	return fmt.Sprintf("%s/%s/merged", ResultsDir, s.Name)
}

func (s *Spec) claim() string {
	if s.Storage != "" {
		return s.Storage
	}
	return s.Name + "-results"
}

func (s *Spec) labels(component string) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "spindle", "app.kubernetes.io/component": component,
		"app.kubernetes.io/instance": s.Name}
}

// Objects returns the sweep's objects, in the order to apply them: the
// workload's ConfigMap (unless there is no workload or it is read from the
// claim), the results claim (unless Storage names one), and the Indexed
// Job.
func Objects(s Spec) ([]runtime.Object, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	pl, err := s.Place()
	if err != nil {
		return nil, err
	}
	var objs []runtime.Object
	inConfigMap := pl.Path != "" && !pl.OnClaim
	if inConfigMap {
		cm := &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: s.Name + "-workload", Namespace: s.Namespace, Labels: s.labels("sweep")},
		}
		if utf8.Valid(pl.Data) && !bytes.ContainsRune(pl.Data, 0) {
			cm.Data = map[string]string{pl.Key: string(pl.Data)}
		} else {
			cm.BinaryData = map[string][]byte{pl.Key: pl.Data}
		}
		objs = append(objs, cm)
	}
	if s.Storage == "" {
		objs = append(objs, &corev1.PersistentVolumeClaim{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
			ObjectMeta: metav1.ObjectMeta{Name: s.claim(), Namespace: s.Namespace, Labels: s.labels("sweep")},
			Spec: corev1.PersistentVolumeClaimSpec{
				// Every shard's pod writes at once, from any node.
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceStorage: resource.MustParse(s.StorageSize)}},
			},
		})
	}
	idx := "$(" + IndexVar + ")"
	args := []string{s.Args[0]}
	if pl.Path != "" {
		args = append(args, "-w", pl.Path)
	}
	args = append(args, s.Args[1:]...)
	args = append(args, "--shard", idx+"/"+strconv.Itoa(s.Shards), "-o", s.PartDir(idx))
	par := int32(s.Shards)
	if s.Parallelism > 0 {
		par = int32(min(s.Parallelism, s.Shards))
	}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: s.labels("sweep")},
		Spec: batchv1.JobSpec{
			CompletionMode:       ptr(batchv1.IndexedCompletion),
			Completions:          ptr(int32(s.Shards)),
			Parallelism:          &par,
			BackoffLimitPerIndex: ptr(int32(s.BackoffLimitPerIndex)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: s.labels("sweep")},
				Spec: s.podSpec(corev1.Container{
					Name: "shard", Image: s.Image, Args: args,
					// Kubernetes sets it too; naming it here makes the
					// $(JOB_COMPLETION_INDEX) in args expand on any version.
					Env: []corev1.EnvVar{{Name: IndexVar, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
						FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}},
				}, inConfigMap),
			},
		},
	}
	objs = append(objs, job)
	return objs, nil
}

// MergeJob is the Job that merges the shards' parts into MergedDir, to
// apply once the sweep's Job is Complete.
func MergeJob(s Spec) (*batchv1.Job, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	args := []string{"merge", "-o", s.MergedDir()}
	for i := range s.Shards {
		args = append(args, s.PartDir(strconv.Itoa(i)))
	}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: s.Name + "-merge", Namespace: s.Namespace, Labels: s.labels("merge")},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr(int32(s.BackoffLimitPerIndex)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: s.labels("merge")},
				Spec:       s.podSpec(corev1.Container{Name: "merge", Image: s.Image, Args: args}, false),
			},
		},
	}, nil
}

func (s *Spec) podSpec(c corev1.Container, workload bool) corev1.PodSpec {
	c.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(s.CPU), corev1.ResourceMemory: resource.MustParse(s.Memory)}}
	c.SecurityContext = &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr(false),
		ReadOnlyRootFilesystem:   ptr(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "results", MountPath: ResultsDir}}
	vols := []corev1.Volume{{Name: "results", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: s.claim()}}}}
	if workload {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "workload", MountPath: WorkloadDir, ReadOnly: true})
		vols = append(vols, corev1.Volume{Name: "workload", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: s.Name + "-workload"}}}})
	}
	uid := int64(User)
	return corev1.PodSpec{
		// A failed shard's pod is replaced, and counted against its own
		// index's backoffLimitPerIndex (which requires Never).
		RestartPolicy: corev1.RestartPolicyNever,
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr(true), RunAsUser: &uid, RunAsGroup: &uid,
			// The results volume must be writable by the image's user.
			FSGroup: &uid, SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		Containers: []corev1.Container{c},
		Volumes:    vols,
	}
}

func ptr[T any](v T) *T { return &v }

// WriteYAML writes objects as one YAML stream, documents separated by ---.
func WriteYAML(w io.Writer, objs ...runtime.Object) error {
	ser := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{Yaml: true})
	for i, o := range objs {
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if err := ser.Encode(o, w); err != nil {
			return fmt.Errorf("write manifest: %w", err)
		}
	}
	return nil
}
