package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tracker/db/dbtest"
)

func TestDictionaryCommands(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	dir := t.TempDir()
	trackerOK(t, dsn, "", "project", "create", "demo")

	// Samples: pages alike in markup, different in text.
	var sampleFiles []string
	for i := range 30 {
		name := filepath.Join(dir, fmt.Sprintf("sample%d.html", i))
		page := fmt.Sprintf(`<html><head><title>Post %d</title></head><body><div class="post"><span class="author">user%d</span><p>Body %x of post %d.</p></div><div class="footer">Example board</div></body></html>`, i, i*5, i*2654435761, i)
		if err := os.WriteFile(name, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		sampleFiles = append(sampleFiles, name)
	}

	// Trained into a file, then installed from it; trained and installed.
	out := filepath.Join(dir, "demo.zstdict")
	if code, stdout, errOut := tracker(t, dsn, "", nil, append([]string{"dictionary", "train", "demo", "--max-size", "4096", "--out", out}, sampleFiles...)...); code != 0 || !strings.Contains(stdout, "written to") {
		t.Fatalf("train --out: exit %d: %s%s", code, stdout, errOut)
	}
	if code, stdout, errOut := tracker(t, dsn, "", nil, "dictionary", "set", "demo", out); code != 0 || !regexp.MustCompile(`^dictionary [0-9]{10} installed for demo `).MatchString(stdout) {
		t.Fatalf("set: exit %d: %s%s", code, stdout, errOut)
	}
	if code, stdout, errOut := tracker(t, dsn, "", nil, append([]string{"dictionary", "train", "demo"}, sampleFiles...)...); code != 0 || !regexp.MustCompile(`^dictionary [0-9]{10} installed for demo `).MatchString(stdout) {
		t.Fatalf("train: exit %d: %s%s", code, stdout, errOut)
	}

	// Not a dictionary: exit 1, saying why; nothing installed.
	bad := filepath.Join(dir, "bad.zstdict")
	if err := os.WriteFile(bad, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := tracker(t, dsn, "", nil, "dictionary", "set", "demo", bad); code != 1 || !strings.Contains(errOut, "does not start with the dictionary magic 37 A4 30 EC") {
		t.Fatalf("bad file: exit %d: %s", code, errOut)
	}
	if code, _, errOut := tracker(t, dsn, "", nil, "dictionary", "set", "missing", out); code != 1 {
		t.Fatalf("unknown project: exit %d: %s", code, errOut)
	}
	if code, _, _ := tracker(t, dsn, "", nil, "dictionary", "train", "demo", "--max-size", "10", sampleFiles[0]); code != 2 {
		t.Fatalf("--max-size 10: exit %d, want 2", code)
	}

	code, stdout, errOut := tracker(t, dsn, "", nil, "dictionary", "list", "demo")
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, errOut)
	}
	var list []dictionaryJSON
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("list printed %q: %v", stdout, err)
	}
	if len(list) != 2 || list[0].ID <= list[1].ID || list[1].ID < 1e9 || list[0].ID > 1e10-1 || !list[0].Served || list[1].Served || len(list[0].SHA256) != 64 || list[1].Bytes > 4096 {
		t.Fatalf("list %+v", list)
	}
}
