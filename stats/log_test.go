package stats

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// A done is told once: when it is read pending, and not again when the
// rollup has moved it to the feed; one a reader joined after is not told to
// it, and one recorded later is, with its details, though folded before it
// was read.
func TestLogTellsEachDoneOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 10)
	logs := NewLogHub(f.pool, nil)
	t.Cleanup(logs.Close)
	fold := func() {
		t.Helper()
		if _, err := NewStore(f.pool).Fold(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// next waits for the log's next read and returns what came.
	next := func(after int64, changed <-chan struct{}) ([][]byte, int64, <-chan struct{}) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatal("the log was not read again within 10 s")
		}
		msgs, last, changed, err := logs.Follow(ctx, f.project, after)
		if err != nil {
			t.Fatal(err)
		}
		return msgs, last, changed
	}

	f.work(t, "alice", "1", 2, 100)
	msgs, last, changed, err := logs.Follow(ctx, f.project, -1)
	if err != nil || len(msgs) != 0 {
		t.Fatalf("a new reader is told what came before it: %d, %v", len(msgs), err)
	}
	f.work(t, "bob", "2", 3, 300)
	msgs, last, changed = next(last, changed)
	if len(msgs) != 1 {
		t.Fatalf("bob's done: %d messages", len(msgs))
	}
	var m LogMessage
	if err := json.Unmarshal(msgs[0], &m); err != nil {
		t.Fatal(err)
	}
	if m.Downloader != "bob" || len(m.Items) != 3 || m.Item != m.Items[0] || m.Bytes != 300 || m.Version != "2" ||
		m.Counts.Done != 5 || m.Counts.Todo != 5 || m.LogChannel != "demo-log" {
		t.Fatalf("bob's message %+v", m)
	}

	// Folded, bob's done is in the feed: not told again.
	fold()
	if msgs, last, changed = next(last, changed); len(msgs) != 0 {
		t.Fatalf("a folded done told again: %s", msgs)
	}
	// Carol's done is folded before the log reads it: told from the feed.
	f.work(t, "carol", "3", 1, 7)
	fold()
	for deadline := time.Now().Add(10 * time.Second); len(msgs) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("carol's done was not told within 10 s")
		}
		msgs, last, changed = next(last, changed)
	}
	if err := json.Unmarshal(msgs[0], &m); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || m.Downloader != "carol" || m.Version != "3" || len(m.Items) != 1 || m.DomainBytes["data"] != 7 {
		t.Fatalf("carol's done, folded: %d messages, %+v", len(msgs), m)
	}
	recent, err := logs.Recent(ctx, f.project)
	if err != nil || len(recent) != 3 {
		t.Fatalf("recent: %d, %v", len(recent), err)
	}
}
