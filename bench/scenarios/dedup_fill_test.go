package scenarios

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// The dedup sweep's quick fill writes the rows an import of the same names
// writes: seen's and todo's rows, the ids in the same blocks and places,
// item_batches and the queue's counter, and seen keyed as before. Over
// several batches and a short last one, after names imported before.
func TestFillByBlocksLikeImport(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	engine := items.NewEngine(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	imported := dbtest.Project(t, pool, "imported", "")
	filled := dbtest.Project(t, pool, "filled", "")
	const before, n = 1_500, 2*importBatch + 345
	names := func(from, n int) io.Reader {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "dedup:7:%d\n", from+i)
		}
		return strings.NewReader(b.String())
	}
	// Both have seen the same names first, through the import.
	for _, p := range []projects.Project{imported, filled} {
		if _, err := engine.Add(ctx, p, "todo", names(0, before)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := engine.Add(ctx, imported, "todo", names(before, n)); err != nil {
		t.Fatal(err)
	}
	if err := fillByBlocks(ctx, pool, filled.ID, "dedup:7:", before, n); err != nil {
		t.Fatal(err)
	}

	want, got := itemRows(t, pool, imported.ID), itemRows(t, pool, filled.ID)
	if len(want) != before+n {
		t.Fatalf("the import queued %d items, want %d", len(want), before+n)
	}
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("filled %d items, imported %d; first difference:\nfilled   %s\nimported %s", len(got), len(want), got[i], want[i])
			}
		}
		t.Fatalf("filled %d items, imported %d", len(got), len(want))
	}
	for _, sql := range []string{
		"SELECT count(*) || ' ' || string_agg(DISTINCT source || '/' || queue || '/' || shard, ',') FROM item_batches WHERE project_id = $1",
		"SELECT sum(value)::text FROM counters WHERE project_id = $1 AND name = 'queue:todo'",
		"SELECT count(*)::text FROM seen WHERE project_id = $1",
	} {
		var w, g string
		dbtest.MustScan(t, pool.QueryRow(ctx, sql, imported.ID), &w)
		dbtest.MustScan(t, pool.QueryRow(ctx, sql, filled.ID), &g)
		if g != w {
			t.Errorf("%s: filled %q, imported %q", sql, g, w)
		}
	}
	// The tables are keyed again, as the migrations key them: the names
	// are seen.
	for table, want := range map[string]string{"seen": "PRIMARY KEY (project_id, hash)", "todo": "PRIMARY KEY (project_id, queue, type, id)"} {
		var key string
		dbtest.MustScan(t, pool.QueryRow(ctx, "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'", table), &key)
		if key != want {
			t.Errorf("%s's key after the fill: %q, want %q", table, key, want)
		}
	}
	// Built with a fill factor, which is dropped again: on Citus from
	// the shards' keys too.
	dsns := []string{pool.Config().ConnString()}
	if os.Getenv(dbtest.CitusEnv) == "1" {
		for _, w := range dbtest.Workers(t, dsns[0]) {
			dsns = append(dsns, w.DSN)
		}
	}
	for i, dsn := range dsns {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 { // a worker: its shards are hidden from the catalog unless asked for
			if _, err := conn.Exec(ctx, "SET citus.show_shards_for_app_name_prefixes TO '*'"); err != nil {
				t.Fatal(err)
			}
		}
		var options []string
		err = conn.QueryRow(ctx, `SELECT coalesce(array_agg(relname || ' ' || array_to_string(reloptions, ',')), '{}') FROM pg_class
			WHERE relkind = 'i' AND (relname LIKE 'seen\_pkey%' OR relname LIKE 'todo\_pkey%') AND reloptions IS NOT NULL`).Scan(&options)
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(options) > 0 {
			t.Errorf("keys with options left after the fill: %v", options)
		}
	}
	res, err := engine.Add(ctx, filled, "todo", names(before+n-5, 10))
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 5 || res.Skipped != 5 {
		t.Errorf("the last 5 names filled and 5 more imported: added %d, skipped %d; want 5 and 5", res.Added, res.Skipped)
	}
}

// itemRows lists a project's items as an import leaves them, one line
// each: the name, its seen row (hash, item, the id's place in its block)
// and its queue row, with the block numbered by its rank in the project.
// The two tables are read apart: on Citus they are spread differently.
func itemRows(t *testing.T, pool *pgxpool.Pool, project int32) []string {
	t.Helper()
	ctx := context.Background()
	read := func(sql string) map[int64]string {
		rows, err := pool.Query(ctx, sql, project)
		if err != nil {
			t.Fatal(err)
		}
		byID := map[int64]string{}
		var id int64
		var line string
		if _, err := pgx.ForEachRow(rows, []any{&id, &line}, func() error {
			byID[id] = line
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return byID
	}
	seen := read(`SELECT id, format('%s %s %s %s', encode(hash, 'hex'), coalesce(encode(item, 'hex'), '-'),
		dense_rank() OVER (ORDER BY id >> 20), id & 1048575) FROM seen WHERE project_id = $1`)
	queued := read(`SELECT id, format('%s %s %s %s %s %s', name, queue, type, site, claim_count, coalesce(last_downloader, '-'))
		FROM todo WHERE project_id = $1`)
	var lines []string
	for id, s := range seen {
		lines = append(lines, queued[id]+" "+s)
	}
	if len(queued) != len(seen) {
		t.Errorf("project %d: %d items queued, %d seen", project, len(queued), len(seen))
	}
	slices.Sort(lines)
	return lines
}
