package handlers

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"tracker/projects"
)

// The live log speaks socket.io's protocol 0.9, as the original tracker's
// broadcaster did, to the leaderboards and tools that read completions
// live (docs/PROTOCOL.md, "Live log socket"): a client shakes hands with
// GET /socket.io/1/, opens a websocket at /socket.io/1/websocket/{sid} or
// polls /socket.io/1/xhr-polling/{sid}, joins the namespace "/{slug}-log"
// and receives an event "log_message" per done request, its one argument
// the message as a JSON string.

const (
	// logHeartbeatTimeout and logCloseTimeout are the handshake's numbers,
	// socket.io 0.9's defaults: a client drops a connection that has not
	// sent a heartbeat for logHeartbeatTimeout, and a polling session
	// whose client has not polled for logCloseTimeout is closed.
	logHeartbeatTimeout = 60 * time.Second
	logCloseTimeout     = 60 * time.Second
	// logHeartbeatEvery is how often the tracker sends a heartbeat.
	logHeartbeatEvery = 25 * time.Second
	// logPollFor is how long a poll waits for something to send.
	logPollFor = 20 * time.Second
	// logQueued bounds the packets waiting for a slow client: past it the
	// oldest are dropped (a log line lost, not the session).
	logQueued = 128
	// logChannels bounds the namespaces one session joins.
	logChannels = 16
	// logPacketMax bounds what a client may send at once: its packets are
	// heartbeats and namespace connects.
	logPacketMax = 16 << 10
)

// logTransports are the transports the handshake offers.
const logTransports = "websocket,xhr-polling"

// logHandshake answers GET /socket.io/1/: "sid:heartbeat:close:transports".
// It keeps nothing: the transports take their slot when they open.
func (h *Handler) logHandshake(w http.ResponseWriter, r *http.Request) error {
	body := newLogSID(time.Now()) + ":" + strconv.Itoa(int(logHeartbeatTimeout/time.Second)) + ":" +
		strconv.Itoa(int(logCloseTimeout/time.Second)) + ":" + logTransports
	logCORS(w, r)
	w.Header().Set("Cache-Control", "no-store")
	// socket.io's client shakes hands through a script tag where it cannot
	// use XHR: ?jsonp=N answers io.j[N]("...").
	if n, ok := r.URL.Query()["jsonp"]; ok {
		if n[0] == "" || len(n[0]) > 9 || strings.Trim(n[0], "0123456789") != "" {
			return errorf(http.StatusBadRequest, "invalid-jsonp", "jsonp is a number")
		}
		w.Header().Set("Content-Type", "application/javascript; charset=utf-8")
		quoted, _ := json.Marshal(body)
		_, err := w.Write([]byte("io.j[" + n[0] + "](" + string(quoted) + ");"))
		return err
	}
	return writeText(w, http.StatusOK, body)
}

// logCORS lets any page read the answer, cookies and all, as socket.io's
// server did: its client sends XHRs with credentials, which a wildcard
// does not admit. The log is public and its routes read no cookie.
func logCORS(w http.ResponseWriter, r *http.Request) {
	w.Header().Add("Vary", "Origin")
	if origin := r.Header.Get("Origin"); origin != "" {
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Access-Control-Allow-Credentials", "true")
	}
}

// newLogSID makes a session id: 16 random letters and digits, then the
// time it was made in base 36. The time lets a poll tell a session this
// process forgot (its client must shake hands again) from one it has not
// seen yet.
func newLogSID(now time.Time) string {
	const letters = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	var b [16]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b[:]) + strconv.FormatInt(now.Unix(), 36)
}

var logSIDRE = regexp.MustCompile(`^[0-9A-Za-z]{16}[0-9a-z]{1,12}$`)

// logSIDMade is when a session id was made, and whether it is one.
func logSIDMade(sid string) (time.Time, bool) {
	if !logSIDRE.MatchString(sid) {
		return time.Time{}, false
	}
	s, err := strconv.ParseInt(sid[16:], 36, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(s, 0), true
}

// logSession is a client of the live log over either transport: the
// namespaces it joined and the packets waiting to be sent to it.
type logSession struct {
	h    *Handler
	addr netip.Addr
	// ctx ends with the session: its subscriptions and heartbeats stop.
	ctx    context.Context
	cancel context.CancelFunc

	mu  sync.Mutex
	out []string
	// subs are the namespaces joined, each with what ends its
	// subscription.
	subs map[string]context.CancelFunc
	// wake holds a token while out has packets.
	wake chan struct{}
	wg   sync.WaitGroup
}

func (h *Handler) newLogSession(addr netip.Addr) *logSession {
	ctx, cancel := context.WithCancel(context.Background())
	s := &logSession{h: h, addr: addr, ctx: ctx, cancel: cancel, subs: map[string]context.CancelFunc{}, wake: make(chan struct{}, 1)}
	s.wg.Go(func() {
		beat := time.NewTicker(logHeartbeatEvery)
		defer beat.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-h.streamsEnd:
				cancel()
				return
			case <-beat.C:
				s.push("2::")
			}
		}
	})
	return s
}

// end stops the session and waits for its goroutines.
func (s *logSession) end() {
	s.cancel()
	s.wg.Wait()
}

// push queues a packet for the client.
func (s *logSession) push(packet string) {
	s.mu.Lock()
	if len(s.out) >= logQueued {
		s.out = s.out[1:]
	}
	s.out = append(s.out, packet)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns the packets waiting and forgets them.
func (s *logSession) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.out
	s.out = nil
	return out
}

// logPacketRE is socket.io 0.9's packet: type, id (with + when the sender
// wants an ack), endpoint, data.
var logPacketRE = regexp.MustCompile(`^([^:]+):([0-9]+)?(\+)?:([^:]+)?:?(.*)?$`)

// receive handles what the client sent: a payload of packets.
func (s *logSession) receive(payload string) {
	for _, packet := range decodeLogPayload(payload) {
		m := logPacketRE.FindStringSubmatch(strings.Trim(packet, "\r\n\t "))
		if m == nil {
			continue
		}
		endpoint := m[4]
		switch m[1] {
		case "0": // disconnect, from the session or one namespace
			if endpoint == "" {
				s.cancel()
				return
			}
			s.mu.Lock()
			if leave := s.subs[endpoint]; leave != nil {
				leave()
				delete(s.subs, endpoint)
			}
			s.mu.Unlock()
		case "1": // connect to a namespace
			if endpoint != "" {
				s.join(endpoint)
			}
		}
		// Heartbeats say the client is there, which the transport notes;
		// the client's messages and events are not for the tracker.
	}
}

// join connects the session to a project's log, "/{slug}-log", and starts
// telling it the project's completions. A project that is not public, or
// none, is answered with an error packet and joined to nothing.
func (s *logSession) join(endpoint string) {
	slug, ok := strings.CutSuffix(strings.TrimPrefix(endpoint, "/"), "-log")
	if !ok || !strings.HasPrefix(endpoint, "/") || projects.ValidSlug(slug) != nil {
		s.push("7::" + endpoint + ":unknown-project")
		return
	}
	p, err := s.public(slug)
	switch {
	case errors.Is(err, projects.ErrNotFound), errors.Is(err, errNotPublic):
		s.push("7::" + endpoint + ":unknown-project")
		return
	case err != nil:
		s.h.log.Warn("live log: joining a project", "project", slug, "err", err)
		s.push("7::" + endpoint + ":unavailable")
		return
	}
	s.mu.Lock()
	_, joined := s.subs[endpoint]
	full := len(s.subs) >= logChannels
	var ctx context.Context
	if !joined && !full {
		var leave context.CancelFunc
		ctx, leave = context.WithCancel(s.ctx)
		s.subs[endpoint] = leave
	}
	s.mu.Unlock()
	switch {
	case joined:
		s.push("1::" + endpoint)
		return
	case full:
		s.push("7::" + endpoint + ":too-many-channels")
		return
	}
	// The log is read before the namespace is acknowledged: a client told
	// it joined is told every done from then on.
	_, last, changed, err := s.h.logs.Follow(ctx, p, -1)
	if err != nil {
		s.h.log.Warn("live log: joining a project", "project", slug, "err", err)
		s.mu.Lock()
		s.subs[endpoint]()
		delete(s.subs, endpoint)
		s.mu.Unlock()
		s.push("7::" + endpoint + ":unavailable")
		return
	}
	s.push("1::" + endpoint)
	s.wg.Go(func() { s.follow(ctx, endpoint, p, last, changed) })
}

// errNotPublic is a project whose log is not served: a hidden one.
var errNotPublic = errors.New("the project is not public")

// public is the project of slug as it is now, if its log is served.
func (s *logSession) public(slug string) (projects.Project, error) {
	live, err := s.h.live.Get(s.ctx, slug)
	if err != nil {
		return projects.Project{}, err
	}
	if live.Project.Config.Hidden {
		return projects.Project{}, errNotPublic
	}
	return live.Project, nil
}

// follow sends the project's messages to the client from now until ctx
// ends (the session ends, or the client leaves the namespace) or the
// project stops being public (then the namespace is disconnected).
func (s *logSession) follow(ctx context.Context, endpoint string, p projects.Project, after int64, changed <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		now, err := s.public(p.Slug)
		switch {
		case errors.Is(err, projects.ErrNotFound), errors.Is(err, errNotPublic):
			// The project was hidden or deleted: the namespace ends.
			s.mu.Lock()
			ours := ctx.Err() == nil
			if ours {
				s.subs[endpoint]()
				delete(s.subs, endpoint)
			}
			s.mu.Unlock()
			if ours {
				s.push("0::" + endpoint)
			}
			return
		case err == nil:
			p = now
		case ctx.Err() == nil:
			s.h.log.Warn("live log: reading the project", "project", p.Slug, "err", err)
		}
		var msgs [][]byte
		var last int64
		msgs, last, changed, err = s.h.logs.Follow(ctx, p, after)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.h.log.Warn("live log: reading", "project", p.Slug, "err", err)
			wait := time.NewTimer(time.Second)
			select {
			case <-ctx.Done():
				wait.Stop()
				return
			case <-wait.C:
			}
			changed = readAgain
			continue
		}
		for _, m := range msgs {
			s.push(logEvent(endpoint, m))
		}
		after = last
	}
}

// readAgain is a channel that is always ready: the next turn of a loop
// waiting on it reads at once.
var readAgain = func() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// logEvent is the event packet of a message: its one argument is the
// message's JSON as a string, as the original broadcaster sent it.
func logEvent(endpoint string, msg []byte) string {
	arg, _ := json.Marshal(string(msg))
	return "5::" + endpoint + `:{"name":"log_message","args":[` + string(arg) + "]}"
}

// logFrame is socket.io 0.9's frame around each packet of a payload of
// several: U+FFFD, the packet's length in UTF-16 code units (JavaScript's
// string length), U+FFFD.
const logFrame = "\ufffd"

// encodeLogPayload joins packets into one payload.
func encodeLogPayload(packets []string) string {
	if len(packets) == 1 {
		return packets[0]
	}
	var b strings.Builder
	for _, p := range packets {
		b.WriteString(logFrame)
		b.WriteString(strconv.Itoa(utf16Len(p)))
		b.WriteString(logFrame)
		b.WriteString(p)
	}
	return b.String()
}

// decodeLogPayload splits a payload into its packets; a payload that is
// not framed is one packet, and a frame that does not add up ends it.
func decodeLogPayload(payload string) []string {
	if !strings.HasPrefix(payload, logFrame) {
		return []string{payload}
	}
	var out []string
	for rest := payload; strings.HasPrefix(rest, logFrame); {
		size, body, ok := strings.Cut(rest[len(logFrame):], logFrame)
		n, err := strconv.Atoi(size)
		if !ok || err != nil || n < 0 {
			break
		}
		// n UTF-16 code units of body.
		i := 0
		for units := 0; units < n && i < len(body); {
			r, w := utf8.DecodeRuneInString(body[i:])
			units += utf16.RuneLen(r)
			i += w
		}
		out = append(out, body[:i])
		rest = body[i:]
	}
	return out
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
