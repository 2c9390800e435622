// Command sqlinclude writes the statements as sqlc reads them: each file of
// db/queries with its include lines put in. A line
//
//	-- include: counters_add
//
// is replaced by the text of db/fragments/counters_add.sql (its leading
// comment left out), each line indented as the include line is; what
// stands before the include on its line ("), " closing the CTE before)
// stays, before the fragment's first line. A fragment may include
// others. A rule
// that several statements must carry in the same words (the counters'
// upsert, the sites' counts) is so written once, in its fragment; the
// statements name it.
//
// A part a Citus database runs its own way is written both ways, in a
// block a statement or fragment holds:
//
//	-- if citus
//	...what Citus runs, with why...
//	-- else
//	...what PostgreSQL runs...
//	-- end if
//
// (the else part may be left out: then PostgreSQL runs nothing there; a
// block opened by "-- if postgres" holds PostgreSQL's part first). The
// PostgreSQL text goes to -out, which sqlc reads for package db; the
// statements whose Citus text differs go, whole, to -out/citus, which sqlc
// reads for package db/citus (a statement named inside an "if citus" part
// is Citus's alone). So both drivers come from the same sources, and the
// difference is there to read in the two files. The output is committed,
// as the code sqlc makes from it is.
//
//	go run ./cmd/sqlinclude -queries db/queries -fragments db/fragments -out db/expanded
//
// With -check, it writes nothing and fails when the output is not what it
// would write.
//
// Three devices carry an order or a plan where SQL has no word for them.
// Each is written with its name in a comment right after it, and its
// reason is given here, once (TestDevicesNamed holds the statements to it):
//
//   - OFFSET 0 /* fence */ closes a subquery that is planned on its own, as
//     written, never pulled up into the query around it: a lookup for each
//     row of the part around it stays one probe of an index a row (pulled
//     up into a join, it could be planned as a read of all the project's
//     rows, as it was before statistics), and what the subquery computes it
//     computes once a row (an expression both shown and summed is computed
//     twice).
//   - (SELECT count(*) FROM x) >= 0 /* after */, always true, makes a part
//     of a statement read part x, so x has run to its end first: its deletes
//     and its locks are done before this part writes (a part that reads no
//     other runs in an order of PostgreSQL's choosing).
//   - (ARRAY(SELECT t.ctid))[1] /* tid */ is row t's physical address, read
//     through a subquery because sqlc knows no system column outside one:
//     the rows locked are then deleted by their address, without a second
//     walk down the index.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// include is an include line: its indentation, what comes before the
// include on the line (such as "), " ending the CTE before), and the
// fragment's name.
var include = regexp.MustCompile(`(?m)^([ \t]*)([^\n]*?)-- include: ([a-z0-9_]+)[ \t]*$`)

func main() {
	queries := flag.String("queries", "db/queries", "the statements, with include lines")
	fragments := flag.String("fragments", "db/fragments", "the fragments they include")
	out := flag.String("out", "db/expanded", "where the statements go with their includes put in")
	check := flag.Bool("check", false, "write nothing; fail when the output is stale")
	flag.Parse()
	log.SetFlags(0)

	frags, err := readFragments(*fragments)
	if err != nil {
		log.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(*queries, "*.sql"))
	if err != nil || len(files) == 0 {
		log.Fatalf("no statements in %s (%v)", *queries, err)
	}
	want := map[string][]byte{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		expanded, err := expand(string(src), frags)
		if err != nil {
			log.Fatalf("%s: %v", f, err)
		}
		postgres, citus, err := dialects(expanded)
		if err != nil {
			log.Fatalf("%s: %v", f, err)
		}
		// No header: sqlc would take it for the doc comment of the file's
		// first statement (db/expanded/README.md says what the files are).
		want[filepath.Base(f)] = []byte(postgres)
		if citus != "" {
			want[filepath.Join("citus", filepath.Base(f))] = []byte(citus)
		}
	}
	if *check {
		if stale := compare(*out, want); len(stale) > 0 {
			log.Fatalf("%s is stale (%s): run 'make generate' and commit", *out, strings.Join(stale, ", "))
		}
		return
	}
	if err := write(*out, want); err != nil {
		log.Fatal(err)
	}
}

// readFragments reads every fragment of dir by name, without its leading
// comment lines (what it is and why, for whoever reads the fragment).
func readFragments(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no fragments in %s (%v)", dir, err)
	}
	frags := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		for len(lines) > 0 && !marker(lines[0]) && (strings.HasPrefix(lines[0], "--") || strings.TrimSpace(lines[0]) == "") {
			lines = lines[1:]
		}
		if len(lines) == 0 {
			return nil, fmt.Errorf("%s: no text", f)
		}
		frags[strings.TrimSuffix(filepath.Base(f), ".sql")] = strings.Join(lines, "\n")
	}
	return frags, nil
}

// expand puts each include line's fragment in its place, and the
// fragments those include in theirs, a few levels deep at most.
func expand(src string, frags map[string]string) (string, error) {
	for range 5 {
		out, err := expandOnce(src, frags)
		if err != nil {
			return "", err
		}
		if !include.MatchString(out) {
			return out, nil
		}
		src = out
	}
	return "", fmt.Errorf("includes nested more than 5 deep (one includes itself?)")
}

// expandOnce puts each include line's fragment in its place.
func expandOnce(src string, frags map[string]string) (string, error) {
	var missing []string
	out := include.ReplaceAllStringFunc(src, func(line string) string {
		m := include.FindStringSubmatch(line)
		text, ok := frags[m[3]]
		if !ok {
			missing = append(missing, m[3])
			return line
		}
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			switch {
			case i == 0:
				lines[i] = m[1] + m[2] + l
			case l != "":
				lines[i] = m[1] + l
			}
		}
		return strings.Join(lines, "\n")
	})
	if missing != nil {
		return "", fmt.Errorf("no fragment %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// The lines that open, divide and close a part written for each database.
const (
	ifCitus    = "-- if citus"
	ifPostgres = "-- if postgres"
	orElse     = "-- else"
	endIf      = "-- end if"
)

// marker reports whether l is one of those lines.
func marker(l string) bool {
	switch strings.TrimSpace(l) {
	case ifCitus, ifPostgres, orElse, endIf:
		return true
	}
	return false
}

// dialects returns the statements of an expanded file as PostgreSQL runs
// them, and those of its statements that Citus runs otherwise, as Citus
// runs them ("" when none).
func dialects(src string) (postgres, citus string, err error) {
	if postgres, err = dialect(src, false); err != nil {
		return "", "", err
	}
	citusAll, err := dialect(src, true)
	if err != nil {
		return "", "", err
	}
	plain := map[string]string{}
	for _, s := range statements(postgres) {
		plain[s.name] = s.text
	}
	var b strings.Builder
	for _, s := range statements(citusAll) {
		// Blank lines a block leaves at a statement's end are not a difference.
		if text, ok := plain[s.name]; !ok || strings.TrimSpace(text) != strings.TrimSpace(s.text) {
			b.WriteString(s.text)
		}
	}
	return postgres, b.String(), nil
}

// dialect keeps, of each if-citus block of src, the part the database
// runs, and drops the block's marker lines.
func dialect(src string, citus bool) (string, error) {
	// Outside a block every line is kept; inside, those of the part for
	// the database asked for. Blocks nest (a fragment with one included
	// in a statement Citus's alone): a line is kept when every block it is
	// in keeps it.
	type part struct {
		forCitus, elsePart bool
		opened             int
	}
	var open []part
	var out []string
	for i, l := range strings.SplitAfter(src, "\n") {
		switch m := strings.TrimSpace(l); m {
		case ifCitus, ifPostgres:
			open = append(open, part{forCitus: m == ifCitus, opened: i + 1})
			continue
		case orElse:
			if len(open) == 0 || open[len(open)-1].elsePart {
				return "", fmt.Errorf("line %d: %q outside the first part of a block", i+1, orElse)
			}
			p := &open[len(open)-1]
			p.elsePart, p.forCitus = true, !p.forCitus
			continue
		case endIf:
			if len(open) == 0 {
				return "", fmt.Errorf("line %d: %q outside a block", i+1, endIf)
			}
			open = open[:len(open)-1]
			continue
		}
		if !slices.ContainsFunc(open, func(p part) bool { return p.forCitus != citus }) {
			out = append(out, l)
		}
	}
	if len(open) > 0 {
		return "", fmt.Errorf("line %d: the block is not closed by %q", open[len(open)-1].opened, endIf)
	}
	return strings.Join(out, ""), nil
}

// A statement of a file: its name and its text, from its name line to the
// next statement's.
type statement struct{ name, text string }

// statements splits a file into its statements (what precedes the first
// is left out).
func statements(src string) []statement {
	var all []statement
	for _, l := range strings.SplitAfter(src, "\n") {
		if rest, ok := strings.CutPrefix(l, "-- name: "); ok {
			all = append(all, statement{name: strings.Fields(rest)[0]})
		}
		if len(all) > 0 {
			all[len(all)-1].text += l
		}
	}
	return all
}

// compare lists the files of dir that differ from want, are missing, or
// are not wanted.
func compare(dir string, want map[string][]byte) []string {
	var stale []string
	for name, b := range want {
		have, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(have, b) {
			stale = append(stale, name)
		}
	}
	for _, name := range written(dir) {
		if _, ok := want[name]; !ok {
			stale = append(stale, name)
		}
	}
	slices.Sort(stale)
	return stale
}

// written lists the statement files of dir and dir/citus, by their names
// under dir.
func written(dir string) []string {
	var names []string
	for _, sub := range []string{"", "citus"} {
		files, _ := filepath.Glob(filepath.Join(dir, sub, "*.sql"))
		for _, f := range files {
			names = append(names, filepath.Join(sub, filepath.Base(f)))
		}
	}
	return names
}

// write makes dir hold exactly the files of want.
func write(dir string, want map[string][]byte) error {
	if err := os.MkdirAll(filepath.Join(dir, "citus"), 0o755); err != nil {
		return err
	}
	for _, name := range written(dir) {
		if _, ok := want[name]; !ok {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return err
			}
		}
	}
	for name, b := range want {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
