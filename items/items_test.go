package items_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

type fixture struct {
	pool    *pgxpool.Pool
	engine  *items.Engine
	store   *projects.Store
	project projects.Project
}

func setup(t *testing.T) fixture {
	t.Helper()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "test", "Test")
	return fixture{pool: pool, engine: items.NewEngine(pool, slog.New(slog.NewTextHandler(io.Discard, nil))), store: projects.NewStore(pool), project: p}
}

// earlier is the SQL of timestamp column moved back by span (an
// interval's text), for the tests that let time pass. Citus refuses an
// update computing a column from one with a function that depends on the
// session (timestamptz - interval does, by the time zone): this is the
// same moment, computed in UTC, with immutable functions only.
func earlier(column, span string) string {
	return "((" + column + " AT TIME ZONE 'UTC') - interval '" + span + "') AT TIME ZONE 'UTC'"
}

func (f fixture) add(t *testing.T, queue string, names ...string) items.AddResult {
	t.Helper()
	res, err := f.engine.Add(context.Background(), f.project, queue, strings.NewReader(strings.Join(names, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// claim asks for n items; an empty answer is no names.
func (f fixture) claim(t *testing.T, nick string, n int) []string {
	t.Helper()
	names, err := f.request(nick, n)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// request asks for n items as a warrior would; an empty answer is no names.
func (f fixture) request(nick string, n int) ([]string, error) {
	live, err := projects.NewCache(f.store, 0).Get(context.Background(), f.project.Slug)
	if err != nil {
		return nil, err
	}
	names, err := f.engine.Request(context.Background(), live, items.ClaimRequest{Downloader: nick, Max: n})
	var refusal *items.Refusal
	if errors.As(err, &refusal) && refusal.Reason == items.ReasonNoItems {
		return nil, nil
	}
	return names.Names, err
}

func (f fixture) complete(t *testing.T, c items.Completion) int64 {
	t.Helper()
	n, err := f.engine.Complete(context.Background(), f.project, c)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (f fixture) summary(t *testing.T) projects.Summary {
	t.Helper()
	s, err := f.store.Summary(context.Background(), f.project)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAddDeduplicates(t *testing.T) {
	t.Parallel()
	f := setup(t)
	input := "post:1\npost:2\r\n\npost:1\npost:3"
	res, err := f.engine.Add(context.Background(), f.project, "todo", strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 3 || res.Skipped != 1 || res.Invalid != 0 {
		t.Fatalf("first import %+v, want 3 added, 1 skipped", res)
	}
	// Names seen before are skipped in every queue, claimed or done.
	got := f.claim(t, "alice", 1)
	f.complete(t, items.Completion{Downloader: "alice", Items: got})
	f.claim(t, "alice", 1)
	if res := f.add(t, "secondary", "post:1", "post:2", "post:3", "post:4"); res.Added != 1 || res.Skipped != 3 {
		t.Fatalf("second import %+v, want 1 added, 3 skipped", res)
	}
	if s := f.summary(t); s.Queues["todo"] != 1 || s.Queues["secondary"] != 1 || s.Claims != 1 || s.Done != 1 {
		t.Fatalf("summary %+v", s)
	}
}

func TestAddReportsInvalidLines(t *testing.T) {
	t.Parallel()
	f := setup(t)
	long := strings.Repeat("x", items.MaxNameBytes+1)
	huge := strings.Repeat("y", 3<<20) // longer than the reader's buffer
	input := "ok:1\n" + long + "\nbad:\xff\nok:2\n" + huge + "\nok:3"
	res, err := f.engine.Add(context.Background(), f.project, "todo", strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 3 || res.Invalid != 3 {
		t.Fatalf("%+v, want 3 added and 3 invalid", res)
	}
	if len(res.InvalidLines) != 3 || !strings.HasPrefix(res.InvalidLines[0], "line 2:") || !strings.HasPrefix(res.InvalidLines[2], "line 5:") {
		t.Errorf("invalid lines %q should name lines 2, 3 and 5", res.InvalidLines)
	}
	if got := f.claim(t, "alice", 10); strings.Join(got, ",") != "ok:1,ok:2,ok:3" {
		t.Errorf("claimed %q", got)
	}
}

func TestAddRejectsUnknownQueue(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, q := range []string{"", "done", "downloader:", "downloader:bad nick"} {
		if _, err := f.engine.Add(context.Background(), f.project, q, strings.NewReader("a")); err == nil {
			t.Errorf("queue %q accepted", q)
		}
	}
}

func TestAddStreamsManyBatches(t *testing.T) {
	t.Parallel()
	f := setup(t)
	const n = 100_000
	r, w := io.Pipe()
	go func() {
		for i := range n {
			fmt.Fprintf(w, "item:%d\n", i)
		}
		w.Close()
	}()
	res, err := f.engine.Add(context.Background(), f.project, "todo", r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != n || res.Skipped != 0 {
		t.Fatalf("%+v, want %d added", res, n)
	}
	// Import order survives the batches.
	if got := f.claim(t, "alice", 3); strings.Join(got, ",") != "item:0,item:1,item:2" {
		t.Errorf("first claims %q", got)
	}
}

// endless is an input that never ends, a line at each read: it calls stop
// once it has given n lines.
type endless struct {
	i, n int
	stop func()
}

func (r *endless) Read(p []byte) (int, error) {
	if r.i == r.n {
		r.stop()
	}
	r.i++
	return copy(p, fmt.Sprintf("item:%d\n", r.i)), nil
}

// An import stopped part-way returns, whatever is left of its input, with
// its writers finished and every batch written whole or not at all.
func TestAddStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := f.engine.Add(ctx, f.project, "todo", &endless{n: 35_000, stop: cancel})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("import of an endless input stopped with %v, %+v", err, res)
	}
	if res.Skipped != 0 {
		t.Errorf("%+v: a stopped import skipped names", res)
	}
	queued := f.summary(t).Queues["todo"]
	if queued%10_000 != 0 || queued > 30_000 || queued < res.Added {
		t.Errorf("%d names queued, %d reported added: want whole batches of 10000, those sent before the stop at most", queued, res.Added)
	}
}

func TestClaimQueueOrder(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.add(t, "redo", "redo:1")
	f.add(t, "secondary", "secondary:1")
	f.add(t, "backfeed", "backfeed:1")
	f.add(t, "todo", "todo:1", "todo:2")
	f.add(t, "downloader:alice", "alice:1")
	f.add(t, "downloader:bob", "bob:1")

	if got := f.claim(t, "alice", 1); strings.Join(got, ",") != "alice:1" {
		t.Fatalf("alice's own queue first: got %q", got)
	}
	// A multi request fills from successive queues, never from another
	// downloader's queue.
	got := f.claim(t, "alice", 10)
	if want := "todo:1,todo:2,backfeed:1,secondary:1,redo:1"; strings.Join(got, ",") != want {
		t.Fatalf("claimed %q, want %q", got, want)
	}
	if got := f.claim(t, "alice", 1); len(got) != 0 {
		t.Fatalf("empty queues handed out %q", got)
	}
	if got := f.claim(t, "bob", 5); strings.Join(got, ",") != "bob:1" {
		t.Fatalf("bob got %q", got)
	}
}

func TestCompleteCountsOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.add(t, "todo", "a", "b", "c", "d")
	batch := f.claim(t, "alice", 3) // a, b, c
	id := json.RawMessage(`{"checksum":"\u0000abc"}`)

	// A partial done of a multi batch: b failed and is left out.
	n := f.complete(t, items.Completion{Downloader: "alice", Version: "1.2", Items: []string{batch[0], batch[2]},
		Bytes: map[string]int64{"data": 1001, "media": 0}, ClientID: id})
	if n != 2 {
		t.Fatalf("completed %d, want 2", n)
	}
	// The same done again, and a done for an item never handed out (d) or
	// unknown: nothing more is counted.
	if n := f.complete(t, items.Completion{Downloader: "alice", Items: []string{batch[0], batch[2]}, Bytes: map[string]int64{"data": 1001}}); n != 0 {
		t.Fatalf("repeated done counted %d", n)
	}
	if n := f.complete(t, items.Completion{Downloader: "alice", Items: []string{"d", "nope"}, Bytes: map[string]int64{"data": 5}}); n != 0 {
		t.Fatalf("unclaimed items counted %d", n)
	}

	s := f.summary(t)
	if s.Done != 2 || s.Bytes != 1001 || s.Claims != 1 || s.Queues["todo"] != 1 {
		t.Fatalf("summary %+v", s)
	}
	// The bytes of the batch are shared out over its items without loss,
	// and the record keeps what the client sent.
	rows, err := f.pool.Query(context.Background(), `SELECT name, bytes, domains::text, client_id::text, version, claim_count FROM done ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var name, domains, clientID, version string
		var bytes int64
		var claims int32
		if err := rows.Scan(&name, &bytes, &domains, &clientID, &version, &claims); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %d %s %s %s %d", name, bytes, domains, clientID, version, claims))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`a 501 {"data": 1001, "media": 0} {"checksum":"\u0000abc"} 1.2 1`,
		`c 500 {"data": 1001, "media": 0} {"checksum":"\u0000abc"} 1.2 1`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("done rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCompletionValidate(t *testing.T) {
	t.Parallel()
	ok := items.Completion{Downloader: "alice", Items: []string{"a"}, Bytes: map[string]int64{"data": 1}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]items.Completion{
		"no nick":        {Items: []string{"a"}},
		"bad nick":       {Downloader: "<script>", Items: []string{"a"}},
		"long nick":      {Downloader: strings.Repeat("n", 65), Items: []string{"a"}},
		"no items":       {Downloader: "alice"},
		"empty item":     {Downloader: "alice", Items: []string{"a", ""}},
		"negative bytes": {Downloader: "alice", Items: []string{"a"}, Bytes: map[string]int64{"data": -1}},
		"overflow":       {Downloader: "alice", Items: []string{"a"}, Bytes: map[string]int64{"a": 1 << 62, "b": 1 << 62, "c": 1 << 62}},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Many warriors at once: every item is handed out exactly once and
// completed exactly once.
func TestConcurrentClaimsHandEachItemOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	const total, workers = 2000, 16
	names := make([]string, total)
	for i := range names {
		names[i] = fmt.Sprintf("item:%d", i)
	}
	f.add(t, "todo", names...)

	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nick := fmt.Sprintf("w%d", w)
			for {
				got, err := f.request(nick, 1+w%3)
				if err != nil {
					errs <- err
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, name := range got {
					if prev, dup := seen[name]; dup {
						errs <- fmt.Errorf("%s handed to %s and %s", name, prev, nick)
					}
					seen[name] = nick
				}
				mu.Unlock()
				if _, err := f.engine.Complete(context.Background(), f.project, items.Completion{
					Downloader: nick, Items: got, Bytes: map[string]int64{"data": 10}}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(seen) != total {
		t.Fatalf("%d items handed out, want %d", len(seen), total)
	}
	if s := f.summary(t); s.Done != total || s.Claims != 0 || s.Queues["todo"] != 0 {
		t.Fatalf("summary %+v", s)
	}
}
