package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"tracker/stats"
)

// boardEvents answers GET /{project}/events: a Server-Sent Events stream of
// the project's board, one "board" event each time it is read again (every
// second), each a whole board, with its time in milliseconds as the event
// id. A client resuming with Last-Event-ID gets the current board at once
// unless it already has it. The stream ends when the server shuts down or
// its lifetime is over; clients reconnect by themselves. Streams are
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
	board, body, changed, err := h.stats.Board(ctx, live.Project)
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
	w.WriteHeader(http.StatusOK)
	send := func(b *stats.Board, body []byte) error {
		if err := extend(); err != nil {
			return err
		}
		if _, err := w.Write([]byte("id: " + eventID(b) + "\nevent: board\ndata: ")); err != nil {
			return err
		}
		if _, err := w.Write(body); err != nil {
			return err
		}
		if _, err := w.Write([]byte("\n\n")); err != nil {
			return err
		}
		return rc.Flush()
	}
	if _, err := w.Write([]byte("retry: 2000\n\n")); err != nil {
		return nil
	}
	if r.Header.Get("Last-Event-ID") != eventID(board) {
		if err := send(board, body); err != nil {
			return nil // the client went away
		}
	} else if err := rc.Flush(); err != nil {
		return nil
	}
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	end := time.NewTimer(lifetime)
	defer end.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.streamsEnd:
			return nil
		case <-end.C:
			return nil
		case <-ping.C:
			if err := extend(); err != nil {
				return nil
			}
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return nil
			}
			if err := rc.Flush(); err != nil {
				return nil
			}
		case <-changed:
			// Asking again keeps the project's board refreshing.
			if board, body, changed, err = h.stats.Board(ctx, live.Project); err != nil {
				h.log.Warn("live board", "project", live.Slug, "err", err)
				return nil
			}
			if err := send(board, body); err != nil {
				return nil
			}
		}
	}
}

// streamWriteTimeout bounds one write of a stream.
const streamWriteTimeout = 15 * time.Second

func eventID(b *stats.Board) string { return strconv.FormatInt(b.At.UnixMilli(), 10) }
