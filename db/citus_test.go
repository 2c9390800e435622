package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"tracker/db"
	"tracker/db/dbtest"
)

// On a Citus coordinator, the migrations lay the tables out over the
// workers, and migrating again changes nothing: every table keyed by
// project is distributed by it in todo's co-location group, seen by the
// name's hash, the tracker-wide tables others refer to are reference
// tables, done has one level of partitions, by day.
func TestCitusLayout(t *testing.T) {
	dbtest.RequireCitus(t)
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.NewEmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if changed, err := db.MigrateUp(pool); err != nil || !changed {
		t.Fatalf("first migrate: changed=%v %v", changed, err)
	}
	if changed, err := db.MigrateUp(pool); err != nil || changed {
		t.Fatalf("second migrate: changed=%v %v, want nothing changed", changed, err)
	}

	rows, err := pool.Query(ctx, `SELECT c.relname::text,
		coalesce((SELECT CASE p.partmethod WHEN 'h' THEN 'by ' || column_to_column_name(p.logicalrelid, p.partkey)
		                                   WHEN 'n' THEN CASE p.repmodel WHEN 't' THEN 'reference' ELSE 'coordinator' END END
		            || CASE WHEN p.colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'todo'::regclass)
		                    THEN ' with todo' ELSE '' END
		          FROM pg_dist_partition p WHERE p.logicalrelid = c.oid), 'coordinator') AS layout,
		EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'project_id') AS keyed
		FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition`)
	if err != nil {
		t.Fatal(err)
	}
	layout := map[string]string{}
	var keyed []string
	var name, how string
	var byProject bool
	if _, err := pgx.ForEachRow(rows, []any{&name, &how, &byProject}, func() error {
		layout[name] = how
		if byProject {
			keyed = append(keyed, name)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"seen": "by hash", "projects": "reference", "users": "reference", "project_admins": "reference", "blocks": "reference",
		"archives": "reference", "upload_targets": "reference", "dictionaries": "reference", "done_tallies_mark": "reference",
		"audit_log": "coordinator", "volunteer_marks": "coordinator", "volunteer_days": "coordinator",
		"sessions": "coordinator", "settings": "coordinator", "jobs": "coordinator", "warriors": "coordinator",
	}
	for _, table := range keyed {
		if _, ok := want[table]; !ok {
			want[table] = "by project_id with todo"
		}
	}
	for table, w := range want {
		if layout[table] != w {
			t.Errorf("%s laid out %q, want %q", table, layout[table], w)
		}
	}
	var strategy string
	dbtest.MustScan(t, pool.QueryRow(ctx, "SELECT partstrat::text FROM pg_partitioned_table WHERE partrelid = 'done'::regclass"), &strategy)
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'done'::regclass AND c.relname ~ '^done_[0-9]{8}$'"); strategy != "r" || n < 9 {
		t.Errorf("done partitioned %q with %d day partitions, want by range, from yesterday to a week ahead", strategy, n)
	}
}
