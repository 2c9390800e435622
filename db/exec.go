package db

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
)

// Exec runs a statement outside the generated queries: for tests and for
// the rare statement built at run time.
func (q *Queries) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return q.db.Exec(ctx, sql, args...)
}
