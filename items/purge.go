package items

import (
	"context"

	"tracker/db"
	"tracker/projects"
)

// Purge removes a deleted project's items: its queues, claims, expiries,
// scheduled visits, scores, parameters, update tags, seen names and their
// batches, counters, rate limits and upload receipts, a batch at a time,
// then its completions' partitions. Stopped midway, it carries on where it was at the next call.
func (e *Engine) Purge(ctx context.Context, p projects.Project) error {
	if err := p.CheckDeleting(); err != nil {
		return err
	}
	d, err := e.driver(ctx)
	if err != nil {
		return err
	}
	if d.DoneByDay() {
		// done's partitions are days every project shares.
		if err := db.Purge(ctx, p.ID, db.PurgeTableOf("done", e.q.DonePurgeBatch)); err != nil {
			return err
		}
	}
	if err := db.Purge(ctx, p.ID,
		db.PurgeTableOf("todo", e.q.TodoPurgeBatch),
		db.PurgeTableOf("claims", e.q.ClaimsPurgeBatch),
		db.PurgeTableOf("claim_expiries", e.q.ClaimExpiriesPurgeBatch),
		db.PurgeTableOf("revisits", e.q.RevisitsPurgeBatch),
		db.PurgeTableOf("item_scores", e.q.ItemScoresPurgeBatch),
		db.PurgeTableOf("item_params", e.q.ItemParamsPurgeBatch),
		db.PurgeTableOf("item_tags", e.q.ItemTagsPurgeBatch),
		db.PurgeTableOf("seen", e.q.SeenPurgeBatch),
		db.PurgeTableOf("item_batches", e.q.ItemBatchesPurgeBatch),
		db.PurgeTableOf("counters", e.q.CountersPurgeBatch),
		db.PurgeTableOf("rate_limits", e.q.RateLimitsPurgeBatch),
		db.PurgeTableOf("uploads", e.q.UploadsPurgeBatch),
	); err != nil {
		return err
	}
	return db.DonePartitionsDrop(ctx, e.pool, p.ID)
}
