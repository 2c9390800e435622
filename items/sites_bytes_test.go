package items_test

import (
	"context"
	"math"
	"testing"

	"tracker/items"
)

// A site's byte count saturates at the largest bigint: a completion that
// would take it past is recorded, not refused.
func TestSiteBytesSaturate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.set(t, "site_key=host")
	f.add(t, "todo", "https://a.example/1", "https://a.example/2")
	if _, err := f.pool.Exec(ctx, "UPDATE sites SET bytes = $2 WHERE project_id = $1", f.project.ID, int64(math.MaxInt64-10)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"https://a.example/1", "https://a.example/2"} {
		f.makeDue(t)
		if got := f.claim(t, "alice", 1); len(got) != 1 || got[0] != name {
			t.Fatalf("claimed %v, want %s", got, name)
		}
		n, err := f.engine.Complete(ctx, f.project, items.Completion{Downloader: "alice", Version: "1", Items: []string{name},
			Bytes: map[string]int64{"data": 1 << 40}})
		if err != nil || n != 1 {
			t.Fatalf("%s: completed %d, %v", name, n, err)
		}
	}
	var bytes, done int64
	if err := f.pool.QueryRow(ctx, "SELECT bytes, done FROM sites WHERE project_id = $1 AND name = 'a.example'", f.project.ID).Scan(&bytes, &done); err != nil {
		t.Fatal(err)
	}
	if bytes != math.MaxInt64 || done != 2 {
		t.Fatalf("site: %d bytes, %d done; want %d and 2", bytes, done, int64(math.MaxInt64))
	}
}
