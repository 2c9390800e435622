package db

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CitusLayoutVersion names the layout CitusLayout makes: test databases
// laid out by an older one are made again.
const CitusLayoutVersion = "4"

// The Citus layout. On a Citus coordinator with workers, after the
// migrations, the tables are spread over the workers so that every hot
// statement of one project runs on one worker (a router statement):
//
//   - every table keyed by project (todo, claims, done, counters, the
//     statistics, ...) is distributed by project_id, all co-located with
//     todo, so one project's rows of every table are on the same worker;
//   - seen, the dedup records, is distributed by the name's hash instead:
//     one project's names use every worker, and a project is never bounded
//     by one worker's disk (an import or a backfeed post writes its new
//     names to every worker in one statement, then queues them on the
//     project's worker);
//   - the small tables the hot statements read or the tracker-wide ones
//     other tables refer to by foreign key (projects, users,
//     project_admins, blocks, archives, upload_targets, dictionaries, and
//     the rollup's watermark done_tallies_mark, which the boards read) are
//     reference tables, a copy on every node;
//   - the rest stays on the coordinator (sessions, settings, jobs, sign-in
//     failures, warriors, the volunteers' secrets, marks and counts, the
//     migrations' version; audit_log, which refers to projects and users,
//     as a Citus local table).
//
// done has one level of partitions there, by day, each shared by every
// project (see done_partitions_ensure).

// citusReference are the tables copied to every node.
var citusReference = []string{"projects", "users", "project_admins", "blocks", "archives", "upload_targets", "dictionaries", "done_tallies_mark"}

// citusCoordinator are the tables with a project_id that stay on the
// coordinator: the audit log, and the volunteers' marks and counts, which
// a request writes for its project and for the tracker (project 0) in one
// statement.
var citusCoordinator = []string{"audit_log", "volunteer_marks", "volunteer_days"}

// citusByHash are the tables distributed by the name's hash.
var citusByHash = []string{"seen"}

// citusColocation is the table every table distributed by project is
// co-located with.
const citusColocation = "todo"

// citusFunctions are the functions a router statement calls that read a
// reference table: Citus copies a function to the workers only once every
// table it depends on is there.
var citusFunctions = []string{"project_limited_types(integer)", "project_site(integer,integer)"}

// Citus reports whether the database is a Citus coordinator with workers:
// the extension is installed and at least one worker is registered.
func Citus(ctx context.Context, q DBTX) (bool, error) {
	var installed bool
	if err := q.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')").Scan(&installed); err != nil {
		return false, err
	}
	if !installed {
		return false, nil
	}
	var workers int
	err := q.QueryRow(ctx, "SELECT count(*) FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary'").Scan(&workers)
	return workers > 0, err
}

// CitusLayout lays the schema out over a Citus cluster (see above) when
// the database is one, and reports whether it changed anything. It is run
// after the migrations, every time: each step is taken only when it was
// not yet, so it resumes where a run stopped, and does nothing the second
// time.
func CitusLayout(ctx context.Context, pool *pgxpool.Pool) (changed bool, err error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Release()
	if ok, err := Citus(ctx, conn); err != nil || !ok {
		return false, err
	}
	// Tracker processes starting together lay it out one after the other.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtext('tracker.citus_layout'))"); err != nil {
		return false, err
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext('tracker.citus_layout'))")

	c := &citusLayout{conn: conn.Conn()}
	if err := c.load(ctx); err != nil {
		return false, err
	}
	steps := []func(context.Context) error{c.reference, c.byProject, c.done, c.byHash, c.functions}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return c.changed, fmt.Errorf("citus layout: %w", err)
		}
	}
	return c.changed, nil
}

type citusLayout struct {
	conn    *pgx.Conn
	placed  map[string]bool // tables in Citus's metadata
	changed bool
}

func (c *citusLayout) load(ctx context.Context) error {
	rows, err := c.conn.Query(ctx, "SELECT logicalrelid::regclass::text FROM pg_dist_partition")
	if err != nil {
		return err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	c.placed = map[string]bool{}
	for _, n := range names {
		c.placed[n] = true
	}
	return nil
}

func (c *citusLayout) exec(ctx context.Context, sql string, args ...any) error {
	if _, err := c.conn.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	c.changed = true
	return nil
}

func (c *citusLayout) reference(ctx context.Context) error {
	for _, t := range citusReference {
		if c.placed[t] {
			continue
		}
		if err := c.exec(ctx, "SELECT create_reference_table($1)", t); err != nil {
			return err
		}
		c.placed[t] = true
	}
	// audit_log became a Citus local table with its foreign keys to
	// projects and users.
	return nil
}

// done moves done from a branch per project (partitions of partitions,
// which Citus refuses) to partitions by day, distributed by project, with
// its rows.
func (c *citusLayout) done(ctx context.Context) error {
	var strategy string
	if err := c.conn.QueryRow(ctx, "SELECT partstrat::text FROM pg_partitioned_table WHERE partrelid = 'done'::regclass").Scan(&strategy); err != nil {
		return err
	}
	if strategy == "r" {
		return nil
	}
	return pgx.BeginFunc(ctx, c.conn, func(tx pgx.Tx) error {
		var days []time.Time
		rows, err := tx.Query(ctx, `SELECT DISTINCT (done_at AT TIME ZONE 'UTC')::date FROM done ORDER BY 1`)
		if err != nil {
			return err
		}
		if days, err = pgx.CollectRows(rows, pgx.RowTo[time.Time]); err != nil {
			return err
		}
		today := time.Now().UTC().Truncate(24 * time.Hour)
		first, last := today.AddDate(0, 0, -1), today.AddDate(0, 0, 7)
		if len(days) > 0 && days[0].Before(first) {
			first = days[0]
		}
		if len(days) > 0 && days[len(days)-1].After(last) {
			last = days[len(days)-1]
		}
		for _, sql := range []string{
			"ALTER TABLE done RENAME TO done_by_project",
			"ALTER INDEX done_project_id_id RENAME TO done_by_project_project_id_id",
			"CREATE TABLE done (LIKE done_by_project INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE) PARTITION BY RANGE (done_at)",
			"CREATE INDEX done_project_id_id ON done (project_id, id)",
		} {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return fmt.Errorf("%s: %w", sql, err)
			}
		}
		if _, err := tx.Exec(ctx, "SELECT create_distributed_table('done', 'project_id', colocate_with := $1)", citusColocation); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SELECT done_partitions_ensure(0, $1::date, $2::date)", first, last); err != nil {
			return err
		}
		for _, sql := range []string{
			"INSERT INTO done SELECT * FROM done_by_project",
			"DROP TABLE done_by_project",
		} {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return fmt.Errorf("%s: %w", sql, err)
			}
		}
		c.changed, c.placed["done"] = true, true
		return nil
	})
}

// byProject distributes every other table with a project_id by it,
// co-located with todo (done but for its partitions: see done).
func (c *citusLayout) byProject(ctx context.Context) error {
	rows, err := c.conn.Query(ctx, `SELECT c.relname::text FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
		  AND a.attname = 'project_id' AND NOT a.attisdropped
		ORDER BY c.relname`)
	if err != nil {
		return err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	// todo first: the others join its co-location group.
	slices.SortStableFunc(tables, func(a, b string) int {
		switch {
		case a == citusColocation:
			return -1
		case b == citusColocation:
			return 1
		}
		return 0
	})
	for _, t := range tables {
		if c.placed[t] || t == "done" ||
			slices.Contains(citusReference, t) || slices.Contains(citusCoordinator, t) || slices.Contains(citusByHash, t) {
			continue
		}
		with := citusColocation
		if t == citusColocation {
			with = "none"
		}
		if err := c.exec(ctx, "SELECT create_distributed_table($1, 'project_id', colocate_with := $2)", t, with); err != nil {
			return err
		}
		c.placed[t] = true
	}
	return nil
}

func (c *citusLayout) byHash(ctx context.Context) error {
	for _, t := range citusByHash {
		if c.placed[t] {
			continue
		}
		if err := c.exec(ctx, "SELECT create_distributed_table($1, 'hash', colocate_with := 'none')", t); err != nil {
			return err
		}
		c.placed[t] = true
	}
	return nil
}

// functions makes the functions that read reference tables work inside
// the statements the workers run, and copies them there. A statement a
// worker runs for a shard may not start a distributed statement of its
// own, which reading the reference table by its name would be: the
// function reads the table's one shard instead, which every node holds
// (the coordinator too), under the same name. And Citus plans the
// statements of a function from its source text, which a function with a
// standard SQL body (RETURN ...) has none of: the function is declared
// again with its expression in a body of text, which PostgreSQL inlines
// into the statements calling it just as well.
func (c *citusLayout) functions(ctx context.Context) error {
	shards := map[string]string{}
	for _, t := range citusReference {
		var shard string
		err := c.conn.QueryRow(ctx, `SELECT shard_name::text FROM citus_shards WHERE table_name = $1::regclass LIMIT 1`, t).Scan(&shard)
		if err != nil {
			return fmt.Errorf("the shard of %s: %w", t, err)
		}
		shards[t] = shard
	}
	for _, f := range citusFunctions {
		var def string
		var standard bool
		err := c.conn.QueryRow(ctx, `SELECT pg_get_functiondef($1::regprocedure), prosqlbody IS NOT NULL FROM pg_proc WHERE oid = $1::regprocedure`, f).
			Scan(&def, &standard)
		if err != nil {
			return err
		}
		head, body, ok := strings.Cut(def, "\nAS ")
		if standard {
			var expr string
			if head, expr, ok = strings.Cut(def, "\nRETURN "); ok {
				body = "$tracker$ SELECT " + strings.TrimSpace(expr) + " $tracker$"
			}
		}
		if !ok {
			return fmt.Errorf("%s: no body in %q", f, def)
		}
		for t, shard := range shards {
			body = regexp.MustCompile(`\b(public\.)?`+t+`\b`).ReplaceAllString(body, "public."+shard)
		}
		if redone := head + "\nAS " + body; standard || redone != def {
			if err := c.exec(ctx, redone); err != nil {
				return err
			}
		}
		var distributed bool
		err = c.conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_dist_object
			WHERE classid = 'pg_proc'::regclass AND objid = $1::regprocedure)`, f).Scan(&distributed)
		if err != nil {
			return err
		}
		if distributed {
			continue
		}
		if err := c.exec(ctx, "SELECT create_distributed_function($1)", f); err != nil {
			return err
		}
	}
	return nil
}
