package trace

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/spindle-sched/spindle/workload"
)

// checkConversion holds any conversion of arbitrary bytes to the package's
// promises: no panic; an error names the input it is about; a workload
// is valid, converts the same way twice, and survives writing and reading
// back unchanged.
func checkConversion(t *testing.T, format string, opt Options, files ...source) {
	w, _, err := convertSources(format, files, opt)
	if err != nil {
		msg := err.Error()
		named := false
		for _, f := range files {
			named = named || strings.Contains(msg, f.name)
		}
		if !named {
			t.Fatalf("error does not name its input: %v", err)
		}
		return
	}
	if err := w.Validate(); err != nil {
		t.Fatalf("converted workload is invalid: %v", err)
	}
	again, _, err := convertSources(format, files, opt)
	if err != nil || !reflect.DeepEqual(again, w) {
		t.Fatalf("a second conversion differs (err %v)", err)
	}
	var buf bytes.Buffer
	if err := workload.Write(&buf, w, workload.JSON); err != nil {
		t.Fatalf("Write: %v", err)
	}
	back, err := workload.Parse(buf.Bytes(), "written.json")
	if err != nil {
		t.Fatalf("written workload does not parse: %v", err)
	}
	if !reflect.DeepEqual(back, w) {
		t.Fatalf("written workload reads back differently")
	}
}

func seed(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func FuzzSWF(f *testing.F) {
	f.Add(seed(f, "testdata/small.swf"), false)
	f.Add([]byte("; MaxNodes: 2\n; MaxProcs: 3\n1 0 0 5 3 -1 -1 -1 -1 -1 1 1 1 1 -1 -1 -1 -1\n"), true)
	f.Add([]byte("1 0 0 5e2 3 -1 -1 -1 1e9 -1 1 1 1 1 -1 -1 -1 -1\n2 0 0 5 -1 -1 -1 100000001 -1 -1 1 1 1 1 -1 -1 -1 -1\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, skip bool) {
		checkConversion(t, "swf", Options{SkipBad: skip}, bytesSource("fuzz.swf", data))
	})
}

func FuzzGoogle(f *testing.F) {
	f.Add(seed(f, "testdata/google/task_events.csv"), seed(f, "testdata/google/machine_events.csv"), false)
	f.Add([]byte("0,,1,0,,1,u,0,0,,,,\n5,,1,0,,4,u,0,0,,,,\n"), []byte(""), true)
	f.Add([]byte("0,,1,0,,1,u,0,0,1,1,1,0\n9223372036854775807,,1,0,,4,u,0,0,,,,\n"), []byte("0,1,0,p,0.001,0.001\n"), true)
	f.Add([]byte("0,,0,0,,1,,,,,,,"), []byte("0,0,0,,,"), true) // no machine with a known capacity
	f.Fuzz(func(t *testing.T, tasks, machines []byte, truncate bool) {
		opt := Options{SkipBad: true}
		if truncate {
			opt.Unfinished = UnfinishedTruncate
		}
		files := []source{bytesSource("fuzz-task_events.csv", tasks)}
		if len(machines) > 0 {
			files = append(files, bytesSource("fuzz-machine_events.csv", machines))
		}
		checkConversion(t, "google2011", opt, files...)
		checkConversion(t, "google2011", Options{}, files...)
	})
}

func FuzzAlibaba(f *testing.F) {
	f.Add(seed(f, "testdata/alibaba/batch_task.csv"), seed(f, "testdata/alibaba/batch_instance.csv"), false)
	f.Add([]byte("M1_2,1,j,1,Terminated,1,5,100,1\nM2_1,1,j,1,Terminated,1,5,100,1\nM3,2,j,1,Running,1,0,100,1\n"), []byte(""), true)
	f.Fuzz(func(t *testing.T, tasks, instances []byte, truncate bool) {
		opt := Options{SkipBad: true}
		if truncate {
			opt.Unfinished = UnfinishedTruncate
		}
		files := []source{bytesSource("fuzz-batch_task.csv", tasks)}
		if len(instances) > 0 {
			files = append(files, bytesSource("fuzz-batch_instance.csv", instances))
		}
		checkConversion(t, "alibaba2018", opt, files...)
		checkConversion(t, "alibaba2018", Options{}, files...)
	})
}

func FuzzSLS(f *testing.F) {
	f.Add(seed(f, "testdata/sls/jobs.json"), false)
	f.Add(seed(f, "testdata/sls/rumen.json"), true)
	f.Add([]byte(`[{"job.start.ms": "7", "job.count": 3, "num.nodes": 1, "job.tasks": [{"count": 2, "container.duration.ms": 1, "container.type": "x"}]}]`), true)
	f.Fuzz(func(t *testing.T, data []byte, skip bool) {
		checkConversion(t, "sls", Options{SkipBad: skip}, bytesSource("fuzz.json", data))
	})
}

func FuzzKube(f *testing.F) {
	f.Add(seed(f, "testdata/kube/pods.json"), seed(f, "testdata/kube/nodes.json"), false)
	f.Add([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"n","uid":"u","creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"nodeName":"x","containers":[{"name":"c"}]},"status":{"phase":"Succeeded","containerStatuses":[{"name":"c","state":{"terminated":{"startedAt":"2026-01-01T00:00:01Z","finishedAt":"2026-01-01T00:00:09Z"}}}]}}`), []byte(""), true)
	// The shapes of the corpus: YAML (one document and several), streams,
	// kind-less typed lists, plain arrays, a byte-order mark, UTF-16.
	files := corpusFiles()
	for _, pair := range [][2]string{
		{"kubectl-yaml/all.yaml", ""},
		{"must-gather/namespaces/batch/core/pods.yaml", "must-gather/cluster-scoped-resources/core/nodes/node-a.yaml"},
		{"stream/pods.json", "stream/nodes.ndjson"},
		{"raw-api/pods.json", "kubelet/nodes.json"},
		{"conformance/resources/ns/batch/Pods.json", "conformance/resources/cluster/Nodes.json"},
		{"bom/pods.json", "bom/nodes.json"},
		{"get-all/all.json", ""},
	} {
		f.Add(files[pair[0]], files[pair[1]], false)
	}
	f.Add([]byte("---\nkind: Pod\nmetadata: {name: p, uid: u, creationTimestamp: 2026-01-01T00:00:00Z}\nspec: {containers: [{name: c}]}\n---\n---\n- a: &x [1, 2]\n  b: *x\n"), []byte(""), true)
	f.Fuzz(func(t *testing.T, pods, nodes []byte, truncate bool) {
		opt := Options{MachineVCores: 8, MachineMemory: 16384}
		if truncate {
			opt.Unfinished = UnfinishedTruncate
		}
		files := []source{bytesSource("fuzz-pods.json", pods)}
		if len(nodes) > 0 {
			files = append(files, bytesSource("fuzz-nodes.json", nodes))
		}
		checkConversion(t, "kube", opt, files...)
	})
}
