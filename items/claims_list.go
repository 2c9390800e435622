package items

import (
	"context"
	"time"

	"tracker/db"
	"tracker/projects"
)

// ClaimFilter picks claims for the admin panel's list; each field applies
// when set. After continues a page: the list goes on past the claim
// (AfterAt, AfterID).
type ClaimFilter struct {
	Downloader string
	Prefix     string
	OlderThan  time.Duration
	AfterAt    time.Time
	AfterID    int64
	Max        int
}

// Claim is an item out with a downloader.
type Claim struct {
	ID                      int64
	Name, Downloader, Queue string
	ClaimedAt               time.Time
	// ClaimCount is how many times the item was handed out.
	ClaimCount int32
}

// Claims lists a project's claims, oldest first, a page at a time: a page
// costs the same with five million claims as with five.
func (e *Engine) Claims(ctx context.Context, p projects.Project, f ClaimFilter) ([]Claim, error) {
	after := f.AfterAt
	if after.IsZero() {
		after = time.Unix(0, 0)
	}
	rows, err := e.q.ClaimsList(ctx, db.ClaimsListParams{
		ProjectID: p.ID, Downloader: f.Downloader, Prefix: f.Prefix, AfterAt: after, AfterID: f.AfterID,
		Max:       int32(f.Max),
		OlderThan: max(f.OlderThan, 0),
	})
	if err != nil {
		return nil, err
	}
	out := make([]Claim, len(rows))
	for i, c := range rows {
		out[i] = Claim{ID: c.ID, Name: c.Name, Downloader: c.Downloader, Queue: c.Queue, ClaimedAt: c.ClaimedAt, ClaimCount: c.ClaimCount}
	}
	return out, nil
}

// DownloaderClaims are the claims one downloader holds.
type DownloaderClaims struct {
	Downloader string
	Claims     int64
	Oldest     time.Time
}

// ClaimsPerDownloader counts the claims of the n downloaders holding the
// most. It reads every claim of the project (seconds with millions).
func (e *Engine) ClaimsPerDownloader(ctx context.Context, p projects.Project, n int) ([]DownloaderClaims, error) {
	rows, err := e.q.ClaimsPerDownloader(ctx, db.ClaimsPerDownloaderParams{ProjectID: p.ID, Max: int32(n)})
	if err != nil {
		return nil, err
	}
	out := make([]DownloaderClaims, len(rows))
	for i, c := range rows {
		out[i] = DownloaderClaims{Downloader: c.Downloader, Claims: c.Claims, Oldest: c.Oldest}
	}
	return out, nil
}

// AgeBucket counts the claims younger than Under and no younger than the
// bucket before; the last bucket has Under 0: everything older.
type AgeBucket struct {
	Under  time.Duration
	Claims int64
}

// ClaimAges counts a project's claims by age. Like ClaimsPerDownloader it
// reads every claim.
func (e *Engine) ClaimAges(ctx context.Context, p projects.Project) ([]AgeBucket, error) {
	r, err := e.q.ClaimsByAge(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	return []AgeBucket{
		{time.Minute, r.Under1m}, {10 * time.Minute, r.Under10m}, {time.Hour, r.Under1h},
		{6 * time.Hour, r.Under6h}, {24 * time.Hour, r.Under1d}, {0, r.Older},
	}, nil
}

// ClaimsOf is how many claims each of the downloaders holds (none for
// those holding none).
func (e *Engine) ClaimsOf(ctx context.Context, p projects.Project, downloaders []string) (map[string]int64, error) {
	rows, err := e.q.ClaimsOfDownloaders(ctx, db.ClaimsOfDownloadersParams{ProjectID: p.ID, Downloaders: downloaders})
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Downloader] = r.Claims
	}
	return out, nil
}

// LastExpired names, for each of downloaders, the item whose claim ran out
// last since since, so its timeline can be shown: found back in one of
// queues or done, and, with inClaims (which reads every claim), out again.
// A downloader left out has none of those.
func (e *Engine) LastExpired(ctx context.Context, p projects.Project, downloaders, queues []string, since time.Time, inClaims bool) (map[string]string, error) {
	rows, err := e.q.ClaimExpiriesLastItems(ctx, db.ClaimExpiriesLastItemsParams{ProjectID: p.ID, Queues: queues,
		InClaims: inClaims, Downloaders: downloaders, Since: since})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		if r.Name != "" {
			out[r.Downloader] = r.Name
		}
	}
	return out, nil
}
