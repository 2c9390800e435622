package books

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tracker/archive"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
	"tracker/stats"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// A project that went through everything: imports, claims, completions,
// releases, reclaims, moves, a drain, a requeue, archival, a fold. Its
// books balance; a counter or a row out of place unbalances them.
func TestBooks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "demo", "")
	e := items.NewEngine(pool, nil)
	var names []string
	for i := range 300 {
		names = append(names, fmt.Sprintf("item:%d", i))
	}
	if _, err := e.Add(ctx, p, "todo", strings.NewReader(strings.Join(names, "\n"))); err != nil {
		t.Fatal(err)
	}
	request := func(nick string, n int) []string {
		sum, err := store.Summary(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Request(ctx, &projects.Live{Project: p, Queues: sum.Queues, Summary: sum}, items.ClaimRequest{Downloader: nick, Max: n})
		if err != nil {
			t.Fatal(err)
		}
		return got.Names
	}
	complete := func(nick string, names []string) {
		if _, err := e.Complete(ctx, p, items.Completion{Downloader: nick, Items: names, Bytes: map[string]int64{"data": 1000}}); err != nil {
			t.Fatal(err)
		}
	}
	old := request("alice", 50)
	complete("alice", old)
	// Those completions are from days ago: archived.
	dbtest.Age(t, pool, 4*24*time.Hour, dbtest.Completions(p.ID))
	p, err := store.Set(ctx, p, []string{"archive_after=86400"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := archive.New(pool, t.TempDir()).Project(ctx, p, time.Now()); err != nil {
		t.Fatal(err)
	}
	complete("bob", request("bob", 40))
	out := request("carol", 30)
	if _, err := e.Release(ctx, p, out[:10], ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.MoveQueue(ctx, p, "todo", "secondary", items.Selection{Prefix: "item:2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.MoveQueue(ctx, p, "secondary", "", items.Selection{Pattern: "^item:2[0-4]"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RequeueDone(ctx, p, "redo", items.Selection{Prefix: "item:1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := stats.NewStore(pool).Fold(ctx); err != nil {
		t.Fatal(err)
	}
	complete("dave", request("dave", 5))

	r, err := Of(ctx, pool, p)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Balanced || r.Seen != 300 || r.Archived != 50 {
		t.Fatalf("books do not balance: %+v", r)
	}

	// Out of place: a counter off, an item queued twice.
	for _, c := range []struct{ name, breakIt, fix string }{
		{"counter", `UPDATE counters SET value = value + 1 WHERE project_id = $1 AND name = 'claims' AND shard = (SELECT min(shard) FROM counters WHERE project_id = $1 AND name = 'claims')`,
			`UPDATE counters SET value = value - 1 WHERE project_id = $1 AND name = 'claims' AND shard = (SELECT min(shard) FROM counters WHERE project_id = $1 AND name = 'claims')`},
		{"queued twice", `INSERT INTO todo (project_id, queue, id, name) SELECT project_id, 'backfeed', id, name FROM todo WHERE project_id = $1 AND queue = 'todo' LIMIT 1`,
			`DELETE FROM todo WHERE project_id = $1 AND queue = 'backfeed'`},
	} {
		if _, err := pool.Exec(ctx, c.breakIt, p.ID); err != nil {
			t.Fatal(err)
		}
		if r, err := Of(ctx, pool, p); err != nil || r.Balanced {
			t.Errorf("%s: still balanced: %+v", c.name, r)
		}
		if _, err := pool.Exec(ctx, c.fix, p.ID); err != nil {
			t.Fatal(err)
		}
	}
}
