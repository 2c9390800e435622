package main

import (
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

// readmeSection is the text of README.md's section under the level-2
// heading named, up to the next one.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
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

// every is an interval as README.md's jobs table writes it.
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
// with its default interval, in README.md's jobs table, and its row in
// docs/DESIGN.md's; neither table names a job that is gone.
func TestJobsDocumented(t *testing.T) {
	a := &app{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	jobs := a.jobRunner(&database{}).Jobs()
	if len(jobs) == 0 {
		t.Fatal("no jobs")
	}
	readme := jobRows(readmeSection(t, "Background jobs"))
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
		switch row, ok := readme[j.Name]; {
		case !ok:
			t.Errorf("job %s has no row in README.md's jobs table (section Background jobs)", j.Name)
		case row[1] != every(j.Every):
			t.Errorf("README.md's jobs table runs %s every %q; it runs every %s", j.Name, row[1], every(j.Every))
		}
		if _, ok := designRows[j.Name]; !ok {
			t.Errorf("job %s has no row in docs/DESIGN.md's jobs table (section Background jobs)", j.Name)
		}
	}
	for name := range readme {
		if !slices.Contains(names, name) {
			t.Errorf("README.md's jobs table names %s, which is no job", name)
		}
	}
	for name := range designRows {
		if !slices.Contains(names, name) {
			t.Errorf("docs/DESIGN.md's jobs table names %s, which is no job", name)
		}
	}
}

// TestCommandsDocumented: every command has its usage line in README.md's
// list of commands, and the list names no command that is gone. A line
// may give alternatives of a word: "tracker block add|remove ..." is
// "block add" and "block remove".
func TestCommandsDocumented(t *testing.T) {
	_, block, _ := strings.Cut(readmeSection(t, "Commands"), "```\n")
	block, _, _ = strings.Cut(block, "```")
	var documented []string
	for line := range strings.Lines(block) {
		words, ok := strings.CutPrefix(strings.TrimSpace(line), "tracker ")
		if !ok {
			t.Errorf("README.md, Commands: %q is no usage line", line)
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
			t.Errorf("command %q has no usage line in README.md (section Commands)", c.name)
		}
	}
	for _, name := range documented {
		if !slices.Contains(code, name) {
			t.Errorf("README.md's commands list %q, which is no command", name)
		}
	}
}
