package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"tracker/db"
	"tracker/views"
)

// claimsPage is how many claims a page of the claims list shows.
const claimsPage = 100

// adminClaims is GET /admin/projects/{slug}/claims: the claims, oldest
// first, a page at a time (after=UNIXMICRO.ID continues), filtered by
// downloader, older_than (minutes) and prefix.
func (h *Handler) adminClaims(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	v := views.AdminClaimsView{Username: account(r).Username, Project: projectInfo(p),
		Downloader: q.Get("downloader"), OlderThan: q.Get("older_than"), Prefix: q.Get("prefix")}
	minutes, _ := strconv.Atoi(v.OlderThan)
	afterAt, afterID := time.Unix(0, 0), int64(0)
	if at, id, ok := strings.Cut(q.Get("after"), "."); ok {
		us, err1 := strconv.ParseInt(at, 10, 64)
		n, err2 := strconv.ParseInt(id, 10, 64)
		if err1 != nil || err2 != nil {
			return errorf(http.StatusBadRequest, "bad-cursor", "after is UNIXMICRO.ID")
		}
		afterAt, afterID = time.UnixMicro(us), n
	}
	rows, err := db.New(h.pool).ClaimsList(r.Context(), db.ClaimsListParams{
		ProjectID: p.ID, Downloader: v.Downloader, Prefix: v.Prefix, AfterAt: afterAt, AfterID: afterID, Max: claimsPage,
		OlderThan: pgtype.Interval{Microseconds: int64(max(minutes, 0)) * 60e6, Valid: true},
	})
	if err != nil {
		return err
	}
	for _, c := range rows {
		v.Claims = append(v.Claims, views.AdminClaim{Name: c.Name, Downloader: c.Downloader, ClaimedAt: c.ClaimedAt, ClaimCount: c.ClaimCount, Queue: c.Queue})
	}
	// Counting every claim per downloader reads the whole index (1.5 s at
	// five million claims): only when asked.
	if v.PerDownloader = q.Get("per_downloader") == "1"; v.PerDownloader {
		counts, err := db.New(h.pool).ClaimsPerDownloader(r.Context(), db.ClaimsPerDownloaderParams{ProjectID: p.ID, Max: 100})
		if err != nil {
			return err
		}
		for _, c := range counts {
			v.Downloaders = append(v.Downloaders, views.AdminClaimCount{Downloader: c.Downloader, Claims: c.Claims, Oldest: c.Oldest})
		}
	}
	if len(rows) == claimsPage {
		last := rows[len(rows)-1]
		next := url.Values{"downloader": {v.Downloader}, "older_than": {v.OlderThan}, "prefix": {v.Prefix},
			"after": {strconv.FormatInt(last.ClaimedAt.UnixMicro(), 10) + "." + strconv.FormatInt(last.ID, 10)}}
		v.Next = "/admin/projects/" + p.Slug + "/claims?" + next.Encode()
	}
	return render(w, r, http.StatusOK, views.Layout("Claims · "+displayTitle(p), views.AdminClaims(v)))
}
