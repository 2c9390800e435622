package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/dbtest"
	"tracker/projects"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// tracker runs the command line in-process against the database dsn and
// returns its exit status, stdout and stderr.
func tracker(t *testing.T, dsn, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return dsn
		}
		return env[k]
	}
	code := run(context.Background(), args, stdio{in: strings.NewReader(stdin), out: &out, err: &errOut}, getenv)
	return code, out.String(), errOut.String()
}

// trackerOK runs the command line as tracker does, fails the test unless it
// exits 0, and returns its stdout: a step that sets a test up.
func trackerOK(t *testing.T, dsn, stdin string, args ...string) string {
	t.Helper()
	code, out, errOut := tracker(t, dsn, stdin, nil, args...)
	if code != 0 {
		t.Fatalf("tracker %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func showProject(t *testing.T, dsn, slug string) projectJSON {
	t.Helper()
	code, out, errOut := tracker(t, dsn, "", nil, "project", "show", slug)
	if code != 0 {
		t.Fatalf("project show: exit %d: %s", code, errOut)
	}
	var p projectJSON
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("project show printed %q: %v", out, err)
	}
	return p
}

func TestProjectCommands(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)

	// Flags may follow the positional arguments.
	if code, _, errOut := tracker(t, dsn, "", nil, "project", "create", "demo", "--title", "Demo project"); code != 0 {
		t.Fatalf("project create: exit %d: %s", code, errOut)
	}
	code, out, _ := tracker(t, dsn, "", nil, "project", "show", "demo")
	if code != 0 {
		t.Fatal(code)
	}
	// The exact document scripts read.
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range doc {
		keys = append(keys, k)
	}
	for _, k := range []string{"slug", "title", "config", "queues", "claims", "done"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("project show lacks %q (has %v)", k, keys)
		}
	}
	p := showProject(t, dsn, "demo")
	if p.Slug != "demo" || p.Title != "Demo project" || p.Config.MaxMulti != 100 || p.Config.Order != "fifo" {
		t.Errorf("project %+v", p)
	}
	for _, q := range []string{"todo", "backfeed", "secondary", "redo"} {
		if n, ok := p.Queues[q]; !ok || n != 0 {
			t.Errorf("queue %s = %d, %v", q, n, ok)
		}
	}

	code, _, errOut := tracker(t, dsn, "", nil, "project", "create", "demo")
	if code != 1 || !strings.Contains(errOut, "exists already") {
		t.Errorf("duplicate create: exit %d %q", code, errOut)
	}
	code, _, errOut = tracker(t, dsn, "", nil, "project", "create", "Bad Slug")
	if code != 2 || !strings.Contains(errOut, "invalid slug") {
		t.Errorf("bad slug: exit %d %q", code, errOut)
	}
	code, _, errOut = tracker(t, dsn, "", nil, "project", "show", "missing")
	if code != 1 || !strings.Contains(errOut, "no such project") {
		t.Errorf("missing project: exit %d %q", code, errOut)
	}
}

func TestItemsAdd(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	trackerOK(t, dsn, "", "project", "create", "demo")

	// From stdin, with no FILE and with "-".
	code, out, errOut := tracker(t, dsn, "user:a\nuser:b\nuser:a\n", nil, "items", "add", "demo")
	if code != 0 || out != "added 2, skipped 1\n" {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	code, out, _ = tracker(t, dsn, "user:b\nuser:c\n", nil, "items", "add", "demo", "-", "--queue", "secondary")
	if code != 0 || out != "added 1, skipped 1\n" {
		t.Fatalf("stdin with -: exit %d, out %q", code, out)
	}

	// From a file, into a downloader's queue.
	file := filepath.Join(t.TempDir(), "names.txt")
	var b strings.Builder
	for i := range 25_000 {
		fmt.Fprintf(&b, "post:%d\n", i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = tracker(t, dsn, "", nil, "items", "add", "--queue", "downloader:alice", "demo", file)
	if code != 0 || out != "added 25000, skipped 0\n" {
		t.Fatalf("file: exit %d, out %q, err %q", code, out, errOut)
	}

	p := showProject(t, dsn, "demo")
	if p.Queues["todo"] != 2 || p.Queues["secondary"] != 1 || p.Queues["downloader:alice"] != 25_000 {
		t.Errorf("queues %v", p.Queues)
	}

	// Invalid lines are reported, the rest is added, the exit status says so.
	code, out, errOut = tracker(t, dsn, "ok:1\nbad:\xff\nok:2\n", nil, "items", "add", "demo")
	if code != 1 || out != "added 2, skipped 0, invalid 1\n" || !strings.Contains(errOut, "line 2:") {
		t.Errorf("invalid line: exit %d, out %q, err %q", code, out, errOut)
	}
	// So is a line whose parameters PostgreSQL would refuse: the lines
	// around it are added all the same.
	code, out, errOut = tracker(t, dsn, "ok:3\nbad:2\t{\"n\":1e-20000}\nok:4\n", nil, "items", "add", "demo")
	if code != 1 || out != "added 2, skipped 0, invalid 1\n" || !strings.Contains(errOut, "line 2:") {
		t.Errorf("parameters PostgreSQL refuses: exit %d, out %q, err %q", code, out, errOut)
	}

	for _, args := range [][]string{
		{"items", "add", "demo", "--queue", "nope"},
		{"items", "add"},
		{"items", "add", "demo", "a", "b"},
		{"items", "add", "demo", "--bogus"},
	} {
		if code, _, _ := tracker(t, dsn, "", nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, errOut := tracker(t, dsn, "", nil, "items", "add", "demo", "/no/such/file"); code != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing file: exit %d %q", code, errOut)
	}
	if code, _, errOut := tracker(t, dsn, "x\n", nil, "items", "add", "missing"); code != 1 || !strings.Contains(errOut, "no such project") {
		t.Errorf("missing project: exit %d %q", code, errOut)
	}
}

func TestAdminCreate(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)

	code, out, errOut := tracker(t, dsn, "", map[string]string{"TRACKER_PASSWORD": "correct horse battery"}, "admin", "create", "root")
	if code != 0 || out != "created admin root\n" {
		t.Fatalf("from env: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut = tracker(t, dsn, "another long secret\n", nil, "admin", "create", "second")
	if code != 0 || out != "created admin second\n" {
		t.Fatalf("from stdin: exit %d %q %q", code, out, errOut)
	}
	var hash string
	pool := openPool(t, dsn)
	if err := pool.QueryRow(context.Background(), "SELECT password_hash FROM users WHERE username = 'second'").Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$2a$") || strings.Contains(hash, "secret") {
		t.Errorf("password stored as %q, want a bcrypt hash", hash)
	}

	for name, tc := range map[string]struct {
		stdin, user, want string
	}{
		"duplicate":      {"yet another secret\n", "ROOT", "exists already"},
		"short password": {"short\n", "third", "too short"},
		"no password":    {"", "third", "no password"},
		"bad username":   {"long enough secret\n", "bad name", "invalid username"},
	} {
		if code, _, errOut := tracker(t, dsn, tc.stdin, nil, "admin", "create", tc.user); code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d %q, want %q", name, code, errOut, tc.want)
		}
	}
}

func TestMigrateCommand(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewEmptyDSN(t)
	for range 2 { // idempotent
		code, out, errOut := tracker(t, dsn, "", nil, "migrate")
		if code != 0 || !strings.HasPrefix(out, "schema at version ") {
			t.Fatalf("exit %d %q %q", code, out, errOut)
		}
	}
}

// A command of the release before, its database migrated by a newer one
// during a rolling upgrade, runs on it and says so.
func TestCommandsOnANewerSchema(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewEmptyDSN(t)
	trackerOK(t, dsn, "", "project", "create", "demo")
	if _, err := openPool(t, dsn).Exec(context.Background(), `UPDATE schema_migrations SET version = version + 1`); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := tracker(t, dsn, "a:1\n", nil, "items", "add", "demo")
	if code != 0 || out != "added 1, skipped 0\n" || !strings.Contains(errOut, "a newer release has migrated the database") {
		t.Fatalf("items add on a newer schema: exit %d %q %q", code, out, errOut)
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	if code, _, errOut := tracker(t, "", "", nil); code != 2 || !strings.Contains(errOut, "usage: tracker") {
		t.Errorf("no command: exit %d %q", code, errOut)
	}
	if code, _, errOut := tracker(t, "", "", nil, "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d %q", code, errOut)
	}
	if code, _, errOut := tracker(t, "", "", nil, "project", "show", "-h"); code != 0 || !strings.Contains(errOut, "-data-dir") {
		t.Errorf("help: exit %d %q", code, errOut)
	}
}

func TestParseInterspersed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args  []string
		pos   string
		queue string
	}{
		{[]string{"demo", "file"}, "demo file", "todo"},
		{[]string{"--queue", "redo", "demo"}, "demo", "redo"},
		{[]string{"demo", "--queue=redo", "-"}, "demo -", "redo"},
		{[]string{"demo", "--", "--queue"}, "demo --queue", "todo"},
		{[]string{"--bool", "demo", "--queue", "redo", "-bool=false", "x"}, "demo x", "redo"},
		{[]string{"--queue", "true", "false"}, "false", "true"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		queue := fs.String("queue", "todo", "")
		fs.Bool("bool", false, "")
		pos, err := parseInterspersed(fs, tc.args)
		if err != nil || strings.Join(pos, " ") != tc.pos || *queue != tc.queue {
			t.Errorf("%q: pos %q queue %q err %v; want %q %q", tc.args, pos, *queue, err, tc.pos, tc.queue)
		}
	}
	// A bool flag's value belongs after "=": "--bool false" would set it.
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Bool("bool", false, "")
	if _, err := parseInterspersed(fs, []string{"demo", "--bool", "false"}); err == nil || !strings.Contains(err.Error(), "write --bool=false") {
		t.Errorf("--bool false: %v", err)
	}
}

func openPool(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	pool, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func TestProjectSet(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	trackerOK(t, dsn, "", "project", "create", "demo")

	code, out, errOut := tracker(t, dsn, "", nil, "project", "set", "demo",
		"title=Demo 2", "paused=true", "order=random", "min_version=20240101.01", "rate_limit=600",
		"type_limits=post:600,user:60", "claims_limit=5000", "downloader_claims_limit=50", "reclaim_ttl=3600",
		"max_multi=200", "backfeed_key=s3cretkey_1", "domains=data,media", "archive_after=86400", "archive_mode=discard")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p projectJSON
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	c := p.Config
	if p.Title != "Demo 2" || !c.Paused || c.Order != "random" || c.MinVersion != "20240101.01" || c.RateLimit != 600 ||
		c.TypeLimits["post"] != 600 || c.TypeLimits["user"] != 60 || c.ClaimsLimit != 5000 || c.DownloaderClaimsLimit != 50 ||
		c.ReclaimTTL != 3600 || c.MaxMulti != 200 || c.BackfeedKey != "s3cretkey_1" || strings.Join(c.Domains, ",") != "data,media" ||
		c.ArchiveAfter != 86400 || c.ArchiveMode != "discard" {
		t.Fatalf("set printed %+v", p)
	}
	// show prints them back.
	if shown := showProject(t, dsn, "demo"); shown.Config.TypeLimits["user"] != 60 || shown.Title != "Demo 2" {
		t.Fatalf("show: %+v", shown)
	}

	// All or nothing: one bad assignment changes nothing.
	for _, bad := range [][]string{
		{"paused=maybe"}, {"order=lifo"}, {"rate_limit=-1"}, {"max_multi=0"}, {"type_limits=post"},
		{"type_limits=post:0"}, {"backfeed_key=short"}, {"archive_mode=tape"}, {"nonsense=1"}, {"novalue"},
		{"rate_limit=1", "claims_limit=x"}, {"reclaim_ttl=5000000000000"}, {"revisit_after=316224001"},
		{"archive_after=9223372036854775807"}, {"max_claims=1000001"}, {"type_limits=post:1000000001"},
	} {
		code, _, errOut := tracker(t, dsn, "", nil, append([]string{"project", "set", "demo"}, bad...)...)
		if code != 1 || errOut == "" {
			t.Errorf("%v: exit %d", bad, code)
		}
	}
	// A value past a key's range is refused with the range.
	if code, _, errOut := tracker(t, dsn, "", nil, "project", "set", "demo", "reclaim_ttl=5000000000000"); code != 1 ||
		!strings.Contains(errOut, `reclaim_ttl: "5000000000000": a whole number from 0 to 316224000`) {
		t.Errorf("reclaim_ttl out of range: exit %d %q", code, errOut)
	}
	if shown := showProject(t, dsn, "demo"); shown.Config.RateLimit != 600 || shown.Config.ClaimsLimit != 5000 || shown.Config.ReclaimTTL != 3600 {
		t.Fatalf("a refused set changed the project: %+v", shown.Config)
	}
}

func TestBlockAndTargetCommands(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	trackerOK(t, dsn, "", "project", "create", "demo")
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"block", "add", "demo", "nick", "mallory", "--reason", "spam"}, 0, "blocked nick mallory on demo\n"},
		{[]string{"block", "add", "all", "ip", "192.0.2.7"}, 0, "blocked ip 192.0.2.7/32 on every project\n"},
		{[]string{"block", "add", "demo", "ip", "2001:db8::/32"}, 0, "blocked ip 2001:db8::/32 on demo\n"},
		{[]string{"block", "remove", "all", "ip", "192.0.2.7/32"}, 0, "unblocked ip 192.0.2.7/32 on every project\n"},
		{[]string{"block", "remove", "all", "ip", "192.0.2.7"}, 1, ""},
		{[]string{"block", "add", "demo", "ip", "not-an-ip"}, 2, ""},
		{[]string{"block", "add", "demo", "cookie", "x"}, 2, ""},
		{[]string{"block", "add", "missing", "nick", "x"}, 1, ""},
		{[]string{"target", "add", "demo", "rsync://up.example/m/:downloader/", "--weight", "3"}, 0, "upload target rsync://up.example/m/:downloader/ (weight 3, enabled true)\n"},
		{[]string{"target", "add", "demo", "https://up.example/", "--disabled"}, 0, "upload target https://up.example/ (weight 1, enabled false)\n"},
		{[]string{"target", "add", "demo", "https://up.example/", "--disabled=false"}, 0, "upload target https://up.example/ (weight 1, enabled true)\n"},
		{[]string{"target", "add", "--disabled=true", "demo", "https://up.example/"}, 0, "upload target https://up.example/ (weight 1, enabled false)\n"},
		{[]string{"target", "add", "demo", "ftp://up.example/"}, 2, ""},
		{[]string{"target", "add", "demo", "https://up.example/upload"}, 2, ""},
		{[]string{"target", "add", "demo", "https://up.example/", "--weight", "0"}, 2, ""},
		{[]string{"target", "add", "demo", "https://up.example/", "--weight", "3000000000"}, 2, ""},
		{[]string{"target", "remove", "demo", "https://up.example/"}, 0, "removed upload target https://up.example/\n"},
		{[]string{"target", "remove", "demo", "https://up.example/"}, 1, ""},
	} {
		code, out, errOut := tracker(t, dsn, "", nil, tc.args...)
		if code != tc.code || (tc.out != "" && out != tc.out) {
			t.Errorf("%v: exit %d %q %q, want %d %q", tc.args, code, out, errOut, tc.code, tc.out)
		}
	}
	pool := openPool(t, dsn)
	blocks := dbtest.Count(t, pool, "SELECT count(*) FROM blocks")
	targets := dbtest.Count(t, pool, "SELECT count(*) FROM upload_targets")
	if blocks != 2 || targets != 1 {
		t.Fatalf("%d blocks, %d targets; want 2 and 1", blocks, targets)
	}
}

func TestJobsCommands(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	code, out, errOut := tracker(t, dsn, "", nil, "jobs")
	if code != 0 {
		t.Fatalf("jobs: exit %d: %s", code, errOut)
	}
	var list []jobJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, j := range list {
		names = append(names, j.Name)
	}
	if fmt.Sprint(names) != "[archive housekeeping purge reclaim revisit rollup]" {
		t.Fatalf("jobs %v", names)
	}

	code, out, errOut = tracker(t, dsn, "", nil, "jobs", "run", "rollup")
	if code != 0 || !strings.HasPrefix(out, "rollup: folded 0 tallies") {
		t.Fatalf("jobs run rollup: exit %d, %q, %s", code, out, errOut)
	}
	if code, _, errOut = tracker(t, dsn, "", nil, "jobs", "run", "nope"); code != 2 || !strings.Contains(errOut, "no such job") {
		t.Fatalf("jobs run nope: exit %d, %s", code, errOut)
	}
	// What a flag does not say stays as it is.
	for _, tc := range []struct {
		flags   []string
		every   string
		enabled bool
	}{
		{[]string{"--every", "45s", "--enabled=false"}, "45s", false},
		{[]string{"--every=1m"}, "1m0s", false},
		{[]string{"--enabled"}, "1m0s", true},
		{[]string{"--enabled=0"}, "1m0s", false},
		{[]string{"--enabled=true", "--every", "2h"}, "2h0m0s", true},
		{nil, "2h0m0s", true},
	} {
		code, out, errOut = tracker(t, dsn, "", nil, append([]string{"jobs", "set", "reclaim"}, tc.flags...)...)
		var j jobJSON
		if code != 0 || json.Unmarshal([]byte(out), &j) != nil || j.Every != tc.every || j.Enabled != tc.enabled {
			t.Fatalf("jobs set %v: exit %d, %q, %s; want every %s, enabled %t", tc.flags, code, out, errOut, tc.every, tc.enabled)
		}
	}
	for _, bad := range [][]string{{"--every", "10ms"}, {"--every=0"}, {"--every", "soon"}, {"--enabled=maybe"}, {"--enabled", "false"}, {"--every"}} {
		if code, _, errOut := tracker(t, dsn, "", nil, append([]string{"jobs", "set", "reclaim"}, bad...)...); code != 2 || !strings.Contains(errOut, strings.TrimLeft(strings.SplitN(bad[0], "=", 2)[0], "-")) {
			t.Errorf("jobs set %v: exit %d %q, want 2 naming the flag", bad, code, errOut)
		}
	}
	if _, out, _ := tracker(t, dsn, "", nil, "jobs"); !strings.Contains(out, `"every": "2h0m0s"`) {
		t.Errorf("refused jobs set changed the job: %s", out)
	}
}

func TestArchiveCommands(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	dir := t.TempDir()
	env := map[string]string{"TRACKER_ARCHIVE_DIR": dir}
	if code, _, errOut := tracker(t, dsn, "", env, "project", "create", "demo"); code != 0 {
		t.Fatal(errOut)
	}
	// A day of completions, long over: one file after the archive job.
	pool := openPool(t, dsn)
	ctx := context.Background()
	for _, stmt := range []string{
		`INSERT INTO seen (project_id, hash, id) SELECT 1, item_hash('item:' || g), g FROM generate_series(1, 10) g`,
		`INSERT INTO done (project_id, id, name, downloader, bytes, claimed_at, claim_count)
		 SELECT 1, g, 'item:' || g, 'alice', 10, now(), 1 FROM generate_series(1, 10) g`,
	} {
		if _, err := pool.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	dbtest.Age(t, pool, 4*24*time.Hour, dbtest.Completions(1))
	if code, _, errOut := tracker(t, dsn, "", env, "project", "set", "demo", "archive_after=86400"); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, errOut := tracker(t, dsn, "", env, "jobs", "run", "archive"); code != 0 || !strings.Contains(out, "archived 10 completions") {
		t.Fatalf("jobs run archive: exit %d, %q, %s", code, out, errOut)
	}
	if p := showProject(t, dsn, "demo"); p.Archived != 10 {
		t.Errorf("project show: archived %d", p.Archived)
	}
	code, out, errOut := tracker(t, dsn, "", env, "archive", "list", "demo")
	var list []archiveJSON
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0].Items != 10 || len(list[0].SHA256) != 64 {
		t.Fatalf("archive list: exit %d, %q, %s", code, out, errOut)
	}
	if code, out, errOut := tracker(t, dsn, "", env, "archive", "export", "demo"); code != 0 || strings.Count(out, "\n") != 10 {
		t.Fatalf("archive export: exit %d, %q, %s", code, out, errOut)
	}
	if code, _, _ := tracker(t, dsn, "", env, "archive", "verify", "demo"); code != 0 {
		t.Fatalf("archive verify: exit %d", code)
	}
	// Damaged: verify and export fail and say which file.
	file := filepath.Join(dir, list[0].Path)
	if err := os.WriteFile(file, []byte("not what was written"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := tracker(t, dsn, "", env, "archive", "verify", "demo"); code != 1 || !strings.Contains(out, "FAILED") {
		t.Fatalf("archive verify of a damaged file: exit %d, %q", code, out)
	}
	if code, out, errOut := tracker(t, dsn, "", env, "archive", "export", "demo"); code != 1 || out != "" || !strings.Contains(errOut, "checksum") {
		t.Fatalf("archive export of a damaged file: exit %d, %q, %s", code, out, errOut)
	}
}

func TestSettingsCommands(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	code, out, errOut := tracker(t, dsn, "", nil, "settings", "set", "seesaw_version=0.8.5", "auto_project=demo", "tracker_banner_html=<b>hi</b>")
	if code != 0 {
		t.Fatalf("settings set: exit %d: %s", code, errOut)
	}
	var s map[string]string
	if err := json.Unmarshal([]byte(out), &s); err != nil || s["seesaw_version"] != "0.8.5" || s["auto_project"] != "demo" {
		t.Fatalf("settings set printed %q", out)
	}
	// All or none.
	if code, _, _ := tracker(t, dsn, "", nil, "settings", "set", "seesaw_version=0.9", "auto_project=Not A Slug"); code != 1 {
		t.Fatalf("bad auto_project: exit %d", code)
	}
	if code, _, _ := tracker(t, dsn, "", nil, "settings", "set", "nope=1"); code != 1 {
		t.Fatalf("unknown key: exit %d", code)
	}
	// auto_project is a priority list, stored in one form.
	code, out, errOut = tracker(t, dsn, "", nil, "settings", "set", "auto_project=demo,other  third", "auto_project_refill=500")
	if err := json.Unmarshal([]byte(out), &s); code != 0 || err != nil || s["auto_project"] != "demo, other, third" || s["auto_project_refill"] != "500" {
		t.Fatalf("settings set of a list: exit %d %q %s", code, out, errOut)
	}
	if code, _, errOut := tracker(t, dsn, "", nil, "settings", "set", "auto_project=demo,demo"); code != 1 || !strings.Contains(errOut, "twice") {
		t.Fatalf("a project listed twice: exit %d %s", code, errOut)
	}
	out = trackerOK(t, dsn, "", "settings")
	if err := json.Unmarshal([]byte(out), &s); err != nil || s["seesaw_version"] != "0.8.5" || s["tracker_banner_html"] != "<b>hi</b>" {
		t.Fatalf("settings printed %q", out)
	}
}

func TestCheckCommand(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	trackerOK(t, dsn, "", "project", "create", "demo")
	trackerOK(t, dsn, "a:1\na:2\n", "items", "add", "demo")
	code, out, errOut := tracker(t, dsn, "", nil, "check", "demo")
	var reports []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &reports) != nil || len(reports) != 1 || reports[0]["balanced"] != true || reports[0]["seen"] != 2.0 {
		t.Fatalf("check: exit %d, %q, %s", code, out, errOut)
	}
	pool := openPool(t, dsn)
	if _, err := pool.Exec(context.Background(), "DELETE FROM todo WHERE name = 'a:1'"); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := tracker(t, dsn, "", nil, "check"); code != 1 || !strings.Contains(out, `"balanced": false`) {
		t.Fatalf("check of unbalanced books: exit %d, %q", code, out)
	}
}

// TestFlagErrors: a wrong flag or value is a usage error, exit 2, that names
// the flag and what it takes, before any database is needed.
func TestFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"target", "add", "demo", "https://up.example/", "--weight", "x"}, []string{`invalid value "x" for flag -weight: a whole number`}},
		{[]string{"target", "add", "demo", "https://up.example/", "--weight=1.5"}, []string{"-weight", "a whole number"}},
		{[]string{"target", "add", "demo", "https://up.example/", "--weight", "0"}, []string{"--weight 0: a whole number from 1 to 2147483647"}},
		{[]string{"target", "add", "demo", "https://up.example/", "--disabled=maybe"}, []string{`invalid boolean value "maybe" for -disabled: true or false`}},
		{[]string{"target", "add", "demo", "https://up.example/", "--disabled", "true"}, []string{"--disabled takes no separate value: write --disabled=true"}},
		{[]string{"jobs", "set", "reclaim", "--enabled", "false"}, []string{"--enabled takes no separate value: write --enabled=false"}},
		{[]string{"jobs", "set", "reclaim", "--enabled=no"}, []string{`invalid boolean value "no" for -enabled: true or false`}},
		{[]string{"jobs", "set", "reclaim", "--every", "30"}, []string{`invalid value "30" for flag -every: a duration of at least 1s`}},
		{[]string{"jobs", "set", "reclaim", "--every"}, []string{"flag needs an argument: -every"}},
		{[]string{"jobs", "--audit-retention", "a year"}, []string{`invalid value "a year" for flag -audit-retention: a duration such as`}},
		{[]string{"jobs", "--audit-retention=-1h"}, []string{"--audit-retention -1h0m0s: a positive duration"}},
		{[]string{"items", "add", "demo", "--bogus"}, []string{"flag provided but not defined: -bogus"}},
		{[]string{"block", "remove", "demo", "nick", "x", "--reason", "spam"}, []string{"flag provided but not defined: -reason"}},
		{[]string{"project", "show", "demo", "--title=x"}, []string{"flag provided but not defined: -title"}},
		{[]string{"serve", "---addr", "x"}, []string{"bad flag syntax: ---addr"}},
	} {
		code, out, errOut := tracker(t, "postgres://[::1", "", nil, tc.args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		last := lines[len(lines)-1]
		if code != 2 || out != "" || !strings.HasPrefix(last, "tracker: ") {
			t.Errorf("%q: exit %d, out %q, err %q; want a usage error", tc.args, code, out, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(last, w) {
				t.Errorf("%q: %q, want %q", tc.args, last, w)
			}
		}
	}
	env := map[string]string{"TRACKER_AUDIT_RETENTION": "forever"}
	if code, _, errOut := tracker(t, "postgres://[::1", "", env, "jobs"); code != 2 || !strings.Contains(errOut, `$TRACKER_AUDIT_RETENTION "forever": a positive duration`) {
		t.Errorf("bad $TRACKER_AUDIT_RETENTION: exit %d %q", code, errOut)
	}
}

// TestNoPanic gives every flag of every command, and flags no command has,
// values of every kind: each run ends in an exit status, never a panic.
// The database address is malformed, so a command that gets past its flags
// fails at once, touching nothing.
func TestNoPanic(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env := func(k string) string { return map[string]string{"DATABASE_URL": "postgres://[::1"}[k] }
	values := []string{"", "x", "0", "-1", "1", "true", "false", "1.5", "10ms", "99999999999999999999", "-", "--"}
	for _, c := range commands(env) {
		words := strings.Fields(c.name)
		pos := []string{"demo", "nick", "x"}[:c.nargs[0]]
		var errOut bytes.Buffer
		if code := run(ctx, append(words, "-h"), stdio{in: strings.NewReader(""), out: io.Discard, err: &errOut}, env); code != 0 {
			t.Fatalf("%s -h: exit %d", c.name, code)
		}
		var flags []string
		for _, line := range strings.Split(errOut.String(), "\n") {
			if name, ok := strings.CutPrefix(line, "  -"); ok {
				flags = append(flags, strings.Fields(name)[0])
			}
		}
		// The flags every command takes.
		for _, f := range []string{"data-dir", "archive-dir", "audit-retention"} {
			if !slices.Contains(flags, f) {
				t.Errorf("%s -h lacks -%s: %q", c.name, f, errOut.String())
			}
		}
		var cases [][]string
		for _, f := range append(flags, "nosuch", "") {
			cases = append(cases, []string{"--" + f}, []string{"-" + f}, []string{"--" + f, "--"})
			for _, v := range values {
				cases = append(cases, []string{"--" + f + "=" + v}, []string{"--" + f, v})
			}
		}
		for _, flagArgs := range cases {
			for _, args := range [][]string{
				slices.Concat(words, pos, flagArgs),
				slices.Concat(words, flagArgs, pos),
			} {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%q: panic: %v", args, r)
						}
					}()
					var errOut bytes.Buffer
					std := stdio{in: strings.NewReader(""), out: io.Discard, err: &errOut}
					if code := run(ctx, args, std, env); code != 1 && code != 2 || !strings.Contains(errOut.String(), "tracker: ") {
						t.Errorf("%q: exit %d %q, want an error", args, code, errOut.String())
					}
				}()
			}
		}
	}
}

// Every flag of serve may come from $TRACKER_NAME, the command line
// winning: a service's configuration is one file of variables.
func TestServeFlagsFromTheEnvironment(t *testing.T) {
	t.Parallel()
	bad := map[string]string{"TRACKER_MAX_CONNS": "many"}
	if code, _, errOut := tracker(t, "postgres://[::1", "", bad, "serve"); code != 2 || !strings.Contains(errOut, `$TRACKER_MAX_CONNS "many"`) {
		t.Errorf("a bad $TRACKER_MAX_CONNS: exit %d %q", code, errOut)
	}
	// Read: a reserve past the total is refused before anything starts.
	over := map[string]string{"TRACKER_CONN_RESERVE": "20000"}
	if code, _, errOut := tracker(t, "postgres://[::1", "", over, "serve"); code != 2 || !strings.Contains(errOut, "--conn-reserve") {
		t.Errorf("$TRACKER_CONN_RESERVE past the total: exit %d %q, want it refused", code, errOut)
	}
	// The command line wins: the reserve is good, and serve gets as far
	// as the (malformed) database address.
	if code, _, errOut := tracker(t, "postgres://[::1", "", over, "serve", "--conn-reserve", "5"); code != 1 {
		t.Errorf("--conn-reserve over $TRACKER_CONN_RESERVE: exit %d %q, want the database's failure", code, errOut)
	}
}

// The package's configuration file names every flag of serve.
func TestDefaultFileNamesEveryServeFlag(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../packaging/tracker.default")
	if err != nil {
		t.Fatal(err)
	}
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
			if !regexp.MustCompile(`(?m)^#?` + envName(f.Name) + `=`).Match(b) {
				t.Errorf("packaging/tracker.default has no line for --%s ($%s)", f.Name, envName(f.Name))
			}
		})
	}
}

// The texts the shell takes are held to the bounds the panel's are: one
// past its bound is refused, naming the field and the bound, and nothing
// is stored.
func TestTextsBounded(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	trackerOK(t, dsn, "", "project", "create", "demo")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"block", "add", "demo", "nick", "mallory", "--reason", strings.Repeat("x", projects.MaxBlockReason+1)}, 1, fmt.Sprintf("reason: at most %d bytes", projects.MaxBlockReason)},
		{[]string{"block", "add", "demo", "nick", "mallory", "--reason", "two\nlines"}, 1, "reason: one line"},
		{[]string{"target", "add", "demo", "rsync://up.example/" + strings.Repeat("x", projects.MaxURL) + "/"}, 2, fmt.Sprintf("upload target: at most %d bytes", projects.MaxURL)},
		{[]string{"project", "create", "long", "--title", strings.Repeat("x", projects.MaxTitle+1)}, 1, fmt.Sprintf("title: at most %d bytes", projects.MaxTitle)},
		{[]string{"project", "set", "demo", "repository=https://example.org/" + strings.Repeat("x", projects.MaxURL)}, 1, fmt.Sprintf("repository: at most %d bytes", projects.MaxURL)},
	} {
		code, _, errOut := tracker(t, dsn, "", nil, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%.80q: exit %d %.200q, want %d %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
	pool := openPool(t, dsn)
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM blocks") + dbtest.Count(t, pool, "SELECT count(*) FROM upload_targets") +
		dbtest.Count(t, pool, "SELECT count(*) FROM projects WHERE slug = 'long' OR config->>'repository' <> ''"); n != 0 {
		t.Fatalf("%d rows stored past their bounds", n)
	}
}

// The debug listener serves the profiles and nothing else; the
// tracker's own routes never serve them (tracker serve without
// --debug-addr has no such listener at all).
func TestDebugMuxServesProfilesOnly(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(debugMux())
	defer srv.Close()
	for path, want := range map[string]int{
		"/debug/pprof/":                  http.StatusOK,
		"/debug/pprof/goroutine?debug=1": http.StatusOK,
		"/debug/pprof/cmdline":           http.StatusOK,
		"/":                              http.StatusNotFound,
		"/healthz":                       http.StatusNotFound,
	} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
		if path == "/debug/pprof/goroutine?debug=1" && !strings.Contains(string(body), "goroutine profile") {
			t.Errorf("GET %s: not a goroutine profile: %.100s", path, body)
		}
	}
}
