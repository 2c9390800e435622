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
// unless it already has it. The stream ends when the server shuts down;
// clients reconnect by themselves.
func (h *Handler) boardEvents(w http.ResponseWriter, r *http.Request) error {
	live, err := h.project(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	board, body, changed, err := h.stats.Board(ctx, live.Project)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	// The server's write timeout is for ordinary answers; this one lasts.
	if err := rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // proxies must not hold events back
	w.WriteHeader(http.StatusOK)
	send := func(b *stats.Board, body []byte) error {
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
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.streamsEnd:
			return nil
		case <-ping.C:
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

func eventID(b *stats.Board) string { return strconv.FormatInt(b.At.UnixMilli(), 10) }
