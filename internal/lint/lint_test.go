package lint

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/cqld/cqld"

// layers is DESIGN.md's list: a package may import only packages of layers
// above its own. Subpackages belong to their top-level package's layer.
// tracing is not in DESIGN.md's list: the storage engine and the query
// layer both add trace events, so the collector sits right below cqlerr.
var layers = []string{
	"cqlerr", "tracing", "cql", "types", "schema", "mutation", "storage", "query", "cluster",
	"transport", "auth", "node", "advisor", "shell", "admin",
}

// lint is outside the layering (it imports nothing of ours).
var exempt = map[string]bool{"lint": true}

type pkg struct {
	ImportPath   string
	Dir          string
	Imports      []string
	TestImports  []string
	XTestImports []string
	// Deps are the packages it links, transitively.
	Deps []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/internal/...")
	cmd.Dir = "../.."
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []pkg
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// layerOf returns the layer index of an internal import path, or -1.
func layerOf(path string) (string, int) {
	rest, ok := strings.CutPrefix(path, module+"/internal/")
	if !ok {
		return "", -1
	}
	top, _, _ := strings.Cut(rest, "/")
	for i, l := range layers {
		if l == top {
			return top, i
		}
	}
	return top, -1
}

func TestDependencyDirection(t *testing.T) {
	for _, p := range listPackages(t) {
		top, me := layerOf(p.ImportPath)
		if exempt[top] {
			continue
		}
		if me < 0 {
			t.Errorf("%s: package %q is not in DESIGN.md's layer list; add it there and here", p.ImportPath, top)
			continue
		}
		// Tests may use packages below them only through the public
		// interfaces they test, so check non-test imports strictly and
		// test imports against the same rule.
		for _, imp := range append(append([]string(nil), p.Imports...), p.TestImports...) {
			itop, il := layerOf(imp)
			if il < 0 || itop == top {
				continue
			}
			if il > me {
				t.Errorf("%s imports %s: %s is below %s in DESIGN.md's dependency order", p.ImportPath, imp, itop, top)
			}
		}
	}
}

func TestEveryPackageHasDocGo(t *testing.T) {
	for _, p := range listPackages(t) {
		if _, err := os.Stat(filepath.Join(p.Dir, "doc.go")); err != nil {
			t.Errorf("%s has no doc.go", p.ImportPath)
		}
	}
}

func TestGofmt(t *testing.T) {
	out, err := exec.Command("gofmt", "-l", "../../cmd", "../../internal", "../../test").CombinedOutput()
	if err != nil {
		t.Fatalf("gofmt: %v\n%s", err, out)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("files not gofmt'ed:\n%s", s)
	}
}

// TestQueryLayerWithoutPebble: DESIGN.md's query layer never touches
// storage and the advisor never storage; importing a storage package for
// a type would link the storage engine into them.
func TestQueryLayerWithoutPebble(t *testing.T) {
	checked := 0
	for _, p := range listPackages(t) {
		if p.ImportPath != module+"/internal/query" && p.ImportPath != module+"/internal/advisor" {
			continue
		}
		checked++
		for _, d := range p.Deps {
			if strings.Contains(d, "cockroachdb/pebble") {
				t.Errorf("%s depends on Pebble (%s)", p.ImportPath, d)
				break
			}
		}
	}
	if checked != 2 {
		t.Fatalf("found %d of internal/query and internal/advisor", checked)
	}
}
