// Package volunteers counts unique volunteers, as the torrent scorer the
// tracker grew from did: an address counts at most once in 30 days, per
// project and tracker-wide, and no address is stored. An address is kept
// only as its mark, a keyed hash under a secret of the tracker's that is
// replaced every 30 days, and the mark expires 30 days after it was made.
package volunteers

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"net/netip"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
)

// Window is how long an address counts once: its mark lives that long, and
// a secret is replaced after that long.
const Window = 30 * 24 * time.Hour

// Tracker is the project id of the tracker-wide counts.
const Tracker = 0

// recentCap bounds the marks a process remembers having made.
const recentCap = 100_000

// Counter marks the addresses that ask for work and counts them.
type Counter struct {
	q   *db.Queries
	now func() time.Time

	mu      sync.Mutex
	secrets [][]byte  // the current secret first, then the one before
	read    time.Time // when secrets were read
	// recent are the (project, mark) pairs this process marked, until
	// their mark expires: a warrior asks every few seconds, and only its
	// first request in 30 days goes to the database.
	recent map[recentKey]time.Time
}

type recentKey struct {
	project int32
	mark    [16]byte
}

// Option changes a Counter.
type Option func(*Counter)

// WithClock makes the counter read the time from now.
func WithClock(now func() time.Time) Option { return func(c *Counter) { c.now = now } }

func New(pool *pgxpool.Pool, opts ...Option) *Counter {
	c := &Counter{q: db.Of(pool), now: time.Now, recent: map[recentKey]time.Time{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Mark counts addr as a volunteer of the project and of the tracker, unless
// it counted in the last 30 days.
func (c *Counter) Mark(ctx context.Context, projectID int32, addr netip.Addr) error {
	if !addr.IsValid() {
		return nil
	}
	now := c.now()
	secrets, err := c.currentSecrets(ctx, now)
	if err != nil {
		return err
	}
	marks := make([][]byte, len(secrets))
	for i, s := range secrets {
		marks[i] = mark(s, addr)
	}
	var key [16]byte
	copy(key[:], marks[0])
	var wanted []int32
	c.mu.Lock()
	for _, p := range []int32{projectID, Tracker} {
		if until, ok := c.recent[recentKey{p, key}]; !ok || !now.Before(until) {
			wanted = append(wanted, p)
		}
	}
	c.mu.Unlock()
	if len(wanted) == 0 {
		return nil
	}
	day := now.UTC().Truncate(24 * time.Hour)
	if _, err := c.q.VolunteerMark(ctx, db.VolunteerMarkParams{ProjectIds: wanted, Marks: marks, Now: now,
		ExpiresAt: now.Add(Window), Day: day}); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.recent) >= recentCap {
		clear(c.recent)
	}
	// Marked now, or found marked by another process: either way the
	// address needs no statement here for a while. An hour, not the mark's
	// whole life: the other process's mark may be older.
	for _, p := range wanted {
		c.recent[recentKey{p, key}] = now.Add(time.Hour)
	}
	return nil
}

// mark is the keyed hash of an address: 16 bytes of its HMAC-SHA-256.
func mark(secret []byte, addr netip.Addr) []byte {
	h := hmac.New(sha256.New, secret)
	b := addr.Unmap().As16()
	h.Write(b[:])
	return h.Sum(nil)[:16]
}

// currentSecrets are the secrets in use, the current first, read at most
// once a minute; the first use makes one.
func (c *Counter) currentSecrets(ctx context.Context, now time.Time) ([][]byte, error) {
	c.mu.Lock()
	if len(c.secrets) > 0 && now.Sub(c.read) < time.Minute {
		s := c.secrets
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()
	rows, err := c.q.VolunteerSecrets(ctx)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		if err := c.Rotate(ctx); err != nil {
			return nil, err
		}
		if rows, err = c.q.VolunteerSecrets(ctx); err != nil {
			return nil, err
		}
	}
	secrets := make([][]byte, len(rows))
	for i, r := range rows {
		secrets[i] = r.Secret
	}
	c.mu.Lock()
	c.secrets, c.read = secrets, now
	c.mu.Unlock()
	return secrets, nil
}

// Rotate makes a new secret when the current one is Window old (or there
// is none), forgets the secrets no live mark was made with, and the marks
// and days past use. The housekeeping job runs it.
func (c *Counter) Rotate(ctx context.Context) error {
	now := c.now()
	secret := make([]byte, 32)
	rand.Read(secret)
	if err := c.q.VolunteerSecretAdd(ctx, db.VolunteerSecretAddParams{CreatedAt: now, Secret: secret, Since: now.Add(-Window)}); err != nil {
		return err
	}
	if _, err := c.q.VolunteerSecretsPrune(ctx); err != nil {
		return err
	}
	for {
		n, err := c.q.VolunteerMarksPrune(ctx, db.VolunteerMarksPruneParams{Now: now, Max: 10_000})
		if err != nil {
			return err
		}
		if n < 10_000 {
			break
		}
	}
	_, err := c.q.VolunteerDaysPrune(ctx, now.Add(-2*Window))
	c.mu.Lock()
	c.read = time.Time{} // read the secrets again
	c.mu.Unlock()
	return err
}

// Counts are a project's unique volunteers: those whose address first
// asked for work (in 30 days) this calendar month, and in the last 30
// days.
type Counts struct {
	Month  int64 `json:"month"`
	Last30 int64 `json:"last_30d"`
}

// Counts reads a project's counts (Tracker: the tracker's).
func (c *Counter) Counts(ctx context.Context, projectID int32) (Counts, error) {
	return CountsOf(ctx, c.q, projectID, c.now())
}

// CountsOf is Counts read through q (in a transaction of the caller's) as
// of now.
func CountsOf(ctx context.Context, q *db.Queries, projectID int32, now time.Time) (Counts, error) {
	now = now.UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	day := now.Truncate(24 * time.Hour)
	r, err := q.VolunteerCounts(ctx, db.VolunteerCountsParams{ProjectID: projectID, MonthStart: month,
		WindowStart: day.Add(-Window + 24*time.Hour)})
	return Counts{Month: r.Month, Last30: r.Last30d}, err
}
