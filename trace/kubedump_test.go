package trace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	yaml "go.yaml.in/yaml/v3"

	"github.com/spindle-sched/spindle/clock"
	"github.com/spindle-sched/spindle/resource"
)

// The corpus in testdata/kubedumps is one small cluster dumped in the
// shapes real tools write it (the files are written by corpusFiles below,
// and TestKubeCorpusCurrent checks that the committed ones are what it
// writes; go test ./trace -run KubeCorpusCurrent -update-kube-corpus
// rewrites them):
//   - nodes node-a and node-b, 4 CPU and 8 GiB allocatable each;
//   - batch/etl, a batch/v1 Job of two 1-CPU pods, ended; etl-0 restarted
//     once (its first run from 2 s to 12 s, its second from 13 s to 32 s);
//   - batch/solo, a lone pod (restartPolicy Never) that ran 10 s;
//   - default/web-5d8f, a Deployment's pod (1 CPU, 1 GiB), running;
//   - default/debug, a lone pod with restartPolicy Always (250m, 256 MiB),
//     running;
//   - kube-system/fluent-*, a DaemonSet's pod on each node (100m, 64 MiB);
//   - kube-system/kube-apiserver-node-a, a static pod (250m);
//   - a Service and a Deployment object where the tool dumps them.
//
// Whatever the shape, the workload is the same: 2 jobs (3 tasks), 2 nodes,
// and each node's external load 850m of CPU and 704 MiB from time 0
// (the web, debug, daemonset and static pods: 1700m and 1408 MiB over 2
// nodes).

var updateKubeCorpus = flag.Bool("update-kube-corpus", false, "rewrite testdata/kubedumps from the generator")

const corpusDir = "testdata/kubedumps"

type obj = map[string]any

func ts(sec int) string {
	return time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC).Add(time.Duration(sec) * time.Second).Format(time.RFC3339)
}

func res(cpu, mem string) obj {
	r := obj{}
	if cpu != "" {
		r["cpu"] = cpu
	}
	if mem != "" {
		r["memory"] = mem
	}
	return obj{"requests": r}
}

func corpusNodes() []obj {
	var out []obj
	for _, n := range []string{"node-a", "node-b"} {
		out = append(out, obj{"apiVersion": "v1", "kind": "Node",
			"metadata": obj{"name": n, "uid": "uid-" + n, "resourceVersion": "100", "creationTimestamp": ts(-3000)},
			"spec":     obj{"podCIDR": "10.244.0.0/24"},
			"status": obj{"allocatable": obj{"cpu": "4", "memory": "8Gi", "pods": "110"},
				"capacity": obj{"cpu": "4", "memory": "8Gi", "pods": "110"}}})
	}
	return out
}

type podSpec struct {
	ns, name, node, uid, rv string
	cpu, mem                string
	created                 int // seconds; 0 with noCreated
	noCreated               bool
	start, end              int // container start and end; end 0: running
	restartPolicy           string
	labels, annotations     map[string]string
	owner                   obj
	restartFrom, restartTo  int // the run before a restart; 0: none
}

func (p podSpec) object() obj {
	meta := obj{"name": p.name, "namespace": p.ns, "uid": p.uid, "resourceVersion": p.rv}
	if !p.noCreated {
		meta["creationTimestamp"] = ts(p.created)
	}
	if p.labels != nil {
		meta["labels"] = p.labels
	}
	if p.annotations != nil {
		meta["annotations"] = p.annotations
	}
	if p.owner != nil {
		meta["ownerReferences"] = []obj{p.owner}
	}
	cs := obj{"name": "main", "ready": p.end == 0, "restartCount": 0, "image": "registry.invalid/x:1"}
	phase := "Running"
	if p.end == 0 {
		cs["state"] = obj{"running": obj{"startedAt": ts(p.start)}}
	} else {
		cs["state"] = obj{"terminated": obj{"startedAt": ts(p.start), "finishedAt": ts(p.end), "exitCode": 0, "reason": "Completed"}}
		phase = "Succeeded"
	}
	if p.restartTo > 0 {
		cs["restartCount"] = 1
		cs["lastState"] = obj{"terminated": obj{"startedAt": ts(p.restartFrom), "finishedAt": ts(p.restartTo), "exitCode": 1, "reason": "Error"}}
	}
	sched := p.created + 1
	if p.noCreated {
		sched = p.start
	}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": meta,
		"spec": obj{"nodeName": p.node, "restartPolicy": p.restartPolicy, "schedulerName": "default-scheduler",
			"containers": []obj{{"name": "main", "image": "registry.invalid/x:1", "resources": res(p.cpu, p.mem)}}},
		"status": obj{"phase": phase, "startTime": ts(p.start - 1),
			"conditions":        []obj{{"type": "PodScheduled", "status": "True", "lastTransitionTime": ts(sched)}},
			"containerStatuses": []obj{cs}}}
}

func controller(kind, name string) obj {
	return obj{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": "uid-" + name, "controller": true, "blockOwnerDeletion": true}
}

// corpusPods are the cluster's pods; kubelet gives the kubelet's view of
// the static pod (no creation time, its source instead of a mirror
// annotation).
func corpusPods(kubelet bool) []podSpec {
	job := controller("Job", "etl")
	job["apiVersion"] = "batch/v1"
	jobLabels := map[string]string{"batch.kubernetes.io/job-name": "etl", "batch.kubernetes.io/controller-uid": "uid-etl"}
	static := podSpec{ns: "kube-system", name: "kube-apiserver-node-a", node: "node-a", uid: "uid-static", rv: "7", cpu: "250m",
		created: -900, start: -900, restartPolicy: "Always", annotations: map[string]string{"kubernetes.io/config.mirror": "abc", "kubernetes.io/config.source": "file"}}
	if kubelet {
		static.noCreated = true
		static.annotations = map[string]string{"kubernetes.io/config.source": "file", "kubernetes.io/config.hash": "abc"}
	}
	return []podSpec{
		{ns: "batch", name: "etl-0", node: "node-a", uid: "uid-etl-0", rv: "41", cpu: "1", mem: "1Gi", created: 0, start: 13, end: 32,
			restartPolicy: "OnFailure", labels: jobLabels, owner: job, restartFrom: 2, restartTo: 12},
		{ns: "batch", name: "etl-1", node: "node-b", uid: "uid-etl-1", rv: "42", cpu: "1", mem: "1Gi", created: 0, start: 2, end: 42,
			restartPolicy: "OnFailure", labels: jobLabels, owner: job},
		{ns: "batch", name: "solo", node: "node-b", uid: "uid-solo", rv: "30", cpu: "500m", mem: "512Mi", created: 10, start: 12, end: 22,
			restartPolicy: "Never"},
		{ns: "default", name: "web-5d8f", node: "node-a", uid: "uid-web", rv: "9", cpu: "1", mem: "1Gi", created: -100, start: -98,
			restartPolicy: "Always", labels: map[string]string{"app": "web"}, owner: controller("ReplicaSet", "web-5d8f")},
		{ns: "default", name: "debug", node: "node-b", uid: "uid-debug", rv: "11", cpu: "250m", mem: "256Mi", created: -50, start: -48,
			restartPolicy: "Always"},
		{ns: "kube-system", name: "fluent-a", node: "node-a", uid: "uid-fa", rv: "5", cpu: "100m", mem: "64Mi", created: -800, start: -798,
			restartPolicy: "Always", owner: controller("DaemonSet", "fluent")},
		{ns: "kube-system", name: "fluent-b", node: "node-b", uid: "uid-fb", rv: "6", cpu: "100m", mem: "64Mi", created: -800, start: -798,
			restartPolicy: "Always", owner: controller("DaemonSet", "fluent")},
		static,
	}
}

func podObjects(ps []podSpec) []obj {
	out := make([]obj, len(ps))
	for i, p := range ps {
		out[i] = p.object()
	}
	return out
}

func corpusEvents() []obj {
	var out []obj
	for i, p := range []string{"etl-0", "etl-1"} {
		out = append(out, obj{"apiVersion": "v1", "kind": "Event", "reason": "Scheduled", "type": "Normal",
			"metadata":       obj{"name": p + ".1", "namespace": "batch", "uid": fmt.Sprintf("uid-ev-%d", i)},
			"involvedObject": obj{"kind": "Pod", "namespace": "batch", "name": p, "uid": "uid-" + p},
			"eventTime":      "2026-03-01T10:10:01.250000Z", "firstTimestamp": nil})
	}
	return out
}

func inNS(ps []podSpec, ns string) []podSpec {
	var out []podSpec
	for _, p := range ps {
		if p.ns == ns {
			out = append(out, p)
		}
	}
	return out
}

// kindless drops each object's kind and apiVersion, as the raw API, the
// kubelet and cluster-info dump write a typed list's items.
func kindless(os []obj) []obj {
	out := make([]obj, len(os))
	for i, o := range os {
		c := obj{}
		for k, v := range o {
			if k != "kind" && k != "apiVersion" {
				c[k] = v
			}
		}
		out[i] = c
	}
	return out
}

func indent(v any) []byte {
	b, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// kubectlList is `kubectl get -o json`: kind List after its items, each
// with its kind.
func kubectlList(items []obj) []byte {
	return indent(obj{"apiVersion": "v1", "kind": "List", "metadata": obj{"resourceVersion": ""}, "items": items})
}

// typedList is the raw API's (and cluster-info dump's, and the kubelet's)
// list: its kind first, the items without one.
func typedList(kind string, items []obj) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n    \"kind\": %q,\n    \"apiVersion\": \"v1\",\n    \"metadata\": {\n        \"resourceVersion\": \"1234\"\n    },\n    \"items\": ", kind)
	if items == nil {
		b.WriteString("null")
	} else {
		it, _ := json.MarshalIndent(kindless(items), "    ", "    ")
		b.Write(it)
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

func yamlDoc(v any) []byte {
	var b bytes.Buffer
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func gz(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

func utf16LE(b []byte) []byte {
	out := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(string(b))) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// corpusFiles is every file of the corpus, by path under corpusDir.
func corpusFiles() map[string][]byte {
	pods, kpods := podObjects(corpusPods(false)), podObjects(corpusPods(true))
	nodes, events := corpusNodes(), corpusEvents()
	service := obj{"apiVersion": "v1", "kind": "Service", "metadata": obj{"name": "web", "namespace": "default", "uid": "uid-svc"},
		"spec": obj{"ports": []obj{{"port": 80}}}}
	deploy := obj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": obj{"name": "web", "namespace": "default", "uid": "uid-dep"},
		"spec": obj{"replicas": 1}}
	f := map[string][]byte{}
	// kubectl get pods -A -o json; nodes; events.
	f["kubectl-json/pods.json"] = kubectlList(pods)
	f["kubectl-json/nodes.json"] = kubectlList(nodes)
	f["kubectl-json/events.json"] = kubectlList(events)
	// kubectl get pods,nodes -A -o yaml.
	f["kubectl-yaml/all.yaml"] = yamlDoc(obj{"apiVersion": "v1", "kind": "List", "metadata": obj{"resourceVersion": ""},
		"items": append(append([]obj{}, nodes...), pods...)})
	// kubectl get all,nodes,events -A -o json: a List of every kind.
	mixed := append([]obj{service, deploy}, nodes[0])
	mixed = append(mixed, pods...)
	mixed = append(mixed, nodes[1])
	mixed = append(mixed, events...)
	f["get-all/all.json"] = kubectlList(mixed)
	// kubectl cluster-info dump -A --output-directory=DIR.
	f["cluster-info-dump/nodes.json"] = typedList("NodeList", nodes)
	for _, ns := range []string{"batch", "default", "kube-system"} {
		f["cluster-info-dump/"+ns+"/pods.json"] = typedList("PodList", podObjects(inNS(corpusPods(false), ns)))
		f["cluster-info-dump/"+ns+"/services.json"] = typedList("ServiceList", nil)
	}
	f["cluster-info-dump/batch/events.json"] = typedList("EventList", events)
	f["cluster-info-dump/default/deployments.json"] = typedList("DeploymentList", []obj{deploy})
	f["cluster-info-dump/batch/etl-0/logs.txt"] = []byte("==== START logs for container main of pod batch/etl-0 ====\n")
	// must-gather: each namespace's core/pods.yaml, and each pod again in
	// pods/NAME/NAME.yaml (the same UIDs twice); nodes one a file.
	for _, n := range nodes {
		name := n["metadata"].(obj)["name"].(string)
		f["must-gather/cluster-scoped-resources/core/nodes/"+name+".yaml"] = yamlDoc(n)
	}
	for _, ns := range []string{"batch", "default", "kube-system"} {
		ps := podObjects(inNS(corpusPods(false), ns))
		f["must-gather/namespaces/"+ns+"/core/pods.yaml"] = yamlDoc(obj{"apiVersion": "v1", "kind": "PodList", "metadata": obj{}, "items": kindless(ps)})
		for _, p := range ps {
			name := p["metadata"].(obj)["name"].(string)
			f["must-gather/namespaces/"+ns+"/pods/"+name+"/"+name+".yaml"] = yamlDoc(p)
		}
	}
	f["must-gather/namespaces/batch/core/events.yaml"] = yamlDoc(obj{"apiVersion": "v1", "kind": "EventList", "items": events})
	f["must-gather/namespaces/batch/pods/etl-0/main/main/logs/current.log"] = []byte("2026-03-01T10:10:13Z starting\n")
	f["must-gather/namespaces/default/core/services.yaml"] = yamlDoc(obj{"apiVersion": "v1", "kind": "ServiceList", "items": []obj{service}})
	f["must-gather/timestamp"] = []byte("2026-03-01 10:11:00 +0000 UTC\n")
	// The kubelet's /pods of each node, and kubectl's nodes.
	for _, n := range []string{"node-a", "node-b"} {
		var ps []obj
		for _, p := range kpods {
			if p["spec"].(obj)["nodeName"] == n {
				ps = append(ps, p)
			}
		}
		f["kubelet/pods-"+n+".json"] = typedList("PodList", ps)
	}
	f["kubelet/nodes.json"] = kubectlList(nodes)
	// The raw API (curl .../api/v1/pods): kind-less items; gzipped nodes.
	f["raw-api/pods.json"] = typedList("PodList", pods)
	f["raw-api/nodes.json.gz"] = gz(typedList("NodeList", nodes))
	// A conformance tool's result archive: each namespace's pods as a
	// plain array (resources/ns/NS/Pods.json), the nodes likewise.
	for _, ns := range []string{"batch", "default", "kube-system"} {
		f["conformance/resources/ns/"+ns+"/Pods.json"] = indent(kindless(podObjects(inNS(corpusPods(false), ns))))
		f["conformance/resources/ns/"+ns+"/Services.json"] = indent([]obj{})
	}
	f["conformance/resources/cluster/Nodes.json"] = indent(kindless(nodes))
	f["conformance/meta/run.log"] = []byte("{\"msg\":\"done\"}\n")
	// kubectl get pods -A -w -o json: one object after another, etl-0
	// first still pending (an older resourceVersion); nodes as NDJSON.
	var w bytes.Buffer
	pend := corpusPods(false)[0].object()
	pend["metadata"].(obj)["resourceVersion"] = "12"
	pend["status"] = obj{"phase": "Pending"}
	w.Write(indent(pend))
	for _, p := range pods {
		w.Write(indent(p))
	}
	f["stream/pods.json"] = w.Bytes()
	var nd bytes.Buffer
	for _, n := range nodes {
		b, _ := json.Marshal(n)
		nd.Write(append(b, '\n'))
	}
	f["stream/nodes.ndjson"] = nd.Bytes()
	// A UTF-8 byte-order mark; UTF-16 as Windows PowerShell's > writes.
	f["bom/pods.json"] = append([]byte{0xef, 0xbb, 0xbf}, kubectlList(pods)...)
	f["bom/nodes.json"] = utf16LE(kubectlList(nodes))
	// Two overlapping dumps: the second has every batch pod again, etl-1
	// at a newer resourceVersion.
	f["duplicates/pods-1.json"] = kubectlList(pods)
	again := podObjects(inNS(corpusPods(false), "batch"))
	again[1]["metadata"].(obj)["resourceVersion"] = "99"
	f["duplicates/pods-2.json"] = kubectlList(append(again, pods[0]))
	f["duplicates/nodes.json"] = kubectlList(nodes)
	// A single pod object and an empty list ("items": null).
	f["single/etl-0.json"] = indent(pods[0])
	f["single/empty.json"] = typedList("PodList", nil)
	f["single/nodes.json"] = kubectlList(nodes)
	return f
}

func TestKubeCorpusCurrent(t *testing.T) {
	files := corpusFiles()
	if *updateKubeCorpus {
		os.RemoveAll(corpusDir)
		for p, b := range files {
			full := filepath.Join(corpusDir, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var onDisk []string
	filepath.WalkDir(corpusDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(corpusDir, p)
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(onDisk) != len(files) {
		t.Errorf("%d files in %s, the generator writes %d (-update-kube-corpus rewrites them)", len(onDisk), corpusDir, len(files))
	}
	for _, p := range onDisk {
		b, err := os.ReadFile(filepath.Join(corpusDir, p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, files[p]) {
			t.Errorf("%s differs from what the generator writes (-update-kube-corpus rewrites it)", p)
		}
	}
}

// TestKubeCorpus reads every shape of the corpus and checks the workload:
// its jobs, nodes and external load, and what each shape makes it skip.
func TestKubeCorpus(t *testing.T) {
	for _, c := range []struct {
		name   string
		inputs []string
		opt    Options
		// skipped are reasons (substrings) and counts the report must have.
		skipped map[string]int64
	}{
		{"kubectl get -o json", []string{"kubectl-json/pods.json", "kubectl-json/nodes.json", "kubectl-json/events.json"}, Options{}, nil},
		{"kubectl get -o yaml", []string{"kubectl-yaml/all.yaml"}, Options{}, nil},
		{"kubectl get all,nodes,events", []string{"get-all/all.json"}, Options{},
			map[string]int64{"Service objects": 1, "Deployment objects": 1}},
		{"cluster-info dump directory", []string{"cluster-info-dump"}, Options{},
			map[string]int64{"files in the directories": 5, "Deployment": 0}},
		{"must-gather directory", []string{"must-gather"}, Options{},
			map[string]int64{"duplicate pods": 8, "files in the directories": 3, "Service objects": 0}},
		{"kubelet /pods", []string{"kubelet/pods-node-a.json", "kubelet/pods-node-b.json", "kubelet/nodes.json"}, Options{}, nil},
		{"raw API lists", []string{"raw-api/pods.json", "raw-api/nodes.json.gz"}, Options{}, nil},
		{"a conformance tool's arrays", []string{"conformance"}, Options{}, map[string]int64{"files in the directories": 4}},
		{"a watch stream and NDJSON", []string{"stream/pods.json", "stream/nodes.ndjson"}, Options{},
			map[string]int64{"duplicate pods": 1}},
		{"a byte-order mark and UTF-16", []string{"bom/pods.json", "bom/nodes.json"}, Options{}, nil},
		{"overlapping dumps", []string{"duplicates/pods-1.json", "duplicates/pods-2.json", "duplicates/nodes.json"}, Options{},
			map[string]int64{"duplicate pods": 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := make([]string, len(c.inputs))
			for i, p := range c.inputs {
				in[i] = filepath.Join(corpusDir, p)
			}
			w, rep, err := Convert("kube", in, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			tasks := map[string]int{}
			for _, j := range w.Jobs {
				ids = append(ids, j.ID)
				tasks[j.ID] = j.Tasks()
			}
			sort.Strings(ids)
			if strings.Join(ids, " ") != "batch/job/etl pod:batch/solo" || tasks["batch/job/etl"] != 2 || tasks["pod:batch/solo"] != 1 {
				t.Errorf("jobs %v (tasks %v), want batch/job/etl of 2 and pod:batch/solo of 1", ids, tasks)
			}
			g := w.Cluster.Nodes
			if len(g) != 1 || g[0].Count != 2 || g[0].Capacity != (resource.Vector{4000, 8192}) {
				t.Fatalf("nodes %+v, want 2 of 4 CPU and 8 GiB", g)
			}
			if ext := g[0].External; len(ext) != 1 || ext[0].At != 0 || ext[0].Held != (resource.Vector{850, 704}) {
				t.Errorf("external load %+v, want 850m and 704 MiB a node from 0", ext)
			}
			// etl-0 is timed from its first start (2 s) to its end (32 s).
			for _, j := range w.Jobs {
				if j.ID != "batch/job/etl" {
					continue
				}
				var ds []clock.Duration
				for k, ph := range j.Phases {
					for i := range ph.Tasks {
						ds = append(ds, j.Phases[k].Duration(i))
					}
				}
				sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
				if len(ds) != 2 || ds[0] != 30*clock.Second || ds[1] != 40*clock.Second {
					t.Errorf("etl's task durations %v, want 30 s (first start to end, across the restart) and 40 s", ds)
				}
			}
			if rep.Bad != 0 {
				t.Errorf("%d malformed: %v", rep.Bad, rep.BadExamples)
			}
			notes := strings.Join(rep.Notes, "\n")
			for _, want := range []string{"restarts: 1 pods restarted containers 1 times", "includes 11s of restarted runs",
				"external load: 2 daemonset pods", "external load: 1 static pods",
				"external load: 1 pods of Deployments, StatefulSets and ReplicaSets", "external load: 1 lone pods still running with restartPolicy Always"} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes lack %q:\n%s", want, notes)
				}
			}
			for reason, n := range c.skipped {
				got := int64(0)
				for _, s := range rep.Skipped {
					if strings.Contains(s.Reason, reason) {
						got += s.N
					}
				}
				if got != n {
					t.Errorf("skipped %q: %d, want %d (%+v)", reason, got, n, rep.Skipped)
				}
			}
			for _, s := range rep.Skipped {
				if strings.Contains(s.Reason, "duplicate") && c.skipped["duplicate pods"] == 0 {
					t.Errorf("duplicates reported where there are none: %+v", s)
				}
			}
		})
	}
}

// TestKubeCorpusSelection gives trace convert kube record's selection.
func TestKubeCorpusSelection(t *testing.T) {
	in := []string{filepath.Join(corpusDir, "kubectl-json/pods.json"), filepath.Join(corpusDir, "kubectl-json/nodes.json")}
	var opt Options
	for k, v := range map[string]string{"selector": "batch.kubernetes.io/job-name=etl", "single-queue": "true"} {
		if err := opt.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	w, rep, err := Convert("kube", in, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 1 || w.Jobs[0].ID != "batch/job/etl" || w.Jobs[0].Queue != "default" {
		t.Errorf("jobs %+v, want etl alone in queue default", w.Jobs)
	}
	// solo and debug are outside the selector: load now.
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "external load: 2 pods outside --selector") {
		t.Errorf("notes %v", rep.Notes)
	}
	opt = Options{Namespace: "default"}
	if _, _, err := Convert("kube", in, opt); err == nil || !strings.Contains(err.Error(), "no job was recorded") {
		t.Errorf("namespace default holds no batch work: %v", err)
	}
	if err := opt.Set("selector", "a in (b"); err == nil {
		t.Error("a bad selector is accepted")
	}
}

// TestKubeSingleAndEmpty reads a single pod object and an empty list, and
// names a node list from another cluster.
func TestKubeSingleAndEmpty(t *testing.T) {
	in := []string{filepath.Join(corpusDir, "single/etl-0.json"), filepath.Join(corpusDir, "single/empty.json"), filepath.Join(corpusDir, "single/nodes.json")}
	w, _, err := Convert("kube", in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 1 || w.Jobs[0].Tasks() != 1 {
		t.Errorf("jobs %+v, want etl with its one pod", w.Jobs)
	}
}

// TestKubeBadInput: a file that cannot be read is one line naming it,
// where in it, and why; never a partial read.
func TestKubeBadInput(t *testing.T) {
	pods := corpusFiles()["kubectl-json/pods.json"]
	nodes := corpusFiles()["kubectl-json/nodes.json"]
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"cut short", pods[:len(pods)/2], "p.json: items[3]: the file ends in the middle of a value (cut short?)"},
		{"a second value cut short", append(append([]byte{}, pods...), pods[:100]...), "p.json: value 2: "},
		{"empty", []byte("  \n"), "p.json: the file is empty"},
		{"binary", []byte{1, 2, 3, 4}, "p.json: not text (byte 0x01)"},
		{"UTF-32", []byte{0xff, 0xfe, 0, 0, '{', 0, 0, 0}, "p.json: the file is UTF-32"},
		{"kubectl's table", []byte("NAME READY STATUS\nfoo 1/1 Running\n"), "p.json: document 1: a single value where an object"},
		{"bad YAML", []byte("items:\n  - a: [1\n"), "p.json: document 1: neither JSON nor YAML"},
		{"items not a list", []byte(`{"kind":"PodList","items":{}}`), "p.json: items: items is not a list"},
		{"a JSON string", []byte(`"pods"`), "p.json: document 1: a single value where an object"}, {"a JSON number", []byte(`[1]`), "no job was recorded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := convertSources("kube", []source{bytesSource("p.json", c.data), bytesSource("n.json", nodes)}, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v, want one line with %q", err, c.want)
			}
		})
	}
	// A malformed item is skipped, counted and named once.
	bad := bytes.Replace(pods, []byte(`"restartPolicy": "Never"`), []byte(`"restartPolicy": 7`), 1)
	_, rep, err := convertSources("kube", []source{bytesSource("p.json", bad), bytesSource("n.json", nodes)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Bad != 1 || len(rep.BadExamples) != 1 || !strings.HasPrefix(rep.BadExamples[0], "p.json: items[2]: ") {
		t.Errorf("bad %d: %v", rep.Bad, rep.BadExamples)
	}
	// A single object is named as such, not as items[0].
	one := bytes.Replace(corpusFiles()["single/etl-0.json"], []byte(`"restartPolicy": "OnFailure"`), []byte(`"restartPolicy": 7`), 1)
	_, rep, _ = convertSources("kube", []source{bytesSource("one.json", one), bytesSource("p.json", pods), bytesSource("n.json", nodes)}, Options{})
	if rep == nil || rep.Bad != 1 || !strings.HasPrefix(rep.BadExamples[0], "one.json: the object: ") {
		t.Errorf("a single malformed object: %+v", rep)
	}
	// A node list from another cluster: the pods' nodes are named.
	other := bytes.ReplaceAll(nodes, []byte("node-"), []byte("other-"))
	_, rep, err = convertSources("kube", []source{bytesSource("p.json", pods), bytesSource("n.json", other)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(rep.Notes, "\n")
	if !strings.Contains(notes, "warning: nodes missing from the node list: node-a, node-b") {
		t.Errorf("notes:\n%s", notes)
	}
	found := false
	for _, s := range rep.Skipped {
		found = found || strings.HasPrefix(s.Reason, "nodes the pods name that the node list lacks") && s.N == 2
	}
	if !found {
		t.Errorf("skipped %+v, want the 2 missing nodes counted", rep.Skipped)
	}
}

// TestKubeYAMLAliases: aliases that expand beyond reason are refused, not
// followed to the end of memory.
func TestKubeYAMLAliases(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	_, _, err := convertSources("kube", []source{bytesSource("bomb.yaml", []byte(b.String()))}, Options{MachineVCores: 1, MachineMemory: 1024})
	if err == nil || !strings.Contains(err.Error(), "bomb.yaml: document 1: line ") || !strings.Contains(err.Error(), "aliases expand to more than") {
		t.Errorf("err = %v", err)
	}
}

// TestKubeOriginKeptJobs: a job left out (still running) that began first
// does not move time 0: the first kept job's submission is 0.
func TestKubeOriginKeptJobs(t *testing.T) {
	ps := corpusPods(false)
	ps = append(ps, podSpec{ns: "batch", name: "early", node: "node-a", uid: "uid-early", rv: "3", cpu: "100m", mem: "64Mi",
		created: -500, start: -498, restartPolicy: "Never"})
	pods := kubectlList(podObjects(ps))
	w, rep, err := convertSources("kube", []source{bytesSource("p.json", pods), bytesSource("n.json", corpusFiles()["kubectl-json/nodes.json"])}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Jobs[0].ID != "batch/job/etl" || w.Jobs[0].Submit != 0 {
		t.Errorf("first job %s at %s, want etl at 0", w.Jobs[0].ID, w.Jobs[0].Submit)
	}
	found := false
	for _, s := range rep.Skipped {
		found = found || strings.HasPrefix(s.Reason, "jobs still running when the recording stopped") && s.N == 1
	}
	if !found {
		t.Errorf("skipped %+v", rep.Skipped)
	}
}
