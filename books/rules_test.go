package books

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/db/dbtest"
)

// failing names the checks of a report that fail.
func failing(r Report) []string {
	var names []string
	for _, c := range r.Checks {
		if !c.OK {
			names = append(names, c.Name)
		}
	}
	slices.Sort(names)
	return names
}

// checkIn checks the books of the project slug (the tracker's when empty)
// in tx, which sees its own writes.
func (w *world) checkIn(t *testing.T, tx pgx.Tx, slug string) Report {
	t.Helper()
	var r Report
	var err error
	if slug == "" {
		r, err = tracker(context.Background(), db.Of(tx))
	} else {
		r, err = of(context.Background(), db.Of(tx), *w.projects[slug])
	}
	if err != nil {
		t.Fatalf("books of %q: %v", slug, err)
	}
	return r
}

// fault is a way the database can be wrong: statements that make it so
// ($1 is the project's id; run in a transaction that is rolled back,
// with session_replication_role = replica when noTriggers, which turns
// off the foreign keys), and the rules of the
// project's books (the tracker's when project is empty) that must fail,
// no more, no fewer.
type fault struct {
	name       string
	project    string
	noTriggers bool
	sql        []string
	fails      []string
}

// Shorthands for the statements that keep a counter in step with a row a
// fault adds or removes.
func counterAdd(name string, delta string) string {
	return "INSERT INTO counters (project_id, name, shard, value) VALUES ($1, '" + name + "', 1000, " + delta + ") " +
		"ON CONFLICT (project_id, name, shard) DO UPDATE SET value = counters.value + excluded.value"
}

// siteQueuedLess changes (set) a queued item of a site, and takes it off
// its site's count of items queued, as a statement that moved it out of
// the site's stretch would.
func siteQueuedLess(set string) string {
	return `WITH one AS (SELECT ctid, site FROM todo WHERE project_id = $1 AND type = ':site' LIMIT 1),
		changed AS (UPDATE todo ` + set + ` FROM one WHERE todo.ctid = one.ctid RETURNING one.site)
		UPDATE sites s SET queued = s.queued - 1 FROM changed WHERE s.project_id = $1 AND s.id = changed.site`
}

const noOrphanProject = "999999"

func faults() []fault {
	fs := []fault{
		// An item's state.
		{name: "an item queued in two queues", project: "once",
			sql: []string{`INSERT INTO todo (project_id, queue, id, name) SELECT project_id, 'backfeed', id, name FROM todo WHERE project_id = $1 AND queue = 'todo' LIMIT 1`,
				counterAdd("queue:backfeed", "1")},
			fails: []string{"no item is queued twice"}},
		{name: "an item out queued again", project: "once",
			sql: []string{`INSERT INTO todo (project_id, queue, id, name) SELECT project_id, 'todo', id, name FROM claims WHERE project_id = $1 LIMIT 1`,
				counterAdd("queue:todo", "1")},
			fails: []string{"no item is queued and out at once"}},
		{name: "an item done claimed again before its completion", project: "once",
			sql: []string{`INSERT INTO claims (project_id, hash, id, name, queue, downloader, claimed_at)
				SELECT d.project_id, item_hash(d.name), d.id, d.name, 'todo', d.downloader, d.done_at - interval '1 minute' FROM done d
				WHERE d.project_id = $1 AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = $1 AND t.id = d.id)
				  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.project_id = $1 AND c.hash = item_hash(d.name)) LIMIT 1`,
				counterAdd("claims", "1")},
			fails: []string{"no item out is also done after its claim"}},
		{name: "a queued item gone", project: "once",
			sql: []string{`WITH gone AS (DELETE FROM todo WHERE ctid = (SELECT t.ctid FROM todo t WHERE t.project_id = $1 AND t.queue = 'todo'
				AND NOT EXISTS (SELECT 1 FROM item_params p WHERE p.project_id = $1 AND p.id = t.id) LIMIT 1) RETURNING queue)
				INSERT INTO counters (project_id, name, shard, value) SELECT $1, 'queue:' || queue, 1000, -1 FROM gone
				ON CONFLICT (project_id, name, shard) DO UPDATE SET value = counters.value + excluded.value`},
			fails: []string{"items neither queued, out, done nor archived are no more than those discarded or drained"}},
		{name: "a queued item in a type's stretch of a project that limits no type", project: "once",
			sql:   []string{`UPDATE todo SET type = 'item' WHERE ctid = (SELECT ctid FROM todo WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"every queued item is in its stretch, and none by site in a project without sites"}},
		{name: "an item with a site out of the site stretch", project: "sited",
			sql:   []string{siteQueuedLess(`SET type = ''`)},
			fails: []string{"every queued item is in its stretch, and none by site in a project without sites"}},

		{name: "a previous holder's address without its nick", project: "once",
			sql:   []string{`UPDATE todo SET last_downloader = NULL WHERE ctid = (SELECT ctid FROM todo WHERE project_id = $1 AND last_ip IS NOT NULL LIMIT 1)`},
			fails: []string{"every previous holder's address kept with an item queued or out has its holder's nick"}},

		// The counters.
		{name: "the claims counter off", project: "once", sql: []string{counterAdd("claims", "1")},
			fails: []string{"the claims counter counts the claims"}},
		{name: "a queue counter off", project: "once", sql: []string{counterAdd("queue:todo", "1")},
			fails: []string{"the queue counters count the queues (queues off)"}},
		{name: "the done counter off", project: "once", sql: []string{counterAdd("done", "1")},
			fails: []string{"the done counter counts the completions, archived ones included", "the downloaders' items add up to the completions"}},
		{name: "the archived counter off", project: "once", sql: []string{counterAdd("archived", "1")},
			fails: []string{"the archive counters count the archives"}},
		{name: "the bytes counter off", project: "once", sql: []string{counterAdd("bytes", "1")},
			fails: []string{"the bytes counter sums the completions' bytes", "the downloaders' bytes add up to the bytes"}},
		{name: "the revisits counter off", project: "recurring", sql: []string{counterAdd("revisits", "1")},
			fails: []string{"the revisits counter counts the items waiting for a visit"}},
		{name: "a counter below zero", project: "once", sql: []string{counterAdd("failed", "-3")},
			fails: []string{"no counter is below zero (counters)"}},
		{name: "more reclaimed completions than completions", project: "once", sql: []string{counterAdd("done_reclaimed", "1000000")},
			fails: []string{"the reclaimed completions are no more than the completions"}},

		// The downloaders and the statistics.
		{name: "a tally of items never completed", project: "once",
			sql:   []string{`INSERT INTO done_tallies (project_id, downloader, items, bytes, version, domains, item) VALUES ($1, 'mallory', 1, 0, '', '{}', 'x')`},
			fails: []string{"the downloaders' items add up to the completions"}},
		{name: "a tally of bytes never completed", project: "once",
			sql:   []string{`INSERT INTO done_tallies (project_id, downloader, items, bytes, version, domains, item) VALUES ($1, 'mallory', 0, 5, '', '{}', 'x')`},
			fails: []string{"the downloaders' bytes add up to the bytes"}},
		{name: "a downloader's hour off", project: "once",
			sql:   []string{`UPDATE downloader_hours SET items = items + 1 WHERE ctid = (SELECT ctid FROM downloader_hours WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"every downloader's hours add up to its totals (downloaders off)"}},
		{name: "an hour's items off", project: "once",
			sql:   []string{`UPDATE series_hours SET items = items + 1 WHERE ctid = (SELECT ctid FROM series_hours WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"the hourly series adds up to the downloaders' items"}},
		{name: "an hour's bytes off", project: "once",
			sql:   []string{`UPDATE series_hours SET bytes = bytes + 1 WHERE ctid = (SELECT ctid FROM series_hours WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"the hourly series adds up to the downloaders' bytes"}},
		{name: "a minute holding more than its hour", project: "once",
			sql:   []string{`UPDATE series_minutes SET items = items + 1000 WHERE ctid = (SELECT ctid FROM series_minutes WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"no hour of the series holds less than its minutes (hours off)"}},
		{name: "a feed entry of no items", project: "once",
			sql:   []string{`UPDATE feed SET items = 0 WHERE ctid = (SELECT ctid FROM feed WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"every feed entry credits items, and no domain's bytes are below zero"}},
		{name: "a domain's bytes below zero", project: "once",
			sql:   []string{`UPDATE domain_totals SET bytes = -1 WHERE ctid = (SELECT ctid FROM domain_totals WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"every feed entry credits items, and no domain's bytes are below zero"}},

		// Archives.
		{name: "an archived item in another project's file", project: "once",
			sql: []string{`UPDATE archived SET archive_id = (SELECT a.id FROM archives a WHERE a.project_id <> $1 LIMIT 1)
				WHERE ctid = (SELECT ctid FROM archived WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"every archived item's file is one of the project's archives"}},

		// Sites.
		{name: "a site's count of items queued off", project: "sited",
			sql:   []string{`UPDATE sites SET queued = queued + 1 WHERE ctid = (SELECT ctid FROM sites WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"the site counters count their items queued and out (sites off)"}},
		{name: "a queued item of a site with no row", project: "sited",
			sql:   []string{siteQueuedLess(`SET site = 999999`)},
			fails: []string{"every item queued, out or waiting for a visit by site has its site"}},
		{name: "a completion of a site with no row", project: "sited",
			sql: []string{`UPDATE done SET site = 999999 WHERE ctid = (SELECT ctid FROM done WHERE project_id = $1 AND site <> 0 LIMIT 1)`},
			// Its site counts a completion the hot table no longer holds
			// for it, beyond what was archived.
			fails: []string{"every completion by site has its site",
				"the sites' completions beyond the hot table are no more than the archived ones",
				"the sites' bytes beyond the hot table are no more than the archived ones"}},
		{name: "a site counting fewer completions than it has", project: "sited",
			sql: []string{`UPDATE sites SET done = 0 WHERE project_id = $1
				AND id = (SELECT site FROM done WHERE project_id = $1 AND site <> 0 LIMIT 1)`},
			fails: []string{"no site counts fewer completions or bytes than the hot table holds (sites off)"}},
		{name: "a site counting completions never made", project: "sited",
			sql:   []string{`UPDATE sites SET done = done + 1000 WHERE ctid = (SELECT ctid FROM sites WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"the sites' completions beyond the hot table are no more than the archived ones"}},
		{name: "a site counting bytes never completed", project: "sited",
			sql:   []string{`UPDATE sites SET bytes = bytes + 1000000000 WHERE ctid = (SELECT ctid FROM sites WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"the sites' bytes beyond the hot table are no more than the archived ones"}},

		// Visits, scores, parameters, tags, expired claims.
		{name: "an item waiting for a visit queued too", project: "recurring",
			sql: []string{`INSERT INTO todo (project_id, queue, id, name) SELECT project_id, 'todo', id, name FROM revisits WHERE project_id = $1 LIMIT 1`,
				counterAdd("queue:todo", "1")},
			fails: []string{"no item waiting for a visit is also queued, out or waiting twice"}},
		{name: "an item waiting for a visit never seen", project: "recurring",
			sql:   []string{`DELETE FROM seen WHERE project_id = $1 AND id = (SELECT id FROM revisits WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"every item waiting for a visit is one the project has seen"}},
		{name: "a score of an item not tracked", project: "recurring",
			sql:   []string{`INSERT INTO item_scores (project_id, id, score) VALUES ($1, 987654321, 1.5)`},
			fails: []string{"every score is of an item queued, out, waiting for a visit or done"}},
		{name: "parameters of an item not tracked", project: "once",
			sql:   []string{`INSERT INTO item_params (project_id, id, params) VALUES ($1, 987654321, '{}')`},
			fails: []string{"every item's parameters are of an item queued, out, waiting for a visit or done"}},
		{name: "an update tag of an item never seen", project: "once",
			sql:   []string{`INSERT INTO item_tags (project_id, id, tag) VALUES ($1, 987654321, 'v1')`},
			fails: []string{"every update tag is of an item the project has seen"}},
		{name: "an expired claim of an item never seen", project: "once",
			sql:   []string{`UPDATE claim_expiries SET id = 987654321 WHERE ctid = (SELECT ctid FROM claim_expiries WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"every expired claim is of an item the project has seen"}},
		{name: "a claim that expired before it was made", project: "once",
			sql:   []string{`UPDATE claim_expiries SET expired_at = claimed_at - interval '1 second' WHERE ctid = (SELECT ctid FROM claim_expiries WHERE project_id = $1 LIMIT 1)`},
			fails: []string{"no claim expired before it was made"}},
		{name: "an expiry no reclaim counted", project: "once",
			sql: []string{`INSERT INTO claim_expiries (project_id, id, downloader, claimed_at)
				SELECT project_id, id, downloader, claimed_at FROM claim_expiries WHERE project_id = $1 LIMIT 1`},
			fails: []string{"the expired claims kept are no more than the reclaims counted"}},

		// The rest of a project's rows.
		{name: "a dictionary whose bytes changed", project: "once",
			sql:   []string{`UPDATE dictionaries SET bytes = bytes || '\x00'::bytea WHERE project_id = $1`},
			fails: []string{"every dictionary's SHA-256 is that of its bytes"}},
		{name: "a dictionary id the packer cannot read from a file's name", project: "once",
			sql:   []string{`UPDATE dictionaries SET public_id = 42 WHERE project_id = $1`},
			fails: []string{"every dictionary's id is ten digits (a Unix second), and no old id is"}},
		{name: "a dictionary's old id of ten digits", project: "once",
			sql:   []string{`UPDATE dictionaries SET legacy_id = 1000000000 WHERE project_id = $1`},
			fails: []string{"every dictionary's id is ten digits (a Unix second), and no old id is"}},
		{name: "a backfeed minute of no items", project: "once",
			sql:   []string{`UPDATE backfeed_minutes SET items = 0 WHERE project_id = $1`},
			fails: []string{"every backfeed minute is a whole minute and counts new items"}},
		{name: "a backfeed minute that is no whole minute", project: "once",
			sql:   []string{`UPDATE backfeed_minutes SET minute = minute + interval '1 second' WHERE project_id = $1`},
			fails: []string{"every backfeed minute is a whole minute and counts new items"}},
		{name: "a volunteer day of no volunteers", project: "once",
			sql:   []string{`UPDATE volunteer_days SET volunteers = 0 WHERE project_id = $1`},
			fails: []string{"every volunteer day counts volunteers and every mark is 16 bytes"}},
		{name: "a volunteer mark cut short", project: "once",
			sql:   []string{`UPDATE volunteer_marks SET mark = substring(mark FROM 1 FOR 8) WHERE project_id = $1`},
			fails: []string{"every volunteer day counts volunteers and every mark is 16 bytes"}},

		// The tracker's.
		{name: "a warrior located by one coordinate", project: "",
			sql:   []string{`UPDATE warriors SET lat = NULL WHERE lng IS NOT NULL`},
			fails: []string{"every warrior record is well-formed"}},
		{name: "a warrior seen before it was first seen", project: "",
			sql:   []string{`UPDATE warriors SET last_seen_at = first_seen_at - interval '1 day'`},
			fails: []string{"every warrior record is well-formed"}},
		{name: "a warrior of the shared anonymous id", project: "",
			sql:   []string{`UPDATE warriors SET id = 'anonymous'`},
			fails: []string{"every warrior record is well-formed"}},
		{name: "a block reason past its bound", project: "",
			sql:   []string{`UPDATE blocks SET reason = repeat('x', 257)`},
			fails: []string{"every text an admin entered is within its bound"}},
		{name: "a block reason of two lines", project: "",
			sql:   []string{`UPDATE blocks SET reason = E'spam\nmore'`},
			fails: []string{"every text an admin entered is within its bound"}},
		{name: "an upload target past its bound", project: "",
			sql:   []string{`UPDATE upload_targets SET url = 'rsync://up.example/' || repeat('x', 2048) || '/'`},
			fails: []string{"every text an admin entered is within its bound"}},
		{name: "a project title past its bound", project: "",
			sql:   []string{`UPDATE projects SET title = repeat('x', 1025) WHERE id = $1`},
			fails: []string{"every text an admin entered is within its bound"}},
		{name: "a project repository past its bound", project: "",
			sql:   []string{`UPDATE projects SET config = jsonb_set(config, '{repository}', to_jsonb('https://example.org/' || repeat('x', 2048))) WHERE id = $1`},
			fails: []string{"every text an admin entered is within its bound"}},
		{name: "a project of more domains than its bound", project: "",
			sql:   []string{`UPDATE projects SET config = jsonb_set(config, '{domains}', (SELECT jsonb_agg('d' || i) FROM generate_series(1, 101) i)) WHERE id = $1`},
			fails: []string{"every text an admin entered is within its bound"}},
		{name: "a setting past its bound", project: "",
			sql:   []string{`INSERT INTO settings (key, value) VALUES ('tracker_banner_html', repeat('x', 16385)) ON CONFLICT (key) DO UPDATE SET value = excluded.value`},
			fails: []string{"every text an admin entered is within its bound"}},
		{name: "an auto project choice whose reason is past its bound", project: "",
			sql:   []string{`UPDATE auto_choice SET reason = repeat('x', 4097)`},
			fails: []string{"every text an admin entered is within its bound"}},
		{name: "an API token whose secret is kept, not its hash", project: "",
			sql: []string{`INSERT INTO users (username, password_hash, role) VALUES ('tokens', 'x', 'admin')`,
				`INSERT INTO api_tokens (user_id, name, secret_hash, scope) SELECT id, 'bot', convert_to('the secret itself', 'UTF8'), 'write' FROM users WHERE username = 'tokens'`},
			fails: []string{"every API token is well-formed: a SHA-256, a scope, a name of one line within its bound"}},
		{name: "an API token of no scope", project: "",
			sql: []string{`INSERT INTO users (username, password_hash, role) VALUES ('tokens', 'x', 'admin')`,
				`INSERT INTO api_tokens (user_id, name, secret_hash, scope) SELECT id, 'bot', sha256('s'), 'admin' FROM users WHERE username = 'tokens'`},
			fails: []string{"every API token is well-formed: a SHA-256, a scope, a name of one line within its bound"}},
		{name: "an API token's name of two lines", project: "",
			sql: []string{`INSERT INTO users (username, password_hash, role) VALUES ('tokens', 'x', 'admin')`,
				`INSERT INTO api_tokens (user_id, name, secret_hash, scope) SELECT id, E'bot\nroot', sha256('s'), 'read' FROM users WHERE username = 'tokens'`},
			fails: []string{"every API token is well-formed: a SHA-256, a scope, a name of one line within its bound"}},
		{name: "a project deleted without its purge", project: "", noTriggers: true,
			sql: []string{`DELETE FROM projects WHERE id = $1`},
			// Every table but those only the other projects have rows in.
			fails: orphanRules(slices.DeleteFunc(slices.Clone(keyedTables), func(t string) bool {
				return t == "sites" || t == "revisits" || t == "item_scores"
			})...)},
	}
	// A row of each table keyed by project moved to a project that does
	// not exist (done: a branch of partitions made for one).
	for _, table := range keyedTables {
		f := fault{name: "a row of " + table + " of no project", noTriggers: true, fails: orphanRules(table),
			sql: []string{`UPDATE ` + table + ` SET project_id = ` + noOrphanProject + ` WHERE ctid = (SELECT ctid FROM ` + table + ` WHERE project_id > 0 LIMIT 1)`}}
		if table == "done" {
			f.sql = []string{`SELECT done_partitions_ensure(` + noOrphanProject + `, current_date, current_date)`}
		}
		fs = append(fs, f)
	}
	return fs
}

func orphanRules(tables ...string) []string {
	var names []string
	for _, t := range tables {
		names = append(names, "no row of "+t+" belongs to a project that does not exist (projects)")
	}
	return names
}

// TestRulesFail: the books of a tracker that went through everything
// balance, project by project and the tracker's own; then every rule, on
// a database broken the way it says cannot be, fails, and only the rules
// that should.
func TestRulesFail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t)

	// Healthy first, through the commands' own entry points.
	for _, slug := range []string{"once", "sited", "recurring"} {
		r, err := Of(ctx, w.pool, *w.projects[slug])
		if err != nil || !r.Balanced {
			t.Fatalf("the books of %s do not balance (%v): %v\n%+v", slug, err, failing(r), r)
		}
		if len(r.Checks) != len(projectRules) {
			t.Fatalf("%d checks, %d rules", len(r.Checks), len(projectRules))
		}
	}
	if r, err := Tracker(ctx, w.pool); err != nil || !r.Balanced {
		t.Fatalf("the tracker's books do not balance (%v): %v", err, failing(r))
	}
	// The world has a row in every table keyed by project, so that each
	// fault below finds something to break.
	for _, table := range keyedTables {
		var n int64
		if err := w.pool.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()+" WHERE project_id > 0").Scan(&n); err != nil || n == 0 {
			t.Errorf("no row in %s (%v)", table, err)
		}
	}
	if w.projects["recurring"].Config.Recurring() == false {
		t.Fatal("the recurring project is not")
	}

	// Every rule is broken by some fault.
	named := map[string]bool{}
	for _, r := range projectRules {
		named[r.name] = false
	}
	for _, r := range trackerRules {
		named[r.name] = false
	}
	for _, f := range faults() {
		for _, n := range f.fails {
			if _, ok := named[n]; !ok {
				t.Errorf("%s: no rule %q", f.name, n)
			}
			named[n] = true
		}
	}
	for n, broken := range named {
		if !broken {
			t.Errorf("no fault breaks the rule %q", n)
		}
	}

	for _, f := range faults() {
		t.Run(f.name, func(t *testing.T) {
			tx, err := w.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			if f.noTriggers {
				if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
					t.Fatal(err)
				}
			}
			id := w.projects["once"].ID
			if f.project != "" {
				id = w.projects[f.project].ID
			}
			for _, stmt := range f.sql {
				var args []any
				if strings.Contains(stmt, "$1") {
					args = append(args, id)
				}
				tag, err := tx.Exec(ctx, stmt, args...)
				if err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
				if tag.RowsAffected() == 0 && !tag.Select() {
					t.Fatalf("%s changed nothing", stmt)
				}
			}
			got := failing(w.checkIn(t, tx, f.project))
			want := slices.Clone(f.fails)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("failing: %q\nwant: %q", got, want)
			}
		})
	}
}

// TestTablesCovered: every table with a project_id column (partitions
// aside) is read by some rule, and every one of them by the rule of rows
// of no project, whose statement reads exactly the tables keyedTables
// lists. A table added to the schema fails here until the books cover it.
func TestTablesCovered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	rows, err := pool.Query(ctx, `
		SELECT c.table_name::text FROM information_schema.columns c
		JOIN pg_catalog.pg_class k ON k.relname = c.table_name
		JOIN pg_catalog.pg_namespace n ON n.oid = k.relnamespace AND n.nspname = c.table_schema
		WHERE c.table_schema = current_schema() AND c.column_name = 'project_id' AND NOT k.relispartition
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	keyed, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keyed, keyedTables) {
		t.Errorf("tables with a project_id column: %q\nkeyedTables: %q", keyed, keyedTables)
	}

	covered := map[string]bool{}
	for _, r := range projectRules {
		for _, table := range r.tables {
			covered[table] = true
		}
	}
	for _, r := range trackerRules {
		for _, table := range r.tables {
			covered[table] = true
		}
	}
	for _, table := range keyed {
		if !covered[table] {
			t.Errorf("no rule reads %s", table)
		}
	}
	for table := range covered {
		var exists bool
		if err := pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&exists); err != nil || !exists {
			t.Errorf("a rule names %s, which is no table (%v)", table, err)
		}
	}

	orphans, err := db.Of(pool).BooksOrphans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	for _, o := range orphans {
		read = append(read, o.TableName)
	}
	if !slices.Equal(read, keyed) {
		t.Errorf("BooksOrphans reads %q\nthe tables with a project_id column are %q", read, keyed)
	}
}

// TestDeletedProject: a project being deleted keeps its rows until its
// purge ends, and is no fault of the tracker's books meanwhile; once
// purged, it leaves no row behind.
func TestDeletedProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t)
	p := w.projects["once"]
	if err := w.store.MarkDeleting(ctx, *p); err != nil {
		t.Fatal(err)
	}
	p.Config.Deleting = true
	if r, err := Tracker(ctx, w.pool); err != nil || !r.Balanced {
		t.Fatalf("a project being deleted unbalances the tracker's books (%v): %q", err, failing(r))
	}
	w.purge(t)
	if r, err := Tracker(ctx, w.pool); err != nil || !r.Balanced {
		t.Fatalf("a purged project left rows behind (%v): %q", err, failing(r))
	}
	for _, slug := range []string{"sited", "recurring"} {
		if r, err := Of(ctx, w.pool, *w.projects[slug]); err != nil || !r.Balanced {
			t.Fatalf("the books of %s after another's purge (%v): %q", slug, err, failing(r))
		}
	}
}
