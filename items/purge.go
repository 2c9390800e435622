package items

import (
	"context"

	"tracker/db"
	"tracker/projects"
)

// Purge removes a deleted project's items: its queues, claims, expiries,
// scheduled visits, scores, parameters, update tags, seen names and their
// batches, counters, rate limits and upload receipts, a batch at a time,
// then its completions' partitions, and forgets what it remembered of
// it. Stopped midway, it carries on where it was at the next call.
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
	if err := db.DonePartitionsDrop(ctx, e.pool, p.ID); err != nil {
		return err
	}
	e.forget(p.ID)
	return nil
}

// forget drops what the engine remembers of a project whose rows are
// gone: its queue heads, its counts not yet written (its counters are
// gone too), its lists and its sites' ids. Without it a deleted project's
// would stay until the process restarts. Another process's engine forgets
// its own when its purge job runs there, or keeps them, a few entries,
// until it restarts.
func (m *memory) forget(project int32) {
	m.mu.Lock()
	m.forgetHeadsLocked(project)
	delete(m.requeued, project)
	delete(m.counts, project)
	delete(m.expired, project)
	m.mu.Unlock()
	m.sitesMu.Lock()
	if ids, ok := m.sites[project]; ok {
		m.sitesKnown -= len(ids)
		delete(m.sites, project)
	}
	m.sitesMu.Unlock()
}
