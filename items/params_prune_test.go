package items_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"tracker/items"
)

// paramsOf lists the parameters the project keeps, by their "n".
func (f fixture) paramsOf(t *testing.T) []string {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), "SELECT params->>'n' FROM item_params WHERE project_id = $1 ORDER BY 1", f.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// Draining a queue drops the parameters of its items, but for those the
// tracker still holds elsewhere (out, completed); moving items between
// queues keeps them.
func TestDrainPrunesParams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	f.add(t, "todo", "x:1\t{\"n\": 1}", "x:2\t{\"n\": 2}", "x:3\t{\"n\": 3}")
	f.add(t, "redo", "y:1\t{\"n\": 4}")
	// x:1 is out; x:2 is completed and queued again.
	if got := f.claim(t, "alice", 2); !slices.Equal(got, []string{"x:1", "x:2"}) {
		t.Fatalf("claimed %v", got)
	}
	f.complete(t, items.Completion{Downloader: "alice", Version: "1", Items: []string{"x:2"}})
	if n, err := f.engine.RequeueDone(ctx, f.project, "todo", items.Exactly("x:2")); err != nil || n != 1 {
		t.Fatalf("requeued %d, %v", n, err)
	}
	if n, err := f.engine.MoveQueue(ctx, f.project, "redo", "secondary", items.Selection{}); err != nil || n != 1 {
		t.Fatalf("moved %d, %v", n, err)
	}
	if got := f.paramsOf(t); !slices.Equal(got, []string{"1", "2", "3", "4"}) {
		t.Fatalf("before the drain, parameters %v", got)
	}
	if n, err := f.engine.MoveQueue(ctx, f.project, "todo", "", items.Selection{}); err != nil || n != 2 {
		t.Fatalf("drained %d, %v", n, err)
	}
	if got := f.paramsOf(t); !slices.Equal(got, []string{"1", "2", "4"}) {
		t.Fatalf("after the drain, parameters %v; want those of x:1 (out), x:2 (completed) and y:1 (moved)", got)
	}
}
