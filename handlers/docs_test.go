package handlers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tracker/projects"
	"tracker/views"
)

// TestDocReferences checks that every reference in the code and the docs
// to a document resolves: the file is in the repository and the section
// named is one of its headings. A comment that cites a document outside
// the repository ("DESIGN.md" alone) fails too, and so does a Markdown
// link to a file, or a section, the repository does not have.
func TestDocReferences(t *testing.T) {
	root := ".."
	// docs/X.md, "Section"   or   [..](docs/X.md#anchor)   or a bare X.md.
	cited := regexp.MustCompile(`docs/([A-Z]+)\.md(?:, "([^"]+)"|#([a-z0-9-]+))?`)
	bare := regexp.MustCompile(`(^|[^/A-Za-z])(DESIGN|PROTOCOL|OPERATIONS|BENCHMARKS|ADMIN|API)\.md`)
	// A Markdown link to a file of the repository, or to a section of one:
	// [..](../README.md), [..](#anchor), [..](PROTOCOL.md#anchor). Links
	// with a scheme (https:) are not the repository's.
	linked := regexp.MustCompile(`\]\(([^()#\s:]*)(?:#([^()\s]+))?\)`)
	headings := map[string][]string{}
	heading := func(doc string) []string {
		if hs, ok := headings[doc]; ok {
			return hs
		}
		hs := headingsOf(filepath.Join(root, "docs", doc+".md"))
		headings[doc] = hs
		return hs
	}
	refs := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name != ".." && strings.HasPrefix(name, ".") || name == "data" || name == "artifacts" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".sql", ".md", ".templ", ".js", ".css":
		default:
			return nil
		}
		if strings.HasSuffix(path, "_templ.go") || strings.HasSuffix(path, "docs_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(b)
		inDocs := filepath.Base(filepath.Dir(path)) == "docs"
		for _, m := range cited.FindAllStringSubmatch(text, -1) {
			refs++
			hs := heading(m[1])
			if hs == nil {
				t.Errorf("%s cites docs/%s.md, which does not exist", path, m[1])
				continue
			}
			section, anchor := m[2], m[3]
			found := section == "" && anchor == ""
			for _, h := range hs {
				if strings.EqualFold(h, section) || anchor == anchorOf(h) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s cites %q: no such section in docs/%s.md", path, m[0], m[1])
			}
		}
		if !inDocs {
			for _, m := range bare.FindAllStringSubmatch(text, -1) {
				t.Errorf("%s cites %s.md without its folder: write docs/%s.md", path, m[2], m[2])
			}
		}
		if filepath.Ext(path) == ".md" {
			for _, m := range linked.FindAllStringSubmatch(text, -1) {
				file, anchor := m[1], m[2]
				if file == "" && anchor == "" {
					continue
				}
				refs++
				target := path
				if file != "" {
					target = filepath.Join(filepath.Dir(path), file)
					if _, err := os.Stat(target); err != nil {
						t.Errorf("%s links %q: %s is not in the repository", path, m[0], target)
						continue
					}
				}
				if anchor != "" && !slices.ContainsFunc(headingsOf(target), func(h string) bool { return anchorOf(h) == anchor }) {
					t.Errorf("%s links %q: no such section in %s", path, m[0], target)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if refs == 0 {
		t.Fatal("no references to docs/ found: is the walk looking at the repository?")
	}
}

// headingsOf are the headings of a Markdown file (none when it cannot be
// read).
func headingsOf(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var hs []string
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "#") {
			hs = append(hs, strings.TrimSpace(strings.TrimLeft(line, "#")))
		}
	}
	return hs
}

// anchorOf is a heading's anchor as Markdown renderers make it.
func anchorOf(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// docSection is the text of a document's section: from the heading named
// (at any level) to the next heading of its level or above.
func docSection(t *testing.T, path, heading string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	level := 0
	fenced := false
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(line, "#") {
			l := len(line) - len(strings.TrimLeft(line, "#"))
			switch {
			case level == 0 && strings.TrimSpace(line[l:]) == heading:
				level = l
				continue
			case level > 0 && l <= level:
				return out.String()
			}
		}
		if level > 0 {
			out.WriteString(line)
		}
	}
	if level == 0 {
		t.Fatalf("%s has no section %q", path, heading)
	}
	return out.String()
}

// tableRows are the body rows of the Markdown tables in text, each cut
// into its cells (a "\|" inside a cell is no border).
func tableRows(text string) [][]string {
	var rows [][]string
	header := true
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			header = true
			continue
		}
		if header || strings.HasPrefix(line, "|---") {
			header = false
			continue
		}
		var cells []string
		cell := strings.Builder{}
		for i := 1; i < len(line); i++ {
			switch {
			case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
				cell.WriteByte('|')
				i++
			case line[i] == '|':
				cells = append(cells, strings.TrimSpace(cell.String()))
				cell.Reset()
			default:
				cell.WriteByte(line[i])
			}
		}
		rows = append(rows, cells)
	}
	return rows
}

// codeSpans are the `quoted` parts of a cell.
func codeSpans(cell string) []string {
	var out []string
	for i, part := range strings.Split(cell, "`") {
		if i%2 == 1 {
			out = append(out, part)
		}
	}
	return out
}

// TestPackagesDocumented: every folder of Go code has its row in
// docs/DESIGN.md's package table, the one place the packages are
// described, and the table names no folder that is gone.
func TestPackagesDocumented(t *testing.T) {
	root := ".."
	code := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "data" || name == "artifacts") {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) == ".go" {
			dir, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			code[filepath.ToSlash(dir)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !code["handlers"] || !code["cmd/tracker"] {
		t.Fatalf("packages found: %v: is the walk looking at the repository?", code)
	}

	design := map[string]bool{}
	for _, row := range tableRows(docSection(t, filepath.Join(root, "docs", "DESIGN.md"), "Packages")) {
		for _, name := range codeSpans(row[0]) {
			design[name] = true
		}
	}
	for dir := range code {
		if !design[dir] {
			t.Errorf("package %s has no row in docs/DESIGN.md's package table (section Packages)", dir)
		}
	}
	for dir := range design {
		if !code[dir] {
			t.Errorf("docs/DESIGN.md's package table names %s, which holds no Go code", dir)
		}
	}
}

// TestFragmentsDocumented: every SQL fragment (db/fragments) is named in
// docs/DESIGN.md's table of where each rule lives, and every fragment the
// table names exists.
func TestFragmentsDocumented(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "db", "fragments", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fragments found (%v): is the test looking at the repository?", err)
	}
	named := map[string]bool{}
	for _, row := range tableRows(docSection(t, filepath.Join("..", "docs", "DESIGN.md"), "Where each rule lives")) {
		for _, name := range codeSpans(row[1]) {
			named[name] = true
		}
	}
	fragments := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sql")
		fragments[name] = true
		if !named[name] {
			t.Errorf("fragment %s is not named in docs/DESIGN.md's table of where each rule lives", name)
		}
	}
	// The table names SQL functions too (answer_bytes): a name of lower
	// case words joined by underscores is either.
	functions := map[string]bool{}
	migrations, err := filepath.Glob(filepath.Join("..", "migrations", "*.up.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range createdFunction.FindAllStringSubmatch(string(b), -1) {
			functions[f[1]] = true
		}
	}
	for name := range named {
		if sqlName.MatchString(name) && !fragments[name] && !functions[name] {
			t.Errorf("docs/DESIGN.md's table of where each rule lives names %s, which is no fragment nor SQL function", name)
		}
	}
}

var (
	sqlName         = regexp.MustCompile(`^[a-z]+(_[a-z]+)+$`)
	createdFunction = regexp.MustCompile(`(?i)CREATE (?:OR REPLACE )?FUNCTION (\w+)\(`)
)

// configDoc is the document whose section Project configuration describes
// every project configuration key: the admins' guide, since admins set them.
var configDoc = filepath.Join("..", "docs", "ADMIN.md")

// TestConfigKeysDocumented: every project configuration key has its row
// in docs/ADMIN.md's configuration table, and every key the table names is
// one.
func TestConfigKeysDocumented(t *testing.T) {
	documented := map[string]bool{}
	for _, row := range tableRows(docSection(t, configDoc, "Project configuration")) {
		for _, name := range codeSpans(row[0]) {
			documented[name] = true
			if _, err := projects.KeyNamed(name); err != nil {
				t.Errorf("docs/ADMIN.md's configuration table names %s: %v", name, err)
			}
		}
	}
	for _, k := range projects.Keys {
		if !documented[k.Name] {
			t.Errorf("configuration key %s has no row in docs/ADMIN.md's configuration table (section Project configuration)", k.Name)
		}
	}
}

// TestConfigRangesDocumented: every whole-number key's row in docs/ADMIN.md's
// configuration table gives the range of the key's table entry, "MIN to
// MAX" (projects.TestCountKeysTakeTheirRange holds the key to it).
func TestConfigRangesDocumented(t *testing.T) {
	rows := map[string]string{}
	for _, row := range tableRows(docSection(t, configDoc, "Project configuration")) {
		for _, name := range codeSpans(row[0]) {
			rows[name] = strings.Join(row[1:], " | ")
		}
	}
	for _, k := range projects.Keys {
		if k.Range == nil {
			continue
		}
		if want := views.FormatInt(k.Range.Min) + " to " + views.FormatInt(k.Range.Max); !strings.Contains(rows[k.Name], want) {
			t.Errorf("docs/ADMIN.md's row of %s does not say %q: %q", k.Name, want, rows[k.Name])
		}
	}
}

// route is a route of the table in routes.go: its method and path, and
// its name in the metrics.
type route struct{ method, path, name string }

// shape is a route's method and path with every segment that holds a
// wildcard as "*" (routes.go's {target} and the docs' {project}-{key}
// alike) and the query left out.
func (r route) shape() string {
	path, _, _ := strings.Cut(r.path, "?")
	path = strings.TrimSuffix(path, "{$}")
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.Contains(s, "{") {
			segs[i] = "*"
		}
	}
	return r.method + " " + strings.Join(segs, "/")
}

// codeRoutes reads the routes outside the admin panel from the source of
// Routes: the ServeMux patterns, a project's pages, the warrior actions
// and the item status route, each with the name it is counted under. It
// fails when it finds none of one kind: the test must follow the route
// table when its shape changes.
func codeRoutes(t *testing.T) []route {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "routes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	str := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil
	}
	// nameOf is the name of named("name", ...).
	nameOf := func(e ast.Expr) (string, bool) {
		call, ok := e.(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return "", false
		}
		if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "named" {
			return "", false
		}
		return str(call.Args[0])
	}
	var routes []route
	found := map[string]int{}
	ast.Inspect(f, func(n ast.Node) bool {
		if fn, ok := n.(*ast.FuncDecl); ok && fn.Name.Name != "Routes" {
			return false // adminRoutes and the middleware
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Handle" || len(n.Args) != 2 {
				return true
			}
			pattern, ok := str(n.Args[0])
			if !ok {
				return true // the admin routes, from adminRoutes
			}
			method, path, _ := strings.Cut(pattern, " ")
			if name, ok := nameOf(n.Args[1]); ok {
				if strings.HasSuffix(path, "/") {
					path += "{...}" // a subtree
				}
				routes = append(routes, route{method, path, name})
				found["mux"]++
				return true
			}
			pages, ok := n.Args[1].(*ast.CompositeLit)
			if id, isIdent := pages.Type.(*ast.Ident); !ok || !isIdent || id.Name != "projectPages" {
				t.Fatalf("routes.go: %s is served by something this test does not read", pattern)
			}
			for _, e := range pages.Elts {
				kv := e.(*ast.KeyValueExpr)
				if k, _ := kv.Key.(*ast.Ident); k == nil || k.Name != "routes" {
					continue
				}
				for _, e := range kv.Value.(*ast.CompositeLit).Elts {
					kv := e.(*ast.KeyValueExpr)
					rest, _ := str(kv.Key)
					name, _ := nameOf(kv.Value)
					if strings.HasSuffix(rest, "/") {
						rest += "{...}"
					}
					routes = append(routes, route{"GET", "/{project}/" + rest, name})
					found["pages"]++
				}
			}
		case *ast.RangeStmt:
			// for action, fn := range map[string]...{"request": ...}: the
			// warrior protocol's actions, named for themselves.
			if k, ok := n.Key.(*ast.Ident); !ok || k.Name != "action" {
				return true
			}
			for _, e := range n.X.(*ast.CompositeLit).Elts {
				action, _ := str(e.(*ast.KeyValueExpr).Key)
				routes = append(routes, route{"POST", "/{project}/" + action, action})
				found["warrior"]++
			}
		case *ast.CompositeLit:
			// itemRoute{named("item", ...)}: the paths itemPath matches.
			if id, ok := n.Type.(*ast.Ident); ok && id.Name == "itemRoute" {
				name, _ := nameOf(n.Elts[0])
				routes = append(routes, route{"GET", "/{project}/items/{item}.json", name})
				found["item"]++
			}
		}
		return true
	})
	for _, kind := range []string{"mux", "pages", "warrior", "item"} {
		if found[kind] == 0 {
			t.Fatalf("routes.go: no %s routes read: is Routes still built as this test reads it?", kind)
		}
	}
	return slices.DeleteFunc(routes, func(r route) bool { return r.name == "admin" })
}

// TestRoutesDocumented: every route outside the admin panel is in
// docs/PROTOCOL.md's route table under its name, the table lists no route
// the tracker does not serve, and no project can take a route's first
// path segment as its slug.
func TestRoutesDocumented(t *testing.T) {
	code := codeRoutes(t)
	var documented []route
	for _, row := range tableRows(docSection(t, filepath.Join("..", "docs", "PROTOCOL.md"), "Routes")) {
		spans, names := codeSpans(row[0]), codeSpans(row[1])
		if len(spans) != 1 || len(names) != 1 {
			t.Errorf("docs/PROTOCOL.md, Routes: a row is not | `METHOD PATH` | `name` | ...: %q", row)
			continue
		}
		method, path, _ := strings.Cut(spans[0], " ")
		documented = append(documented, route{method, path, names[0]})
	}
	same := func(a route) func(route) bool {
		return func(b route) bool { return a.name == b.name && a.shape() == b.shape() }
	}
	for _, r := range code {
		if !slices.ContainsFunc(documented, same(r)) {
			t.Errorf("route %s %s (%s) is not in docs/PROTOCOL.md's route table (section Routes)", r.method, r.path, r.name)
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(r.path, "/"), "/")
		if first != "" && !strings.Contains(first, "{") && projects.ValidSlug(first) == nil {
			t.Errorf("route %s %s: a project may take the slug %q", r.method, r.path, first)
		}
	}
	for _, r := range documented {
		if !slices.ContainsFunc(code, same(r)) {
			t.Errorf("docs/PROTOCOL.md's route table lists %s %s (%s), which routes.go does not serve so", r.method, r.path, r.name)
		}
	}
}
