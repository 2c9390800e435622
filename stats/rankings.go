package stats

import (
	"cmp"
	"context"
	"slices"
	"time"

	"tracker/db"
	"tracker/projects"
)

// How old the rankings kept in memory may grow: the all-time board is
// reread every rankAllEvery, the 24-hour and 7-day boards, which sum hour
// buckets, every rankPeriodEvery. Pages and the stream read them from
// memory, so the cost is the same for one viewer as for thousands.
const (
	rankAllEvery    = 10 * time.Second
	rankPeriodEvery = time.Minute
)

// rankings are a project's boards of downloaders.
type rankings struct {
	all, day, week board
}

// board is one period's totals per downloader, in both orders.
type board struct {
	at      time.Time
	entries []entry
	byBytes []int // indexes into entries, best first
	byItems []int
	byNick  map[string]int
	// place[i] is entry i's place in byBytes.
	place []int
	// totals over every downloader, for the shares.
	items, bytes int64
}

type entry struct {
	nick                string
	items, bytes        int64
	version             string
	firstSeen, lastSeen time.Time
}

func newBoard(at time.Time, entries []entry) board {
	b := board{at: at, entries: entries, byNick: make(map[string]int, len(entries))}
	for i, e := range entries {
		b.byNick[e.nick] = i
		b.items += e.items
		b.bytes = db.AddBytes(b.bytes, e.bytes)
	}
	b.byBytes = rank(entries, func(e entry) int64 { return e.bytes })
	b.byItems = rank(entries, func(e entry) int64 { return e.items })
	b.place = make([]int, len(entries))
	for r, i := range b.byBytes {
		b.place[i] = r
	}
	return b
}

// rank orders the entries by value, best first, nick breaking ties.
func rank(entries []entry, value func(entry) int64) []int {
	idx := make([]int, len(entries))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(value(entries[b]), value(entries[a])), cmp.Compare(entries[a].nick, entries[b].nick))
	})
	return idx
}

// active counts the downloaders seen within ActiveWindow of now.
func (r *rankings) active(now time.Time) int64 {
	var n int64
	for _, e := range r.all.entries {
		if now.Sub(e.lastSeen) <= ActiveWindow {
			n++
		}
	}
	return n
}

// currentRankings returns the project's rankings as they are, reading them
// only when there are none yet: pages never wait for a reread, which the
// refresh loop does.
func (h *Hub) currentRankings(ctx context.Context, w *watch) (*rankings, error) {
	w.mu.Lock()
	r := w.rankings
	w.mu.Unlock()
	if r != nil {
		return r, nil
	}
	return h.rankingsOf(ctx, w)
}

// rankingsOf returns the project's rankings, rereading those too old.
func (h *Hub) rankingsOf(ctx context.Context, w *watch) (*rankings, error) {
	w.mu.Lock()
	old, p := w.rankings, w.project
	w.mu.Unlock()
	now := time.Now()
	r := &rankings{}
	if old != nil {
		*r = *old
	}
	if old == nil || now.Sub(r.all.at) >= rankAllEvery {
		rows, err := h.q.DownloadersAll(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		entries := make([]entry, len(rows))
		for i, d := range rows {
			entries[i] = entry{nick: d.Nick, items: d.Items, bytes: d.Bytes, version: d.Version, firstSeen: d.FirstSeen, lastSeen: d.LastSeen}
		}
		r.all = newBoard(now, entries)
	}
	for _, x := range []struct {
		b     *board
		since time.Duration
	}{{&r.day, 24 * time.Hour}, {&r.week, 7 * 24 * time.Hour}} {
		if old != nil && now.Sub(x.b.at) < rankPeriodEvery {
			continue
		}
		rows, err := h.q.DownloaderHoursTotals(ctx, db.DownloaderHoursTotalsParams{ProjectID: p.ID, Since: now.Add(-x.since).Truncate(time.Hour)})
		if err != nil {
			return nil, err
		}
		entries := make([]entry, len(rows))
		for i, d := range rows {
			entries[i] = entry{nick: d.Downloader, items: d.Items, bytes: d.Bytes}
		}
		*x.b = newBoard(now, entries)
	}
	w.mu.Lock()
	w.rankings = r
	w.mu.Unlock()
	return r, nil
}

// Ranking returns limit downloaders of a board from offset (limit < 0:
// all of them).
func (h *Hub) Ranking(ctx context.Context, p projects.Project, period Period, order Order, offset, limit int) (Ranking, error) {
	w := h.watchOf(p)
	r, err := h.currentRankings(ctx, w)
	if err != nil {
		return Ranking{}, err
	}
	b := r.all
	switch period {
	case Day:
		b = r.day
	case Week:
		b = r.week
	default:
		period = AllTime
	}
	idx, total := b.byBytes, b.bytes
	if order == ByItems {
		idx, total = b.byItems, b.items
	} else {
		order = ByBytes
	}
	out := Ranking{Period: period, Order: order, Total: len(idx), Offset: offset, At: b.at}
	if offset < 0 || offset > len(idx) {
		offset = len(idx)
		out.Offset = offset
	}
	end := len(idx)
	if limit >= 0 && offset+limit < end {
		end = offset + limit
	}
	out.Leaders = make([]Leader, 0, end-offset)
	for i := offset; i < end; i++ {
		e := b.entries[idx[i]]
		l := Leader{Rank: i + 1, Nick: e.nick, Items: e.items, Bytes: e.bytes, Version: e.version, LastSeen: e.lastSeen}
		if period != AllTime {
			if j, ok := r.all.byNick[e.nick]; ok {
				l.Version, l.LastSeen = r.all.entries[j].version, r.all.entries[j].lastSeen
			}
		}
		value := l.Bytes
		if order == ByItems {
			value = l.Items
		}
		if total > 0 {
			l.Share = float64(value) / float64(total)
		}
		l.Outdated = outdated(l.Version, p.Config.MinVersion)
		out.Leaders = append(out.Leaders, l)
	}
	return out, nil
}

// rankOf is the nick's place on a board by bytes (0: not on it).
func (b board) rankOf(nick string) (int, entry) {
	i, ok := b.byNick[nick]
	if !ok {
		return 0, entry{}
	}
	return b.place[i] + 1, b.entries[i]
}
