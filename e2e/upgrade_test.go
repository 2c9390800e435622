package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"tracker/db/dbtest"
)

// previousRelease builds the tracker as it was before its newest migration
// was added, from the repository's history, into a temporary directory:
// the release a rolling upgrade to this one starts from. Without the
// history (not a git checkout, or a shallow one) the test is skipped,
// unless $CI is set: there it is a failure.
func previousRelease(t *testing.T) string {
	t.Helper()
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", args...).Output()
		return strings.TrimSpace(string(out)), err
	}
	skip := func(why string, err error) {
		t.Helper()
		msg := fmt.Sprintf("no release before this one to upgrade from: %s: %v", why, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI is set: the upgrade test must run)")
		}
		t.Skip(msg)
	}
	root, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		skip("not a git checkout", err)
	}
	ups, _ := filepath.Glob(filepath.Join(root, "migrations", "*.up.sql"))
	if len(ups) == 0 {
		t.Fatal("no migrations in", root)
	}
	sort.Strings(ups)
	newest := filepath.ToSlash(strings.TrimPrefix(ups[len(ups)-1], root+"/"))
	// The commit of the main line that brought the newest migration in;
	// the release before is its first parent. A migration not yet
	// committed comes after HEAD.
	added, err := git("-C", root, "log", "--first-parent", "-m", "--diff-filter=A", "--format=%H", "--", newest)
	if err != nil {
		skip("git log", err)
	}
	previous := "HEAD"
	if added != "" {
		lines := strings.Fields(added)
		previous = lines[len(lines)-1] + "^1"
	}
	commit, err := git("-C", root, "rev-parse", "--verify", previous)
	if err != nil {
		skip("the commit before "+newest+" (a shallow clone?)", err)
	}
	src := t.TempDir()
	archive := exec.Command("sh", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "sh", root, commit, src)
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive %s: %v\n%s", commit, err, out)
	}
	bin := filepath.Join(src, "tracker-previous")
	build := exec.Command("go", "build", "-o", bin, "./cmd/tracker")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the tracker of %s: %v\n%s", commit, err, out)
	}
	t.Logf("the previous release: %s, before %s", commit[:12], newest)
	return bin
}

// A rolling upgrade while warriors work through nginx in front of two
// tracker processes of the previous release: the new release migrates the
// database under their load, and both keep serving on it; then each in
// turn is stopped with SIGTERM and the new release started in its place.
// Every answer is a 200 (a 404 for a request when the queue is empty) or a
// 503 with Retry-After, every completion answered OK is on record, and the
// books balance.
func TestRollingUpgrade(t *testing.T) {
	t.Parallel()
	nginxPath := nginx(t)
	previous := previousRelease(t)
	dir := filepath.Dir(dataDir(t))
	port := freePort(t)
	plainCluster(t, filepath.Join(dir, "pg"), port, "")
	withURL := env(fmt.Sprintf("DATABASE_URL=postgres://tracker@127.0.0.1:%d/tracker", port))
	run := func(bin, stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Stdin = withURL, strings.NewReader(stdin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
		}
		return string(out)
	}

	// The previous release lays the database out and serves it.
	was := run(previous, "", "migrate")
	run(previous, "", "project", "create", "demo")
	// Items are added by the previous release until the new one migrates.
	var adder atomic.Value
	adder.Store(previous)
	refill := addItems(t, func() string { return adder.Load().(string) }, withURL, "demo", 5000)
	refill()
	addrs := []string{fmt.Sprintf("127.0.0.1:%d", freePort(t)), fmt.Sprintf("127.0.0.1:%d", freePort(t))}
	serveAt := func(bin, addr string) *server {
		t.Helper()
		return serveCmd(t, exec.Command(bin, "serve", "--addr", addr), withURL)
	}
	procs := []*server{serveAt(previous, addrs[0]), serveAt(previous, addrs[1])}
	proxy := startNginx(t, nginxPath, addrs...)
	warriors := startFleet(t, "demo", 6, func() string { return "http://" + proxy }, refill)
	warriors.waitFor(100, "from the previous release")

	// The new release migrates the database under the previous one's load.
	is := run(binary, "", "migrate")
	adder.Store(binary)
	if is == was {
		t.Fatalf("the new release migrated nothing: %s", is)
	}
	t.Logf("migrated from %s to %s under load", strings.TrimSpace(was), strings.TrimSpace(is))
	warriors.waitFor(100, "from the previous release on the migrated schema")
	for i, p := range procs {
		item := strings.TrimSuffix(strings.TrimPrefix(requestAt(t, p.url, "direct"), `{"item_name":"`), `"}`)
		if code, body := post(t, p.url+"/demo/done", `{"downloader":"direct","item":"`+item+`","bytes":{"data":1}}`); code != 200 || body != "OK" {
			t.Fatalf("process %d of the previous release on the migrated schema: done %d %q", i, code, body)
		}
	}

	// One process at a time, the previous release makes way for the new.
	for i := range procs {
		procs[i].stop(t)
		warriors.waitFor(100, fmt.Sprintf("with process %d stopped", i))
		procs[i] = serveAt(binary, addrs[i])
		// The proxy takes a process that refused connections back only
		// after a while (nginx: fail_timeout, 10 s): before the next is
		// stopped, the new one serves warriors through it.
		dbtest.Eventually(t, func() bool { return dones(t, procs[i].url) >= 20 }, fmt.Sprintf("process %d upgraded serving warriors through the proxy", i))
		warriors.waitFor(100, fmt.Sprintf("with process %d upgraded", i))
	}
	warriors.halt()

	done := map[string]bool{}
	for _, name := range strings.Fields(psql(t, port, "SELECT name FROM done")) {
		done[name] = true
	}
	ok := 0
	for item, d := range warriors.log() {
		if !d.ok.IsZero() {
			ok++
			if !done[item] {
				t.Errorf("%s was answered OK and is not done", item)
			}
		}
	}
	t.Logf("%d completions answered OK, answers 503 with Retry-After over the upgrade by reason %v", ok, warriors.retries())
	run(binary, "", "jobs", "run", "rollup")
	if out := run(binary, "", "check", "demo"); !strings.Contains(out, `"balanced": true`) {
		t.Fatalf("the books do not balance after the upgrade:\n%s", out)
	}
	for _, p := range procs {
		p.stop(t)
	}
}

// dones is how many dones the process at base answered 200, by its
// metrics.
func dones(t *testing.T, base string) int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "tracker_http_requests_total{") && strings.Contains(line, `code="200"`) && strings.Contains(line, `route="done"`) {
			v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			if err != nil {
				t.Fatalf("metrics: %q: %v", line, err)
			}
			n += int(v)
		}
	}
	return n
}
