package stats

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"time"

	"tracker/db"
	"tracker/projects"
)

// ClassicDownloadersShown bounds the downloaders of the original tracker's
// keys of stats.json: the original served every downloader, and its
// readers look their own nick up in the maps, so every downloader is there
// up to this many; past it, those with the most bytes. It keeps the body
// of a project of 100,000 downloaders near a megabyte (at most some 8 MB
// were every nick 64 characters of four bytes).
const ClassicDownloadersShown = 10_000

// classicTotals are the original universal-tracker's keys of stats.json
// but the per-downloader ones, with its meanings: total_items is
// done + todo + out, total_bytes the sum of domain_bytes, counts repeats
// the three and adds the reclaim rate (rcr, 0 to 1).
type classicTotals struct {
	DomainBytes    map[string]int64 `json:"domain_bytes"`
	TotalItems     int64            `json:"total_items"`
	TotalItemsDone int64            `json:"total_items_done"`
	TotalItemsTodo int64            `json:"total_items_todo"`
	TotalItemsOut  int64            `json:"total_items_out"`
	TotalBytes     int64            `json:"total_bytes"`
	Counts         classicCounts    `json:"counts"`
}

type classicCounts struct {
	Todo int64   `json:"todo"`
	Out  int64   `json:"out"`
	Done int64   `json:"done"`
	RCR  float64 `json:"rcr"`
}

// StatsJSON returns the body of /{project}/stats.json, and its gzip: the
// board's JSON with the original tracker's keys beside its own (none of
// which has one of their names). The per-downloader ones come from the
// all-time ranking kept in memory (folded by the rollup, reread every
// rankAllEvery), encoded once per reread; the body and its gzip are made
// once per board and ranking, however many ask: with 10,000 downloaders
// the body is some 700 KB, which takes longer to compress than all else.
func (h *Hub) StatsJSON(ctx context.Context, p projects.Project) (body, gzipped []byte, err error) {
	b, js, _, err := h.Board(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	w := h.watchOf(p)
	r, err := h.currentRankings(ctx, w)
	if err != nil {
		return nil, nil, err
	}
	w.mu.Lock()
	if w.stats != nil && w.statsSeq == b.Seq && w.statsAt.Equal(r.all.at) {
		body, gzipped := w.stats, w.statsGzip
		w.mu.Unlock()
		return body, gzipped, nil
	}
	downloaders, at := w.classicDownloaders, w.classicAt
	w.mu.Unlock()

	if downloaders == nil || !at.Equal(r.all.at) {
		if downloaders, err = classicDownloaders(r.all); err != nil {
			return nil, nil, err
		}
	}
	tail, err := json.Marshal(classic(b))
	if err != nil {
		return nil, nil, err
	}
	// The board's object, then the downloaders' keys, then the others.
	body = make([]byte, 0, len(js)+len(downloaders)+len(tail)+1)
	body = append(body, js[:len(js)-1]...)
	body = append(body, ',')
	body = append(body, downloaders...)
	body = append(body, ',')
	body = append(body, tail[1:]...)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(body); err != nil {
		return nil, nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, nil, err
	}
	gzipped = buf.Bytes()

	w.mu.Lock()
	w.classicDownloaders, w.classicAt = downloaders, r.all.at
	w.stats, w.statsGzip, w.statsSeq, w.statsAt = body, gzipped, b.Seq, r.all.at
	w.mu.Unlock()
	return body, gzipped, nil
}

// classic reads the original tracker's totals off a board.
func classic(b *Board) classicTotals {
	t := b.Totals
	c := classicTotals{
		DomainBytes:    make(map[string]int64, len(b.Domains)),
		TotalItems:     t.Done + t.Todo + t.Claims,
		TotalItemsDone: t.Done,
		TotalItemsTodo: t.Todo,
		TotalItemsOut:  t.Claims,
		Counts:         classicCounts{Todo: t.Todo, Out: t.Claims, Done: t.Done},
	}
	for _, d := range b.Domains {
		c.DomainBytes[d.Domain] = d.Bytes
		c.TotalBytes = db.AddBytes(c.TotalBytes, d.Bytes)
	}
	if r := b.Health.ReclaimRate; r != nil {
		c.Counts.RCR = *r
	}
	return c
}

// classicDownloaders encodes the original tracker's per-downloader keys,
// without the braces around them: "downloader_bytes" and
// "downloader_count" by nick, and "downloaders", the same nicks by bytes,
// most first; at most ClassicDownloadersShown of them.
func classicDownloaders(all board) ([]byte, error) {
	n := min(len(all.byBytes), ClassicDownloadersShown)
	var v struct {
		Bytes       map[string]int64 `json:"downloader_bytes"`
		Count       map[string]int64 `json:"downloader_count"`
		Downloaders []string         `json:"downloaders"`
	}
	v.Bytes, v.Count, v.Downloaders = make(map[string]int64, n), make(map[string]int64, n), make([]string, 0, n)
	for _, i := range all.byBytes[:n] {
		e := all.entries[i]
		v.Bytes[e.nick], v.Count[e.nick] = e.bytes, e.items
		v.Downloaders = append(v.Downloaders, e.nick)
	}
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return js[1 : len(js)-1], nil
}

// classicCache is what a watch keeps of StatsJSON.
type classicCache struct {
	// classicDownloaders is classicDownloaders of the ranking read at
	// classicAt.
	classicDownloaders []byte
	classicAt          time.Time
	// stats is the body of the board numbered statsSeq with the ranking
	// read at statsAt, statsGzip its gzip.
	stats, statsGzip []byte
	statsSeq         int64
	statsAt          time.Time
}
