package items

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"tracker/db"
	"tracker/projects"
)

// addBatch is how many names go to the database in one statement.
const addBatch = 10_000

// AddResult tells what an import did.
type AddResult struct {
	Added   int64 // queued
	Skipped int64 // seen in the project before (or earlier in the same input)
	// Invalid counts lines that are no item name; InvalidLines has the
	// first few of their line numbers and reasons.
	Invalid      int64
	InvalidLines []string
}

// Add queues the newline-separated names read from r into queue, skipping
// names the project has ever seen. It streams: memory stays bounded by one
// batch however long the input, and every batch commits on its own, so an
// interrupted import can simply be run again. Blank lines are ignored and a
// trailing CR is dropped (files written on Windows).
func (e *Engine) Add(ctx context.Context, p projects.Project, queue string, r io.Reader) (AddResult, error) {
	if err := ValidQueue(queue); err != nil {
		return AddResult{}, err
	}
	var res AddResult
	batch := make([]string, 0, addBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		n, err := e.queue(ctx, p, queue, batch)
		if err != nil {
			return err
		}
		res.Added += n
		res.Skipped += int64(len(batch)) - n
		batch = batch[:0]
		return nil
	}

	br := bufio.NewReaderSize(r, 1<<20)
	for lineNo := int64(1); ; lineNo++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			return res, err
		}
		if err == nil && len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if err == nil && len(line) == 0 {
			continue
		}
		if err == nil {
			err = ValidName(string(line))
		}
		if err != nil {
			res.Invalid++
			if len(res.InvalidLines) < 10 {
				res.InvalidLines = append(res.InvalidLines, fmt.Sprintf("line %d: %v", lineNo, err))
			}
			continue
		}
		batch = append(batch, string(line))
		if len(batch) == addBatch {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	return res, flush()
}

// queue adds the names the project has never seen to a queue, in one
// statement, and returns how many it added.
func (e *Engine) queue(ctx context.Context, p projects.Project, queue string, names []string) (int64, error) {
	return e.q.TodoAddUnseen(ctx, db.TodoAddUnseenParams{
		ProjectID:    p.ID,
		Queue:        queue,
		Names:        names,
		Shuffle:      p.Config.Order == "random",
		LimitedTypes: p.Config.LimitedTypes(),
	})
}

var errLineTooLong = fmt.Errorf("item name longer than %d bytes", MaxNameBytes)

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
	if len(line) > MaxNameBytes {
		return nil, errLineTooLong
	}
	return line, nil
}
