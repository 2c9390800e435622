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
