package nodes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// script writes an executable shell script standing in for the tracker.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tracker")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A command gets its arguments, the data directory and stdin; a failure
// carries what it wrote on standard error.
func TestRunCLI(t *testing.T) {
	bin := script(t, `if [ "$1" = fail ]; then echo "no such project" >&2; exit 1; fi
echo "$@"; cat`)
	out, _, err := RunCLI(bin, "/data", nil, strings.NewReader("stdin\n"), "items", "add", "p")
	if err != nil {
		t.Fatal(err)
	}
	if out != "items add p --data-dir /data\nstdin\n" {
		t.Errorf("printed %q", out)
	}
	_, _, err = RunCLI(bin, "/data", nil, strings.NewReader(""), "fail")
	if err == nil || !strings.Contains(err.Error(), "tracker fail") || !strings.Contains(err.Error(), "no such project") {
		t.Errorf("error %v, want the command and its stderr", err)
	}
}

// The tracker's URL is read from its log line, whatever port it took.
func TestStartTracker(t *testing.T) {
	bin := script(t, `echo 'time=x level=INFO msg="tracker listening" url=http://127.0.0.1:4321/' >&2
exec sleep 60`)
	tr, err := StartTracker(t.Context(), bin, "127.0.0.1:0", t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Stop()
	if tr.URL != "http://127.0.0.1:4321" || tr.PID() <= 0 {
		t.Errorf("URL %q, PID %d", tr.URL, tr.PID())
	}
}
