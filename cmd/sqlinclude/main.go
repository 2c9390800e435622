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
// statements name it. The output is committed, as the code sqlc makes
// from it is.
//
//	go run ./cmd/sqlinclude -queries db/queries -fragments db/fragments -out db/expanded
//
// With -check, it writes nothing and fails when the output is not what it
// would write.
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
		// No header: sqlc would take it for the doc comment of the file's
		// first statement (db/expanded/README.md says what the files are).
		want[filepath.Base(f)] = []byte(expanded)
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
		for len(lines) > 0 && (strings.HasPrefix(lines[0], "--") || strings.TrimSpace(lines[0]) == "") {
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
	have, _ := filepath.Glob(filepath.Join(dir, "*.sql"))
	for _, f := range have {
		if _, ok := want[filepath.Base(f)]; !ok {
			stale = append(stale, filepath.Base(f))
		}
	}
	slices.Sort(stale)
	return stale
}

// write makes dir hold exactly the files of want.
func write(dir string, want map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	have, _ := filepath.Glob(filepath.Join(dir, "*.sql"))
	for _, f := range have {
		if _, ok := want[filepath.Base(f)]; !ok {
			if err := os.Remove(f); err != nil {
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
