// Package e2e tests the tracker from the outside: the built binary, its
// embedded PostgreSQL cluster, and HTTP clients speaking the warrior
// protocol.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tracker/db/dbtest"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tracker-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "tracker")
	build := exec.Command("go", "build", "-o", binary, "tracker/cmd/tracker")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the tracker:", err)
		os.Exit(1)
	}
	code := dbtest.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// dataDir is a fresh data directory that PostgreSQL's own account can enter
// when the tests run as root.
func dataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tracker-e2e-data-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "data")
}

// env is the environment of the tracker processes: no DATABASE_URL, so they
// use the embedded cluster.
func env(extra ...string) []string {
	var e []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "TRACKER_") {
			e = append(e, kv)
		}
	}
	return append(e, extra...)
}

// cli runs a tracker command to completion.
func cli(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	return cliEnv(t, env(), stdin, args...)
}

func cliEnv(t *testing.T, env []string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("tracker %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
	exited chan error
	// lines are the lines the server logs, for waitLog (the first 1,000).
	lines chan string
}

// waitLog waits for a line the server logs that matches re, and returns
// its submatches.
func (s *server) waitLog(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case line := <-s.lines:
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		case <-timeout:
			t.Fatalf("the server logged no line like %s", re)
		}
	}
}

var listeningRE = regexp.MustCompile(`msg="tracker listening" url=(http://\S+)/`)

// serve starts `tracker serve` and waits until it listens.
func serve(t *testing.T, dataDir string) *server {
	t.Helper()
	return serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir), env())
}

// serveEnv starts `tracker serve` configured by the environment alone.
func serveEnv(t *testing.T, dataDir string) *server {
	t.Helper()
	return serveCmd(t, exec.Command(binary, "serve"), env("TRACKER_ADDR=127.0.0.1:0", "TRACKER_DATA_DIR="+dataDir))
}

func serveCmd(t *testing.T, cmd *exec.Cmd, env []string) *server {
	t.Helper()
	cmd.Env = env
	pr, pw := io.Pipe()
	s := &server{cmd: cmd, stderr: &bytes.Buffer{}, exited: make(chan error, 1), lines: make(chan string, 1000)}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.stderr.WriteString(sc.Text() + "\n")
			select {
			case s.lines <- sc.Text():
			default:
			}
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case s.url = <-found:
		return s
	case err := <-s.exited:
		t.Fatalf("serve exited: %v\n%s", err, s.stderr)
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve did not start\n%s", s.stderr)
	}
	return nil
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		if err != nil {
			t.Fatalf("serve exited with %v\n%s", err, s.stderr)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve did not stop\n%s", s.stderr)
	}
}

// firstRound is the first work on project demo of the items user:1-3:
// alice takes user:1 and reports it done, bob asks for five and gets the
// other two.
func firstRound(t *testing.T, url string) {
	t.Helper()
	code, body := post(t, url+"/demo/request", `{"downloader":"alice","api_version":"2","version":"1"}`)
	if code != 200 || body != `{"item_name":"user:1"}` {
		t.Fatalf("request: %d %q", code, body)
	}
	code, body = post(t, url+"/demo/done", `{"downloader":"alice","version":"1","item":"user:1","bytes":{"data":100},"id":{}}`)
	if code != 200 || body != "OK" {
		t.Fatalf("done: %d %q", code, body)
	}
	code, body = post(t, url+"/demo/multi=5//request", `{"downloader":"bob"}`)
	if code != 200 || body != `{"item_name":"user:2\u0000user:3"}` {
		t.Fatalf("multi request: %d %q", code, body)
	}
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func get(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// postgresPID is the embedded server's process, from its pid file.
func postgresPID(t *testing.T, dataDir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "pgdata", "postmaster.pid"))
	if err != nil {
		t.Fatalf("no running PostgreSQL: %v", err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil || pid <= 0 {
		t.Fatalf("postmaster.pid: %q: %v", b, err)
	}
	return pid
}

// processesIn lists the live processes whose command line names dir.
func processesIn(dir string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(dir)) {
			continue
		}
		stat, _ := os.ReadFile(strings.TrimSuffix(p, "cmdline") + "stat")
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && bytes.HasPrefix(stat[i:], []byte(") Z")) {
			continue // exited, waiting to be reaped
		}
		found = append(found, string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
	}
	return found
}

func waitNoProcesses(t *testing.T, dir string) {
	t.Helper()
	var left []string
	// Deferred, so it also runs when Eventually fails the test.
	defer func() {
		if len(left) > 0 {
			t.Logf("processes left running on %s: %q", dir, left)
		}
	}()
	dbtest.Eventually(t, func() bool { left = processesIn(dir); return len(left) == 0 }, "no process left running on "+dir)
}

// The foundation's promise: serve on the embedded cluster with nothing
// configured, the CLI working beside it on the same data directory, a
// warrior cycle over HTTP, and nothing left running after SIGTERM.
func TestServeWithEmbeddedCluster(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	s := serve(t, dir)

	if code := get(t, s.url+"/healthz"); code != 200 {
		t.Fatalf("healthz %d", code)
	}
	pid := postgresPID(t, dir)

	// The CLI, from other processes, joins the running cluster.
	cli(t, "", "project", "create", "demo", "--data-dir", dir, "--title", "Demo")
	if out := cli(t, "user:1\nuser:2\nuser:3\n", "items", "add", "demo", "--data-dir", dir); out != "added 3, skipped 0\n" {
		t.Fatalf("items add printed %q", out)
	}
	if got := postgresPID(t, dir); got != pid {
		t.Fatalf("the CLI started PostgreSQL %d beside the running %d", got, pid)
	}

	firstRound(t, s.url)
	if code, _ := post(t, s.url+"/demo/request", `{"downloader":"bob"}`); code != 404 {
		t.Fatalf("empty queue: %d", code)
	}
	show := cli(t, "", "project", "show", "demo", "--data-dir", dir)
	for _, want := range []string{`"claims": 2`, `"done": 1`, `"todo": 0`} {
		if !strings.Contains(show, want) {
			t.Errorf("project show lacks %s:\n%s", want, show)
		}
	}

	s.stop(t)
	waitNoProcesses(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "pgdata", "postmaster.pid")); err == nil {
		t.Error("postmaster.pid left behind")
	}

	// The next start finds the data where it was left.
	s = serve(t, dir)
	code, body := post(t, s.url+"/demo/done", `{"downloader":"bob","item":"user:2\u0000user:3","bytes":{"data":7}}`)
	if code != 200 || body != "OK" {
		t.Fatalf("done after restart: %d %q", code, body)
	}
	s.stop(t)
	waitNoProcesses(t, dir)
	show = cli(t, "", "project", "show", "demo", "--data-dir", dir)
	if !strings.Contains(show, `"done": 3`) {
		t.Errorf("after restart:\n%s", show)
	}
	// The CLI alone starts the cluster and stops it again.
	waitNoProcesses(t, dir)
}

// Two serve processes on one data directory share one cluster; it stops
// only when the last leaves.
func TestTwoServersShareTheCluster(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	a := serve(t, dir)
	b := serveEnv(t, dir) // $TRACKER_ADDR and $TRACKER_DATA_DIR instead of flags
	pid := postgresPID(t, dir)
	// The CLI too takes its data directory from the environment.
	cliEnv(t, env("TRACKER_DATA_DIR="+dir), "", "project", "create", "envy")
	if out := cli(t, "", "project", "show", "envy", "--data-dir", dir); !strings.Contains(out, `"slug": "envy"`) {
		t.Fatalf("project show: %s", out)
	}
	a.stop(t)
	if code := get(t, b.url+"/healthz"); code != 200 {
		t.Fatalf("second server lost its database when the first stopped: healthz %d", code)
	}
	if got := postgresPID(t, dir); got != pid {
		t.Fatalf("PostgreSQL changed from %d to %d", pid, got)
	}
	b.stop(t)
	waitNoProcesses(t, dir)
}

func TestServeWithDatabaseURLUnreachable(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(context.Background(), binary, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = env("DATABASE_URL=postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "connect to the database") {
		t.Fatalf("err %v, output %q", err, out)
	}
}

// With a reclaim TTL, a claim never finished comes back to the queue by
// itself: the reclaim job of the running server puts it back.
func TestUnfinishedClaimsComeBack(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	s := serve(t, dir)
	defer s.stop(t)
	cli(t, "", "project", "create", "demo", "--data-dir", dir)
	cli(t, "user:1\nuser:2\n", "items", "add", "demo", "--data-dir", dir)
	cli(t, "", "project", "set", "demo", "reclaim_ttl=1", "--data-dir", dir)
	cli(t, "", "jobs", "set", "reclaim", "--every", "1s", "--data-dir", dir)

	if code, body := post(t, s.url+"/demo/request", `{"downloader":"alice"}`); code != 200 || body != `{"item_name":"user:1"}` {
		t.Fatalf("request: %d %q", code, body)
	}
	// Paused while the claim expires, so no request hands anything out on
	// the server's view of the project from before the reclaim.
	cli(t, "", "project", "set", "demo", "paused=true", "--data-dir", dir)
	dbtest.Eventually(t, func() bool {
		resp, err := http.Get(s.url + "/demo/items/user:1.json")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st struct{ Status string }
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			t.Fatalf("user:1.json: %d: %v", resp.StatusCode, err)
		}
		return st.Status == "todo"
	}, "user:1 back in todo")
	// Resumed after the reclaim: once the server answers with an item, its
	// view of the project is newer than the reclaim, and the item is back
	// in its old place: the next warrior gets it first.
	cli(t, "", "project", "set", "demo", "paused=false", "--data-dir", dir)
	dbtest.Eventually(t, func() bool {
		resp, err := http.Post(s.url+"/demo/request", "application/json", strings.NewReader(`{"downloader":"bob"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == 200 {
			if string(body) != `{"item_name":"user:1"}` {
				t.Fatalf("request after reclaim: %q", body)
			}
			return true
		}
		if reason := resp.Header.Get("X-Tracker-Reason"); reason != "paused" {
			t.Fatalf("request after reclaim: %d %s %q", resp.StatusCode, reason, body)
		}
		return false
	}, "a request served after the resume")
	var jobs []struct {
		Name        string
		LastOutcome string `json:"last_outcome"`
		Runs        int
	}
	if err := json.Unmarshal([]byte(cli(t, "", "jobs", "--data-dir", dir)), &jobs); err != nil {
		t.Fatal(err)
	}
	ran := false
	for _, j := range jobs {
		ran = ran || j.Name == "reclaim" && j.Runs >= 1 && j.LastOutcome == "ok"
	}
	if !ran {
		t.Errorf("jobs: %+v", jobs)
	}
}
