package handlers

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"time"
)

// nowShow answers GET /now, the clock grab scripts check before they start
// (docs/PROTOCOL.md, "GET /now"). urls-grab matches the raw answer byte for
// byte: these header lines, in this order, and no others. net/http orders
// headers its own way and adds a charset, so the answer is written by hand
// on the hijacked connection.
//
// The head says keep-alive because the scripts' pattern demands it, but
// the connection is closed after the answer: a hijacked connection is no
// longer served by net/http, and wget, like any HTTP/1.1 client, opens a
// new connection when the server closes an idle one.
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
	defer conn.Close()
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
		return &sentError{err}
	}
	closeGently(conn, buf.Reader)
	return nil
}

// nowBody is the Unix time in seconds with three decimals, no newline:
// the scripts read everything after the head's last newline as the time.
func nowBody(t time.Time) string {
	ms := t.UnixMilli()
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}

// closeGently ends the sending side first and reads what the client still
// sends for a moment, as net/http does, so that closing a socket with
// unread bytes does not reset the connection before the client has read
// the answer.
func closeGently(conn net.Conn, r *bufio.Reader) {
	if cw, ok := conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	var discard [512]byte
	for {
		if _, err := r.Read(discard[:]); err != nil {
			return
		}
	}
}
