package handlers

import (
	"errors"
	"net/http"
	"time"

	"tracker/stats"
)

// boardEvents answers GET /{project}/events: a Server-Sent Events stream of
// the project's board, read again every second. The first event is the
// whole board ("board"); each one after is a "patch" of what changed since
// the board before it (stats.Diff), unless the stream missed a board, when
// it is a whole board again. Each event's id is its board's time in
// milliseconds. A client resuming with Last-Event-ID gets nothing while it
// has the current board, the patch when it has the board before, else the
// whole board. The stream is in gzip when the client takes it, compressed
// once for every viewer (eventWriter). It ends when the server shuts down
// or its lifetime is over; clients reconnect by themselves. Streams are
// bounded in total and per address (StreamLimits): past the bound a client
// is told to come back later, and warriors keep the connections.
func (h *Handler) boardEvents(w http.ResponseWriter, r *http.Request) error {
	live, err := h.readProject(r)
	if err != nil {
		return err
	}
	addr := clientIP(r)
	lifetime, ok := h.streams.take(addr)
	if !ok {
		return &Error{Status: http.StatusServiceUnavailable, Reason: "too-many-streams",
			Msg: "too many live streams open; the page falls back to polling stats.json", RetryAfter: 30}
	}
	defer h.streams.give(addr)
	ctx := r.Context()
	frames, changed, err := h.stats.Frames(ctx, live.Project)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	// The server's write timeout is for ordinary answers; a stream lasts,
	// but each of its writes gets its own deadline: a client that stops
	// reading loses its stream instead of holding it for ever.
	extend := func() error {
		err := rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if errors.Is(err, http.ErrNotSupported) {
			return nil
		}
		return err
	}
	if err := extend(); err != nil {
		return err
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // proxies must not hold events back
	varyOn(hd, "Accept-Encoding")
	gz := acceptsGzip(r)
	if gz {
		hd.Set("Content-Encoding", "gzip")
	}
	w.WriteHeader(http.StatusOK)
	out, err := newEventWriter(w, gz)
	if err != nil {
		return nil // the client went away
	}
	// sent is the id of the board the client has.
	sent := r.Header.Get("Last-Event-ID")
	send := func(f stats.Frame) error {
		if err := extend(); err != nil {
			return err
		}
		if err := out.write(f); err != nil {
			return err
		}
		return rc.Flush()
	}
	// next sends the client the board it lacks: nothing when it has it,
	// the patch when it has the board before, else the whole board.
	next := func(f *stats.Frames) error {
		var err error
		switch {
		case sent == f.ID:
			return rc.Flush()
		case sent != "" && sent == f.From:
			err = send(f.Patch)
		default:
			err = send(f.Whole)
		}
		sent = f.ID
		return err
	}
	if err := out.write(retryFrame); err != nil {
		return nil
	}
	if err := next(frames); err != nil {
		return nil
	}
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	end := time.NewTimer(lifetime)
	defer end.Stop()
	// ended closes the stream as a whole, so a client can tell it from one
	// cut short.
	ended := func() error {
		if err := extend(); err != nil {
			return nil
		}
		if err := out.end(); err != nil {
			return nil
		}
		_ = rc.Flush()
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.streamsEnd:
			return ended()
		case <-end.C:
			return ended()
		case <-ping.C:
			if err := send(pingFrame); err != nil {
				return nil
			}
		case <-changed:
			// Asking again keeps the project's board refreshing.
			if frames, changed, err = h.stats.Frames(ctx, live.Project); err != nil {
				h.log.Warn("live board", "project", live.Slug, "err", err)
				return ended()
			}
			if err := next(frames); err != nil {
				return nil
			}
		}
	}
}

// streamWriteTimeout bounds one write of a stream.
const streamWriteTimeout = 15 * time.Second
