package archive

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/db/dbtest"
	"tracker/items"
	"tracker/projects"
)

// The parameters of the items a day of completions archived or discarded
// leave with it, but for the items the tracker still holds: queued again,
// out, completed on a later day, or (in a recurring project) scheduled for
// their next visit.
func TestArchivePrunesParams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, archiveMode string
		kept              []string
	}{
		{projects.ModeOnce, ModeFiles, []string{"p:1", "p:2", "p:3", "p:5"}},
		{projects.ModeOnce, ModeDiscard, []string{"p:1", "p:2", "p:3", "p:5"}},
		// Every completed item is scheduled for its next visit.
		{projects.ModeRecurring, ModeFiles, []string{"p:0", "p:1", "p:2", "p:3", "p:4", "p:5"}},
	} {
		t.Run(tc.mode+"-"+tc.archiveMode, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pool := dbtest.New(t)
			store := projects.NewStore(pool)
			p := dbtest.Project(t, pool, "demo", "", "archive_after=86400", "archive_mode="+tc.archiveMode, "mode="+tc.mode)
			engine := items.NewEngine(pool, nil)
			var lines []string
			for i := range 6 {
				lines = append(lines, fmt.Sprintf("p:%d\t{\"n\": %d}", i, i))
			}
			if _, err := engine.Add(ctx, p, "todo", strings.NewReader(strings.Join(lines, "\n"))); err != nil {
				t.Fatal(err)
			}
			request := func(n int) []string {
				t.Helper()
				sum, err := store.Summary(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				h, err := engine.Request(ctx, &projects.Live{Project: p, Queues: sum.Queues, Summary: sum},
					items.ClaimRequest{Downloader: "alice", Version: "1", Max: n})
				if err != nil || len(h.Names) != n {
					t.Fatalf("claimed %v, %v", h.Names, err)
				}
				return h.Names
			}
			complete := func(names ...string) {
				t.Helper()
				if _, err := engine.Complete(ctx, p, items.Completion{Downloader: "alice", Version: "1", Items: names}); err != nil {
					t.Fatal(err)
				}
			}
			// p:0 to p:4 completed three days ago; p:5 is still queued.
			complete(request(5)...)
			dbtest.Age(t, pool, 3*24*time.Hour, dbtest.Completions(p.ID))
			// p:1, p:2 and p:3 queued again: of them one stays queued, one
			// is out, one is completed again today.
			if n, err := engine.RequeueDone(ctx, p, "todo", items.Selection{Pattern: "^p:[123]$"}); err != nil || n != 3 {
				t.Fatalf("requeued %d, %v", n, err)
			}
			again := request(2)
			for _, name := range again {
				if !slices.Contains([]string{"p:1", "p:2", "p:3"}, name) {
					t.Fatalf("handed out %v", again)
				}
			}
			complete(again[1])

			res, err := New(pool, t.TempDir()).Project(ctx, p, time.Now())
			if err != nil || res.Items != 5 {
				t.Fatalf("archived %+v, %v", res, err)
			}
			rows, err := pool.Query(ctx, "SELECT 'p:' || (params->>'n') FROM item_params WHERE project_id = $1 ORDER BY 1", p.ID)
			if err != nil {
				t.Fatal(err)
			}
			kept, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil || !slices.Equal(kept, tc.kept) {
				t.Fatalf("parameters of %v kept, want %v (%v)", kept, tc.kept, err)
			}
		})
	}
}
