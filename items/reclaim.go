package items

import (
	"context"

	"github.com/jackc/pgx/v5/pgtype"

	"tracker/db"
	"tracker/projects"
)

// ReclaimExpired puts back in their queues up to max of the project's claims
// that outlived its reclaim TTL times their claim count, oldest first, and
// returns how many. One statement, so each batch is whole or not at all.
func (e *Engine) ReclaimExpired(ctx context.Context, p projects.Project, max int) (int64, error) {
	ttl := p.Config.ReclaimTTL
	if ttl <= 0 {
		return 0, nil
	}
	n, err := e.q.ClaimsExpire(ctx, db.ClaimsExpireParams{
		ProjectID:    p.ID,
		Ttl:          pgtype.Interval{Microseconds: ttl * 1e6, Valid: true},
		Max:          int32(max),
		LimitedTypes: p.Config.LimitedTypes(),
	})
	if n > 0 {
		e.forgetHeads(p.ID)
	}
	return n, err
}
