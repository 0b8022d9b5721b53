package schedtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"testing"
)

// driverSide are the core's interfaces that a policy does not implement:
// the driver's, the admission controller's own, and the driver's optional
// Revisiter, Preempter, PreemptObserver and AMWatcher.
var driverSide = map[string]bool{"Driver": true, "Admission": true, "Revisiter": true, "Preempter": true, "PreemptObserver": true, "AMWatcher": true}

// TestForwardForwardsEverything reads every interface the core declares and
// checks that Forward has each of its methods, so a new optional interface
// cannot be added to the core without the wrapper tests use passing it on.
func TestForwardForwardsEverything(t *testing.T) {
	files, err := filepath.Glob("../*.go")
	if err != nil {
		t.Fatal(err)
	}
	fwd := reflect.TypeOf(&Forward{})
	fset := token.NewFileSet()
	seen := 0
	for _, name := range files {
		if filepath.Ext(name) != ".go" || len(name) > 8 && name[len(name)-8:] == "_test.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			it, ok := ts.Type.(*ast.InterfaceType)
			if !ok || !ts.Name.IsExported() || driverSide[ts.Name.Name] {
				return false
			}
			seen++
			for _, m := range it.Methods.List {
				for _, id := range m.Names {
					if _, ok := fwd.MethodByName(id.Name); !ok {
						t.Errorf("sched.%s: Forward has no %s, so a policy wrapped for a test loses it", ts.Name.Name, id.Name)
					}
				}
			}
			return false
		})
	}
	if seen < 10 {
		t.Fatalf("found only %d of the core's policy-side interfaces; is the path right?", seen)
	}
}
