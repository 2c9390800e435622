package handlers

import (
	"fmt"
	"net/http"
	"time"

	"tracker/conns"
)

// nowShow answers GET /now, the clock grab scripts check before they start
// (docs/PROTOCOL.md, "GET /now"). urls-grab matches the raw answer byte for
// byte: these header lines, in this order, and no others. net/http orders
// headers its own way and adds a charset, so the answer is written by hand
// on the hijacked connection.
//
// The head says keep-alive because the scripts' pattern demands it, and
// it is true: the connection is handed back to the server after the answer
// (conns.Readopt), which serves the client's next request on it, pipelined
// or not. Only a client that asked to close it has it closed.
func (h *Handler) nowShow(w http.ResponseWriter, r *http.Request) error {
	now := time.Now()
	body := nowBody(now)
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// HTTP/2 cannot be hijacked; its clients (the scripts' Lua half,
		// over HTTPS) only check for a 200 and the body.
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, err = w.Write([]byte(body))
		}
		return err
	}
	_ = conn.SetWriteDeadline(now.Add(10 * time.Second))
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\n"+
		"Server: openresty\r\n"+
		"Date: %s\r\n"+
		"Content-Type: text/plain\r\n"+
		"Connection: keep-alive\r\n"+
		"Content-Length: %d\r\n"+
		"Cache-Control: no-store\r\n"+
		"\r\n", now.UTC().Format(http.TimeFormat), len(body))
	if r.Method != http.MethodHead {
		buf.WriteString(body)
	}
	if err := buf.Flush(); err != nil {
		conn.Close()
		return &sentError{err}
	}
	_ = conn.SetWriteDeadline(time.Time{}) // the server sets its own for the next request
	if r.Close || !conns.Readopt(conn, conns.Buffered(buf.Reader)) {
		conns.CloseGently(conn, buf.Reader)
	}
	return nil
}

// nowBody is the Unix time in seconds with three decimals, no newline:
// the scripts read everything after the head's last newline as the time.
func nowBody(t time.Time) string {
	ms := t.UnixMilli()
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}
