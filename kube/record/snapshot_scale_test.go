package record

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// podList is kubectl's JSON of n pods, produced as it is read: Spark
// applications of a driver and nine executors, ended, with the fields a
// real cluster's pods carry (about 3.6 KB each, managedFields aside).
type podList struct {
	n, i int
	buf  bytes.Buffer
	done bool
}

const podItem = `{
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "creationTimestamp": "%[1]s",
        "labels": {
            "spark-app-name": "etl-%[3]d",
            "spark-app-selector": "spark-%08[3]x",
            "spark-exec-id": "%[4]d",
            "spark-exec-resourceprofile-id": "0",
            "spark-role": "%[5]s",
            "spark-version": "3.5.1"
        },
        "name": "etl-%[3]d-%[5]s-%[4]d",
        "namespace": "team-%[6]d",
        "resourceVersion": "%[2]d",
        "uid": "5f7e0c9a-%04[6]x-4b2e-9d1c-%012[2]x"
    },
    "spec": {
        "containers": [
            {
                "args": ["executor"],
                "env": [
                    {"name": "SPARK_USER", "value": "etl"},
                    {"name": "SPARK_DRIVER_URL", "value": "spark://CoarseGrainedScheduler@etl-%[3]d-driver-svc.team-%[6]d.svc:7078"},
                    {"name": "SPARK_EXECUTOR_CORES", "value": "1"},
                    {"name": "SPARK_EXECUTOR_MEMORY", "value": "2048m"},
                    {"name": "SPARK_APPLICATION_ID", "value": "spark-%08[3]x"},
                    {"name": "SPARK_CONF_DIR", "value": "/opt/spark/conf"},
                    {"name": "SPARK_EXECUTOR_POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}}
                ],
                "image": "registry.invalid/spark:3.5.1",
                "imagePullPolicy": "IfNotPresent",
                "name": "spark-kubernetes-executor",
                "ports": [{"containerPort": 7079, "name": "blockmanager", "protocol": "TCP"}],
                "resources": {
                    "limits": {"memory": "2432Mi"},
                    "requests": {"cpu": "1", "memory": "2432Mi"}
                },
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "volumeMounts": [
                    {"mountPath": "/var/data/spark-local", "name": "spark-local-dir-1"},
                    {"mountPath": "/opt/spark/conf", "name": "spark-conf-volume-exec"},
                    {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": true}
                ]
            }
        ],
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": true,
        "hostname": "etl-%[3]d-exec-%[4]d",
        "nodeName": "node-%[7]d",
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Never",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "tolerations": [
            {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
            {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}
        ],
        "volumes": [
            {"emptyDir": {}, "name": "spark-local-dir-1"},
            {"configMap": {"defaultMode": 420, "name": "spark-exec-conf"}, "name": "spark-conf-volume-exec"},
            {"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}
        ]
    },
    "status": {
        "conditions": [
            {"lastProbeTime": null, "lastTransitionTime": "%[8]s", "status": "True", "type": "PodScheduled"},
            {"lastProbeTime": null, "lastTransitionTime": "%[9]s", "status": "False", "type": "Ready", "reason": "PodCompleted"}
        ],
        "containerStatuses": [
            {
                "containerID": "containerd://%064[2]x",
                "image": "registry.invalid/spark:3.5.1",
                "imageID": "registry.invalid/spark@sha256:%064[3]x",
                "lastState": {},
                "name": "spark-kubernetes-executor",
                "ready": false,
                "restartCount": 0,
                "started": false,
                "state": {"terminated": {"containerID": "containerd://%064[2]x", "exitCode": 0, "finishedAt": "%[9]s", "reason": "Completed", "startedAt": "%[8]s"}}
            }
        ],
        "hostIP": "10.0.%[10]d.%[11]d",
        "phase": "Succeeded",
        "podIP": "10.244.%[10]d.%[11]d",
        "qosClass": "Burstable",
        "startTime": "%[8]s"
    }
}`

func (l *podList) Read(p []byte) (int, error) {
	for l.buf.Len() < len(p) && !l.done {
		switch {
		case l.i == 0:
			l.buf.WriteString(`{"apiVersion": "v1", "items": [`)
		case l.i > l.n:
			l.buf.WriteString(`], "kind": "List", "metadata": {"resourceVersion": ""}}`)
			l.done = true
			continue
		default:
			if l.i > 1 {
				l.buf.WriteString(",\n")
			}
			k := l.i - 1
			app, exec := k/10, k%10
			role := "executor"
			if exec == 0 {
				role = "driver"
			}
			t := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(app) * 7 * time.Second)
			start, end := t.Add(3*time.Second), t.Add(time.Duration(60+k%240)*time.Second)
			if exec == 0 {
				end = t.Add(310 * time.Second)
			}
			f := func(x time.Time) string { return x.Format(time.RFC3339) }
			fmt.Fprintf(&l.buf, podItem, f(t), k, app, exec, role, app%7, k%5000, f(start), f(end), (k/250)%250, k%250)
		}
		l.i++
	}
	n, _ := l.buf.Read(p)
	if n == 0 && l.done {
		return 0, io.EOF
	}
	return n, nil
}

// nodeList is kubectl's JSON of n nodes of 32 CPUs and 128 GiB.
func nodeList(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"apiVersion": "v1", "items": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-%d"}, "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"}}}`, i)
	}
	b.WriteString(`], "kind": "List"}`)
	return []byte(b.String())
}

// countingReader counts what was read.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// convertList converts a generated list of pods, sampling the live heap
// every 50 ms, and returns the bytes read, the peak and the summary.
func convertList(tb testing.TB, pods int) (read int64, peak uint64, sum *Summary) {
	cr := &countingReader{r: &podList{n: pods}}
	// Snapshot opens each input twice (its first item tells its kind):
	// a fresh generator each time, the second one counted.
	opened := 0
	in := []Input{
		{Name: "pods.json", Open: func() (io.ReadCloser, error) {
			if opened++; opened == 1 {
				return io.NopCloser(&podList{n: pods}), nil
			}
			return io.NopCloser(cr), nil
		}},
		{Name: "nodes.json", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(nodeList(5000))), nil }},
	}
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var ms runtime.MemStats
		var p uint64
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				done <- p
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				p = max(p, ms.HeapAlloc)
			}
		}
	}()
	_, sum, err := Snapshot(in, SnapshotOptions{})
	close(stop)
	peak = <-done
	if err != nil {
		tb.Fatal(err)
	}
	return cr.n.Load(), peak, sum
}

// BenchmarkSnapshot1GiB converts a generated 1 GiB kubectl pod list (about
// 280,000 pods of 28,000 Spark applications) on 5,000 nodes, reporting the
// peak heap (live and garbage, sampled every 50 ms):
//
//	go test ./kube/record -run '^$' -bench Snapshot1GiB -benchtime 1x
func BenchmarkSnapshot1GiB(b *testing.B) {
	for range b.N {
		start := time.Now()
		read, peak, sum := convertList(b, 280_000)
		el := time.Since(start)
		b.ReportMetric(float64(read)/(1<<30), "GiB-read")
		b.ReportMetric(float64(read)/(1<<20)/el.Seconds(), "MiB/s")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(sum.Jobs), "jobs")
		b.ReportMetric(float64(sum.Pods), "pods")
	}
}

// The converter's memory grows with the pods kept (a compact record each),
// not with the file: four times the pods cost about four times the records,
// a small fraction of the JSON read.
func TestSnapshotMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("converts 250 MB of JSON")
	}
	r1, p1, s1 := convertList(t, 15_000)
	r4, p4, s4 := convertList(t, 60_000)
	perPod := (float64(p4) - float64(p1)) / float64(s4.Pods-s1.Pods)
	t.Logf("%.0f MB read: peak heap %.1f MiB; %.0f MB read: %.1f MiB; %.0f bytes per extra pod (%.0f bytes of JSON each)",
		float64(r1)/1e6, float64(p1)/(1<<20), float64(r4)/1e6, float64(p4)/(1<<20), perPod, float64(r4)/float64(s4.Pods))
	if s4.Jobs != 6000 || s4.Pods != 60_000 {
		t.Fatalf("converted %d jobs of %d pods, want 6000 of 60000", s4.Jobs, s4.Pods)
	}
	if perPod > float64(r4)/float64(s4.Pods)/4 {
		t.Errorf("%.0f bytes of heap per pod: more than a quarter of its JSON", perPod)
	}
}

// TestWritePodList writes a generated pod list and node list for timing
// the command line on a real file:
//
//	SPINDLE_WRITE_PODLIST=DIR,PODS go test ./kube/record -run TestWritePodList
func TestWritePodList(t *testing.T) {
	spec := os.Getenv("SPINDLE_WRITE_PODLIST")
	if spec == "" {
		t.Skip("SPINDLE_WRITE_PODLIST=DIR,PODS is not set")
	}
	dir, n, ok := strings.Cut(spec, ",")
	pods, err := strconv.Atoi(n)
	if !ok || err != nil {
		t.Fatalf("SPINDLE_WRITE_PODLIST=%q: want DIR,PODS", spec)
	}
	f, err := os.Create(dir + "/pods.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, &podList{n: pods}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/nodes.json", nodeList(5000), 0o644); err != nil {
		t.Fatal(err)
	}
}
