package handlers

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocReferences checks that every reference in the code and the docs
// to a document resolves: the file is in the repository and the section
// named is one of its headings. A comment that cites a document outside
// the repository ("DESIGN.md" alone) fails too.
func TestDocReferences(t *testing.T) {
	root := ".."
	// docs/X.md, "Section"   or   [..](docs/X.md#anchor)   or a bare X.md.
	cited := regexp.MustCompile(`docs/([A-Z]+)\.md(?:, "([^"]+)"|#([a-z0-9-]+))?`)
	bare := regexp.MustCompile(`(^|[^/A-Za-z])(DESIGN|PROTOCOL|OPERATIONS|BENCHMARKS)\.md`)
	headings := map[string][]string{}
	heading := func(doc string) []string {
		if hs, ok := headings[doc]; ok {
			return hs
		}
		b, err := os.ReadFile(filepath.Join(root, "docs", doc+".md"))
		if err != nil {
			return nil
		}
		var hs []string
		for line := range strings.Lines(string(b)) {
			if strings.HasPrefix(line, "#") {
				hs = append(hs, strings.TrimSpace(strings.TrimLeft(line, "#")))
			}
		}
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if refs == 0 {
		t.Fatal("no references to docs/ found: is the walk looking at the repository?")
	}
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
