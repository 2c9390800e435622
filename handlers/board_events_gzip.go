package handlers

import (
	"encoding/binary"
	"hash/crc32"
	"io"

	"tracker/stats"
)

// eventWriter writes a live stream's frames, in gzip to a client that
// takes it. The gzip is made of the frames' shared DEFLATE blocks
// (stats.Frame.Deflated) one after the other: the stream compresses
// nothing itself and keeps no compressor, only the CRC-32 and length of
// what it sent, for the gzip trailer at its end.
type eventWriter struct {
	w    io.Writer
	gzip bool
	crc  uint32
	size uint32 // modulo 2^32, as gzip keeps it
}

// gzipHeader is a gzip member's header: DEFLATE, no name, no time, unknown
// operating system.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

func newEventWriter(w io.Writer, gzip bool) (*eventWriter, error) {
	e := &eventWriter{w: w, gzip: gzip}
	if gzip {
		if _, err := w.Write(gzipHeader); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *eventWriter) write(f stats.Frame) error {
	if !e.gzip {
		_, err := e.w.Write(f.Plain)
		return err
	}
	e.crc = crc32.Update(e.crc, crc32.IEEETable, f.Plain)
	e.size += uint32(len(f.Plain))
	_, err := e.w.Write(f.Deflated)
	return err
}

// end closes a gzip stream: a last, empty block, then the CRC-32 and the
// length of everything sent, so the client reads the stream's end as one.
func (e *eventWriter) end() error {
	if !e.gzip {
		return nil
	}
	trailer := []byte{0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(trailer[2:], e.crc)
	binary.LittleEndian.PutUint32(trailer[6:], e.size)
	_, err := e.w.Write(trailer)
	return err
}

// The frames every stream sends, compressed once.
var (
	retryFrame = stats.FrameOf([]byte("retry: 2000\n\n"))
	pingFrame  = stats.NewFrame("", "", []byte("ping"))
)
