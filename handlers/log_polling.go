package handlers

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// logPolls are the live log's xhr-polling sessions this process serves. A
// session lives in the process its client polls: behind a load balancer a
// polling client's requests must reach one process (websocket clients need
// nothing of the kind).
type logPolls struct {
	mu       sync.Mutex
	sessions map[string]*logPoll
}

// logPoll is a polling session.
type logPoll struct {
	*logSession
	sid string
	// polling is true while a poll waits; expire ends the session
	// logCloseTimeout after the last poll. Both under logPolls.mu.
	polling bool
	expire  *time.Timer
}

// logNotHandshaken is socket.io 0.9's error "client not handshaken" with
// the advice "reconnect": the client shakes hands again and rejoins its
// namespaces.
const logNotHandshaken = "7:::1+0"

// logPollGet answers GET /socket.io/1/xhr-polling/{sid}: the packets
// waiting for the client, or those that come within logPollFor, or a noop.
// The first poll of a session opens it (and takes a live stream's slot),
// answered by the connect packet; a session nobody polls for
// logCloseTimeout ends.
func (h *Handler) logPollGet(w http.ResponseWriter, r *http.Request) error {
	sid := r.PathValue("sid")
	made, ok := logSIDMade(sid)
	if !ok {
		return errorf(http.StatusBadRequest, "invalid-session", "not a session id of GET /socket.io/1/")
	}
	logCORS(w, r)
	h.polls.mu.Lock()
	p := h.polls.sessions[sid]
	fresh := false
	switch {
	case p == nil && time.Since(made) > logCloseTimeout:
		// A session this process ended, or never had: shake hands again.
		h.polls.mu.Unlock()
		return writeLogPoll(w, logNotHandshaken)
	case p == nil:
		addr := clientIP(r)
		if _, ok := h.streams.take(addr); !ok {
			h.polls.mu.Unlock()
			return &Error{Status: http.StatusServiceUnavailable, Reason: "too-many-streams",
				Msg: "too many live streams open", RetryAfter: 30}
		}
		p = &logPoll{logSession: h.newLogSession(addr), sid: sid}
		h.polls.sessions[sid] = p
		fresh = true
		go h.polls.closeWhenDone(h, p)
	case p.polling:
		// One poll at a time: the second is told nothing.
		h.polls.mu.Unlock()
		return writeLogPoll(w, "8::")
	}
	p.polling = true
	if p.expire != nil {
		p.expire.Stop()
	}
	h.polls.mu.Unlock()
	defer func() {
		h.polls.mu.Lock()
		p.polling = false
		p.expire = time.AfterFunc(logCloseTimeout, p.cancel)
		h.polls.mu.Unlock()
	}()
	if fresh {
		return writeLogPoll(w, "1::")
	}
	wait := time.NewTimer(logPollFor)
	defer wait.Stop()
	select {
	case <-p.wake:
	case <-wait.C:
	case <-p.ctx.Done():
	case <-r.Context().Done():
		return r.Context().Err()
	}
	packets := p.take()
	switch {
	case len(packets) > 0:
		return writeLogPoll(w, encodeLogPayload(packets))
	case p.ctx.Err() != nil:
		return writeLogPoll(w, logNotHandshaken)
	}
	return writeLogPoll(w, "8::")
}

// closeWhenDone forgets a polling session once it ends and gives its slot
// back.
func (ps *logPolls) closeWhenDone(h *Handler, p *logPoll) {
	<-p.ctx.Done()
	ps.mu.Lock()
	if ps.sessions[p.sid] == p {
		delete(ps.sessions, p.sid)
	}
	ps.mu.Unlock()
	p.end()
	h.streams.give(p.addr)
}

// logPollPost answers POST /socket.io/1/xhr-polling/{sid}: the client's
// packets, answered "1".
func (h *Handler) logPollPost(w http.ResponseWriter, r *http.Request) error {
	sid := r.PathValue("sid")
	if _, ok := logSIDMade(sid); !ok {
		return errorf(http.StatusBadRequest, "invalid-session", "not a session id of GET /socket.io/1/")
	}
	logCORS(w, r)
	h.polls.mu.Lock()
	p := h.polls.sessions[sid]
	h.polls.mu.Unlock()
	if p == nil || p.ctx.Err() != nil {
		return writeLogPoll(w, logNotHandshaken)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, logPacketMax))
	if err != nil {
		if e := bodyRefusal(err); e != nil {
			return e
		}
		return err
	}
	p.receive(string(body))
	return writeLogPoll(w, "1")
}

func writeLogPoll(w http.ResponseWriter, body string) error {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	_, err := io.WriteString(w, body)
	return err
}
