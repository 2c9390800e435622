package stats

import (
	"bytes"
	"compress/flate"
	"sync"
)

// Frames are one board's events on the live stream, made once for every
// viewer of the process: the whole board, and the patch to it from the
// board before (see patch.go).
type Frames struct {
	// ID is the board's event id (EventID); From the id of the board
	// Patch applies to, "" when there is no patch.
	ID, From     string
	Whole, Patch Frame
}

// Frame is one Server-Sent Event, as it is and compressed.
type Frame struct {
	Plain []byte
	// Deflated is Plain as raw DEFLATE blocks made by a compressor of its
	// own and ending in a sync flush: byte-aligned, referring to nothing
	// before it, so any sequence of them is valid DEFLATE and each
	// stream's gzip is its frames one after the other (see
	// handlers/board_events_gzip.go). A compressor per stream would keep
	// hundreds of KB per viewer; these are made once per board.
	Deflated []byte
}

// NewFrame is an event of the given name, id (none when "") and data (one
// line: JSON has no newline), or a comment when name is "".
func NewFrame(name, id string, data []byte) Frame {
	var b bytes.Buffer
	if name == "" {
		b.WriteString(": ")
		b.Write(data)
		b.WriteString("\n\n")
	} else {
		if id != "" {
			b.WriteString("id: " + id + "\n")
		}
		b.WriteString("event: " + name + "\ndata: ")
		b.Write(data)
		b.WriteString("\n\n")
	}
	return FrameOf(b.Bytes())
}

// FrameOf is plain text as a frame.
func FrameOf(plain []byte) Frame {
	return Frame{Plain: plain, Deflated: deflate(plain)}
}

var deflaters = sync.Pool{New: func() any {
	zw, err := flate.NewWriter(nil, flate.BestCompression)
	if err != nil {
		panic(err) // a constant level
	}
	return zw
}}

// deflate compresses plain alone (see Frame.Deflated).
func deflate(plain []byte) []byte {
	var buf bytes.Buffer
	zw := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(zw)
	zw.Reset(&buf) // no history: nothing refers to an earlier frame
	// Writes to a bytes.Buffer do not fail.
	_, _ = zw.Write(plain)
	_ = zw.Flush() // not Close: the stream's last block comes at its end
	return buf.Bytes()
}

// framesOf are board b's frames, b's JSON being js, the board before it
// (nil for none) and its JSON prev.
func framesOf(b *Board, js []byte, before *Board, prev []byte) (*Frames, error) {
	f := &Frames{ID: EventID(b), Whole: NewFrame("board", EventID(b), js)}
	if before == nil || EventID(before) == f.ID {
		return f, nil
	}
	patch, err := Diff(prev, js, EventID(before), f.ID)
	if err != nil {
		return nil, err
	}
	f.From, f.Patch = EventID(before), NewFrame("patch", f.ID, patch)
	return f, nil
}
