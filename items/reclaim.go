package items

import (
	"context"
	"time"

	"tracker/audit"
	"tracker/db"
	"tracker/projects"
	"tracker/sites"
)

// ReclaimExpired puts back in their queues up to max of the project's claims
// that outlived its reclaim TTL times their claim count, oldest first; an
// item handed out max_claims times fails instead (the error queue). It
// returns how many went back and how many failed. One statement, so each
// batch is whole or not at all.
func (e *Engine) ReclaimExpired(ctx context.Context, p projects.Project, max int) (requeued, failed int64, err error) {
	ttl := p.Config.ReclaimTTL
	if ttl <= 0 {
		return 0, 0, nil
	}
	var r db.ClaimsExpireRow
	err = db.WithTx(ctx, e.pool, func(q *db.Queries) error {
		if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
			return err
		}
		var err error
		r, err = q.ClaimsExpire(ctx, db.ClaimsExpireParams{
			ProjectID: p.ID,
			Ttl:       projects.Duration(ttl),
			Max:       int32(max),
			MaxClaims: p.Config.MaxClaims,
		})
		return err
	})
	if r.Requeued > 0 {
		e.forgetHeads(p.ID)
	}
	return r.Requeued, r.Failed, err
}

// ReleaseItem gives one claimed item back to its queue, whoever holds it
// (an admin's release), records it, and says whether it was out. The
// claim is found by its name's hash.
func (e *Engine) ReleaseItem(ctx context.Context, p projects.Project, name string) (bool, error) {
	var released bool
	err := db.WithTx(ctx, e.pool, func(q *db.Queries) error {
		if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
			return err
		}
		rows, err := q.ClaimsRelease(ctx, db.ClaimsReleaseParams{ProjectID: p.ID, Names: []string{name}})
		if err != nil || len(rows) == 0 {
			return err
		}
		released = true
		return audit.Record(ctx, q, "claims.release", p.ID, map[string]any{"item": rows[0].Name, "released": 1})
	})
	if released {
		e.forgetHeads(p.ID)
	}
	return released, err
}

// releaseBatch bounds one statement of ReleaseWhere.
const releaseBatch = 5000

// ReleaseWhere gives back to their queues the project's claims older than
// olderThan, of downloader when it is not empty, selected by sel, in batches (each its own
// transaction) until none are left, and returns how many.
func (e *Engine) ReleaseWhere(ctx context.Context, p projects.Project, downloader string, olderThan time.Duration, sel Selection) (int64, error) {
	if err := sel.check(); err != nil {
		return 0, err
	}
	detail := map[string]any{"downloader": downloader,
		"older_than_minutes": int64(olderThan / time.Minute), "prefix": sel.Prefix, "pattern": sel.Pattern}
	if sel.Site != 0 {
		detail["site_id"] = sel.Site
	}
	return e.releaseWhere(ctx, p, "claims.release", detail, downloader, olderThan, sel)
}

// ReleaseSite gives every claim of the project's site named name back to
// the queue it came from, in its old place (their holders may still report
// them done), and then lets the site be handed out again at once: its
// interval and its limit start afresh. The audit log's entry names the
// site and counts the claims released. It returns the site's name as the
// frontier keeps it and how many were released (sites.ErrNoName,
// sites.ErrNotFound for a site the project does not have).
func (e *Engine) ReleaseSite(ctx context.Context, p projects.Project, name string) (string, int64, error) {
	st, err := sites.Get(ctx, e.q, p.ID, name)
	if err != nil {
		return "", 0, err
	}
	n, err := e.releaseWhere(ctx, p, "site.release", map[string]any{"site": st.Name}, "", 0, Selection{Site: st.ID})
	if err != nil {
		return st.Name, n, err
	}
	return st.Name, n, e.q.SiteMakeDue(ctx, db.SiteMakeDueParams{ProjectID: p.ID, ID: st.ID})
}

// releaseWhere is ReleaseWhere, recorded in the audit log as action with
// detail and the count released.
func (e *Engine) releaseWhere(ctx context.Context, p projects.Project, action string, detail map[string]any,
	downloader string, olderThan time.Duration, sel Selection) (int64, error) {
	var total int64
	defer func() {
		if total > 0 {
			e.forgetHeads(p.ID)
		}
	}()
	tally, err := audit.Begin(ctx, e.q, action, p.ID, detail, "released")
	if err != nil {
		return 0, err
	}
	for {
		n, err := tally.Batch(ctx, e.pool, func(q *db.Queries) (int64, error) {
			if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
				return 0, err
			}
			return q.ClaimsReleaseWhere(ctx, db.ClaimsReleaseWhereParams{
				ProjectID: p.ID, Downloader: downloader, Max: releaseBatch,
				Prefix: sel.Prefix, Pattern: sel.Pattern, Site: sel.Site,
				OlderThan: olderThan,
			})
		})
		total += n
		if err != nil || n < releaseBatch {
			return total, badPattern(err)
		}
	}
}
