package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

type fixture struct {
	pool    *pgxpool.Pool
	store   *projects.Store
	engine  *items.Engine
	project projects.Project
	arc     *Archiver
	dir     string
}

// setup makes a project whose n items were completed days ago (in the day
// partition of that day), and n more completed today.
func setup(t *testing.T, mode string, n, daysAgo int) fixture {
	t.Helper()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := projects.NewStore(pool)
	p := dbtest.Project(t, pool, "demo", "", "archive_after=86400", "archive_mode="+mode)
	engine := items.NewEngine(pool, nil)
	complete := func(prefix string) {
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("%s:%d", prefix, i))
		}
		if _, err := engine.Add(ctx, p, "todo", strings.NewReader(strings.Join(names, "\n"))); err != nil {
			t.Fatal(err)
		}
		sum, err := store.Summary(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		live := &projects.Live{Project: p, Queues: sum.Queues, Summary: sum}
		h, err := engine.Request(ctx, live, items.ClaimRequest{Downloader: "alice", Version: "1", Max: n})
		got := h.Names
		if err != nil || len(got) != n {
			t.Fatalf("claimed %d, %v", len(got), err)
		}
		if _, err := engine.Complete(ctx, p, items.Completion{
			Downloader: "alice", Version: "1", Items: got, Bytes: map[string]int64{"data": int64(100 * n)},
			ClientID: []byte(`{"run":7}`), Results: map[string]json.RawMessage{got[0]: json.RawMessage(`{"passed": true}`)},
		}); err != nil {
			t.Fatal(err)
		}
	}
	complete("old")
	// Their completion moves back to a day long over (PostgreSQL moves the
	// rows to that day's partition).
	dbtest.Age(t, pool, time.Duration(daysAgo)*24*time.Hour, dbtest.Completions(p.ID))
	complete("new")
	dir := t.TempDir()
	return fixture{pool: pool, store: store, engine: engine, project: p, arc: New(pool, dir), dir: dir}
}

// records renders the project's completions as the archive does, in its
// order, optionally only of names starting with prefix.
func (f fixture) records(t *testing.T, prefix string) []string {
	t.Helper()
	ctx := context.Background()
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	var out []string
	err = db.DonePartitionRecords(ctx, tx, "done", f.project.ID, func(line string, _ int64, _ time.Time) error {
		if strings.Contains(line, `"item" : "`+prefix) {
			out = append(out, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (f fixture) lookup(t *testing.T, name string) items.ItemStatus {
	t.Helper()
	st, err := f.engine.Lookup(context.Background(), &projects.Live{Project: f.project}, name)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestArchiveRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 500
	f := setup(t, ModeFiles, n, 3)
	before := f.records(t, "old:")
	if len(before) != n {
		t.Fatalf("%d old completions, want %d", len(before), n)
	}
	// The result of a completion travels with it.
	if results := strings.Count(strings.Join(before, "\n"), `"result" : {"passed": true}`); results != 1 {
		t.Fatalf("%d old completions carry their result, want 1", results)
	}
	sumBefore, err := f.store.Summary(ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}

	res, err := f.arc.Project(ctx, f.project, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// Three days back to yesterday: one day held completions; the empty
	// ones are dropped with no file.
	if res.Items != n || res.Days < 1 {
		t.Fatalf("archived %+v, want %d items", res, n)
	}
	// Out of the hot tables; today's completions stay.
	if hot := dbtest.Count(t, f.pool, "SELECT count(*) FROM done WHERE project_id = $1", f.project.ID); hot != n {
		t.Fatalf("%d completions left in done, want today's %d", hot, n)
	}
	// Totals unchanged; archived counted.
	sum, err := f.store.Summary(ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != sumBefore.Done || sum.Bytes != sumBefore.Bytes || sum.Archived != n {
		t.Fatalf("summary after %+v, before %+v", sum, sumBefore)
	}
	// Lookup names the file; dedup still refuses the name.
	st := f.lookup(t, "old:7")
	arcs, err := f.arc.List(ctx, f.project)
	if err != nil || len(arcs) != 1 {
		t.Fatalf("archives %+v, %v", arcs, err)
	}
	if st.Status != items.StatusArchived || st.Archive != arcs[0].Path || arcs[0].Items != n || arcs[0].Bytes != 100*n {
		t.Fatalf("lookup %+v, archive %+v", st, arcs[0])
	}
	if st := f.lookup(t, "new:7"); st.Status != items.StatusDone {
		t.Fatalf("today's item: %+v", st)
	}
	added, err := f.engine.Add(ctx, f.project, "todo", strings.NewReader("old:7\nold:8\nfresh:1"))
	if err != nil || added.Added != 1 || added.Skipped != 2 {
		t.Fatalf("re-adding archived names: %+v, %v", added, err)
	}

	// Export gives back the very records.
	var out bytes.Buffer
	got, err := f.arc.Export(ctx, &out, f.project)
	if err != nil || got != n {
		t.Fatalf("exported %d, %v", got, err)
	}
	if lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); !slices.Equal(lines, before) {
		t.Fatalf("export differs from the completions archived:\n%s\nwant\n%s", lines[0], before[0])
	}

	// A second pass has nothing left to do.
	if res, err := f.arc.Project(ctx, f.project, time.Now()); err != nil || res.Items != 0 {
		t.Fatalf("second pass %+v, %v", res, err)
	}

	// A damaged file is reported, never read.
	path := filepath.Join(f.dir, arcs[0].Path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.arc.Verify(arcs[0]); !errors.Is(err, ErrChecksum) {
		t.Fatalf("verify of a damaged file: %v", err)
	}
	out.Reset()
	if _, err := f.arc.Export(ctx, &out, f.project); !errors.Is(err, ErrChecksum) || out.Len() != 0 {
		t.Fatalf("export of a damaged file: %v, %d bytes written", err, out.Len())
	}
}

func TestArchiveDiscard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 50
	f := setup(t, ModeDiscard, n, 2)
	res, err := f.arc.Project(ctx, f.project, time.Now())
	if err != nil || res.Items != n {
		t.Fatalf("discarded %+v, %v", res, err)
	}
	if st := f.lookup(t, "old:3"); st.Status != items.StatusDiscarded {
		t.Fatalf("lookup %+v", st)
	}
	sum, err := f.store.Summary(ctx, f.project)
	if err != nil || sum.Discarded != n || sum.Done != 2*n {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	arcs, err := f.arc.List(ctx, f.project)
	if err != nil || len(arcs) != 1 || arcs[0].Mode != ModeDiscard || arcs[0].Path != "" || arcs[0].Items != n {
		t.Fatalf("archives %+v, %v", arcs, err)
	}
	entries, err := os.ReadDir(f.dir)
	if err != nil || len(entries) != 0 {
		t.Fatalf("discard wrote files: %v %v", entries, err)
	}
}

// Completions younger than archive_after stay, whatever the day.
func TestArchiveKeepsRecentDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, ModeFiles, 20, 1)
	// Yesterday's day ends at midnight; with archive_after of two days it
	// is not old enough.
	p, err := f.store.Set(ctx, f.project, []string{"archive_after=172800"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := f.arc.Project(ctx, p, time.Now()); err != nil || res.Items != 0 {
		t.Fatalf("archived %+v, %v", res, err)
	}
	// Without archive_after nothing is archived at all.
	if p, err = f.store.Set(ctx, p, []string{"archive_after=0"}); err != nil {
		t.Fatal(err)
	}
	if res, err := f.arc.Project(ctx, p, time.Now().AddDate(1, 0, 0)); err != nil || res.Items != 0 {
		t.Fatalf("archived %+v, %v", res, err)
	}
}

// The upload receipts of archived (or discarded) completions go with them;
// those of today's completions, of an item out again, and of an item done
// again since, stay.
func TestArchivePrunesReceipts(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{ModeFiles, ModeDiscard} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := setup(t, mode, 20, 3)
			receipt := func(item string) {
				t.Helper()
				if err := f.engine.RecordUpload(ctx, f.project, "alice", item, "up.example", netip.Addr{}); err != nil {
					t.Fatalf("receipt for %s: %v", item, err)
				}
			}
			for i := range 20 {
				receipt(fmt.Sprintf("old:%d", i))
				receipt(fmt.Sprintf("new:%d", i))
			}
			// old:1 is queued again and handed out, old:2 done again today.
			if n, err := f.engine.RequeueDone(ctx, f.project, "todo", items.Selection{Pattern: "^old:[12]$"}); err != nil || n != 2 {
				t.Fatalf("requeued %d, %v", n, err)
			}
			sum, err := f.store.Summary(ctx, f.project)
			if err != nil {
				t.Fatal(err)
			}
			live := &projects.Live{Project: f.project, Queues: sum.Queues, Summary: sum}
			h, err := f.engine.Request(ctx, live, items.ClaimRequest{Downloader: "bob", Version: "1", Max: 2})
			if err != nil || len(h.Names) != 2 {
				t.Fatalf("claimed %v, %v", h.Names, err)
			}
			if _, err := f.engine.Complete(ctx, f.project, items.Completion{Downloader: "bob", Version: "1", Items: []string{"old:2"}, Bytes: map[string]int64{"data": 1}}); err != nil {
				t.Fatal(err)
			}

			if res, err := f.arc.Project(ctx, f.project, time.Now()); err != nil || res.Items != 20 {
				t.Fatalf("archived %+v, %v", res, err)
			}
			rows, err := f.pool.Query(ctx, `SELECT coalesce(d.name, c.name) FROM uploads u
				LEFT JOIN done d ON d.project_id = u.project_id AND d.id = u.id
				LEFT JOIN claims c ON c.project_id = u.project_id AND c.id = u.id
				WHERE u.project_id = $1 ORDER BY 1`, f.project.ID)
			if err != nil {
				t.Fatal(err)
			}
			left, err := pgx.CollectRows(rows, pgx.RowTo[*string])
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, n := range left {
				if n == nil {
					t.Fatal("a receipt of an archived item is left")
				}
				names = append(names, *n)
			}
			if len(names) != 22 || names[0] != "new:0" || !slices.Contains(names, "old:1") || !slices.Contains(names, "old:2") {
				t.Fatalf("receipts left of %v, want today's 20, old:1 (out again) and old:2 (done again)", names)
			}
		})
	}
}
