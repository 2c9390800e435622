package dictionaries_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"tracker/db"
	"tracker/db/dbtest"
	"tracker/dictionaries"
)

// A dictionary's id is the Unix second it was installed, ten digits, as
// ArchiveTeam's trainer makes them; one installed in a second already
// taken gets the next free second, so ids stay distinct and in the order
// dictionaries were installed, across projects too (an id alone names a
// dictionary's bytes, /dictionary/ID-TOKEN).
func TestIDsAreInstallSeconds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "test", "")
	other := dbtest.Project(t, pool, "other", "")
	s := dictionaries.NewStore(pool)
	d, err := dictionaries.Train(samples(), 8<<10)
	if err != nil {
		t.Fatal(err)
	}

	first, err := s.Add(ctx, p.ID, d, "")
	if err != nil {
		t.Fatal(err)
	}
	if first.ID != first.CreatedAt.Unix() || first.ID < 1e9 || first.ID >= 1e10 || first.LegacyID != 0 {
		t.Fatalf("first id %d (old id %d), installed at %v (second %d): want that second", first.ID, first.LegacyID, first.CreatedAt, first.CreatedAt.Unix())
	}

	// The seconds ahead taken, as by dictionaries installed in one second:
	// the next is installed in the next free one.
	ahead := first.CreatedAt.Unix() + 1000
	dbtest.MustExec(t, pool, `UPDATE dictionaries SET public_id = $1 WHERE public_id = $2`, ahead, first.ID)
	next, err := s.Add(ctx, other.ID, d, "")
	if err != nil {
		t.Fatal(err)
	}
	if next.ID != ahead+1 {
		t.Fatalf("installed with second %d taken: id %d, want %d", ahead, next.ID, ahead+1)
	}

	// Installed at once, every one gets its own second.
	const n = 8
	ids := make(chan int64, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			got, err := s.Add(ctx, p.ID, d, "")
			if err != nil {
				t.Error(err)
				return
			}
			ids <- got.ID
		})
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		if seen[id] || id <= next.ID || id >= 1e10 {
			t.Errorf("id %d given twice, or not after %d", id, next.ID)
		}
		seen[id] = true
	}
	if len(seen) != n {
		t.Fatalf("%d ids for %d dictionaries", len(seen), n)
	}
	// The newest is the one of the greatest id.
	latest, err := s.Latest(ctx, p.ID)
	if err != nil || latest.ID != next.ID+n {
		t.Fatalf("Latest = %d (%v), want %d", latest.ID, err, next.ID+n)
	}

	// Of finds a project's dictionary by id, and no other project's.
	if got, err := s.Of(ctx, other.ID, next.ID); err != nil || got.ID != next.ID || got.SHA256 != next.SHA256 {
		t.Fatalf("Of(other, %d) = %+v, %v", next.ID, got, err)
	}
	if _, err := s.Of(ctx, p.ID, next.ID); !errors.Is(err, dictionaries.ErrNotFound) {
		t.Fatalf("Of(test, another project's id): %v", err)
	}
}

// The dictionaries installed before ids were Unix seconds get one each,
// the second they were installed (the next free one when taken), in the
// order they were installed, and keep working under their old ids: by
// project and id, and by id alone (their addresses, /dictionary/N-TOKEN,
// were handed out). Migrating down gives them their old ids back.
func TestOldIDsKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.NewEmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const before = 44
	if err := db.MigrateTo(pool, before); err != nil {
		t.Fatal(err)
	}
	d, err := dictionaries.Train(samples(), 8<<10)
	if err != nil {
		t.Fatal(err)
	}
	var projectID int32
	dbtest.MustScan(t, pool.QueryRow(ctx, `INSERT INTO projects (slug) VALUES ('old') RETURNING id`), &projectID)
	// Three installed as the tracker did: ids counting up, two in one
	// second, the third a second later; their SHA-256s are the books'.
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i, when := range []time.Time{at.Add(100 * time.Millisecond), at.Add(900 * time.Millisecond), at.Add(time.Second)} {
		b := append([]byte{}, d...)
		b = append(b, byte(i)) // distinct bytes
		dbtest.MustExec(t, pool, `INSERT INTO dictionaries (project_id, bytes, sha256, created_at) VALUES ($1, $2, encode(sha256($2), 'hex'), $3)`,
			projectID, b, when)
	}
	var oldIDs []int64
	rows, err := pool.Query(ctx, `SELECT id FROM dictionaries ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		oldIDs = append(oldIDs, id)
	}
	if rows.Err() != nil || len(oldIDs) != 3 {
		t.Fatalf("old ids %v (%v)", oldIDs, rows.Err())
	}

	if _, err := db.MigrateUp(pool); err != nil {
		t.Fatal(err)
	}
	s := dictionaries.NewStore(pool)
	list, err := s.List(ctx, projectID)
	if err != nil || len(list) != 3 {
		t.Fatalf("List: %d, %v", len(list), err)
	}
	second := at.Unix()
	for i, want := range []int64{second + 2, second + 1, second} { // newest first
		if got := list[i]; got.ID != want || got.LegacyID != oldIDs[2-i] {
			t.Errorf("dictionary %d: id %d, old id %d; want %d and %d", i, got.ID, got.LegacyID, want, oldIDs[2-i])
		}
	}
	for i, old := range oldIDs {
		want := list[2-i]
		if got, err := s.Of(ctx, projectID, old); err != nil || got.ID != want.ID || got.SHA256 != want.SHA256 {
			t.Errorf("Of(old id %d) = %+v, %v; want %d", old, got, err, want.ID)
		}
		if got, slug, err := s.Meta(ctx, old); err != nil || slug != "old" || got.ID != want.ID || got.Token != want.Token {
			t.Errorf("Meta(old id %d) = %+v %q, %v; want %d", old, got, slug, err, want.ID)
		}
	}
	if latest, err := s.Latest(ctx, projectID); err != nil || latest.ID != second+2 {
		t.Fatalf("Latest = %+v, %v", latest, err)
	}
	// On Citus the test database is laid out after the rows above were
	// written, and the layout restarts the rows' identity: the next row
	// would take an id taken (so at the version before too; a tracker laid
	// out before it has dictionaries has no such trouble).
	if citus, err := db.Citus(ctx, pool); err != nil || citus {
		t.Skipf("Citus (%v): the layout of rows written before it restarts their identity", err)
	}
	// One installed since has no old id.
	added, err := s.Add(ctx, projectID, d, "")
	if err != nil || added.LegacyID != 0 || added.ID <= second+2 {
		t.Fatalf("Add after the migration: %+v, %v", added, err)
	}

	// Down again: the old ids served again, the new dictionary under the
	// next (its row's own), and the ids count on from there.
	if err := db.MigrateTo(pool, before); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	rows, err = pool.Query(ctx, `SELECT id FROM dictionaries ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var inserted int64
	dbtest.MustScan(t, pool.QueryRow(ctx, `INSERT INTO dictionaries (project_id, bytes, sha256) VALUES ($1, $2, encode(sha256($2), 'hex')) RETURNING id`, projectID, d), &inserted)
	if want := append(append([]int64{}, oldIDs...), oldIDs[2]+1); len(ids) != 4 || ids[3] != want[3] || ids[0] != want[0] || inserted != want[3]+1 {
		t.Fatalf("after down: ids %v, then %d; want %v, then %d", ids, inserted, want, want[3]+1)
	}
}

// The packer reads the project from a file's name as letters, digits and
// '-'; ids are written as the answers write them.
func TestPackableAndParseID(t *testing.T) {
	t.Parallel()
	for slug, want := range map[string]bool{"urls": true, "youtube-grab": true, "2026-test": true, "url_shorteners": false, "a.b": false, "": false} {
		if got := dictionaries.Packable(slug); got != want {
			t.Errorf("Packable(%q) = %v", slug, got)
		}
	}
	for s, want := range map[string]int64{"1732800000": 1732800000, "7": 7, "0": 0, "007": 0, "-7": 0, "+7": 0, "": 0, "17x": 0, "99999999999999999999": 0} {
		got, ok := dictionaries.ParseID(s)
		if got != want || ok != (want != 0) {
			t.Errorf("ParseID(%q) = %d, %v", s, got, ok)
		}
	}
}
