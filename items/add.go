package items

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"tracker/audit"
	"tracker/db"
	"tracker/naming"
	"tracker/projects"
)

// addBatch is how many names go to the database in one statement.
const addBatch = 10_000

// addBatchBytes bounds the names and parameters of one batch of an import:
// 10,000 lines of up to 72 KiB each would be 720 MiB, several times over
// (each batch is also encoded for the database). Plain names fill their
// 10,000 lines long before.
const addBatchBytes = 8 << 20

// addInFlightBytes bounds the names and parameters of one import's batches
// sent and not yet written: with the batch being read, an import holds at
// most 40 MiB of them however large its input and however many writers.
const addInFlightBytes = 32 << 20

// addReadBuffer is the buffer an import reads its input through.
const addReadBuffer = 1 << 20

// AddMemory bounds the names and parameters one import holds at once,
// however large its input: its batches sent and not yet written, the
// batch being read and the buffer it is read through.
const AddMemory = addInFlightBytes + addBatchBytes + addReadBuffer

// addWriters is how many batches of one import are written at once: enough
// to keep every core of the database busy while the next lines are read.
var addWriters = max(2, runtime.GOMAXPROCS(0))

// AddResult tells what an import did.
type AddResult struct {
	Added   int64 // queued
	Skipped int64 // seen in the project before (or earlier in the same input)
	// Invalid counts lines that are no item name; InvalidLines has the
	// first few of their line numbers and reasons, InvalidAt the first
	// MaxInvalidAt of them as numbers and reasons.
	Invalid      int64
	InvalidLines []string
	InvalidAt    []InvalidLine
}

// InvalidLine is a line of an import that is no item name, and why.
type InvalidLine struct {
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
}

// MaxInvalidAt bounds the invalid lines an import's result lists.
const MaxInvalidAt = 100

// Add queues the newline-separated names read from r into queue, skipping
// names the project has ever seen. It streams: memory stays bounded by a
// few batches however long the input. Batches are written several at once
// and each commits on its own, so an interrupted import can simply be run
// again; ids are drawn in input order, so the queue keeps it. Blank lines
// are ignored and a trailing CR is dropped (files written on Windows).
// With an actor in ctx, one audit entry counts what it added: none when it
// added nothing, and one that stopped part-way says why ("cut_short").
func (e *Engine) Add(ctx context.Context, p projects.Project, queue string, r io.Reader) (AddResult, error) {
	return e.add(ctx, p, queue, r, addBatch, addBatchBytes, addInFlightBytes)
}

// add is Add with batches of at most maxLines lines and maxBytes bytes,
// and at most inFlight bytes of them sent and not yet written.
func (e *Engine) add(ctx context.Context, p projects.Project, queue string, r io.Reader, maxLines, maxBytes, inFlight int) (AddResult, error) {
	if err := naming.ValidQueue(queue); err != nil {
		return AddResult{}, err
	}
	tally, err := audit.BeginOnChange(ctx, e.q, "items.add", p.ID, map[string]any{"queue": queue}, "added")
	if err != nil {
		return AddResult{}, err
	}
	// Each batch is written by a goroutine of the group; at most addWriters
	// at once, and at most inFlight bytes of them, so reading waits (and
	// memory stays bounded) while they are busy. The first failure cancels
	// the others and the reading.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(addWriters)
	room := semaphore.NewWeighted(int64(inFlight))
	var added atomic.Int64

	var res AddResult
	var total int64
	batches := &lineBatches{maxLines: maxLines, maxBytes: maxBytes, send: func(batch []string, batchParams []string, size int) error {
		// Drawn here, in input order, so the queue keeps the input's.
		block, err := e.q.ItemIDBlockNext(gctx)
		if err != nil {
			return err
		}
		weight := int64(min(size, inFlight))
		if err := room.Acquire(gctx, weight); err != nil {
			return err
		}
		g.Go(func() error {
			defer room.Release(weight)
			n, err := tally.Batch(gctx, e.pool, func(q *db.Queries) (int64, error) {
				n, _, err := e.queueBlock(gctx, q, p, BatchImport, queue, "", false, block, batch, nil, batchParams)
				return n, err
			})
			added.Add(n)
			return err
		})
		total += int64(len(batch))
		return nil
	}}
	err = e.readNames(r, &res, batches.add)
	if err == nil {
		err = batches.flush()
	}
	// A writer's failure comes first: reading stopped because of it.
	if werr := g.Wait(); werr != nil {
		err = werr
	}
	res.Added = added.Load()
	res.Skipped = total - res.Added
	if err != nil {
		// Batches sent but not written are neither added nor skipped.
		res.Skipped = 0
		if res.Added > 0 {
			// The batches written stay: the entry counting them says the
			// import was cut short, even when ctx is done (the client went).
			nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			if nerr := tally.Note(nctx, e.q, map[string]any{"cut_short": err.Error()}); nerr != nil {
				e.log.Warn("noting a cut-short import in its audit entry", "project", p.Slug, "err", nerr)
			}
			cancel()
		}
	}
	return res, err
}

// lineBatches gathers an import's lines into batches, in input order: a
// batch is sent once it has maxLines lines, or before a line that would
// take it over maxBytes (a name and its parameters; a line is at most
// maxLineBytes, so every batch holds one).
type lineBatches struct {
	maxLines, maxBytes int
	// send takes a batch: names, and their parameters ("" for none; nil
	// when no name has any), and the bytes of both.
	send func(names, params []string, size int) error

	names  []string
	params []string // nil until a line has parameters
	size   int
}

func (b *lineBatches) add(name, params string) error {
	n := len(name) + len(params)
	if len(b.names) > 0 && b.size+n > b.maxBytes {
		if err := b.flush(); err != nil {
			return err
		}
	}
	if b.names == nil {
		b.names = make([]string, 0, b.maxLines)
	}
	if params != "" && b.params == nil {
		b.params = make([]string, len(b.names), b.maxLines)
	}
	if b.params != nil {
		b.params = append(b.params, params)
	}
	b.names = append(b.names, name)
	b.size += n
	if len(b.names) == b.maxLines {
		return b.flush()
	}
	return nil
}

// flush sends the batch gathered, if any.
func (b *lineBatches) flush() error {
	if len(b.names) == 0 {
		return nil
	}
	names, params, size := b.names, b.params, b.size
	b.names, b.params, b.size = nil, nil, 0
	return b.send(names, params, size)
}

// readNames calls add for each valid name of r, and its parameters ("" for
// none: see splitParams), counting invalid lines.
func (e *Engine) readNames(r io.Reader, res *AddResult, add func(name, params string) error) error {
	br := bufio.NewReaderSize(r, addReadBuffer)
	for lineNo := int64(1); ; lineNo++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			return err
		}
		if err == nil && len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if err == nil && len(line) == 0 {
			continue
		}
		var name, params string
		if err == nil {
			name, params, _ = splitParams(string(line))
			if params != "" {
				params, err = parseParams(params)
			}
		}
		if err == nil {
			err = naming.ValidName(name)
		}
		if err != nil {
			res.Invalid++
			if len(res.InvalidLines) < 10 {
				res.InvalidLines = append(res.InvalidLines, fmt.Sprintf("line %d: %v", lineNo, err))
			}
			if len(res.InvalidAt) < MaxInvalidAt {
				res.InvalidAt = append(res.InvalidAt, InvalidLine{Line: lineNo, Reason: err.Error()})
			}
			continue
		}
		if err := add(name, params); err != nil {
			return err
		}
	}
}

// queueKeyed adds the names of a backfeed post the project has never seen
// to a queue and returns how many it added: one statement for a batch of at most addBatch
// names. Names are deduplicated on keys[i] within shard (see
// TodoAddUnseen); with nil keys, each name is its own key. With skipSeen,
// names seen before are queued again too, unless their item is queued,
// out or scheduled; again is how many were only because of it.
func (e *Engine) queueKeyed(ctx context.Context, p projects.Project, queue, shard string, skipSeen bool, names, keys, params []string) (n, again int64, err error) {
	block, err := e.q.ItemIDBlockNext(ctx)
	if err != nil {
		return 0, 0, err
	}
	err = db.WithTx(ctx, e.pool, func(q *db.Queries) error {
		n, again, err = e.queueBlock(ctx, q, p, BatchBackfeed, queue, shard, skipSeen, block, names, keys, params)
		return err
	})
	return n, again, err
}

// How a batch of items came to be queued, as item_batches records it.
const (
	BatchImport   = "import"
	BatchBackfeed = "backfeed"
)

// queueBlock adds names the project has never seen to a queue through q,
// with ids from block, and params[i] ("" or nil: none) as the parameters of
// names[i]; with their sites, in a project that keeps sites, and their
// update tags, in one that recrawls (a name seen before may then be queued
// again: see TodoAddUnseen, and skipSeen in queueKeyed). q is a
// transaction's: where the items are filed follows the project's
// configuration as it is when they are (see ProjectStretchesShare), not
// p's, which may be older.
func (e *Engine) queueBlock(ctx context.Context, q *db.Queries, p projects.Project, source, queue, shard string, skipSeen bool, block int64, names, keys, params []string) (n, again int64, err error) {
	siteIDs, err := e.siteIDs(ctx, p, names)
	if err != nil {
		return 0, 0, err
	}
	if err := q.ProjectStretchesShare(ctx, p.ID); err != nil {
		return 0, 0, err
	}
	arg := db.TodoAddUnseenParams{
		ProjectID: p.ID,
		Queue:     queue,
		Shard:     shard,
		Names:     names,
		Keys:      keys,
		Params:    params,
		Sites:     siteIDs,
		IDBlock:   block,
		Source:    source,
		Shuffle:   p.Config.Order == "random",
		SkipSeen:  skipSeen,
	}
	if p.Config.RecrawlAfter > 0 || skipSeen {
		// Every queue the item could be in: a name queued is a duplicate.
		sum, err := projects.SummaryOf(ctx, e.q, p)
		if err != nil {
			return 0, 0, err
		}
		arg.Queues = naming.QueueNames(sum.Queues)
	}
	if p.Config.RecrawlAfter > 0 {
		arg.RecrawlAfter = p.Config.RecrawlAfter
		arg.Tags = make([]string, len(names))
		for i, name := range names {
			arg.Tags[i] = updateTag(name)
		}
	}
	d, err := e.driver(ctx)
	if err != nil {
		return 0, 0, err
	}
	row, err := d.TodoAddUnseen(ctx, q, arg)
	return row.Queued, row.Again, err
}

// maxLineBytes bounds an import line: a name and its parameters.
const maxLineBytes = naming.MaxNameBytes + 1 + MaxDocumentBytes

var errLineTooLong = fmt.Errorf("line longer than %d bytes (an item name and its parameters)", maxLineBytes)

// readLine returns the next line without its newline. A line longer than an
// item name may be is consumed whole and reported as errLineTooLong, so one
// runaway line neither stops the import nor fills memory.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	switch {
	case err == nil:
		line = line[:len(line)-1]
	case errors.Is(err, bufio.ErrBufferFull):
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, errLineTooLong
	case errors.Is(err, io.EOF) && len(line) > 0:
		// The last line, without a newline.
	default:
		return nil, err
	}
	if len(line) > maxLineBytes {
		return nil, errLineTooLong
	}
	return line, nil
}
