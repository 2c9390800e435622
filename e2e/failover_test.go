package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
	"tracker/pgcluster"
)

// pgAs runs a PostgreSQL program from the cluster binaries' folder, as the
// postgres account when the tests run as root.
func pgAs(t *testing.T, program string, args ...string) string {
	t.Helper()
	bins, err := pgcluster.FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{filepath.Join(filepath.Dir(bins.PgCtl), program)}, args...)
	if os.Geteuid() == 0 {
		argv = append([]string{"runuser", "-u", "postgres", "--"}, argv...)
	}
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// A primary and its synchronous streaming standby on loopback; the
// tracker is given both in DATABASE_URL with
// target_session_attrs=read-write. The primary dies, the standby is
// promoted, and the tracker carries on with it, every completion
// acknowledged before the failover still on record.
func TestFailoverToStandby(t *testing.T) {
	t.Parallel()
	dir := filepath.Dir(dataDir(t))
	primary, standby := filepath.Join(dir, "primary"), filepath.Join(dir, "standby")
	p1, p2 := freePort(t), freePort(t)
	for _, d := range []string{primary, standby} {
		pgDir(t, d)
	}
	pgAs(t, "initdb", "--pgdata", primary, "--username", "tracker", "--auth", "trust", "--encoding", "UTF8", "--no-locale", "--no-sync")
	conf := fmt.Sprintf("listen_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\nwal_level = replica\nmax_wal_senders = 4\nsynchronous_commit = on\n", p1, primary)
	appendFile(t, filepath.Join(primary, "postgresql.conf"), conf)
	appendFile(t, filepath.Join(primary, "pg_hba.conf"), "host replication tracker 127.0.0.1/32 trust\n")
	pgAs(t, "pg_ctl", "start", "--wait", "--pgdata", primary, "--log", filepath.Join(primary, "server.log"))
	t.Cleanup(func() { exec.Command("pkill", "-f", "-9", "postgres -D "+primary).Run() })
	pgAs(t, "createdb", "--host", "127.0.0.1", "--port", fmt.Sprint(p1), "--username", "tracker", "tracker")
	pgAs(t, "pg_basebackup", "--host", "127.0.0.1", "--port", fmt.Sprint(p1), "--username", "tracker",
		"--pgdata", standby, "--write-recovery-conf", "--wal-method", "stream", "--checkpoint", "fast")
	appendFile(t, filepath.Join(standby, "postgresql.conf"), fmt.Sprintf("port = %d\nunix_socket_directories = '%s'\n", p2, standby))
	pgAs(t, "pg_ctl", "start", "--wait", "--pgdata", standby, "--log", filepath.Join(standby, "server.log"))
	t.Cleanup(func() { pgAs(t, "pg_ctl", "stop", "--mode", "immediate", "--pgdata", standby) })
	// The standby synchronous from here on: a commit is acknowledged once
	// the standby has it, so nothing acknowledged is lost in the failover
	// (with asynchronous replication the last commits may be).
	pgAs(t, "psql", "--host", "127.0.0.1", "--port", fmt.Sprint(p1), "--username", "tracker", "--dbname", "tracker",
		"--command", "ALTER SYSTEM SET synchronous_standby_names = '*'", "--command", "SELECT pg_reload_conf()")
	dbtest.Eventually(t, func() bool {
		return strings.TrimSpace(pgAs(t, "psql", "--host", "127.0.0.1", "--port", fmt.Sprint(p1), "--username", "tracker", "--dbname", "tracker",
			"--tuples-only", "--no-align", "--command", "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")) == "1"
	}, "the standby synchronous")

	url := fmt.Sprintf("postgres://tracker@127.0.0.1:%d,127.0.0.1:%d/tracker?target_session_attrs=read-write&connect_timeout=3", p1, p2)
	withURL := env("DATABASE_URL=" + url)
	cliEnv(t, withURL, "", "project", "create", "demo")
	cliEnv(t, withURL, "a:1\na:2\na:3\na:4\n", "items", "add", "demo")
	s := serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0"), withURL)
	defer s.stop(t)

	code, body := post(t, s.url+"/demo/multi=2//request", `{"downloader":"alice"}`)
	if code != 200 {
		t.Fatalf("request: %d %q", code, body)
	}
	if code, body := post(t, s.url+"/demo/done", `{"downloader":"alice","item":"a:1\u0000a:2","bytes":{"data":1}}`); code != 200 || body != "OK" {
		t.Fatalf("done: %d %q", code, body)
	}
	// The primary dies; the standby is promoted.
	pgAs(t, "pg_ctl", "stop", "--mode", "immediate", "--pgdata", primary)
	pgAs(t, "pg_ctl", "promote", "--wait", "--pgdata", standby)

	failedOver := time.Now()
	dbtest.Eventually(t, func() bool {
		code, body = post(t, s.url+"/demo/multi=2//request", `{"downloader":"bob"}`)
		if code != 200 && code != 503 {
			t.Fatalf("request after the failover: %d %q", code, body)
		}
		return code == 200
	}, "a request served after the failover")
	t.Logf("serving again %s after the promotion", time.Since(failedOver).Round(time.Millisecond))
	if body != `{"item_name":"a:3\u0000a:4"}` {
		t.Fatalf("after the failover bob got %q", body)
	}
	if out := cliEnv(t, withURL, "", "check", "demo"); !strings.Contains(out, `"balanced": true`) {
		t.Fatalf("books after the failover:\n%s", out)
	}
	// The readers have a pool of their own: a connection of it used the
	// moment before may still find the old server gone, once (503, to be
	// tried again); then the items completed before the failover are done.
	for _, it := range []string{"a:1", "a:2"} {
		dbtest.Eventually(t, func() bool {
			resp, err := http.Get(s.url + "/demo/items/" + it + ".json")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode == 503 {
				return false
			}
			var st struct{ Status string }
			if err := json.NewDecoder(resp.Body).Decode(&st); resp.StatusCode != 200 || err != nil || st.Status != "done" {
				t.Fatalf("%s after the failover: %d %q %v", it, resp.StatusCode, st.Status, err)
			}
			return true
		}, it+" read after the failover")
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// pgDir makes an empty directory for a cluster, owned by the account
// PostgreSQL runs as.
func pgDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatal(err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		t.Fatal(err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
}
