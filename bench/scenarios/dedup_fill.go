package scenarios

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// importBatch is how many names `tracker items add` writes in one
// statement, each statement with a block of ids of its own
// (items.addBatch); fillByBlocks writes its rows in the same blocks.
const importBatch = 10_000

// fillChunk is how many names fillByBlocks writes in one transaction.
const fillChunk = 1_000_000

// fillByBlocks queues the names prefix+from ... prefix+(from+n-1) into a
// project the way `tracker items add` does, without the tracker: the same
// rows, written by SQL on the database. The import sends 10,000 names a
// statement, and each statement deduplicates them against the project's
// keys, one index probe per name; filling a hundred million takes hours
// once the keys outgrow memory. Here the names are known to be new: the
// keys of seen and todo are dropped, the rows are inserted as the import
// would write them (seen: the name's hash under the default scope, item
// NULL, the id (block << 20 | position) its batch gives it, in hash order
// within each batch; todo: queue 'todo', the type and site the project
// files it under, by the same functions, in id order; each batch's block
// in item_batches; the queue's counter), and the keys are made again, each
// in one sort. No audit entry is written (an import writes one, whatever
// its size).
//
// An import leaves the keys' leaf pages some 70 % full (pgstatindex after
// importing 1,000,000 names: 71 % for seen's, whose batches land on random
// pages, 68 % for todo's, which two batches at once write): an index built
// in one sort fills them to 90 %, and would hold the same names in a fifth
// less memory. So the keys are built 70 % full, and the setting dropped
// again (it guides builds and splits at an index's right edge only).
func fillByBlocks(ctx context.Context, pool *pgxpool.Pool, project int32, prefix string, from, n int) error {
	for _, sql := range []string{"ALTER TABLE seen DROP CONSTRAINT seen_pkey", "ALTER TABLE todo DROP CONSTRAINT todo_pkey"} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			return err
		}
	}
	for done := 0; done < n; {
		size := min(fillChunk, n-done)
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			return fillChunkOf(ctx, tx, project, prefix, from+done, size)
		})
		if err != nil {
			return err
		}
		done += size
		if done%(10*fillChunk) == 0 {
			log.Printf("filled %d of %d names", done, n)
		}
	}
	start := time.Now()
	for _, sql := range []string{
		"ALTER TABLE seen ADD CONSTRAINT seen_pkey PRIMARY KEY (project_id, hash) WITH (fillfactor = 70)",
		"ALTER INDEX seen_pkey RESET (fillfactor)",
		"ALTER TABLE todo ADD CONSTRAINT todo_pkey PRIMARY KEY (project_id, queue, type, id) WITH (fillfactor = 70)",
		"ALTER INDEX todo_pkey RESET (fillfactor)",
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
	}
	log.Printf("the keys of seen and todo made again in %.0f s", time.Since(start).Seconds())
	return nil
}

// fillNames are the names of a chunk, $2 || number from $3, with their
// ids: the $4 blocks, importBatch names each, the last one short ($5
// names in all).
var fillNames = fmt.Sprintf(`SELECT (blk.block << 20) | o.ord AS id, blk.block, $2::text || ($3::bigint + (blk.i - 1) * %[1]d + o.ord - 1) AS name
	FROM unnest($4::bigint[]) WITH ORDINALITY AS blk (block, i), generate_series(1, %[1]d) AS o (ord)
	WHERE (blk.i - 1) * %[1]d + o.ord <= $5`, importBatch)

func fillChunkOf(ctx context.Context, tx pgx.Tx, project int32, prefix string, from, n int) error {
	var blocks []int64
	err := tx.QueryRow(ctx, "SELECT array_agg(nextval('item_id_blocks') ORDER BY g) FROM generate_series(1, $1::integer) g",
		(n+importBatch-1)/importBatch).Scan(&blocks)
	if err != nil {
		return err
	}
	// Where the project files the names, read once rather than for each.
	var types []string
	var site int32
	if err := tx.QueryRow(ctx, "SELECT project_limited_types($1), project_site($1, 0)", project).Scan(&types, &site); err != nil {
		return err
	}
	names := []any{project, prefix, from, blocks, n}
	for _, st := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO seen (project_id, hash, id, item)
		SELECT $1, item_hash(x.name), x.id, NULL FROM (` + fillNames + `) x
		ORDER BY x.block, item_hash(x.name)`, names},
		{`INSERT INTO todo (project_id, queue, type, site, id, name)
		SELECT $1, 'todo', queue_type('todo', x.name, $6::text[], $7::integer), $7::integer, x.id, x.name
		FROM (` + fillNames + `) x
		ORDER BY x.id`, append(names, types, site)},
	} {
		if _, err := tx.Exec(ctx, st.sql, st.args...); err != nil {
			return fmt.Errorf("%.40s: %w", st.sql, err)
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO item_batches (project_id, block, source, queue, shard)
		SELECT $1, b, 'import', 'todo', '' FROM unnest($2::bigint[]) b`, project, blocks); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO counters AS c (project_id, name, shard, value)
		VALUES ($1, 'queue:todo', counter_shard(), $2)
		ON CONFLICT (project_id, name, shard) DO UPDATE SET value = c.value + excluded.value`, project, n)
	return err
}
