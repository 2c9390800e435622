package e2e

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/pgcluster"
)

// pgctl runs pg_ctl on the embedded cluster of dataDir, as the account
// PostgreSQL runs as.
func pgctl(t *testing.T, dataDir string, args ...string) {
	t.Helper()
	bins, err := pgcluster.FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{bins.PgCtl}, append(args, "--pgdata", filepath.Join(dataDir, "pgdata"))...)
	if os.Geteuid() == 0 {
		args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// PostgreSQL goes away for 10 s under a running tracker: requests get a
// prompt 503 with Retry-After (no hang, no 500), and the tracker carries
// on by itself when the database is back.
func TestDatabaseAway(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	s := serve(t, dir)
	defer s.stop(t)
	cli(t, "", "project", "create", "demo", "--data-dir", dir)
	cli(t, "a:1\na:2\na:3\n", "items", "add", "demo", "--data-dir", dir)
	if code, _ := post(t, s.url+"/demo/request", `{"downloader":"alice"}`); code != 200 {
		t.Fatalf("request before: %d", code)
	}

	pgctl(t, dir, "stop", "--mode", "immediate", "--wait")
	down := time.Now()
	client := &http.Client{Timeout: 30 * time.Second}
	for _, path := range []string{"/demo/request", "/demo/done"} {
		start := time.Now()
		resp, err := client.Post(s.url+path, "application/json", strings.NewReader(`{"downloader":"alice","item":"a:1","bytes":{"data":1}}`))
		if err != nil {
			t.Fatalf("%s while the database is away: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || resp.Header.Get("X-Tracker-Reason") != "database-unavailable" {
			t.Errorf("%s while the database is away: %d %q", path, resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("%s took %s to answer", path, d)
		}
	}
	if code := get(t, s.url+"/healthz"); code != 503 {
		t.Errorf("healthz while the database is away: %d", code)
	}
	time.Sleep(10*time.Second - time.Since(down))
	pgctl(t, dir, "start", "--wait", "--log", filepath.Join(dir, "postgres.log"))

	// Back: the same process answers again, within a few tries.
	dbtest.Eventually(t, func() bool {
		code, body := post(t, s.url+"/demo/request", `{"downloader":"bob"}`)
		if code != 200 && code != 503 {
			t.Fatalf("after the database came back: %d %q", code, body)
		}
		return code == 200
	}, "a request served after the database came back")
	if code, body := post(t, s.url+"/demo/done", `{"downloader":"alice","item":"a:1","bytes":{"data":1}}`); code != 200 || body != "OK" {
		t.Fatalf("done after: %d %q", code, body)
	}
}

// A client that never finishes its request headers is cut off after the
// server's header timeout, instead of holding a connection for ever.
func TestSlowClientCutOff(t *testing.T) {
	t.Parallel()
	s := serve(t, dataDir(t))
	defer s.stop(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /demo/request HTTP/1.1\r\nHost: tracker\r\n")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(40 * time.Second))
	buf := make([]byte, 512)
	for {
		if _, err := conn.Read(buf); err != nil {
			break // closed by the server (or our deadline, checked below)
		}
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the half-sent request held its connection for %s", d)
	}
}
