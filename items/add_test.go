package items

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"tracker/db/dbtest"
)

// bigParams is the parameters of import line i: every third line has
// none, the others tens of KiB.
func bigParams(i int) string {
	if i%3 == 0 {
		return ""
	}
	return fmt.Sprintf(`{"pad":"%s"}`, strings.Repeat("x", 10_000+(i*7919)%50_000))
}

// A batch closes at its lines or before a line that would take it over its
// bytes, whichever comes first; the batches hold every line in order, each
// name with its parameters.
func TestLineBatchesBoundedByBytes(t *testing.T) {
	t.Parallel()
	const maxBytes = 256 << 10
	type batch struct {
		names, params []string
		size          int
	}
	for _, c := range []struct {
		why      string
		lines    int
		params   func(int) string
		maxLines int
	}{
		{"large parameters", 300, bigParams, 10_000},
		{"no parameters", 25_000, func(int) string { return "" }, 10_000},
		{"few lines a batch", 500, bigParams, 7},
		{"lines at the limit", 20, func(i int) string { return strings.Repeat("y", maxLineBytes-len(fmt.Sprint("item:", i))) }, 10_000},
	} {
		var got []batch
		b := &lineBatches{maxLines: c.maxLines, maxBytes: maxBytes, send: func(names, params []string, size int) error {
			got = append(got, batch{names, params, size})
			return nil
		}}
		for i := range c.lines {
			if err := b.add(fmt.Sprintf("item:%d", i), c.params(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.flush(); err != nil {
			t.Fatal(err)
		}
		total := 0
		for i := range c.lines {
			total += len(fmt.Sprint("item:", i)) + len(c.params(i))
		}
		if least := max((total+maxBytes-1)/maxBytes, (c.lines+c.maxLines-1)/c.maxLines); len(got) < least {
			t.Errorf("%s: %d batches, want at least %d", c.why, len(got), least)
		}
		i := 0
		for n, bt := range got {
			size := 0
			for j, name := range bt.names {
				want := c.params(i)
				var params string
				if bt.params != nil {
					params = bt.params[j]
				}
				if name != fmt.Sprintf("item:%d", i) || params != want {
					t.Fatalf("%s: batch %d line %d is %q with %d bytes of parameters, want item:%d with %d", c.why, n, j, name, len(params), i, len(want))
				}
				size += len(name) + len(params)
				i++
			}
			if bt.params != nil && len(bt.params) != len(bt.names) {
				t.Fatalf("%s: batch %d: %d names, %d parameters", c.why, n, len(bt.names), len(bt.params))
			}
			if size != bt.size || len(bt.names) == 0 || len(bt.names) > c.maxLines || size > maxBytes {
				t.Fatalf("%s: batch %d: %d lines of %d bytes (said %d), want 1 to %d lines of at most %d bytes", c.why, n, len(bt.names), size, bt.size, c.maxLines, maxBytes)
			}
			if n < len(got)-1 && len(bt.names) < c.maxLines && size+len(got[n+1].names[0])+len(c.params(i)) <= maxBytes {
				t.Fatalf("%s: batch %d closed at %d lines and %d bytes, with room for the next line", c.why, n, len(bt.names), size)
			}
		}
		if i != c.lines {
			t.Fatalf("%s: %d lines in the batches, want %d", c.why, i, c.lines)
		}
	}
}

// An import of lines with large parameters goes to the database in batches
// bounded by bytes (each batch has its block of ids), and queues every
// line, in input order, with its parameters.
func TestAddBatchesBoundedByBytes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "test", "Test")
	e := NewEngine(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	const lines, maxBytes = 300, 256 << 10
	var in strings.Builder
	size := map[string]int{}
	for i := range lines {
		name := fmt.Sprintf("item:%03d", i)
		size[name] = len(name) + len(bigParams(i))
		in.WriteString(name)
		if params := bigParams(i); params != "" {
			in.WriteString("\t" + params)
		}
		in.WriteString("\r\n")
	}
	res, err := e.add(ctx, p, "todo", strings.NewReader(in.String()), addBatch, maxBytes, 2*maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != lines || res.Skipped != 0 || res.Invalid != 0 {
		t.Fatalf("%+v, want %d added", res, lines)
	}

	rows, err := pool.Query(ctx, `SELECT t.name, t.id >> 20, coalesce(length(ip.params->>'pad'), 0) FROM todo t
		LEFT JOIN item_params ip ON ip.project_id = t.project_id AND ip.id = t.id
		WHERE t.project_id = $1 ORDER BY t.id`, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	blocks := map[int64]int{}
	for rows.Next() {
		var name string
		var block int64
		var pad int
		if err := rows.Scan(&name, &block, &pad); err != nil {
			t.Fatal(err)
		}
		i := len(names)
		if want := max(0, len(bigParams(i))-len(`{"pad":""}`)); pad != want {
			t.Errorf("%s: parameters of %d bytes, want %d", name, pad, want)
		}
		names = append(names, name)
		blocks[block] += size[name]
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := make([]string, lines)
	for i := range want {
		want[i] = fmt.Sprintf("item:%03d", i)
	}
	if !slices.Equal(names, want) {
		t.Fatalf("queued in the order %v, want the input's", names)
	}
	total := 0
	for _, n := range size {
		total += n
	}
	if len(blocks) < (total+maxBytes-1)/maxBytes {
		t.Errorf("%d batches of %d bytes in all, want at least %d", len(blocks), total, (total+maxBytes-1)/maxBytes)
	}
	for block, n := range blocks {
		if n > maxBytes {
			t.Errorf("batch %d: %d bytes, over %d", block, n, maxBytes)
		}
	}
}

// An import holds at most its in-flight bytes of batches sent and not yet
// written: while the database writes nothing, it reads the batch in
// flight, the next one and a line, and then waits; it reads on once a
// batch is written. Here one batch may be in flight, though the import has
// writers for more.
func TestAddInFlightBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	p := dbtest.Project(t, pool, "test", "Test")
	e := NewEngine(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	const maxBytes = 256 << 10
	const lines = 2000 // of about 1 KiB: several batches
	var in strings.Builder
	for i := range lines {
		fmt.Fprintf(&in, "item:%04d\t{\"pad\":%q}\n", i, strings.Repeat("x", 1000))
	}

	// The queue locked against inserts: no batch is written until the
	// test lets go.
	lock, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx)
	dbtest.MustExec(t, lock, "LOCK TABLE todo IN EXCLUSIVE MODE")

	// Read so far while nothing was written: the batch in flight, the
	// next one, its first line past the bytes and a read of the line
	// reader's; a second batch in flight would take it past the bound.
	const bound = 2*maxBytes + 64<<10
	r := &watchedReader{data: in.String(), chunk: 4 << 10, bound: bound, near: bound - 70<<10,
		written: func() (bool, error) {
			var any bool
			err := pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM todo WHERE project_id = $1)", p.ID).Scan(&any)
			return any, err
		}}
	r.nearby = make(chan struct{})
	added := make(chan error, 1)
	go func() {
		res, err := e.add(ctx, p, "todo", r, addBatch, maxBytes, maxBytes)
		if err == nil && res.Added != lines {
			err = fmt.Errorf("%+v, want %d added", res, lines)
		}
		added <- err
	}()
	<-r.nearby
	dbtest.Eventually(t, func() bool {
		return dbtest.Count(t, pool, "SELECT count(*) FROM pg_locks WHERE relation = 'todo'::regclass AND NOT granted") > 0
	}, "the first batch waiting for the queue")
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.over != 0 {
		t.Errorf("the import read %d bytes before any batch was written, over its bound of %d", r.over, bound)
	}
}

// watchedReader hands out data a chunk a read and notes a read past bound
// made before written says a batch was written; nearby is closed once near
// bytes were read.
type watchedReader struct {
	data        string
	chunk       int
	pos         int
	bound, near int
	written     func() (bool, error)
	nearby      chan struct{}
	over        int
	err         error
}

func (r *watchedReader) Read(p []byte) (int, error) {
	if r.pos >= len(r.data) {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.chunk)], r.data[r.pos:])
	if r.pos < r.near && r.pos+n >= r.near {
		close(r.nearby)
	}
	r.pos += n
	if r.pos > r.bound && r.over == 0 && r.err == nil {
		written, err := r.written()
		if r.err = err; err == nil && !written {
			r.over = r.pos
		}
	}
	return n, nil
}
