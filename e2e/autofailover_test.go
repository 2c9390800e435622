package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tracker/db/dbtest"
)

// formation is a pg_auto_failover formation in dir: a monitor and data
// nodes on loopback, each node's `pg_autoctl run` in a process group of its
// own, so that a test can kill a node whole, its keeper with its
// PostgreSQL (PostgreSQL killed alone is started again by its keeper).
type formation struct {
	dir, pgctl string
	env        []string
	monitor    string // the monitor's data directory
	// timeout is the longest a failover may take by the monitor's
	// settings (see waitPrimary).
	timeout time.Duration
	runs    map[string]*exec.Cmd
	exited  map[string]chan struct{}
}

// newFormation finds pg_auto_failover and the PostgreSQL it is built for.
func newFormation(t *testing.T) *formation {
	t.Helper()
	if _, err := exec.LookPath("pg_autoctl"); err != nil {
		t.Fatal("pg_auto_failover is not installed (Debian: postgresql-15-auto-failover)")
	}
	libs, _ := filepath.Glob("/usr/lib/postgresql/*/lib/pgautofailover.so")
	if len(libs) == 0 {
		t.Fatal("pg_autoctl is installed without its PostgreSQL extension")
	}
	// The nodes' keepers make folders beside their data directories
	// (backup/): the formation's folder is PostgreSQL's account's.
	dir := filepath.Join(filepath.Dir(dataDir(t)), "formation")
	pgDir(t, dir)
	home := filepath.Join(dir, "home")
	pgDir(t, home)
	f := &formation{
		dir:   dir,
		pgctl: filepath.Join(filepath.Dir(filepath.Dir(libs[0])), "bin", "pg_ctl"),
		// pg_autoctl keeps its state under XDG_CONFIG_HOME and
		// XDG_DATA_HOME, by data directory: the formation's own.
		env:    env("XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "share")),
		runs:   map[string]*exec.Cmd{},
		exited: map[string]chan struct{}{},
	}
	t.Cleanup(func() {
		for name := range f.runs {
			f.kill(t, name)
		}
	})
	return f
}

// command is pg_autoctl with args, as the account PostgreSQL runs as when
// the tests run as root (PostgreSQL refuses root).
func (f *formation) command(args ...string) *exec.Cmd {
	argv := append([]string{"pg_autoctl"}, args...)
	if os.Geteuid() == 0 {
		argv = append([]string{"runuser", "-u", "postgres", "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = f.env
	return cmd
}

// do runs pg_autoctl to completion.
func (f *formation) do(t *testing.T, args ...string) string {
	t.Helper()
	cmd := f.command(args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return string(out)
}

// superuser is the PostgreSQL account pg_autoctl's initdb makes: the one
// it runs as.
func (f *formation) superuser(t *testing.T) string {
	if os.Geteuid() == 0 {
		return "postgres"
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

// createMonitor makes the monitor and runs it; it returns the monitor's
// URI, which the nodes register with.
func (f *formation) createMonitor(t *testing.T, port int) string {
	t.Helper()
	f.monitor = filepath.Join(f.dir, "monitor")
	pgDir(t, f.monitor)
	f.do(t, "create", "monitor", "--pgctl", f.pgctl, "--pgdata", f.monitor, "--pgport", fmt.Sprint(port),
		"--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl")
	f.run(t, "monitor")
	dbtest.Eventually(t, func() bool {
		return f.command("show", "state", "--pgdata", f.monitor).Run() == nil
	}, "the monitor answering")
	f.timeout = f.monitorSetting(t, port, "node_considered_unhealthy_timeout") +
		f.monitorSetting(t, port, "primary_demote_timeout") + 30*time.Second
	return strings.TrimSpace(f.do(t, "show", "uri", "--pgdata", f.monitor, "--formation", "monitor"))
}

// createNode makes data node name with its database, registers it with
// the monitor and runs it: the first is the primary, the next a
// synchronous standby, copied from the primary by its keeper.
func (f *formation) createNode(t *testing.T, name string, port int, monitorURI string) {
	t.Helper()
	pgdata := filepath.Join(f.dir, name)
	pgDir(t, pgdata)
	f.do(t, "create", "postgres", "--pgctl", f.pgctl, "--pgdata", pgdata, "--pgport", fmt.Sprint(port),
		"--listen", "127.0.0.1", "--hostname", "127.0.0.1", "--name", name, "--dbname", "tracker",
		"--auth", "trust", "--no-ssl", "--monitor", monitorURI)
	f.run(t, name)
}

// run starts `pg_autoctl run` on node name's data directory.
func (f *formation) run(t *testing.T, name string) {
	t.Helper()
	cmd := f.command("run", "--pgdata", filepath.Join(f.dir, name))
	log, err := os.OpenFile(filepath.Join(f.dir, name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	f.runs[name], f.exited[name] = cmd, exited
}

// kill sends SIGKILL to node name's process group: its keeper and its
// PostgreSQL die at once, as with the machine's power cut.
func (f *formation) kill(t *testing.T, name string) {
	t.Helper()
	cmd := f.runs[name]
	if cmd == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-f.exited[name]
	delete(f.runs, name)
	// The postmaster's children leave on their own once it is gone.
	waitNoProcesses(t, filepath.Join(f.dir, name))
}

// node is a data node as the monitor reports it.
type node struct {
	Name     string `json:"nodename"`
	Reported string `json:"current_group_state"`
	Assigned string `json:"assigned_group_state"`
}

// states are the data nodes' states, by name.
func (f *formation) states(t *testing.T) map[string]node {
	t.Helper()
	var nodes []node
	out := f.do(t, "show", "state", "--pgdata", f.monitor, "--json")
	if err := json.Unmarshal([]byte(out), &nodes); err != nil {
		t.Fatalf("pg_autoctl show state: %v\n%s", err, out)
	}
	m := map[string]node{}
	for _, n := range nodes {
		m[n.Name] = n
	}
	return m
}

// is tells whether each node named has reached the state given, reported
// and assigned: the monitor has nothing more for it to do.
func (f *formation) is(t *testing.T, want map[string]string) bool {
	t.Helper()
	got := f.states(t)
	for name, state := range want {
		if got[name].Reported != state || got[name].Assigned != state {
			return false
		}
	}
	return true
}

// psql runs a query on the node at port, as pg_autoctl's superuser, and
// returns its output unaligned.
func (f *formation) psql(t *testing.T, port int, dbname, query string) string {
	t.Helper()
	return strings.TrimSpace(pgAs(t, "psql", "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--username", f.superuser(t),
		"--dbname", dbname, "--tuples-only", "--no-align", "--command", query))
}

// monitorSetting reads one of the monitor's pgautofailover settings, in
// milliseconds.
func (f *formation) monitorSetting(t *testing.T, port int, name string) time.Duration {
	t.Helper()
	out := f.psql(t, port, "pg_auto_failover", "SELECT setting FROM pg_settings WHERE name = 'pgautofailover."+name+"'")
	var ms int
	if _, err := fmt.Sscan(out, &ms); err != nil {
		t.Fatalf("pgautofailover.%s: %q", name, out)
	}
	return time.Duration(ms) * time.Millisecond
}

// A primary, its synchronous standby and a monitor run by
// pg_auto_failover; two tracker processes on the formation's multi-host
// URI, warriors (single and multi) and a grab script's backfeed going
// through both. The primary's node dies (SIGKILL) mid-load: the monitor
// promotes the standby within its timeouts, the same tracker processes
// serve again by themselves, the warriors see 503 with Retry-After and
// never a 500, and every completion answered OK is on record. The old
// primary comes back as a standby, and an orchestrated failover goes back
// to it, the same again. The gaps are logged.
//
// It waits out the monitor's timeouts, a minute or more: it runs in
// `make test-ha`, which sets TRACKER_TEST_HA.
func TestAutomaticFailover(t *testing.T) {
	if os.Getenv("TRACKER_TEST_HA") == "" {
		t.Skip("TRACKER_TEST_HA not set (make test-ha)")
	}
	t.Parallel()
	began := time.Now()
	f := newFormation(t)
	pm, p1, p2 := freePort(t), freePort(t), freePort(t)
	monitorURI := f.createMonitor(t, pm)
	f.createNode(t, "n1", p1, monitorURI)
	dbtest.Eventually(t, func() bool { return f.is(t, map[string]string{"n1": "single"}) }, "n1 the single node")
	t.Logf("monitor and primary up in %s", time.Since(began).Round(time.Second))
	f.createNode(t, "n2", p2, monitorURI)
	dbtest.EventuallyWithin(t, 2*time.Minute, func() bool {
		return f.is(t, map[string]string{"n1": "primary", "n2": "secondary"})
	}, "n2 the synchronous standby of n1")
	t.Logf("standby up in %s", time.Since(began).Round(time.Second))
	// Synchronous: a commit is acknowledged once the standby has it.
	if got := f.psql(t, p1, "tracker", "SELECT sync_state FROM pg_stat_replication"); got != "quorum" {
		t.Fatalf("the standby's replication is %q", got)
	}

	// The URI the operator gives the tracker, as pg_autoctl prints it,
	// with the account to connect as and a connect timeout (a host that
	// does not answer is given up for the next after 3 s).
	uri, err := url.Parse(strings.TrimSpace(f.do(t, "show", "uri", "--pgdata", f.monitor, "--formation", "default")))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", p1, p2); uri.Host != want || uri.Query().Get("target_session_attrs") != "read-write" {
		t.Fatalf("pg_autoctl show uri: %s", uri)
	}
	uri.User = url.User(f.superuser(t))
	q := uri.Query()
	q.Set("connect_timeout", "3")
	uri.RawQuery = q.Encode()
	withURL := env("DATABASE_URL=" + uri.String())

	const items = 5000
	cliEnv(t, withURL, "", "project", "create", "demo")
	cliEnv(t, withURL, "", "project", "set", "demo", "backfeed_key=failover_key")
	var names strings.Builder
	for i := range items {
		fmt.Fprintf(&names, "item:%d\n", i)
	}
	cliEnv(t, withURL, names.String(), "items", "add", "demo")
	servers := []*server{
		serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0"), withURL),
		serveCmd(t, exec.Command(binary, "serve", "--addr", "127.0.0.1:0"), withURL),
	}

	t.Logf("formation and trackers up in %s", time.Since(began).Round(time.Second))
	l := startLoad(t, servers)
	l.waitDone(t, 100)

	// The primary's node dies.
	if !f.is(t, map[string]string{"n1": "primary", "n2": "secondary"}) {
		t.Fatalf("before the failover: %v", f.states(t))
	}
	killed := time.Now()
	f.kill(t, "n1")
	promoted := f.waitPrimary(t, "n2", killed)
	l.waitServed(t, killed)
	t.Logf("failover (primary killed): %s", l.gap(killed, promoted))

	// The old primary comes back: its keeper rewinds it and makes it n2's
	// standby.
	f.run(t, "n1")
	dbtest.EventuallyWithin(t, 3*time.Minute, func() bool {
		return f.is(t, map[string]string{"n1": "secondary", "n2": "primary"})
	}, "n1 back as n2's standby")
	t.Logf("n1 rejoined as a standby at %s", time.Since(began).Round(time.Second))
	l.waitDone(t, l.doneCount()+100)

	// And the operator fails over back to it.
	switched := time.Now()
	perform := f.command("perform", "failover", "--pgdata", f.monitor)
	performed := make(chan error, 1)
	var performOut []byte
	go func() {
		var err error
		performOut, err = perform.CombinedOutput()
		performed <- err
	}()
	promoted = f.waitPrimary(t, "n1", switched)
	if err := <-performed; err != nil {
		t.Fatalf("pg_autoctl perform failover: %v\n%s", err, performOut)
	}
	l.waitServed(t, switched)
	dbtest.EventuallyWithin(t, 2*time.Minute, func() bool {
		return f.is(t, map[string]string{"n1": "primary", "n2": "secondary"})
	}, "n2 back as n1's standby")
	l.waitDone(t, l.doneCount()+100)
	t.Logf("failover (pg_autoctl perform failover): %s", l.gap(switched, promoted))
	l.stop()

	for i, s := range servers {
		select {
		case err := <-s.exited:
			t.Fatalf("tracker %d exited during the failovers: %v\n%s", i, err, s.stderr)
		default:
		}
	}
	checking := time.Now()
	l.check(t, servers[0].url)
	t.Logf("read back in %s", time.Since(checking).Round(time.Second))
	cliEnv(t, withURL, "", "jobs", "run", "rollup")
	if out := cliEnv(t, withURL, "", "check", "demo"); !strings.Contains(out, `"balanced": true`) {
		t.Errorf("the books after the failovers:\n%s", out)
	}
	for _, s := range servers {
		s.stop(t)
	}
}

// waitPrimary waits for the monitor to make node name the primary (it is
// writable from wait_primary on), no longer than the monitor's own
// timeouts allow: the old primary found unhealthy, then given its time to
// demote itself, and a margin for the health checks and the promotion.
func (f *formation) waitPrimary(t *testing.T, name string, since time.Time) time.Time {
	t.Helper()
	var at time.Time
	dbtest.EventuallyWithin(t, f.timeout-time.Since(since), func() bool {
		st := f.states(t)[name].Reported
		at = time.Now()
		return st == "wait_primary" || st == "primary"
	}, name+" the new primary")
	return at
}

// load is warriors and a grab script going round the tracker processes
// until stopped, keeping the record of what they were answered.
type load struct {
	client *http.Client
	quit   chan struct{}
	wg     sync.WaitGroup

	mu       sync.Mutex
	doneOK   map[string]bool
	backfed  []string
	answers  []answer
	failures []string
}

// answer is one answer a process gave, and when.
type answer struct {
	at     time.Time
	server int
	status int
	reason string        // X-Tracker-Reason
	took   time.Duration // from the request sent to the answer read
}

func startLoad(t *testing.T, servers []*server) *load {
	l := &load{client: &http.Client{Timeout: 30 * time.Second}, quit: make(chan struct{}), doneOK: map[string]bool{}}
	for w := range 4 {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			path := "/demo/request"
			if w%2 == 1 {
				path = "/demo/multi=3//request"
			}
			l.warrior(servers, w, path)
		}()
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		l.grabScript(servers)
	}()
	t.Cleanup(l.stop)
	return l
}

func (l *load) stop() {
	select {
	case <-l.quit:
	default:
		close(l.quit)
	}
	l.wg.Wait()
}

func (l *load) stopped() bool {
	select {
	case <-l.quit:
		return true
	default:
		return false
	}
}

// post sends one request, and records its answer; ok is false for any
// answer but 200 or a 503 with Retry-After (the only refusal a failover
// may give), which is recorded as a failure.
func (l *load) post(servers []*server, k int, path, body string) (status int, text string, ok bool) {
	i := k % len(servers)
	sent := time.Now()
	resp, err := l.client.Post(servers[i].url+path, "application/json", strings.NewReader(body))
	if err != nil {
		l.fail("%s: no answer: %v", path, err)
		return 0, "", false
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	l.mu.Lock()
	l.answers = append(l.answers, answer{at: time.Now(), server: i, status: resp.StatusCode, reason: resp.Header.Get("X-Tracker-Reason"), took: time.Since(sent)})
	l.mu.Unlock()
	switch {
	case err != nil:
		l.fail("%s: reading the answer: %v", path, err)
	case resp.StatusCode == 200:
		return 200, string(b), true
	case resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "":
		return 503, string(b), true
	default:
		l.fail("%s: %d %s %q", path, resp.StatusCode, resp.Header.Get("X-Tracker-Reason"), b)
	}
	return resp.StatusCode, string(b), false
}

func (l *load) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures = append(l.failures, fmt.Sprintf(format, args...))
}

// pause is a warrior's wait before it tries again after a 503 (it would
// wait its Retry-After; a tenth of a second here, to see the tracker
// answer again the moment it does).
func (l *load) pause() { l.wait(100 * time.Millisecond) }

// work is the time a warrior takes over an item, or a grab script between
// posts: the load's pace, not a synchronisation.
func (l *load) work() { l.wait(400 * time.Millisecond) }

func (l *load) wait(d time.Duration) {
	select {
	case <-l.quit:
	case <-time.After(d):
	}
}

// warrior claims items and reports each claim done, going round the
// processes, trying each call again after a 503 as warriors do.
func (l *load) warrior(servers []*server, w int, path string) {
	nick := fmt.Sprintf("w%d", w)
	for k := w; !l.stopped(); k++ {
		code, body, ok := l.post(servers, k, path, `{"downloader":"`+nick+`"}`)
		if !ok {
			return
		}
		if code == 503 {
			l.pause()
			continue
		}
		var got struct {
			Item string `json:"item_name"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			l.fail("%s: %q: %v", path, body, err)
			return
		}
		l.work()
		done, _ := json.Marshal(map[string]any{"downloader": nick, "item": got.Item, "bytes": map[string]int{"data": 10}})
		// The done is sent until it is answered OK, stopped or not: a
		// claim is not left half-reported.
		for k++; ; k++ {
			code, body, ok := l.post(servers, k, "/demo/done", string(done))
			if !ok {
				return
			}
			if code == 200 {
				if body != "OK" {
					l.fail("done: %q", body)
					return
				}
				l.mu.Lock()
				for _, it := range strings.Split(got.Item, "\x00") {
					l.doneOK[it] = true
				}
				l.mu.Unlock()
				break
			}
			l.pause()
		}
	}
}

// grabScript backfeeds new items, ten a post, each post sent again after
// a 503 until it is taken.
func (l *load) grabScript(servers []*server) {
	for k := 0; !l.stopped(); k++ {
		var entries []string
		for j := range 5 {
			entries = append(entries, fmt.Sprintf("found:%d", 5*k+j))
		}
		for try := k; ; try++ {
			code, body, ok := l.post(servers, try, "/backfeed/legacy/demo-failover_key", strings.Join(entries, "\x00")+"\x00")
			if !ok {
				return
			}
			if code == 200 {
				var got struct {
					Status int `json:"status_code"`
					New    int
				}
				if err := json.Unmarshal([]byte(body), &got); err != nil || got.Status != 200 || got.New != len(entries) {
					l.fail("backfeed: %q: %v", body, err)
					return
				}
				l.mu.Lock()
				l.backfed = append(l.backfed, entries...)
				l.mu.Unlock()
				break
			}
			l.pause()
		}
		l.work()
	}
}

func (l *load) doneCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.doneOK)
}

// waitDone waits for n items answered OK in all, failing the test at the
// load's first failure.
func (l *load) waitDone(t *testing.T, n int) {
	t.Helper()
	dbtest.EventuallyWithin(t, 2*time.Minute, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		if len(l.failures) > 0 {
			t.Fatalf("the load failed: %s", strings.Join(l.failures, "\n"))
		}
		return len(l.doneOK) >= n
	}, fmt.Sprintf("%d items done", n))
}

// waitServed waits for every process to answer 200 again after since,
// without having been restarted.
func (l *load) waitServed(t *testing.T, since time.Time) {
	t.Helper()
	dbtest.EventuallyWithin(t, time.Minute, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		if len(l.failures) > 0 {
			t.Fatalf("the load failed: %s", strings.Join(l.failures, "\n"))
		}
		served := map[int]bool{}
		for _, a := range l.answers {
			served[a.server] = served[a.server] || a.at.After(since) && a.status == 200
		}
		return served[0] && served[1]
	}, "both processes serving again")
}

// gap says how the failover that began at start looked to the warriors:
// the time until the new primary, the time until the last 503, and the
// 503s answered in between.
func (l *load) gap(start, promoted time.Time) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var refused, served int
	var last time.Time
	reasons := map[string]int{}
	var slowest time.Duration
	for _, a := range l.answers {
		if a.at.Before(start) {
			continue
		}
		slowest = max(slowest, a.took)
		if a.status == 503 {
			refused++
			reasons[a.reason]++
			last = a.at
		} else {
			served++
		}
	}
	lastRefusal := "none"
	if refused > 0 {
		lastRefusal = last.Sub(start).Round(100*time.Millisecond).String() + " after"
	}
	return fmt.Sprintf("new primary %s after, last 503 %s, %d requests answered 503 %v and %d 200 since, the slowest in %s",
		promoted.Sub(start).Round(100*time.Millisecond), lastRefusal, refused, reasons, served, slowest.Round(time.Millisecond))
}

// check reads every item answered OK, and every item backfed, from
// the tracker: the former are done, the latter known.
func (l *load) check(t *testing.T, base string) {
	t.Helper()
	if len(l.failures) > 0 {
		t.Fatalf("the load failed: %s", strings.Join(l.failures, "\n"))
	}
	type want struct{ item, done string }
	wants := make(chan want)
	go func() {
		defer close(wants)
		for it := range l.doneOK {
			wants <- want{it, "done"}
		}
		for _, it := range l.backfed {
			wants <- want{it, ""}
		}
	}()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range wants {
				st, err := l.status(base, w.item)
				switch {
				case err != nil:
					t.Errorf("%s: %v", w.item, err)
				case w.done != "" && st != w.done:
					t.Errorf("%s was answered OK, and is %q", w.item, st)
				case w.done == "" && st == "":
					t.Errorf("%s was backfed, and is unknown", w.item)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d items answered OK and %d backfed, all on record", len(l.doneOK), len(l.backfed))
}

// status is an item's status as the tracker shows it, asked again while
// it answers 503 (a reader's connection may find the old server gone).
func (l *load) status(base, item string) (string, error) {
	deadline := time.Now().Add(dbtest.Patience)
	for {
		resp, err := l.client.Get(base + "/demo/items/" + url.PathEscape(item) + ".json")
		if err != nil {
			return "", err
		}
		var st struct{ Status string }
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		switch {
		case resp.StatusCode == 200 && err == nil:
			return st.Status, nil
		case resp.StatusCode != 503 || time.Now().After(deadline):
			return "", fmt.Errorf("item status: %d %v", resp.StatusCode, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
