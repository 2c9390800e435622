package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// logWebsocket answers GET /socket.io/1/websocket/{sid}: the live log
// over a websocket, one packet a text message. The session holds a live
// stream's slot (StreamLimits) while it is open, and ends when the client
// sends nothing, not even a heartbeat, for logHeartbeatTimeout and one
// heartbeat's interval.
func (h *Handler) logWebsocket(w http.ResponseWriter, r *http.Request) error {
	if _, ok := logSIDMade(r.PathValue("sid")); !ok {
		return errorf(http.StatusBadRequest, "invalid-session", "not a session id of GET /socket.io/1/")
	}
	addr := clientIP(r)
	if _, ok := h.streams.take(addr); !ok {
		return &Error{Status: http.StatusServiceUnavailable, Reason: "too-many-streams",
			Msg: "too many live streams open", RetryAfter: 30}
	}
	defer h.streams.give(addr)
	// The server's deadlines are for ordinary answers and stay on the
	// connection once it is taken over: the session's writes get their
	// own, and its reads wait for the client's heartbeats.
	rc := http.NewResponseController(w)
	for _, set := range []func(time.Time) error{rc.SetReadDeadline, rc.SetWriteDeadline} {
		if err := set(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
	}
	// Any origin: the log is public, and pages of other sites read it. A
	// handshake the library cannot take it refuses itself, and its
	// refusal says why too.
	conn, err := websocket.Accept(reasonWriter{w, handshakeRefusal}, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return nil // Accept answered
	}
	defer conn.CloseNow()
	conn.SetReadLimit(logPacketMax)

	s := h.newLogSession(addr)
	defer s.end()
	heard := make(chan struct{}, 1)
	go func() {
		defer s.cancel()
		for {
			_, data, err := conn.Read(s.ctx)
			if err != nil {
				return
			}
			select {
			case heard <- struct{}{}:
			default:
			}
			s.receive(string(data))
		}
	}()
	write := func(packet string) error {
		ctx, cancel := context.WithTimeout(s.ctx, streamWriteTimeout)
		defer cancel()
		return conn.Write(ctx, websocket.MessageText, []byte(packet))
	}
	if write("1::") != nil {
		return nil
	}
	silence := time.NewTimer(logHeartbeatTimeout + logHeartbeatEvery)
	defer silence.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return nil
		case <-silence.C:
			return nil
		case <-heard:
			silence.Reset(logHeartbeatTimeout + logHeartbeatEvery)
		case <-s.wake:
			for _, packet := range s.take() {
				if write(packet) != nil {
					return nil
				}
			}
		}
	}
}

// handshakeRefusal is the reason of the websocket library's refusal of a
// handshake: 426 to a request that asks for no websocket (a browser or a
// script fetching the address), 400 to a key or version it cannot take.
func handshakeRefusal(status int) string {
	switch status {
	case http.StatusUpgradeRequired:
		return "websocket-required"
	case http.StatusBadRequest:
		return "invalid-handshake"
	}
	return statusReason(status)
}
