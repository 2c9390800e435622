package main

import (
	"os"
	"path/filepath"
	"regexp"
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

// A block keeps PostgreSQL's part in the statements sqlc reads for
// package db and Citus's in those for db/citus, which hold only the
// statements that differ, whole; a statement named inside a Citus part is
// Citus's alone; blocks nest; a block left open or an else out of place is
// an error.
func TestDialects(t *testing.T) {
	src := strings.Join([]string{
		"-- name: Same :one",
		"SELECT 1;",
		"",
		"-- name: Both :exec",
		"DELETE FROM t",
		"    -- if citus",
		"    -- By key: why.",
		"    WHERE t.k = 1",
		"    -- else",
		"    WHERE t.ctid = '(0,1)'",
		"    -- end if",
		";",
		"-- if citus",
		"",
		"-- name: CitusOnly :many",
		"SELECT 2",
		"-- if postgres",
		"never",
		"-- end if",
		";",
		"-- end if",
		"",
	}, "\n")
	postgres, citus, err := dialects(src)
	if err != nil {
		t.Fatal(err)
	}
	wantPostgres := "-- name: Same :one\nSELECT 1;\n\n-- name: Both :exec\nDELETE FROM t\n    WHERE t.ctid = '(0,1)'\n;\n"
	if postgres != wantPostgres {
		t.Errorf("PostgreSQL's:\n%q\nwant:\n%q", postgres, wantPostgres)
	}
	wantCitus := "-- name: Both :exec\nDELETE FROM t\n    -- By key: why.\n    WHERE t.k = 1\n;\n\n-- name: CitusOnly :many\nSELECT 2\n;\n"
	if citus != wantCitus {
		t.Errorf("Citus's:\n%q\nwant:\n%q", citus, wantCitus)
	}
	if _, citus, _ := dialects("-- name: A :one\nSELECT 1;\n"); citus != "" {
		t.Errorf("a file without blocks has Citus statements: %q", citus)
	}

	for _, bad := range []string{
		"-- if citus\nSELECT 1;\n",
		"SELECT 1;\n-- else\n",
		"SELECT 1;\n-- end if\n",
		"-- if citus\na\n-- else\nb\n-- else\nc\n-- end if\n",
	} {
		if _, _, err := dialects(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A fragment's block survives the fragment's leading comment being left
// out, and includes inside a block are put in.
func TestDialectsOfFragments(t *testing.T) {
	frags := map[string]string{
		"part": "x AS (\n    -- if citus\n    SELECT 1\n    -- else\n    SELECT 2\n    -- end if\n)",
	}
	expanded, err := expand("-- name: F :one\nWITH -- include: part\nSELECT * FROM x;\n", frags)
	if err != nil {
		t.Fatal(err)
	}
	postgres, citus, err := dialects(expanded)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(postgres, "SELECT 2") || strings.Contains(postgres, "SELECT 1") {
		t.Errorf("PostgreSQL's: %q", postgres)
	}
	if !strings.Contains(citus, "SELECT 1") || strings.Contains(citus, "SELECT 2") {
		t.Errorf("Citus's: %q", citus)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.sql"), []byte("-- What it is.\n-- if citus\nA\n-- end if\nB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := readFragments(dir)
	if err != nil {
		t.Fatal(err)
	}
	if read["f"] != "-- if citus\nA\n-- end if\nB" {
		t.Errorf("fragment read as %q", read["f"])
	}
}

// Each device of the statements (see the package comment) carries its
// name, so its one reason is found from every place it stands.
func TestDevicesNamed(t *testing.T) {
	devices := []struct {
		name string
		re   *regexp.Regexp
	}{
		{"fence", regexp.MustCompile(`OFFSET 0`)},
		{"after", regexp.MustCompile(`\(SELECT count\(\*\) FROM \w+\) >= 0`)},
		{"tid", regexp.MustCompile(`\(ARRAY\(SELECT \w+\.ctid\)\)\[1\]`)},
	}
	var files []string
	for _, dir := range []string{"queries", "fragments"} {
		f, err := filepath.Glob(filepath.Join("..", "..", "db", dir, "*.sql"))
		if err != nil || len(f) == 0 {
			t.Fatalf("no statements in db/%s: %v", dir, err)
		}
		files = append(files, f...)
	}
	seen := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "--")
			for _, d := range devices {
				for _, loc := range d.re.FindAllStringIndex(code, -1) {
					seen[d.name]++
					if !strings.HasPrefix(code[loc[1]:], " /* "+d.name+" */") {
						t.Errorf("%s:%d: %q without its name /* %s */", filepath.Base(f), i+1, code[loc[0]:loc[1]], d.name)
					}
				}
			}
		}
	}
	for _, d := range devices {
		if seen[d.name] == 0 {
			t.Errorf("no %s found: the test reads nothing", d.name)
		}
	}
}
