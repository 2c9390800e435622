package db

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PipelinedTx is a transaction whose opening statements (BEGIN and any
// settings) are sent with its first statement, in one round trip: a
// transaction of one statement then costs two round trips (the statement,
// COMMIT) instead of three. It runs on one connection, which it does not
// release.
type PipelinedTx struct {
	conn  *pgx.Conn
	begin []string
	open  bool
}

// BeginPipelined returns a transaction on conn opened by the begin
// statements, the first of which is BEGIN, once its first statement runs.
func BeginPipelined(conn *pgx.Conn, begin ...string) *PipelinedTx {
	return &PipelinedTx{conn: conn, begin: begin}
}

// send opens the transaction with the statement sql: it returns the batch
// whose next result is that statement's.
func (t *PipelinedTx) send(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	for _, s := range t.begin {
		b.Queue(s)
	}
	b.Queue(sql, args...)
	br := t.conn.SendBatch(ctx, b)
	t.open = true
	for range t.begin {
		if _, err := br.Exec(); err != nil {
			return nil, errors.Join(err, br.Close())
		}
	}
	return br, nil
}

func (t *PipelinedTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.open {
		return t.conn.Exec(ctx, sql, args...)
	}
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	return tag, errors.Join(err, br.Close())
}

func (t *PipelinedTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.open {
		return t.conn.Query(ctx, sql, args...)
	}
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		return nil, errors.Join(err, br.Close())
	}
	return &batchRows{Rows: rows, br: br}, nil
}

func (t *PipelinedTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.open {
		return t.conn.QueryRow(ctx, sql, args...)
	}
	rows, err := t.Query(ctx, sql, args...)
	return row{rows, err}
}

// Commit commits the transaction, if a statement opened it. A transaction
// that failed is rolled back by COMMIT, and that is an error.
func (t *PipelinedTx) Commit(ctx context.Context) error {
	if !t.open {
		return nil
	}
	tag, err := t.conn.Exec(ctx, "COMMIT")
	if err == nil && tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return err
}

// Rollback rolls the transaction back, if a statement opened it.
func (t *PipelinedTx) Rollback(ctx context.Context) error {
	if !t.open {
		return nil
	}
	_, err := t.conn.Exec(ctx, "ROLLBACK")
	return err
}

// batchRows are the rows of a pipeline's last statement: closing them
// closes the pipeline.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r *batchRows) Close() {
	r.Rows.Close()
	r.br.Close()
}

// row is the first row of rows, as pgx.Conn.QueryRow gives it.
type row struct {
	rows pgx.Rows
	err  error
}

func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}
