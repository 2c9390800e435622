package stats

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"tracker/books"
	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

// mark is the rollup's watermark: every tally numbered up to it is folded.
func (f fixture) mark(t *testing.T) int64 {
	t.Helper()
	var folded int64
	if err := f.pool.QueryRow(context.Background(), "SELECT folded FROM done_tallies_mark").Scan(&folded); err != nil {
		t.Fatal(err)
	}
	return folded
}

func (f fixture) totals(t *testing.T) map[string][2]int64 {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), "SELECT nick, items, bytes FROM downloaders WHERE project_id = $1", f.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]int64{}
	for rows.Next() {
		var nick string
		var items, bytes int64
		if err := rows.Scan(&nick, &items, &bytes); err != nil {
			t.Fatal(err)
		}
		out[nick] = [2]int64{items, bytes}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A tally whose transaction took its number before a fold and commits after
// it is not passed over: the watermark stays below its number while the
// transaction runs, folds meanwhile fold the tallies after it, and the
// first fold after the commit folds it. Then the watermark catches up with
// the last number handed out, and the next fold starts there.
func TestFoldWatermarkWaitsForTalliesStillBeingWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 100)
	s := NewStore(f.pool)
	f.work(t, "alice", "1", 10, 1000)

	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var late int64
	if err := tx.QueryRow(ctx, `INSERT INTO done_tallies (project_id, downloader, items, bytes, version, domains, item)
		VALUES ($1, 'late', 7, 70, '1', '{"data": 70}', 'item:x') RETURNING seq`, f.project.ID).Scan(&late); err != nil {
		t.Fatal(err)
	}
	f.work(t, "bob", "1", 10, 300)
	for i := range 3 {
		if _, err := s.Fold(ctx); err != nil {
			t.Fatal(err)
		}
		if m := f.mark(t); m >= late {
			t.Fatalf("fold %d moved the watermark to %d, past tally %d still being written", i, m, late)
		}
	}
	if got := f.totals(t); fmt.Sprint(got) != "map[alice:[10 1000] bob:[10 300]]" {
		t.Fatalf("totals while the late tally is written: %v", got)
	}

	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Fold(ctx); err != nil || n != 1 {
		t.Fatalf("the fold after the commit folded %d, %v; want the late tally", n, err)
	}
	if got := f.totals(t); fmt.Sprint(got) != "map[alice:[10 1000] bob:[10 300] late:[7 70]]" {
		t.Fatalf("totals: %v", got)
	}
	f.work(t, "carol", "1", 5, 50)
	var last int64
	if err := f.pool.QueryRow(ctx, "SELECT last_value FROM done_tallies_seq").Scan(&last); err != nil {
		t.Fatal(err)
	}
	// Transactions of other databases of the cluster count too: the
	// watermark moves once none older than the last fold runs.
	dbtest.Eventually(t, func() bool {
		if _, err := s.Fold(ctx); err != nil {
			t.Fatal(err)
		}
		return f.mark(t) == last
	}, fmt.Sprintf("the watermark at the last number %d", last))
}

// tryWork is work for a test's goroutines: nick claims and completes n
// items reporting bytes, and failures are returned.
func (f fixture) tryWork(nick string, n int, bytes int64) error {
	ctx := context.Background()
	sum, err := f.store.Summary(ctx, f.project)
	if err != nil {
		return err
	}
	h, err := f.engine.Request(ctx, &projects.Live{Project: f.project, Queues: sum.Queues, Summary: sum},
		items.ClaimRequest{Downloader: nick, Version: "1", Max: n})
	if err != nil || len(h.Names) != n {
		return fmt.Errorf("%s claimed %v, %v", nick, h.Names, err)
	}
	_, err = f.engine.Complete(ctx, f.project, items.Completion{Downloader: nick, Version: "1", Items: h.Names,
		Bytes: map[string]int64{"data": bytes}})
	return err
}

// Completions and folds running at once, many of each: afterwards every
// tally is folded, each once, and the board and the books agree with the
// completions.
func TestBoardEqualsTheBooksAfterManyFolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 300)
	s := NewStore(f.pool)
	nicks := []string{"alice", "bob", "carol"}
	stop := make(chan struct{})
	var folds sync.WaitGroup
	folds.Add(1)
	var foldErr error
	go func() {
		defer folds.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.Fold(ctx); err != nil {
				foldErr = err
				return
			}
		}
	}()
	var work sync.WaitGroup
	workErr := make(chan error, len(nicks))
	for i, nick := range nicks {
		work.Add(1)
		go func() {
			defer work.Done()
			for range 20 {
				if err := f.tryWork(nick, 3, int64(10*(i+1))); err != nil {
					workErr <- err
					return
				}
			}
		}()
	}
	work.Wait()
	close(workErr)
	for err := range workErr {
		t.Fatal(err)
	}
	close(stop)
	folds.Wait()
	if foldErr != nil {
		t.Fatal(foldErr)
	}
	for range 2 {
		if _, err := s.Fold(ctx); err != nil {
			t.Fatal(err)
		}
	}

	var pending int64
	if err := f.pool.QueryRow(ctx, "SELECT count(*) FROM done_tallies").Scan(&pending); err != nil || pending != 0 {
		t.Fatalf("%d tallies left pending (%v)", pending, err)
	}
	if got := f.totals(t); fmt.Sprint(got) != "map[alice:[60 200] bob:[60 400] carol:[60 600]]" {
		t.Fatalf("totals %v", got)
	}
	r, err := books.Of(ctx, f.pool, f.project)
	if err != nil || !r.Balanced {
		t.Fatalf("books: %+v, %v", r, err)
	}
	hub := NewHub(f.pool, f.store, nil)
	defer hub.Close()
	b, _, _, err := hub.Board(ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}
	var items, bytes int64
	for _, l := range b.Leaders {
		items, bytes = items+l.Items, bytes+l.Bytes
	}
	if b.Totals.Done != 180 || b.Totals.Bytes != 1200 || items != 180 || bytes != 1200 {
		t.Fatalf("board: done %d, bytes %d; leaders %d items, %d bytes; want 180 and 1200", b.Totals.Done, b.Totals.Bytes, items, bytes)
	}
}
