package handlers

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"tracker/audit"
	"tracker/items"
	"tracker/naming"
	"tracker/projects"
	"tracker/views"
)

const (
	// findPage is how many matches a page of the item finder lists.
	findPage = 50
	// itemAuditEntries bounds the audit entries an item's page lists.
	itemAuditEntries = 100
	// auditNamesShown is how many of the names of a bulk action an item's
	// timeline shows of its audit entry.
	auditNamesShown = 10
)

// adminItemShow is GET /admin/projects/{slug}/item: the item finder
// (?find=PREFIX, a page at a time: ?from=LIST&after=PLACE goes on) and an
// item's page (?name=NAME): where it stands, what can be done with it, and
// its timeline.
func (h *Handler) adminItemShow(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	page, _, err := h.projectPage(r, p, "browse", shown())
	if err != nil {
		return err
	}
	v := views.AdminItemView{AdminProjectPage: page, Find: q.Get("find"), Name: q.Get("name")}
	if v.Find != "" {
		if err := h.findItems(r, p, &v); err != nil {
			return err
		}
	}
	if v.Name != "" && naming.ValidName(v.Name) == nil {
		live, err := h.adm.live.Get(ctx, p.Slug)
		if err != nil {
			return err
		}
		hist, err := h.adm.items.History(ctx, live, v.Name)
		switch {
		case errors.Is(err, items.ErrUnknownItem):
		case err != nil:
			return err
		default:
			entries, err := h.itemAudit(r, p, v.Name, hist.Status.Name)
			if err != nil {
				return err
			}
			v.Item = itemTimeline(hist, entries)
		}
	}
	title := "Find an item"
	if v.Name != "" {
		title = v.Name
	}
	return render(w, r, http.StatusOK, views.AdminLayout(title+" · "+displayTitle(p), views.AdminItemPage(v)))
}

// findItems fills the finder's page of matches.
func (h *Handler) findItems(r *http.Request, p projects.Project, v *views.AdminItemView) error {
	q := r.URL.Query()
	var from *items.FindCursor
	if src := q.Get("from"); src != "" {
		k, err := parseBrowseKey(q.Get("after"))
		if err != nil {
			return err
		}
		from = &items.FindCursor{Source: src, Key: *k}
	}
	found, err := h.adm.items.FindItems(r.Context(), p, v.Find, from, findPage)
	if st, ok := invalid(err); ok {
		return errorf(st.status, st.reason, "%s", st.err)
	}
	if err != nil {
		return err
	}
	for _, f := range found.Items {
		v.Found = append(v.Found, views.AdminFoundItem{Name: f.Name, Where: foundWhere(f.Source), URL: itemPageURL(p, f.Name)})
	}
	v.FindScanned = found.Scanned
	if found.Next != nil {
		bs := browseState{source: found.Next.Source}
		next := url.Values{"find": {v.Find}, "from": {found.Next.Source}, "after": {bs.key(found.Next.Key)}}
		if v.Name != "" {
			next.Set("name", v.Name)
		}
		v.FindNext = "/admin/projects/" + p.Slug + "/item?" + next.Encode()
	}
	return nil
}

// foundWhere says where an item the finder found is.
func foundWhere(source string) string {
	switch source {
	case items.BrowseClaims:
		return "out with a warrior"
	case items.BrowseScheduled:
		return "waiting for its next visit"
	case items.BrowseDone:
		return "done"
	}
	return "queued in " + source
}

// itemAudit reads the audit entries that name the item, by the name asked
// and by the name it was queued under when they differ, newest first.
func (h *Handler) itemAudit(r *http.Request, p projects.Project, names ...string) ([]audit.Row, error) {
	var out []audit.Row
	for i, name := range names {
		if name == "" || slices.Contains(names[:i], name) {
			continue
		}
		rows, err := h.adm.audit.OfItem(r.Context(), p.ID, name, itemAuditEntries)
		if err != nil {
			return nil, err
		}
		for _, e := range rows {
			if !slices.ContainsFunc(out, func(o audit.Row) bool { return o.ID == e.ID }) {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// itemTimeline lays out what the database keeps of an item as its page
// shows it: where it stands, and its events oldest first, a visit to come
// last.
func itemTimeline(hist items.History, entries []audit.Row) *views.AdminItem {
	st := hist.Status
	it := &views.AdminItem{Name: st.Name, ID: hist.ID, Status: st.Status, Queue: st.Queue, ClaimCount: st.ClaimCount,
		Downloader: st.Downloader, Archive: st.Archive, Tag: hist.Tag, Params: indented(st.Params),
		Truncated: len(hist.Expired) >= 100 || len(hist.Done) >= 100}
	if st.Score != nil {
		it.Score = strconv.FormatFloat(*st.Score, 'g', 6, 64)
	}
	var events []views.AdminItemEvent
	if b := hist.Queued; b != nil {
		e := views.AdminItemEvent{At: b.At, Kind: "queued", Title: "Queued in " + b.Queue}
		switch b.Source {
		case items.BatchImport:
			e.Facts = append(e.Facts, "by an import (tracker items add, or the admin panel's Add items)")
		case items.BatchBackfeed:
			e.Facts = append(e.Facts, "by a grab script's backfeed post")
		}
		if b.Shard != "" {
			e.Facts = append(e.Facts, "deduplicated in backfeed shard "+b.Shard)
		}
		if !b.OwnKey {
			e.Facts = append(e.Facts, "deduplicated under a key of its own, not its name")
		}
		events = append(events, e)
	} else {
		events = append(events, views.AdminItemEvent{Kind: "unknown", Title: "When it was first queued is not recorded",
			Facts: []string{"the tracker records it for the items queued since it began to, except in a project handing out in random order"}})
	}
	for _, x := range hist.Expired {
		events = append(events, views.AdminItemEvent{At: x.ClaimedAt, Kind: "expired", Title: "Claimed; the claim ran out",
			Who: x.Downloader, From: x.IP,
			Facts: []string{fmt.Sprintf("ran out %s, after %s: back in its queue", views.When(x.ExpiredAt), views.FormatDuration(x.ExpiredAt.Sub(x.ClaimedAt)))}})
	}
	for _, d := range hist.Done {
		// The address a completion keeps is its done's, not its claim's.
		doneAt := fmt.Sprintf("done %s, after %s (hand-out %d)", views.When(d.DoneAt), views.FormatDuration(d.DoneAt.Sub(d.ClaimedAt)), d.ClaimCount)
		if d.IP.IsValid() {
			doneAt += ", reported from " + d.IP.String()
		}
		e := views.AdminItemEvent{At: d.ClaimedAt, Kind: "done", Title: "Claimed and done", Who: d.Downloader,
			Facts: []string{doneAt, views.FormatBytes(d.Bytes)}, Document: indented(d.Result)}
		e.Domains = domainBytes(d.Domains)
		if d.Version != "" {
			e.Facts = append(e.Facts, "version "+d.Version)
		}
		if e.Document != "" {
			e.Facts = append(e.Facts, "its result:")
		}
		events = append(events, e)
	}
	if c := hist.Claim; c != nil {
		e := views.AdminItemEvent{At: c.At, Kind: "claimed", Title: "Claimed; out now", Who: c.Downloader, From: c.IP,
			Facts: []string{fmt.Sprintf("hand-out %d, from queue %s", c.Count, c.Queue)}}
		if c.Version != "" {
			e.Facts = append(e.Facts, "version "+c.Version)
		}
		events = append(events, e)
	}
	for _, u := range hist.Uploads {
		events = append(events, views.AdminItemEvent{At: u.At, Kind: "upload", Title: "Upload receipt", Who: u.Uploader, From: u.IP,
			Facts: []string{"uploaded to " + u.Server}})
	}
	for _, a := range entries {
		events = append(events, views.AdminItemEvent{At: a.At, Kind: "audit", Title: a.Action, Who: a.Username, From: a.IP,
			Document: auditDetail(a.Detail)})
	}
	slices.SortStableFunc(events, func(a, b views.AdminItemEvent) int { return a.At.Compare(b.At) })
	if st.DueAt != nil {
		e := views.AdminItemEvent{At: *st.DueAt, Kind: "due", Title: "Next visit due", Future: st.DueAt.After(time.Now())}
		if it.Score != "" {
			e.Facts = []string{"score " + it.Score + ": handed out by it among the items due"}
		}
		events = append(events, e)
	}
	it.Events = events
	return it
}

// auditDetail is an audit entry's detail as an item's timeline shows it:
// a bulk action's names cut to the first few.
func auditDetail(detail string) string {
	var d map[string]any
	if json.Unmarshal([]byte(detail), &d) != nil {
		return detail
	}
	if names, ok := d["names"].([]any); ok && len(names) > auditNamesShown {
		d["names"] = append(names[:auditNamesShown:auditNamesShown], fmt.Sprintf("… and %d more", len(names)-auditNamesShown))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if enc.Encode(d) != nil {
		return detail
	}
	return b.String()
}

// domainBytes is a completion's bytes by domain (its JSON object of
// counts), largest first, for a table; none when it holds no such object.
func domainBytes(doc []byte) []views.DomainBytes {
	var m map[string]int64
	if len(doc) == 0 || json.Unmarshal(doc, &m) != nil {
		return nil
	}
	out := make([]views.DomainBytes, 0, len(m))
	for d, n := range m {
		out = append(out, views.DomainBytes{Domain: d, Bytes: n})
	}
	slices.SortFunc(out, func(a, b views.DomainBytes) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), strings.Compare(a.Domain, b.Domain))
	})
	return out
}
