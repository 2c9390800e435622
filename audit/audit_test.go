package audit_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"tracker/audit"
	"tracker/db"
	"tracker/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// The entry of a tally begun on change is written by the first batch that
// changes something: none for an action that changes nothing, one for
// batches committing at once, counting them all, whatever their order.
func TestBeginOnChange(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	q := db.Of(pool)
	ctx := audit.NewContext(context.Background(), audit.Actor{Username: "root"})
	entries := func() (n int, added int64, note string) {
		t.Helper()
		err := pool.QueryRow(ctx, `SELECT count(*), coalesce(max((detail->>'added')::bigint), 0), coalesce(max(detail->>'why'), '')
			FROM audit_log WHERE action = 'test.add'`).Scan(&n, &added, &note)
		if err != nil {
			t.Fatal(err)
		}
		return n, added, note
	}
	batch := func(tally *audit.Tally, n int64, fail error) error {
		_, err := tally.Batch(ctx, pool, func(*db.Queries) (int64, error) { return n, fail })
		return err
	}

	nothing, err := audit.BeginOnChange(ctx, q, "test.add", 0, map[string]any{"queue": "todo"}, "added")
	if err != nil {
		t.Fatal(err)
	}
	if err := batch(nothing, 0, nil); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("failed")
	if err := batch(nothing, 5, failed); !errors.Is(err, failed) {
		t.Fatalf("a failed batch: %v", err)
	}
	if err := nothing.Note(ctx, q, map[string]any{"why": "stopped"}); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := entries(); n != 0 {
		t.Fatalf("%d entries of an action that changed nothing", n)
	}

	some, err := audit.BeginOnChange(ctx, q, "test.add", 0, map[string]any{"queue": "todo"}, "added")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() { errs <- batch(some, 3, nil) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := some.Note(ctx, q, map[string]any{"why": "stopped"}); err != nil {
		t.Fatal(err)
	}
	if n, added, note := entries(); n != 1 || added != 24 || note != "stopped" {
		t.Fatalf("%d entries, added %d, noted %q; want one of 24, noted", n, added, note)
	}
}
