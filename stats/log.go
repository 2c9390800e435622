package stats

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
	"tracker/loops"
	"tracker/projects"
)

// LogMessage is one done request as the live log tells it: the fields of
// the original tracker's log messages, which the leaderboards and log
// readers of ArchiveTeam's tools read.
type LogMessage struct {
	Project    string `json:"project"`
	Downloader string `json:"downloader"`
	UserAgent  string `json:"user_agent"`
	// Item is the first of the done's items by name; Items are its first
	// items.LogNames by name, as many as fit in logNamesBytes.
	Item  string   `json:"item"`
	Items []string `json:"items"`
	// Megabytes are the done's bytes in MiB; Bytes and DomainBytes what it
	// reported, as counted (0 and {} when they stay out of the stats).
	Megabytes   float64          `json:"megabytes"`
	Bytes       int64            `json:"bytes"`
	DomainBytes map[string]int64 `json:"domain_bytes"`
	Version     string           `json:"version"`
	LogChannel  string           `json:"log_channel"`
	// IsDuplicate is always false: a repeated done completes nothing and
	// is not told. Valid is always true.
	IsDuplicate bool `json:"is_duplicate"`
	Valid       bool `json:"valid"`
	// TS is when the done was recorded, in Unix seconds with milliseconds.
	TS     float64   `json:"ts"`
	Counts LogCounts `json:"counts"`
}

// LogCounts are the project's items when the message was read.
type LogCounts struct {
	Todo int64 `json:"todo"`
	Out  int64 `json:"out"`
	Done int64 `json:"done"`
}

// LogChannel is the name of a project's live log: the socket.io namespace
// "/{slug}-log" and GET /recent/{slug}-log.
func LogChannel(slug string) string { return slug + "-log" }

const (
	// LogRecent is how many messages Recent returns, as the original
	// broadcaster kept.
	LogRecent = 20
	// logKept is how many messages a project's log keeps for the readers
	// that fell behind: two reads' worth at the most a read takes.
	logKept = 4 * FeedKept
	// logNamesBytes bounds the names a message lists (items.LogNames of
	// them at most), so that the messages kept, and those waiting for a
	// slow reader, stay small whatever the names.
	logNamesBytes = 16 << 10
	// logWindow is how far back each read looks for done requests not told
	// yet: a done is stamped when its transaction began, and may commit a
	// while later.
	logWindow = 30 * time.Second
)

// LogHub tells each followed project's completions, once a second, to
// every reader this process serves. It reads what the done statements
// append for the leaderboards already (the tallies not folded yet, and the
// feed the rollup keeps of those it folded): a done costs no more for being
// told, and every process tells the completions of all of them. A read
// takes the newest FeedKept done requests of each, so of a project
// completing more than that between two reads (or between two folds) the
// newest are told. A project nobody has asked about for idleAfter is
// dropped until someone asks again.
type LogHub struct {
	pool  *pgxpool.Pool
	q     *db.Queries
	log   *slog.Logger
	every time.Duration
	now   func() time.Time

	// loops are the logs' read loops, one a followed project.
	loops *loops.Group

	// mu guards tails; a tail's own mu is taken after it, never before.
	mu    sync.Mutex
	tails map[int32]*tail
}

// tail is one project's log.
type tail struct {
	project projects.Project

	mu    sync.Mutex
	read  bool       // the first read is done
	msgs  []logEntry // the newest logKept, oldest first
	seq   int64      // of the newest message
	since time.Time  // the next read looks back to here
	seen  map[logKey]time.Time
	// changed is closed and replaced after each read.
	changed chan struct{}
	wanted  time.Time
}

type logEntry struct {
	seq  int64
	json []byte
}

// logKey names a done request: its batch's time, who sent it, its first
// item. Two requests of one batch by one downloader name other items.
type logKey struct {
	at         time.Time
	downloader string
	item       string
}

func NewLogHub(pool *pgxpool.Pool, log *slog.Logger) *LogHub {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &LogHub{pool: pool, q: db.Of(pool), log: log, every: time.Second, now: time.Now,
		loops: loops.NewGroup(context.Background()), tails: map[int32]*tail{}}
}

// Close stops every read loop. A log asked for afterwards is read once,
// and never again.
func (h *LogHub) Close() { h.loops.Stop() }

// Follow returns the project's messages after seq after (none when after
// is negative: a new reader starts with what comes next), the seq of the
// newest, and a channel closed when the log was read again. The first call
// for a project reads it at once.
func (h *LogHub) Follow(ctx context.Context, p projects.Project, after int64) ([][]byte, int64, <-chan struct{}, error) {
	t, err := h.ready(ctx, p)
	if err != nil {
		return nil, 0, nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if after < 0 {
		return nil, t.seq, t.changed, nil
	}
	var out [][]byte
	for _, e := range t.msgs {
		if e.seq > after {
			out = append(out, e.json)
		}
	}
	return out, t.seq, t.changed, nil
}

// Recent returns the project's newest LogRecent messages, oldest first.
func (h *LogHub) Recent(ctx context.Context, p projects.Project) ([][]byte, error) {
	t, err := h.ready(ctx, p)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	msgs := t.msgs[max(0, len(t.msgs)-LogRecent):]
	out := make([][]byte, len(msgs))
	for i, e := range msgs {
		out[i] = e.json
	}
	return out, nil
}

// ready returns the project's tail, marked wanted and read at least once.
func (h *LogHub) ready(ctx context.Context, p projects.Project) (*tail, error) {
	t := h.tailOf(p)
	t.mu.Lock()
	read := t.read
	t.mu.Unlock()
	if !read {
		if err := h.refresh(ctx, t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// tailOf returns the project's tail, starting its read loop if needed, and
// marks it wanted.
func (h *LogHub) tailOf(p projects.Project) *tail {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.tails[p.ID]
	if t == nil {
		t = &tail{project: p, changed: make(chan struct{}), seen: map[logKey]time.Time{}}
		// Kept only with its loop: once closed, every follow reads once.
		if h.loops.Go(func(ctx context.Context) { h.loop(ctx, t) }) {
			h.tails[p.ID] = t
		}
	}
	t.mu.Lock()
	t.wanted = h.now()
	t.mu.Unlock()
	return t
}

func (h *LogHub) loop(ctx context.Context, t *tail) {
	first := true
	loops.Every(ctx, h.every, func(ctx context.Context) bool {
		if first { // the first follower reads the log itself (ready)
			first = false
			return true
		}
		if h.dropIfIdle(t) {
			return false
		}
		if err := h.refresh(ctx, t); err != nil && ctx.Err() == nil {
			h.log.Warn("reading a live log", "project", t.project.Slug, "err", err)
		}
		return true
	})
}

// dropIfIdle forgets the tail when nobody has asked for it for idleAfter
// (as Hub.dropIfIdle does), waking its last readers: they ask again and
// find a new one.
func (h *LogHub) dropIfIdle(t *tail) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if h.now().Sub(t.wanted) <= idleAfter {
		return false
	}
	if h.tails[t.project.ID] == t {
		delete(h.tails, t.project.ID)
	}
	close(t.changed)
	t.changed = make(chan struct{})
	return true
}

// logRow is a done request as the tallies and the feed keep it.
type logRow struct {
	at                 time.Time
	downloader, item   string
	items, bytes       int64
	version, userAgent string
	domains            []byte
	names              []string
}

func (r logRow) key() logKey { return logKey{r.at, r.downloader, r.item} }

// refresh reads the done requests since the last read and adds those not
// told yet, oldest first, then wakes the readers.
func (h *LogHub) refresh(ctx context.Context, t *tail) error {
	t.mu.Lock()
	p, since, seen := t.project, t.since, t.seen
	t.mu.Unlock()

	var rows []logRow
	var counts LogCounts
	var at time.Time
	err := pgx.BeginTxFunc(ctx, h.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q := db.Of(tx)
		var err error
		if at, err = q.TransactionNow(ctx); err != nil {
			return err
		}
		pending, err := q.DoneTalliesLog(ctx, db.DoneTalliesLogParams{ProjectID: p.ID, Since: since, Max: FeedKept})
		if err != nil {
			return err
		}
		for _, r := range pending {
			rows = append(rows, logRow{r.At, r.Downloader, r.Item, r.Items, r.Bytes, r.Version, r.UserAgent, r.Domains, r.Names})
		}
		folded, err := q.FeedLog(ctx, db.FeedLogParams{ProjectID: p.ID, Since: since, Max: FeedKept})
		if err != nil {
			return err
		}
		for _, r := range folded {
			rows = append(rows, logRow{r.At, r.Downloader, r.Item, r.Items, r.Bytes, r.Version, r.UserAgent, r.Domains, r.Names})
		}
		// The counts only when there is something to tell: a quiet
		// project's read is two probes of an index.
		t.mu.Lock()
		fresh := slices.ContainsFunc(rows, func(r logRow) bool { _, ok := seen[r.key()]; return !ok })
		t.mu.Unlock()
		if !fresh {
			return nil
		}
		sum, err := projects.SummaryOf(ctx, q, p)
		counts = LogCounts{Todo: sum.Queued(), Out: sum.Claims, Done: sum.Done}
		return err
	})
	if err != nil {
		return err
	}
	slices.SortFunc(rows, func(a, b logRow) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.downloader, b.downloader), cmp.Compare(a.item, b.item))
	})

	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range rows {
		k := r.key()
		if _, ok := t.seen[k]; ok {
			continue
		}
		t.seen[k] = r.at
		body, err := json.Marshal(logMessage(p, r, counts))
		if err != nil {
			return err
		}
		t.seq++
		t.msgs = append(t.msgs, logEntry{seq: t.seq, json: body})
	}
	if len(t.msgs) > logKept {
		t.msgs = slices.Delete(t.msgs, 0, len(t.msgs)-logKept)
	}
	// The next read looks back logWindow from this one: what it cannot
	// return any more need not be remembered.
	if next := at.Add(-logWindow); next.After(t.since) {
		t.since = next
	}
	forgetBefore(t.seen, t.since)
	t.read = true
	close(t.changed)
	t.changed = make(chan struct{})
	return nil
}

// forgetBefore forgets the done requests stamped at or before since.
func forgetBefore(seen map[logKey]time.Time, since time.Time) {
	for k, at := range seen {
		if !at.After(since) {
			delete(seen, k)
		}
	}
}

func logMessage(p projects.Project, r logRow, counts LogCounts) LogMessage {
	m := LogMessage{Project: p.Slug, Downloader: r.downloader, UserAgent: r.userAgent, Item: r.item, Items: r.names,
		Megabytes: float64(r.bytes) / (1 << 20), Bytes: r.bytes, DomainBytes: map[string]int64{}, Version: r.version,
		LogChannel: LogChannel(p.Slug), Valid: true, TS: float64(r.at.UnixMilli()) / 1000, Counts: counts}
	if len(m.Items) == 0 {
		// Recorded before the names were kept.
		m.Items = []string{r.item}
	}
	size := 0
	for i, name := range m.Items {
		if size += len(name); size > logNamesBytes && i > 0 {
			m.Items = m.Items[:i]
			break
		}
	}
	if len(r.domains) > 0 {
		_ = json.Unmarshal(r.domains, &m.DomainBytes)
	}
	return m
}
