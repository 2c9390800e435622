package handlers

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"tracker/items"
	"tracker/projects"
)

// backfeed takes the items grab scripts discover:
// POST /backfeed/legacy/{project}-{key}?shard=S&delimiter=%00&itemseparator=%1F&params=1&skipbloom=1.
// The body is raw bytes although it arrives labelled as a form: it is never
// form-decoded. The scripts check both the status and "status_code".
func (h *Handler) backfeed(w http.ResponseWriter, r *http.Request) error {
	addr := clientIP(r)
	if wait := h.backfeedStrikes.wait(addr); wait > 0 {
		e := backfeedError(http.StatusTooManyRequests, "too-many-wrong-keys", "too many wrong backfeed addresses from here: wait")
		e.RetryAfter = int(wait.Seconds()) + 1
		return e
	}
	target := r.PathValue("target")
	// Slugs may hold '-', keys may not: the key follows the last one.
	i := strings.LastIndexByte(target, '-')
	if i <= 0 {
		h.backfeedStrikes.add(addr)
		return backfeedError(http.StatusNotFound, "unknown-project", "the address is /backfeed/legacy/{project}-{key}")
	}
	slug, key := target[:i], target[i+1:]
	live, err := h.live.Get(r.Context(), slug)
	if errors.Is(err, projects.ErrNotFound) {
		h.backfeedStrikes.add(addr)
		return backfeedError(http.StatusNotFound, "unknown-project", fmt.Sprintf("no project %q", slug))
	}
	if err != nil {
		return err
	}
	p := live.Project
	if subtle.ConstantTimeCompare([]byte(key), []byte(p.Config.BackfeedKey)) != 1 {
		h.backfeedStrikes.add(addr)
		return backfeedError(http.StatusForbidden, "wrong-key", "wrong backfeed key")
	}

	query := r.URL.Query()
	shard := query.Get("shard")
	if err := items.ValidShard(shard); err != nil {
		return backfeedError(http.StatusBadRequest, "invalid-shard", err.Error())
	}
	// skipbloom=1: the script reports items that must be done again, seen
	// before or not (youtube-grab's problem reports, microsoftupdate-grab's
	// rediscoveries). Another value is refused rather than read as 0: a post
	// taken for an ordinary one would drop its items as duplicates.
	skip := query.Get("skipbloom") == "1"
	if v := query.Get("skipbloom"); v != "" && v != "0" && v != "1" {
		return backfeedError(http.StatusBadRequest, "invalid-skipbloom", "skipbloom is 1 or 0")
	}
	// The body and the entries parsed from it are held until the post is
	// written, which may wait for a write slot: the post reads its body
	// only once it has its share of the backfeed budget (body_budget.go).
	release, err := h.bodies.backfeed.reserve(r, items.MaxBackfeedBody)
	if err != nil {
		return err
	}
	defer release()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, items.MaxBackfeedBody))
	if err != nil {
		// The client's failure (too big, cut short), answered in the JSON
		// the scripts read. A body cut short also ends the request's
		// context (the server takes the end of its input for a client
		// gone), but one that only half-closed its side still reads this.
		if e := bodyRefusal(err); e != nil {
			return backfeedError(e.Status, e.Reason, e.Msg)
		}
		return err
	}
	entries, err := items.ParseBackfeed(body, []byte(query.Get("delimiter")), []byte(query.Get("itemseparator")), query.Get("params") == "1")
	if err != nil {
		return backfeedError(http.StatusBadRequest, "invalid-items", err.Error())
	}
	res, err := h.items.BackfeedPost(r.Context(), p, items.BackfeedOptions{Shard: shard, SkipSeen: skip}, entries)
	if err != nil {
		return err
	}
	answer := map[string]any{"status_code": http.StatusOK, "new": res.New, "duplicates": res.Duplicates}
	if skip {
		answer["again"] = res.Again
	}
	return writeJSON(w, http.StatusOK, answer)
}

// A backfeed key is a secret in an address: an address that keeps getting
// addresses wrong is guessing, and is turned away for a while.
const (
	backfeedMaxWrong    = 20
	backfeedWrongWindow = 10 * time.Minute
)

// backfeedError answers in the JSON the grab scripts read.
func backfeedError(status int, reason, msg string) *Error {
	return &Error{Status: status, Reason: reason, Msg: msg, JSON: true}
}
