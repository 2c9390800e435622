package handlers

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayers holds the dependencies to the direction docs/DESIGN.md gives
// them: cmd → handlers/jobs → domain → db, and for the bench
// cmd/trackerbench → bench/scenarios → bench/load, nodes, report. Handlers and views reach the
// database only through the domain packages; the domain packages know
// nothing of HTTP, pages or jobs. Only the non-test files count: tests may
// set up what they need.
func TestLayers(t *testing.T) {
	domain := []string{"archive", "audit", "books", "dictionaries", "items", "projects", "sites", "stats", "users", "volunteers", "warriors"}
	rules := map[string][]string{
		"handlers": {"tracker/db", "tracker/cmd"},
		"views":    {"tracker/db", "tracker/handlers", "tracker/jobs", "tracker/items", "tracker/projects"},
		"jobs":     {"tracker/handlers", "tracker/views", "tracker/cmd"},
		"db":       {"tracker/handlers", "tracker/views", "tracker/jobs", "tracker/cmd"},
		// naming is a leaf: any package can use it without the item engine.
		"naming": {"tracker"},
		// kept holds values for a while; any layer's reads may use it.
		"kept": {"tracker"},
		// loops runs background loops for the domain and the jobs alike.
		"loops": {"tracker"},
		// refusal is the one error type every package refuses with.
		"refusal": {"tracker"},
		// The bench: a thin main over the scenarios, which use the
		// clients, the nodes and the table; those three stand alone, and
		// the table knows nothing of the tracker at all.
		"cmd/trackerbench": {"tracker/bench/load", "tracker/bench/nodes", "tracker/bench/report", "tracker/db"},
		"bench/scenarios":  {"tracker/cmd", "tracker/handlers", "tracker/views", "tracker/jobs"},
		"bench/load":       {"tracker/bench", "tracker/cmd", "tracker/db"},
		"bench/nodes":      {"tracker/bench", "tracker/cmd", "tracker/db"},
		"bench/report":     {"tracker"},
	}
	for _, d := range domain {
		rules[d] = []string{"tracker/handlers", "tracker/views", "tracker/jobs", "tracker/cmd"}
	}
	// The tracker never depends on its bench.
	for _, d := range append([]string{"handlers", "views", "jobs", "db"}, domain...) {
		rules[d] = append(rules[d], "tracker/bench")
	}
	for _, d := range domain {
		rules["db"] = append(rules["db"], "tracker/"+d)
	}
	for dir, forbidden := range rules {
		imports := packageImports(t, filepath.Join("..", dir))
		if len(imports) == 0 {
			t.Fatalf("%s: no imports read: is the package still there?", dir)
		}
		for file, imps := range imports {
			for _, imp := range imps {
				for _, f := range forbidden {
					if imp == f || strings.HasPrefix(imp, f+"/") {
						t.Errorf("%s imports %s: %s must not depend on it", file, imp, dir)
					}
				}
			}
		}
	}
}

// packageImports reads the imports of each non-test Go file in dir.
func packageImports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			out[path] = append(out[path], strings.Trim(imp.Path.Value, `"`))
		}
		if _, ok := out[path]; !ok {
			out[path] = nil
		}
	}
	return out
}

// TestLayersRuleCatchesAnImport checks the rule can fail: a file that
// imports the database package is seen.
func TestLayersRuleCatchesAnImport(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\nimport _ \"tracker/db\"\n"
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	imps := packageImports(t, dir)
	if !slices.Contains(imps[filepath.Join(dir, "x.go")], "tracker/db") {
		t.Fatalf("imports read: %v", imps)
	}
}
