package scenarios

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/bench/load"
	"tracker/db"
	"tracker/items"
)

// The warrior scenarios: single and multi warriors, request → done in a
// loop, with the raw SQL floor and the yardsticks measured beside them.

// warriors runs request → done loops with n items a request, then the raw
// SQL floor of the same statements.
func (b *bench) warriors(ctx context.Context, name string, clients, n, perSecond int) error {
	if err := b.refill(ctx, perSecond); err != nil {
		return err
	}
	r := b.measure(ctx, name, clients, func(ctx context.Context, l *load.Load) []func() {
		var fs []func()
		for i := range clients {
			fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("w%d", i), n) })
		}
		return fs
	}, "")
	if !b.o.Floor || ctx.Err() != nil {
		return nil
	}
	if err := b.refill(ctx, perSecond); err != nil {
		return err
	}
	floor, err := b.floor(ctx, clients, n)
	if err != nil {
		return err
	}
	r.Floor = floor
	if r.Yardstick, err = b.cycleYardstick(ctx, clients, n, perSecond); err != nil || !b.o.River {
		return err
	}
	r.River, err = b.riverYardstick(ctx, clients*n, perSecond)
	return err
}

// floor runs the claim and completion statements the tracker runs for a
// request and a done, straight on the database, one transaction each, from
// as many connections as the scenario has clients: what the tracker costs
// without HTTP, JSON and batching.
func (b *bench) floor(ctx context.Context, clients, n int) (float64, error) {
	var project int32
	if err := b.pool.QueryRow(ctx, "SELECT id FROM projects WHERE slug = $1", b.project).Scan(&project); err != nil {
		return 0, err
	}
	takes := make([]db.ClaimsTakeSlotsParams, clients)
	for i := range takes {
		takes[i] = db.ClaimsTakeSlotsParams{ProjectID: project, Queue: "todo", Max: int32(n), Budget: items.MaxAnswerBytes}
		for range n {
			t := &takes[i]
			t.Nicks, t.Versions, t.Ips = append(t.Nicks, "floor"+strconv.Itoa(i)), append(t.Versions, "1"), append(t.Ips, "")
			t.Requests, t.Carried = append(t.Requests, 0), append(t.Carried, 0)
		}
	}
	// A statement that fails (a deadlock between two claims) counts
	// nothing and the client goes on.
	return b.yardstick(ctx, clients, func(ctx context.Context, pool *pgxpool.Pool, client int) (int, error) {
		q, take := db.New(pool), &takes[client]
		rows, err := q.ClaimsTakeSlots(ctx, *take)
		if err != nil || len(rows) == 0 {
			take.AfterID = 0
			return 0, nil
		}
		req := db.DoneRequest{Downloader: take.Nicks[0], Version: "1", Bytes: int64(1000 * len(rows)), Domains: []byte(`{"data":1000}`)}
		for _, r := range rows {
			req.Names = append(req.Names, r.Name)
			take.AfterID = max(take.AfterID, r.ID)
		}
		done := db.DoneRecordBatchParams{ProjectID: project, Requests: []db.DoneRequest{req}}
		if _, err := q.DoneRecordBatch(ctx, done); err != nil {
			return 0, nil
		}
		return len(rows), nil
	})
}

// multiRepeat runs multi warriors that send each done again once it is
// acknowledged: what a repeated done costs.
func (b *bench) multiRepeat(ctx context.Context, name string, n int) error {
	if err := b.refill(ctx, 150_000); err != nil {
		return err
	}
	b.measure(ctx, name, n, func(ctx context.Context, l *load.Load) []func() {
		l.Repeat = true
		var fs []func()
		for i := range n {
			fs = append(fs, func() { l.Warrior(ctx, fmt.Sprintf("w%d", i), b.o.Multi) })
		}
		return fs
	}, "multi, each done sent again once acknowledged (as seesaw does when the answer was lost); items/s counts the first")
	return nil
}
