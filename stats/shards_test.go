package stats

import (
	"context"
	"fmt"
	"testing"

	"tracker/items"
)

// The board names the ShardsShown largest shards of the last hour and sums
// the others in one last entry.
func TestBoardShardsSumTheSmallOnes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t, 0)
	for i := range ShardsShown + 3 {
		var entries []items.BackfeedEntry
		for j := range i + 1 {
			entries = append(entries, items.BackfeedEntry{Key: fmt.Sprintf("k:%d", j), Item: fmt.Sprintf("k:%d", j)})
		}
		if fresh, _, err := f.engine.Backfeed(ctx, f.project, fmt.Sprintf("s%02d", i), entries); err != nil || fresh != int64(i+1) {
			t.Fatalf("shard %d: %d new, %v", i, fresh, err)
		}
	}
	b, _, _, err := f.hub.Board(ctx, f.project)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Shards) != ShardsShown+1 {
		t.Fatalf("%d shards: %+v", len(b.Shards), b.Shards)
	}
	if b.Shards[0] != (ShardNew{Shard: fmt.Sprintf("s%02d", ShardsShown+2), New: ShardsShown + 3}) {
		t.Fatalf("largest %+v", b.Shards[0])
	}
	// s00, s01 and s02 hold 1, 2 and 3 items.
	if other := b.Shards[ShardsShown]; other != (ShardNew{New: 6, Others: 3}) {
		t.Fatalf("others %+v", other)
	}
}
