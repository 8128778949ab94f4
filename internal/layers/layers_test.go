// Package layers holds one test: the import graph of kvsql's packages
// follows its layers, every arrow pointing down.
package layers

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/kvsql/kvsql"

// rank places every package of the module in its layer; a package may
// import only packages of a lower rank. From the top: the command and the
// examples, the programs and test support built on the engine, the
// database/sql driver, the embedded API, the
// wire server, the session layer, the contract between those two, the
// executor and planner, the master and index files, the catalog, the
// key-value engines, the key encoding, and the shared vocabulary of values
// and errors. A new package must be given its place here.
var rank = map[string]int{
	"cmd/kvsql":           100,
	"examples/embedded":   100,
	"examples/chat":       100,
	"bench":               90,
	"fuzz":                90,
	"sqllogictest":        90,
	"pgregress":           90,
	"internal/testkit":    90,
	"internal/crashtest":  90,
	"internal/clienttest": 90, // client libraries driven against kvsql and PostgreSQL
	"internal/layers":     90,
	"driver":              85, // database/sql over the embedded API and sessions
	"":                    80, // the root package: the embedded API
	"wire":                70,
	"session":             60,
	"wire/backend":        55, // the interface wire calls and session implements
	"exec":                50,
	"exec/eval":           48,
	"planner":             45,
	"planner/parse":       44,
	"index/indextest":     41,
	"index":               40,
	"catalog":             30,
	"foreign":             25, // application key-value stores: layouts, reads, writes
	"kv/kvtrace":          22,
	"kv/etcd":             21, // an engine: imported only by the command (TestEnginesStayBelowTheSeam)
	"kv/etcd/etcdtest":    21, // a real etcd cluster for tests
	"kv/tikv":             21, // an engine on TiKV: imported only by cmd/kvsql (see engineOnly)
	"kv/kvtest":           21, // the suites every engine passes
	"kv":                  20,
	"encoding":            10,
	"types":               5,
	"pgerror":             5,
}

// engineOnly are the engines in packages of their own: kv.Engine is the
// only seam, so no package but the command (which registers them with
// kv.OpenStore) may import one, and nothing above kv learns which engine
// it runs on. Tests may (they run the suites on each engine).
var engineOnly = map[string]bool{"kv/tikv": true}

// TestImportsPointDown reads every package's imports (test files
// excluded: a test may drive its package from above) and fails on an
// import of a package at the same or a higher layer, or on a package
// missing from rank.
func TestImportsPointDown(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		r, ok := rank[rel]
		if !ok {
			t.Errorf("package %q has no layer: give it a rank in internal/layers", rel)
			return nil
		}
		seen++
		for _, imp := range pkg.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			dr, ok := rank[dep]
			if !ok {
				t.Errorf("%s imports %s, which has no layer", show(rel), imp)
				continue
			}
			if dr >= r {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down", show(rel), r, show(dep), dr)
			}
			if engineOnly[dep] && rel != "cmd/kvsql" {
				t.Errorf("%s imports the engine %s: only cmd/kvsql may; the rest sees kv.Engine", show(rel), show(dep))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < len(rank)-2 {
		t.Errorf("read %d packages, expected about %d: is the walk rooted at the module?", seen, len(rank))
	}
}

// TestEnginesStayBelowTheSeam shows that no package above kv learns which
// engine it runs on: the packages under kv/ other than kv itself and
// kv/kvtrace are engines (kv/etcd, kv/tikv, ...) and their test support,
// and only the command and the examples (layer 100) may import them, to
// register their store schemes for kv.OpenStore. Everything else reaches
// an engine through the kv.Engine interface alone. (Test files may import
// an engine to run their package on it.)
func TestEnginesStayBelowTheSeam(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	isEngine := func(rel string) bool {
		return strings.HasPrefix(rel, "kv/") && rel != "kv/kvtrace"
	}
	engines := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		if isEngine(rel) {
			engines++
		}
		for _, imp := range pkg.Imports {
			dep := strings.TrimPrefix(imp, module+"/")
			if dep == imp || !isEngine(dep) || isEngine(rel) || rank[rel] >= 100 {
				continue
			}
			t.Errorf("%s imports the engine %s: only the command may choose an engine (kv.OpenStore); other packages see kv.Engine", show(rel), imp)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if engines == 0 {
		t.Error("found no engine package under kv/: is the walk rooted at the module?")
	}
}

func show(rel string) string {
	if rel == "" {
		return module
	}
	return module + "/" + rel
}
