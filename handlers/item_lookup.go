package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"tracker/items"
	"tracker/naming"
	"tracker/projects"
	"tracker/views"
)

// itemDetails says whether a public item lookup shows the item in full
// (who holds or did it, its parameters and result; items.Public): when
// the project has public_items, or to an admin who runs it. Such an answer
// depends on who asks, and says so to caches.
func (h *Handler) itemDetails(w http.ResponseWriter, r *http.Request, live *projects.Live) (bool, error) {
	if live.Config.PublicItems {
		return true, nil
	}
	w.Header().Add("Vary", "Cookie")
	admin, err := h.viewerRuns(r, live.ID)
	if admin {
		w.Header().Set("Cache-Control", "private, no-store")
	}
	return admin, err
}

// lookupItem answers the item box of the leaderboard and the admin panel:
// where the item is, or that the project never saw it, as find finds it
// (the engine's Lookup, or the read routes' readLookup). Without full, only
// what items.Public leaves.
func (h *Handler) lookupItem(ctx context.Context, live *projects.Live, name string, full bool, find itemFinder) (*views.Lookup, error) {
	if naming.ValidName(name) != nil {
		return &views.Lookup{Query: name}, nil
	}
	st, err := find(ctx, live, name)
	if errors.Is(err, items.ErrUnknownItem) {
		return &views.Lookup{Query: name}, nil
	}
	if err != nil {
		return nil, err
	}
	if !full {
		st = st.Public()
	}
	v := &views.Lookup{Query: name, Found: true, Status: st.Status, Queue: st.Queue, ClaimCount: st.ClaimCount,
		Downloader: st.Downloader, ClaimedAt: st.ClaimedAt, DoneAt: st.DoneAt, Archive: st.Archive}
	v.Params, v.Result = indented(st.Params), indented(st.Result)
	for _, x := range st.Expired {
		v.Expired = append(v.Expired, views.LookupExpiry{Downloader: x.Downloader, ClaimedAt: x.ClaimedAt, ExpiredAt: x.ExpiredAt})
	}
	return v, nil
}

// itemFinder finds where an item stands.
type itemFinder func(context.Context, *projects.Live, string) (items.ItemStatus, error)

// readLookup is the read routes' itemFinder: the status kept for a moment
// (items.Statuses).
func (h *Handler) readLookup(ctx context.Context, live *projects.Live, name string) (items.ItemStatus, error) {
	return h.reads.statuses.Lookup(ctx, live, "", name)
}

// indented is a JSON document laid out for reading ("" for none), or
// compact, as stored, when laid out it would be more than a few times its
// size: indenting costs every line its depth in spaces, and a page showing
// a document must stay about the document's size. Documents nested deeper
// than maxIndentDepth are not even tried.
func indented(doc json.RawMessage) string {
	var b bytes.Buffer
	if len(doc) == 0 {
		return ""
	}
	if jsonDepth(doc) <= maxIndentDepth && json.Indent(&b, doc, "", "  ") == nil && b.Len() <= 4*len(doc)+1024 {
		return b.String()
	}
	b.Reset()
	if json.Compact(&b, doc) != nil {
		return ""
	}
	return b.String()
}

// maxIndentDepth bounds the nesting of a document laid out for reading.
const maxIndentDepth = 16

// jsonDepth is how deep a JSON document's arrays and objects nest.
func jsonDepth(doc []byte) int {
	depth, most := 0, 0
	inString, escaped := false, false
	for _, c := range doc {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			most = max(most, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return most
}
