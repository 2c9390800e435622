package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tracker/db/dbtest"
)

// pgbackrest finds Debian's pgbackrest ($TRACKER_PGBACKREST, or on PATH).
// Without it the test is skipped, unless $CI is set: there it is a failure
// (.ci/run installs it).
func pgbackrest(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("TRACKER_PGBACKREST"); path != "" {
		return path
	}
	if path, err := exec.LookPath("pgbackrest"); err == nil {
		return path
	}
	const missing = "no pgbackrest for the backup test: apt-get install pgbackrest, or set TRACKER_PGBACKREST"
	if os.Getenv("CI") != "" {
		t.Fatal(missing + " (CI is set: the backup test must run)")
	}
	t.Skip(missing)
	return ""
}

// asPostgres runs a program as the postgres account when the tests run as
// root (PostgreSQL and pgBackRest refuse root), as the test's otherwise.
func asPostgres(t *testing.T, argv ...string) string {
	t.Helper()
	if os.Geteuid() == 0 {
		argv = append([]string{"runuser", "-u", "postgres", "--"}, argv...)
	}
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out)
}

// plainCluster makes and starts a PostgreSQL cluster in dir with a
// database tracker, listening on port of loopback with settings conf
// besides. It is stopped at the end of the test.
func plainCluster(t *testing.T, dir string, port int, conf string) {
	t.Helper()
	pgDir(t, dir)
	pgAs(t, "initdb", "--pgdata", dir, "--username", "tracker", "--auth", "trust", "--encoding", "UTF8", "--no-locale", "--no-sync")
	appendFile(t, filepath.Join(dir, "postgresql.conf"),
		fmt.Sprintf("listen_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\n%s", port, dir, conf))
	startCluster(t, dir)
	pgAs(t, "createdb", "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--username", "tracker", "tracker")
}

// startCluster starts the cluster in dir, to be stopped at the end of the
// test.
func startCluster(t *testing.T, dir string) {
	t.Helper()
	pgAs(t, "pg_ctl", "start", "--wait", "--pgdata", dir, "--log", filepath.Join(dir, "server.log"))
	t.Cleanup(func() {
		if _, err := os.Stat(filepath.Join(dir, "postmaster.pid")); err == nil {
			pgAs(t, "pg_ctl", "stop", "--mode", "immediate", "--pgdata", dir)
		}
	})
}

func psql(t *testing.T, port int, sql string) string {
	t.Helper()
	return strings.TrimSpace(pgAs(t, "psql", "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--username", "tracker",
		"--dbname", "tracker", "--tuples-only", "--no-align", "--command", sql))
}

// pgBackRest's recipe of docs/OPERATIONS.md on loopback: WAL archived by
// archive-push from the start, a full backup taken while warriors work
// through a tracker, a named restore point between two completions
// acknowledged while they carry on, and the backup restored to that point
// into a fresh data directory. A tracker started on it has every
// completion answered OK before the point, none sent after it, and its
// books balance.
func TestBackupRestoresToAPoint(t *testing.T) {
	t.Parallel()
	backrest := pgbackrest(t)
	dir := filepath.Dir(dataDir(t))
	primary, restored, repo := filepath.Join(dir, "primary"), filepath.Join(dir, "restored"), filepath.Join(dir, "repo")
	pgDir(t, repo)
	conf := filepath.Join(dir, "pgbackrest.conf")
	// The first port is the primary's, reserved before it exists.
	port := freePort(t)
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`[global]
repo1-path=%[1]s
repo1-retention-full=2
log-path=%[1]s
lock-path=%[1]s
log-level-console=warn
log-level-file=off
start-fast=y

[tracker]
pg1-path=%[2]s
pg1-port=%[3]d
pg1-socket-path=%[2]s
pg1-user=tracker
`, repo, primary, port)), 0o644); err != nil {
		t.Fatal(err)
	}
	br := func(args ...string) string {
		t.Helper()
		return asPostgres(t, append([]string{backrest, "--config=" + conf, "--stanza=tracker"}, args...)...)
	}
	plainCluster(t, primary, port, fmt.Sprintf("archive_mode = on\narchive_command = '%s --config=%s --stanza=tracker archive-push %%p'\n", backrest, conf))
	br("stanza-create")
	br("check")

	withURL := env(fmt.Sprintf("DATABASE_URL=postgres://tracker@127.0.0.1:%d/tracker", port))
	cliEnv(t, withURL, "", "project", "create", "demo")
	refill := addItems(t, func() string { return binary }, withURL, "demo", 5000)
	refill()
	s := serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0"), withURL)
	// The two items to be completed on either side of the restore point,
	// claimed before the warriors start (no claim runs out here).
	claim := func() string {
		t.Helper()
		return strings.TrimSuffix(strings.TrimPrefix(requestAt(t, s.url, "known"), `{"item_name":"`), `"}`)
	}
	first, second := claim(), claim()
	warriors := startFleet(t, "demo", 6, func() string { return s.url }, refill)

	warriors.waitFor(200, "before the backup")
	began := time.Now()
	br("backup", "--type=full")
	t.Logf("full backup of %s MB under load in %s", psql(t, port, "SELECT pg_database_size('tracker') / 1000000"), time.Since(began).Round(time.Millisecond))
	warriors.waitFor(200, "after the backup")

	// Two completions known by name, the restore point between them.
	complete := func(item string) {
		t.Helper()
		if code, body := post(t, s.url+"/demo/done", `{"downloader":"known","item":"`+item+`","bytes":{"data":1}}`); code != 200 || body != "OK" {
			t.Fatalf("done %s: %d %q", item, code, body)
		}
	}
	complete(first)
	pointSet := time.Now()
	psql(t, port, "SELECT pg_create_restore_point('between')")
	pointDone := time.Now()
	complete(second)
	warriors.waitFor(200, "after the restore point")
	warriors.halt()
	s.stop(t)
	// The WAL holding the point archived, the primary is lost.
	br("check")
	size := psql(t, port, "SELECT pg_database_size('tracker') / 1000000")
	pgAs(t, "pg_ctl", "stop", "--mode", "immediate", "--pgdata", primary)

	began = time.Now()
	pgDir(t, restored)
	br("--pg1-path="+restored, "restore", "--type=name", "--target=between", "--target-action=promote")
	// The copy listens elsewhere and archives nothing: the recipe's
	// restored primary would archive to its new timeline.
	restoredPort := freePort(t)
	appendFile(t, filepath.Join(restored, "postgresql.conf"), fmt.Sprintf("port = %d\nunix_socket_directories = '%s'\narchive_mode = off\n", restoredPort, restored))
	startCluster(t, restored)
	dbtest.Eventually(t, func() bool { return psql(t, restoredPort, "SELECT pg_is_in_recovery()") == "f" }, "the restored cluster promoted")
	t.Logf("a database of %s MB restored to the point in %s", size, time.Since(began).Round(time.Millisecond))

	withURL = env(fmt.Sprintf("DATABASE_URL=postgres://tracker@127.0.0.1:%d/tracker", restoredPort))
	s = serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0"), withURL)
	defer s.stop(t)
	if got := itemStatus(t, s.url, "demo", first); got != "done" {
		t.Errorf("%s, done before the point, is %q", first, got)
	}
	if got := itemStatus(t, s.url, "demo", second); got == "done" {
		t.Errorf("%s, done after the point, is done", second)
	}
	// The restored completions, read at once: thousands of item status
	// reads would wait their turns on the readers' pool.
	restoredDone := map[string]bool{}
	for _, name := range strings.Fields(psql(t, restoredPort, "SELECT name FROM done")) {
		restoredDone[name] = true
	}
	var before, after int
	for item, d := range warriors.log() {
		switch {
		case !d.ok.IsZero() && d.ok.Before(pointSet):
			before++
			if !restoredDone[item] {
				t.Errorf("%s, answered OK before the point, is not done", item)
			}
		case d.sent.After(pointDone):
			after++
			if restoredDone[item] {
				t.Errorf("%s, first sent after the point, is done", item)
			}
		}
	}
	if before == 0 || after == 0 {
		t.Fatalf("%d completions before the point, %d after: the test proves nothing", before, after)
	}
	t.Logf("%d completions answered before the point are there, %d sent after it are not", before, after)
	cliEnv(t, withURL, "", "jobs", "run", "rollup")
	if out := cliEnv(t, withURL, "", "check", "demo"); !strings.Contains(out, `"balanced": true`) {
		t.Fatalf("the restored books do not balance:\n%s", out)
	}
}
