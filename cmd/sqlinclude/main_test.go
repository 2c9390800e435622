package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An include line becomes its fragment, each line indented as the include
// is, with what stood before the include kept before its first line; a
// comment that merely speaks of includes is left alone; an unknown
// fragment is an error.
func TestExpand(t *testing.T) {
	frags := map[string]string{
		"one": "INSERT INTO t\nSELECT 1",
		"two": "a AS (\n    SELECT 2\n), b AS (\n    SELECT 3",
	}
	src := strings.Join([]string{
		"WITH x AS (",
		"    -- include: one",
		"), -- include: two",
		")",
		"-- an include line is -- include: one on a line of its own",
		"SELECT 4;",
	}, "\n")
	got, err := expand(src, frags)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"WITH x AS (",
		"    INSERT INTO t",
		"    SELECT 1",
		"), a AS (",
		"    SELECT 2",
		"), b AS (",
		"    SELECT 3",
		")",
		"-- an include line is -- include: one on a line of its own",
		"SELECT 4;",
	}, "\n")
	if got != want {
		t.Errorf("expanded:\n%s\nwant:\n%s", got, want)
	}
	if _, err := expand("    -- include: three\n", frags); err == nil || !strings.Contains(err.Error(), "three") {
		t.Errorf("an unknown fragment: %v", err)
	}

	// A fragment including another; one including itself is refused.
	frags["outer"] = "c AS (\n    -- include: one\n)"
	if got, err := expand("WITH -- include: outer\nSELECT 5;", frags); err != nil || got != "WITH c AS (\n    INSERT INTO t\n    SELECT 1\n)\nSELECT 5;" {
		t.Errorf("nested: %q, %v", got, err)
	}
	frags["loop"] = "-- include: loop"
	if _, err := expand("-- include: loop\n", frags); err == nil {
		t.Error("a fragment including itself was expanded")
	}
}

// maxStatementLines bounds a statement as written in db/queries: a longer
// one is split into fragments of one concern each, which a reader takes
// one at a time.
const maxStatementLines = 120

// Every statement of db/queries, its leading comment included, stays
// within maxStatementLines.
func TestStatementsShort(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "db", "queries", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no statements read: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name, lines := "", 0
		check := func() {
			if name != "" && lines > maxStatementLines {
				t.Errorf("%s: %s is %d lines, more than %d: split it into fragments (db/fragments)", filepath.Base(f), name, lines, maxStatementLines)
			}
		}
		for _, l := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(l, "-- name: "); ok {
				check()
				name, lines = strings.Fields(rest)[0], 0
			}
			lines++
		}
		check()
	}
}
