package handlers

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"tracker/items"
	"tracker/naming"
	"tracker/projects"
	"tracker/views"
)

const (
	// browsePer is how many entries a page of the queue browser lists
	// unless the admin picks another size.
	browsePer = 100
	// browseEnd is the cursor of the last page: before=end.
	browseEnd = "end"
)

var browsePerChoices = []int{25, 50, 100, 250, items.MaxBrowsePage}

// browseState is what a page of the queue browser shows: its list, the
// filter, the page size and its place (after or before an entry, from
// ?after= or ?before=, which is "end" for the last page).
type browseState struct {
	source, prefix, contains, downloader string
	regex                                bool
	per                                  int
	after, before                        *items.BrowseKey
}

// browseStateOf reads a page's state from a form (the page's address, or
// an action's form, which carries it).
func browseStateOf(form url.Values) (browseState, error) {
	s := browseState{source: cmp.Or(strings.TrimSpace(form.Get("source")), "todo"), prefix: form.Get("prefix"),
		contains: form.Get("contains"), downloader: strings.TrimSpace(form.Get("downloader")), regex: form.Get("regex") == "1", per: browsePer}
	if err := items.ValidSource(s.source); err != nil {
		return s, errorf(http.StatusBadRequest, "unknown-queue", "%v", err)
	}
	if v := form.Get("per"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > items.MaxBrowsePage {
			return s, errorf(http.StatusBadRequest, "bad-page-size", "per is how many entries a page lists: 1 to %d", items.MaxBrowsePage)
		}
		s.per = n
	}
	after, before := form.Get("after"), form.Get("before")
	if after != "" && before != "" {
		return s, errorf(http.StatusBadRequest, "bad-cursor", "a page starts after an entry or ends before one, not both")
	}
	var err error
	switch {
	case before == browseEnd:
		s.before = &items.LastKey
	case before != "":
		s.before, err = parseBrowseKey(before)
	case after != "":
		s.after, err = parseBrowseKey(after)
	}
	return s, err
}

// parseBrowseKey reads a place in a list: an item's id, or UNIXMICRO.ID
// for the claims and the schedule, ordered by time first.
func parseBrowseKey(s string) (*items.BrowseKey, error) {
	bad := errorf(http.StatusBadRequest, "bad-cursor", "a page's place is an item id, or UNIXMICRO.ID")
	at, id, timed := strings.Cut(s, ".")
	if !timed {
		id, at = at, ""
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil, bad
	}
	k := &items.BrowseKey{ID: n}
	if timed {
		us, err := strconv.ParseInt(at, 10, 64)
		if err != nil || us < minKeyTime.UnixMicro() || us > maxKeyTime.UnixMicro() {
			return nil, bad
		}
		k.At = time.UnixMicro(us)
	}
	return k, nil
}

// The times a place in a list may name: within PostgreSQL's timestamps,
// and every claim or visit's.
var (
	minKeyTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxKeyTime = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

// timed says whether a list is ordered by time first.
func timed(source string) bool {
	return source == items.BrowseClaims || source == items.BrowseScheduled
}

func (s browseState) key(k items.BrowseKey) string {
	if timed(s.source) {
		return strconv.FormatInt(k.At.UnixMicro(), 10) + "." + strconv.FormatInt(k.ID, 10)
	}
	return strconv.FormatInt(k.ID, 10)
}

// values are the page's list, filter and size, without its place.
func (s browseState) values() url.Values {
	v := url.Values{"source": {s.source}}
	for name, value := range map[string]string{"prefix": s.prefix, "contains": s.contains, "downloader": s.downloader} {
		if value != "" {
			v.Set(name, value)
		}
	}
	if s.regex {
		v.Set("regex", "1")
	}
	if s.per != browsePer {
		v.Set("per", strconv.Itoa(s.per))
	}
	return v
}

// place is the page's values with its place.
func (s browseState) place() url.Values {
	v := s.values()
	switch {
	case s.before != nil && *s.before == items.LastKey:
		v.Set("before", browseEnd)
	case s.before != nil:
		v.Set("before", s.key(*s.before))
	case s.after != nil:
		v.Set("after", s.key(*s.after))
	}
	return v
}

// url is the browser's address with values.
func (s browseState) url(p projects.Project, v url.Values) string {
	return "/admin/projects/" + p.Slug + "/browse?" + v.Encode()
}

func (s browseState) query() items.BrowseQuery {
	bq := items.BrowseQuery{Source: s.source, Downloader: s.downloader, Max: s.per, After: s.after, Before: s.before,
		Filter: items.BrowseFilter{Prefix: s.prefix, Contains: s.contains}}
	if s.regex {
		bq.Filter.Contains, bq.Filter.Pattern = "", s.contains
	}
	if s.source != items.BrowseClaims {
		bq.Downloader = ""
	}
	return bq
}

// adminBrowse is GET /admin/projects/{slug}/browse: the queue browser.
func (h *Handler) adminBrowse(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	return h.renderBrowse(w, r, p, shown())
}

// renderBrowse shows a page of the queue browser, from ?source= (a queue,
// "claims", "scheduled" or "done"; todo by default), filtered by name
// (?prefix=, ?contains=, a regular expression with ?regex=1; the claims of
// ?downloader=), ?per= entries a page, after ?after= or before ?before=.
// An action's form carries these, and a refused action shows the page
// again with the reason.
func (h *Handler) renderBrowse(w http.ResponseWriter, r *http.Request, p projects.Project, st formState) error {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		return errorf(http.StatusBadRequest, "bad-form", "the form could not be read")
	}
	bs, err := browseStateOf(r.Form)
	if err != nil {
		return err
	}
	page, sum, err := h.projectPage(r, p, "browse", st)
	if err != nil {
		return err
	}
	v := views.AdminBrowseView{AdminProjectPage: page, Source: bs.source, Kind: browseKind(bs.source),
		Prefix: bs.prefix, Contains: bs.contains, Regex: bs.regex, Downloader: bs.downloader,
		Per: bs.per, PerChoices: browsePerChoices}
	v.Lists, v.Targets = browseLists(p, sum, bs)
	for name, values := range bs.place() {
		for _, value := range values {
			v.State = append(v.State, views.HiddenField{Name: name, Value: value})
		}
	}
	slices.SortFunc(v.State, func(a, b views.HiddenField) int { return strings.Compare(a.Name, b.Name) })

	list, err := h.adm.items.Browse(ctx, p, bs.query())
	if refusal, ok := invalid(err); ok {
		// The admin's filter: shown with the reason, to be put right.
		v.Flash, v.Error = "", refusal.err
		return renderForm(w, r, refusal, views.AdminLayout("Queue browser · "+displayTitle(p), views.AdminBrowse(v)))
	}
	if err != nil {
		return err
	}
	for _, it := range list.Items {
		v.Items = append(v.Items, views.AdminBrowseItem{Name: it.Name, URL: itemPageURL(p, it.Name), At: it.At,
			Downloader: it.Downloader, ClaimCount: it.ClaimCount, Queue: it.Queue, Score: it.Score, Bytes: it.Bytes})
	}
	v.Scanned, v.Partial = list.Scanned, list.Partial
	if list.Prev != nil {
		v.First = bs.url(p, bs.values())
		prev := bs.values()
		prev.Set("before", bs.key(*list.Prev))
		v.Prev = bs.url(p, prev)
	}
	if list.Next != nil {
		next := bs.values()
		next.Set("after", bs.key(*list.Next))
		v.Next = bs.url(p, next)
		last := bs.values()
		last.Set("before", browseEnd)
		v.Last = bs.url(p, last)
	}
	return renderForm(w, r, st, views.AdminLayout("Queue browser · "+displayTitle(p), views.AdminBrowse(v)))
}

// browseKind is what a list is, for its columns and actions.
func browseKind(source string) string {
	switch source {
	case items.BrowseClaims, items.BrowseScheduled, items.BrowseDone:
		return source
	}
	return "queue"
}

// browseLists are the lists of a project's browser, with their sizes, and
// the queues items may be moved or queued to.
func browseLists(p projects.Project, sum projects.Summary, bs browseState) ([]views.AdminBrowseList, []string) {
	queues := naming.QueueNames(sum.Queues)
	for _, q := range []string{naming.ErrorQueue, naming.RetiredQueue} {
		if !slices.Contains(queues, q) && (q == naming.ErrorQueue || p.Config.Recurring()) {
			queues = append(queues, q)
		}
	}
	targets := slices.Clone(queues)
	if browseKind(bs.source) == "queue" && !slices.Contains(queues, bs.source) {
		queues = append(queues, bs.source)
	}
	var lists []views.AdminBrowseList
	add := func(name, label string, n int64) {
		q := url.Values{"source": {name}}
		lists = append(lists, views.AdminBrowseList{Name: name, Label: label, Items: n, Current: name == bs.source,
			URL: "/admin/projects/" + p.Slug + "/browse?" + q.Encode()})
	}
	for _, q := range queues {
		add(q, q, sum.Queues[q])
	}
	add(items.BrowseClaims, "claims out", sum.Claims)
	if p.Config.Recurring() || sum.Revisits > 0 {
		add(items.BrowseScheduled, "waiting for a visit", sum.Revisits)
	}
	add(items.BrowseDone, "done", max(sum.Done-sum.Archived-sum.Discarded, 0))
	return lists, targets
}

// itemPageURL is the address of an item's page.
func itemPageURL(p projects.Project, name string) string {
	return "/admin/projects/" + p.Slug + "/item?" + url.Values{"name": {name}}.Encode()
}
