package items

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"tracker/db"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
)

// The lists of the admin panel's queue browser besides the queues: the
// claims, a recurring project's items waiting for their next visit, and
// the completed items.
const (
	BrowseClaims    = "claims"
	BrowseScheduled = "scheduled"
	BrowseDone      = "done"
)

// BrowseScan bounds the entries a page of a filtered list reads: a search
// that matches nothing in them ends its page there, with a link that
// searches on. Names are in no index, so a search reads the list; this way
// a page costs the same however long the list, and an admin pages through
// a rare match instead of the database reading ten million rows at once.
const BrowseScan = 10_000

// MaxBrowsePage bounds a page of the browser.
const MaxBrowsePage = 500

// BrowseFilter picks entries by name, each field when set: a prefix, a
// substring and a PostgreSQL regular expression.
type BrowseFilter struct {
	Prefix, Contains, Pattern string
}

func (f BrowseFilter) set() bool { return f.Prefix != "" || f.Contains != "" || f.Pattern != "" }

// BrowseKey is a place in a list: the item's id, and for the claims and
// the schedule the time they are ordered by first.
type BrowseKey struct {
	At time.Time
	ID int64
}

// BrowseQuery asks for a page of a list: Source is a queue or one of the
// Browse lists; a page starts after After or ends before Before (at most
// one; neither: the list's start).
type BrowseQuery struct {
	Source string
	// Downloader picks one downloader's claims.
	Downloader string
	Filter     BrowseFilter
	After      *BrowseKey
	Before     *BrowseKey
	Max        int

	// scan overrides BrowseScan (the item finder shares one budget
	// between lists).
	scan int
}

// BrowseItem is an entry of a list. At is when it was claimed, is due or
// was done; Downloader who holds it, held it last or did it.
type BrowseItem struct {
	ID         int64
	Name       string
	At         time.Time
	Downloader string
	ClaimCount int32
	// Queue is the queue a claim came from.
	Queue string
	Score float64
	Bytes int64
}

// BrowsePage is a page of a list, in the list's order. Next and Prev
// continue after and before it; nil at the list's ends. Scanned counts the
// entries read for it; Partial says a filter's search stopped at the scan
// bound before the page was full (Next searches on).
type BrowsePage struct {
	Items      []BrowseItem
	Next, Prev *BrowseKey
	Scanned    int64
	Partial    bool
}

// Key is the item's place in its list.
func (it BrowseItem) Key() BrowseKey { return BrowseKey{At: it.At, ID: it.ID} }

// LastKey is past every entry of a list: before it is the list's last page.
var LastKey = BrowseKey{At: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), ID: math.MaxInt64}

// start is before every entry of a list.
var start = BrowseKey{At: time.Unix(0, 0), ID: math.MinInt64}

// ValidSource checks a list of the browser: a queue, or one of the
// Browse lists.
func ValidSource(source string) error {
	switch source {
	case BrowseClaims, BrowseScheduled, BrowseDone:
		return nil
	}
	return naming.ValidQueue(source)
}

// Browse reads a page of a project's list: a queue in id order, the claims
// oldest first, the schedule soonest first, the completed items in id
// order. Each page is read from its place in an index (keyset, never an
// offset), so a page costs the same at the ten-millionth item as at the
// first; a filter reads at most BrowseScan entries a page.
func (e *Engine) Browse(ctx context.Context, p projects.Project, bq BrowseQuery) (BrowsePage, error) {
	if err := ValidSource(bq.Source); err != nil {
		return BrowsePage{}, refusal.New(refusal.Invalid, "unknown-queue", err)
	}
	if bq.After != nil && bq.Before != nil {
		return BrowsePage{}, refusal.New(refusal.Invalid, "bad-cursor", errors.New("a page starts after an entry or ends before one, not both"))
	}
	if bq.Max < 1 || bq.Max > MaxBrowsePage {
		return BrowsePage{}, refusal.New(refusal.Invalid, "bad-page-size", errors.New("a page holds 1 to 500 entries"))
	}
	if err := CheckPattern(bq.Filter.Pattern); err != nil {
		return BrowsePage{}, err
	}
	scan := bq.Max + 1
	if bq.Filter.set() {
		scan = max(cmp.Or(bq.scan, BrowseScan), scan)
	}
	back := bq.Before != nil
	at := start
	if back {
		at = *bq.Before
	} else if bq.After != nil {
		at = *bq.After
	}
	rows, err := e.browseRows(ctx, p, bq, at, back, scan)
	if err != nil {
		return BrowsePage{}, searchRefusal(err)
	}
	var page BrowsePage
	var edge *browseRow
	for i := range rows {
		if rows[i].edge {
			edge = &rows[i]
			continue
		}
		page.Items = append(page.Items, rows[i].BrowseItem)
	}
	more := false // entries lie beyond the page, away from at
	if len(page.Items) > bq.Max {
		page.Items, more = page.Items[:bq.Max], true
	}
	if edge != nil {
		page.Scanned = edge.scanned
		if !more && edge.scanned >= int64(scan) {
			// The scan bound ended the page: what lies beyond is unread.
			more, page.Partial = true, bq.Filter.set()
		}
	}
	// far continues away from at: after the last entry listed, or after
	// the last one read when the filter left the rest of them out.
	var far *BrowseKey
	switch {
	case more && !page.Partial:
		k := page.Items[len(page.Items)-1].Key()
		far = &k
	case more:
		k := edge.Key()
		far = &k
	}
	if !back {
		page.Next = far
		if bq.After != nil {
			// Back towards the start: before the first entry listed, or
			// up to at itself.
			k := at
			if len(page.Items) > 0 {
				k = page.Items[0].Key()
			} else if k.ID < math.MaxInt64 {
				k.ID++
			}
			page.Prev = &k
		}
		return page, nil
	}
	slices.Reverse(page.Items)
	page.Prev = far
	if at != LastKey {
		// On towards the end: after the last entry listed, or from at
		// itself.
		k := at
		if len(page.Items) > 0 {
			k = page.Items[len(page.Items)-1].Key()
		} else if k.ID > math.MinInt64 {
			k.ID--
		}
		page.Next = &k
	}
	return page, nil
}

// browseRow is a row of a list's read: an entry, or the edge row holding
// the last entry read and how many were.
type browseRow struct {
	BrowseItem
	edge    bool
	scanned int64
}

// browseRows reads the rows of a page of bq's list from at, backwards
// when back (the entries nearest at first), at most max+1 entries of the
// first scan.
func (e *Engine) browseRows(ctx context.Context, p projects.Project, bq BrowseQuery, at BrowseKey, back bool, scan int) ([]browseRow, error) {
	f, n, s := bq.Filter, int32(bq.Max+1), int32(scan)
	var out []browseRow
	add := func(it BrowseItem, edge bool, scanned int64) {
		out = append(out, browseRow{BrowseItem: it, edge: edge, scanned: scanned})
	}
	switch bq.Source {
	case BrowseClaims:
		if back {
			rows, err := e.q.ClaimsBrowseBack(ctx, db.ClaimsBrowseBackParams{ProjectID: p.ID, Downloader: bq.Downloader,
				BeforeAt: at.At, BeforeID: at.ID, Scan: s, Prefix: f.Prefix, Contains: f.Contains, Pattern: f.Pattern, Max: n})
			for _, r := range rows {
				add(BrowseItem{ID: r.ID, Name: r.Name, At: r.ClaimedAt, Downloader: r.Downloader, ClaimCount: r.ClaimCount, Queue: r.Queue}, r.Edge, r.Scanned)
			}
			return out, err
		}
		rows, err := e.q.ClaimsBrowse(ctx, db.ClaimsBrowseParams{ProjectID: p.ID, Downloader: bq.Downloader,
			AfterAt: at.At, AfterID: at.ID, Scan: s, Prefix: f.Prefix, Contains: f.Contains, Pattern: f.Pattern, Max: n})
		for _, r := range rows {
			add(BrowseItem{ID: r.ID, Name: r.Name, At: r.ClaimedAt, Downloader: r.Downloader, ClaimCount: r.ClaimCount, Queue: r.Queue}, r.Edge, r.Scanned)
		}
		return out, err
	case BrowseScheduled:
		if back {
			rows, err := e.q.RevisitsBrowseBack(ctx, db.RevisitsBrowseBackParams{ProjectID: p.ID,
				BeforeAt: at.At, BeforeID: at.ID, Scan: s, Prefix: f.Prefix, Contains: f.Contains, Pattern: f.Pattern, Max: n})
			for _, r := range rows {
				add(BrowseItem{ID: r.ID, Name: r.Name, At: r.DueAt, Score: r.Score}, r.Edge, r.Scanned)
			}
			return out, err
		}
		rows, err := e.q.RevisitsBrowse(ctx, db.RevisitsBrowseParams{ProjectID: p.ID,
			AfterAt: at.At, AfterID: at.ID, Scan: s, Prefix: f.Prefix, Contains: f.Contains, Pattern: f.Pattern, Max: n})
		for _, r := range rows {
			add(BrowseItem{ID: r.ID, Name: r.Name, At: r.DueAt, Score: r.Score}, r.Edge, r.Scanned)
		}
		return out, err
	case BrowseDone:
		if back {
			rows, err := e.q.DoneBrowseBack(ctx, db.DoneBrowseBackParams{ProjectID: p.ID,
				BeforeID: at.ID, Scan: s, Prefix: f.Prefix, Contains: f.Contains, Pattern: f.Pattern, Max: n})
			for _, r := range rows {
				add(BrowseItem{ID: r.ID, Name: r.Name, At: r.DoneAt, Downloader: r.Downloader, Bytes: r.Bytes}, r.Edge, r.Scanned)
			}
			return out, err
		}
		rows, err := e.q.DoneBrowse(ctx, db.DoneBrowseParams{ProjectID: p.ID,
			AfterID: at.ID, Scan: s, Prefix: f.Prefix, Contains: f.Contains, Pattern: f.Pattern, Max: n})
		for _, r := range rows {
			add(BrowseItem{ID: r.ID, Name: r.Name, At: r.DoneAt, Downloader: r.Downloader, Bytes: r.Bytes}, r.Edge, r.Scanned)
		}
		return out, err
	}
	if back {
		rows, err := e.q.TodoBrowseBack(ctx, db.TodoBrowseBackParams{ProjectID: p.ID, Queue: bq.Source,
			BeforeID: at.ID, Scan: s, Prefix: f.Prefix, Contains: f.Contains, Pattern: f.Pattern, Max: n})
		for _, r := range rows {
			add(BrowseItem{ID: r.ID, Name: r.Name, Downloader: r.LastDownloader, ClaimCount: r.ClaimCount}, r.Edge, r.Scanned)
		}
		return out, err
	}
	rows, err := e.q.TodoBrowse(ctx, db.TodoBrowseParams{ProjectID: p.ID, Queue: bq.Source,
		AfterID: at.ID, Scan: s, Prefix: f.Prefix, Contains: f.Contains, Pattern: f.Pattern, Max: n})
	for _, r := range rows {
		add(BrowseItem{ID: r.ID, Name: r.Name, Downloader: r.LastDownloader, ClaimCount: r.ClaimCount}, r.Edge, r.Scanned)
	}
	return out, err
}
