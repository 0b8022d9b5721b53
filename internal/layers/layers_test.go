package layers

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/spindle-sched/spindle/"

// rule says which of the module's packages a package (or, with "/...", a
// tree of packages) may import outside tests. The first rule that matches
// a package applies; every package must match one, so a new package needs
// a decision here.
type rule struct {
	pkg string
	may []string
}

var (
	core    = []string{"clock", "resource", "cluster", "sched"}
	schemes = []string{"policy", "policy/...", "admission", "admission/...", "params"}
	data    = []string{"workload", "metrics"}
)

func cat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var rules = []rule{
	// The core.
	{"clock", nil},
	{"resource", nil},
	{"params", []string{"clock"}},
	{"cluster", []string{"clock", "resource"}},
	{"sched", []string{"clock", "cluster", "resource"}},
	{"workload", []string{"clock", "resource"}},
	{"metrics", []string{"clock", "resource", "workload"}},

	// The schemes see the core; a scheme's helpers are its own.
	// preempt reads the preemption parameters Capacity, Fair and DRF share.
	{"policy/internal/preempt", cat(core, []string{"params"})},
	// jobq reads the reservation parameters the reserving policies share.
	{"policy/internal/jobq", cat(core, []string{"params", "policy/internal/..."})},
	{"policy/internal/...", cat(core, []string{"policy/internal/..."})},
	{"policy", cat(core, []string{"params", "policy/..."})},
	{"policy/...", cat(core, []string{"params", "policy/internal/..."})},
	{"admission/...", cat(core, []string{"params", "admission/..."})},
	{"admission", cat(core, []string{"params", "admission/..."})},

	// The drivers see the core, never a scheme, never each other.
	{"sim/internal/...", nil},
	{"sim", cat(core, data, []string{"sim/internal/..."})},
	// The pod mapping is a leaf every Kubernetes-facing package shares.
	{"kube/podmap", []string{"clock", "resource"}},
	{"kube/replay", cat(core, data, []string{"kube/kwok"})},
	// Which group APIs a cluster serves: the scheduler and the recorder
	// must decide alike whether to read PodGroups.
	{"kube/served", []string{"kube/podmap"}},
	// The recorder reads pods as the scheduler maps them, and writes a
	// workload.
	{"kube/record", cat(core, data, []string{"kube/podmap"})},
	{"kube/kubescript", cat(core, schemes, []string{"kube", "internal/datadriven"})},
	// The forecast is an assembly: it runs the simulator on a live
	// snapshot, turning pods into jobs by the recorder's mapping. The
	// policy comes in as a factory, so it needs no scheme.
	{"kube/forecast", cat(core, data, []string{"sim", "kube/record", "kube/podmap"})},
	{"kube/...", cat(core, []string{"kube/..."})},
	// The driver hands the forecast its snapshots (whose queues are in
	// the workload format) and publishes what it returns.
	{"kube", cat(core, []string{"kube/observe", "kube/podmap", "kube/forecast", "kube/served", "workload"})},

	// Assemblies.
	{"runner/simtest", []string{"runner", "workload"}},
	{"runner/wlgen", nil},
	{"runner", cat(core, schemes, data, []string{"sim"})},
	{"scenario", []string{"clock", "resource", "workload"}},
	{"trace", []string{"clock", "resource", "workload", "kube/record"}},
	// The report reads a scheme's section with the scheme's own type.
	{"report", []string{"clock", "cluster", "metrics", "policy/dress", "admission/autoadmin"}},
	{"whatif", []string{"clock", "resource", "workload", "metrics"}},
	// Sharding joins saved runs: it reads them as the report does.
	// The Indexed Job's manifests: Kubernetes' types only.
	{"shard/kubejob", nil},
	{"shard", []string{"metrics", "report"}},
	{"experiments/...", cat(core, schemes, data, []string{"sim", "runner", "scenario", "trace", "experiments/..."})},
	{"experiments", cat(core, schemes, data, []string{"sim", "runner", "scenario", "trace", "experiments/..."})},

	// Test harnesses, next to what they test.
	{"sched/schedtest", core},
	{"sched/fakecluster", cat(core, schemes, []string{"internal/datadriven"})},
	{"internal/datadriven", nil},
	{"internal/controlplane/...", []string{"internal/controlplane/..."}},
	{"internal/layers", nil},

	// The top.
	{"internal/cli", []string{"..."}},
	{"cmd/spindle", []string{"internal/cli"}},
	{"hack/localcluster", []string{"internal/controlplane/localcluster"}},
	{"hack/image", nil},
	{"deploy", nil},
}

// harnesses may be imported only from tests (and the tools under hack/).
var harnesses = []string{"sched/schedtest", "sched/fakecluster", "kube/kubescript", "runner/simtest", "runner/wlgen",
	"internal/datadriven", "internal/controlplane/...", "internal/layers"}

func match(pattern, pkg string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func anyMatch(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if match(p, pkg) {
			return true
		}
	}
	return false
}

// imports returns each of the module's packages with the module packages
// its non-test files import, read from the source.
func imports(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if out[pkg] == nil {
			out[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			if dep, ok := strings.CutPrefix(p, module); ok {
				out[pkg][dep] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLayers(t *testing.T) {
	graph := imports(t, "../..")
	if len(graph) < 30 {
		t.Fatalf("found only %d packages; is the module root right?", len(graph))
	}
	var pkgs []string
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		var r *rule
		for i := range rules {
			if match(rules[i].pkg, pkg) {
				r = &rules[i]
				break
			}
		}
		if r == nil {
			t.Errorf("%s: no layer rule; add one to internal/layers", pkg)
			continue
		}
		for dep := range graph[pkg] {
			if !anyMatch(r.may, dep) {
				t.Errorf("%s imports %s, which its layer (rule %q) may not", pkg, dep, r.pkg)
			}
			if anyMatch(harnesses, dep) && !anyMatch(harnesses, pkg) && !strings.HasPrefix(pkg, "hack/") {
				t.Errorf("%s imports the test harness %s outside its tests", pkg, dep)
			}
		}
	}
}

// The rules must be able to fail: a scheme that imported a driver, the
// core importing a scheme, and a driver importing the command line are
// each refused.
func TestLayersRefuse(t *testing.T) {
	bad := map[string]string{"policy/fair": "sim", "sched": "policy", "kube": "internal/cli", "sim": "policy/fair", "kube/replay": "sim"}
	for pkg, dep := range bad {
		for _, r := range rules {
			if match(r.pkg, pkg) {
				if anyMatch(r.may, dep) {
					t.Errorf("%s may import %s", pkg, dep)
				}
				break
			}
		}
	}
}
