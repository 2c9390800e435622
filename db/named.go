package db

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Of is the queries of x (a pool, a connection or a transaction) whose
// failures name the statement that failed ("ClaimsTakeSlots: ..."): a
// request runs several statements, and a log line that names the route
// but not the statement leaves the reader to guess which. The name is the
// one sqlc writes at the head of each statement; the error is wrapped, so
// errors.Is and errors.As see through it.
func Of(x DBTX) *Queries { return New(named{x}) }

// StatementError is a statement's failure, with the statement's name.
type StatementError struct {
	Statement string
	Err       error
}

func (e *StatementError) Error() string { return e.Statement + ": " + e.Err.Error() }
func (e *StatementError) Unwrap() error { return e.Err }

type named struct{ DBTX }

func (n named) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := n.DBTX.Exec(ctx, sql, args...)
	return tag, nameError(sql, err)
}

func (n named) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := n.DBTX.Query(ctx, sql, args...)
	if err != nil {
		return rows, nameError(sql, err)
	}
	return namedRows{rows, sql}, nil
}

func (n named) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return namedRow{n.DBTX.QueryRow(ctx, sql, args...), sql}
}

type namedRow struct {
	pgx.Row
	sql string
}

func (r namedRow) Scan(dest ...any) error { return nameError(r.sql, r.Row.Scan(dest...)) }

// namedRows names the failures a statement's rows report as they are
// read: most of a statement's work is done then.
type namedRows struct {
	pgx.Rows
	sql string
}

func (r namedRows) Err() error             { return nameError(r.sql, r.Rows.Err()) }
func (r namedRows) Scan(dest ...any) error { return nameError(r.sql, r.Rows.Scan(dest...)) }

// nameError wraps err with the name of the statement sql, when sqlc named
// it; a statement without a name (tests' scratch SQL) fails as it is.
func nameError(sql string, err error) error {
	if err == nil {
		return nil
	}
	rest, ok := strings.CutPrefix(sql, "-- name: ")
	if !ok {
		return err
	}
	name, _, _ := strings.Cut(rest, " ")
	return &StatementError{Statement: name, Err: err}
}
