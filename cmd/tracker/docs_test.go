package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// opsSection is the text of docs/OPERATIONS.md's section under the
// level-2 heading named, up to the next one: the operators' guide holds
// the commands and the jobs.
func opsSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "OPERATIONS.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("docs/OPERATIONS.md has no section %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// jobRows maps the first cell of each row of a section's table (a job's
// `name`) to the row's cells.
func jobRows(section string) map[string][]string {
	rows := map[string][]string{}
	for line := range strings.Lines(section) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 3 || cells[0] != "" {
			continue
		}
		name := strings.TrimSpace(cells[1])
		if !strings.HasPrefix(name, "`") {
			continue // the header and its rule
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows[strings.Trim(name, "`")] = cells[1:]
	}
	return rows
}

// every is an interval as docs/OPERATIONS.md's jobs table writes it.
func every(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	default:
		return fmt.Sprintf("%g s", d.Seconds())
	}
}

// TestJobsDocumented: every background job the tracker runs has its row,
// with its default interval, in docs/OPERATIONS.md's jobs table, and its row in
// docs/DESIGN.md's; neither table names a job that is gone.
func TestJobsDocumented(t *testing.T) {
	a := &app{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	jobs := a.jobRunner(&database{}).Jobs()
	if len(jobs) == 0 {
		t.Fatal("no jobs")
	}
	ops := jobRows(opsSection(t, "Background jobs"))
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "DESIGN.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, design, _ := strings.Cut(string(b), "\n## Background jobs\n")
	design, _, _ = strings.Cut(design, "\n## ")
	designRows := jobRows(design)
	var names []string
	for _, j := range jobs {
		names = append(names, j.Name)
		switch row, ok := ops[j.Name]; {
		case !ok:
			t.Errorf("job %s has no row in docs/OPERATIONS.md's jobs table (section Background jobs)", j.Name)
		case row[1] != every(j.Every):
			t.Errorf("docs/OPERATIONS.md's jobs table runs %s every %q; it runs every %s", j.Name, row[1], every(j.Every))
		}
		if _, ok := designRows[j.Name]; !ok {
			t.Errorf("job %s has no row in docs/DESIGN.md's jobs table (section Background jobs)", j.Name)
		}
	}
	for name := range ops {
		if !slices.Contains(names, name) {
			t.Errorf("docs/OPERATIONS.md's jobs table names %s, which is no job", name)
		}
	}
	for name := range designRows {
		if !slices.Contains(names, name) {
			t.Errorf("docs/DESIGN.md's jobs table names %s, which is no job", name)
		}
	}
}

// TestCommandsDocumented: every command has its usage line in
// docs/OPERATIONS.md's list of commands, and the list names no command
// that is gone. A line
// may give alternatives of a word: "tracker block add|remove ..." is
// "block add" and "block remove".
func TestCommandsDocumented(t *testing.T) {
	_, block, _ := strings.Cut(opsSection(t, "Commands"), "```\n")
	block, _, _ = strings.Cut(block, "```")
	var documented []string
	for line := range strings.Lines(block) {
		words, ok := strings.CutPrefix(strings.TrimSpace(line), "tracker ")
		if !ok {
			t.Errorf("docs/OPERATIONS.md, Commands: %q is no usage line", line)
			continue
		}
		names := []string{""}
		for _, w := range strings.Fields(words) {
			if strings.ToLower(w) != w || strings.ContainsAny(w, "[-=") {
				break // the arguments
			}
			var next []string
			for _, n := range names {
				for alt := range strings.SplitSeq(w, "|") {
					next = append(next, strings.TrimSpace(n+" "+alt))
				}
			}
			names = next
		}
		documented = append(documented, names...)
	}
	var code []string
	for _, c := range commands(func(string) string { return "" }) {
		code = append(code, c.name)
		if !slices.Contains(documented, c.name) {
			t.Errorf("command %q has no usage line in docs/OPERATIONS.md (section Commands)", c.name)
		}
	}
	for _, name := range documented {
		if !slices.Contains(code, name) {
			t.Errorf("docs/OPERATIONS.md's commands list %q, which is no command", name)
		}
	}
}

// TestFlagsDocumented: every flag of serve, and the ones every command
// takes, has its row in docs/OPERATIONS.md's configuration table with its
// environment variable, and the table names no flag that is gone.
func TestFlagsDocumented(t *testing.T) {
	documented := map[string]string{} // flag: the row's environment cell
	for line := range strings.Lines(opsSection(t, "Configuration")) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 4 || cells[0] != "" {
			continue
		}
		for i, span := range strings.Split(cells[1], "`") {
			if i%2 == 1 && strings.HasPrefix(span, "--") {
				documented[strings.TrimPrefix(span, "--")] = cells[2]
			}
		}
	}
	code := map[string]bool{}
	for _, c := range commands(func(string) string { return "" }) {
		if c.name != "serve" {
			continue
		}
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		c.setup(fs)
		for _, name := range []string{"data-dir", "archive-dir", "audit-retention"} {
			fs.String(name, "", "") // every command's, which dispatch adds
		}
		fs.VisitAll(func(f *flag.Flag) {
			code[f.Name] = true
			switch env, ok := documented[f.Name]; {
			case !ok:
				t.Errorf("flag --%s has no row in docs/OPERATIONS.md's configuration table (section Configuration)", f.Name)
			case !strings.Contains(env, "`"+envName(f.Name)+"`"):
				t.Errorf("docs/OPERATIONS.md's row of --%s does not name $%s: %q", f.Name, envName(f.Name), env)
			}
		})
	}
	if len(code) == 0 {
		t.Fatal("no flags of serve found")
	}
	for name := range documented {
		if !code[name] {
			t.Errorf("docs/OPERATIONS.md's configuration table names --%s, which serve does not take", name)
		}
	}
}
