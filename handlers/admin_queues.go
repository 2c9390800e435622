package handlers

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"tracker/db"
	"tracker/items"
)

// adminQueueMove is POST /admin/projects/{slug}/queues/move: the items of
// queue "from" whose names start with "prefix" and match "pattern" (a
// PostgreSQL regular expression; both optional) go to queue "to".
// queues/drain drops them instead, once "confirm" repeats the queue's name.
func (h *Handler) adminQueueMove(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	f := r.PostForm
	from, to := strings.TrimSpace(f.Get("from")), strings.TrimSpace(f.Get("to"))
	sel := items.Selection{Prefix: f.Get("prefix"), Pattern: f.Get("pattern")}
	action := r.PathValue("action")
	switch action {
	case "move":
		if to == "" {
			return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", "Say which queue the items go to.")
		}
	case "drain":
		if f.Get("confirm") != from {
			return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", "To drain "+from+", type its name to confirm.")
		}
		to = ""
	default:
		return errorf(http.StatusNotFound, "not-found", "no such action")
	}
	n, err := h.items.MoveQueue(r.Context(), p, from, to, sel)
	var invalid *items.InvalidError
	if errors.As(err, &invalid) {
		return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", invalid.Error())
	}
	if err != nil {
		return err
	}
	detail := map[string]any{"from": from, "to": to, "prefix": sel.Prefix, "pattern": sel.Pattern, "items": n}
	if err := record(r, db.New(h.pool), "queue."+action, p.ID, detail); err != nil {
		return err
	}
	msg := fmt.Sprintf("Moved %d items from %s to %s.", n, from, to)
	if action == "drain" {
		msg = fmt.Sprintf("Drained %d items from %s.", n, from)
	}
	return h.renderAdminProject(w, r, http.StatusOK, p, msg, "")
}

// adminDoneRequeue is POST /admin/projects/{slug}/done/requeue: completed
// items whose names start with "prefix" and match "pattern" are queued
// again in "queue".
func (h *Handler) adminDoneRequeue(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	f := r.PostForm
	if f.Get("prefix") == "" && f.Get("pattern") == "" && f.Get("confirm") != "all" {
		return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", `Give a prefix or a pattern, or type "all" to requeue every completed item.`)
	}
	queue := cmp.Or(strings.TrimSpace(f.Get("queue")), "redo")
	sel := items.Selection{Prefix: f.Get("prefix"), Pattern: f.Get("pattern")}
	n, err := h.items.RequeueDone(r.Context(), p, queue, sel)
	var invalid *items.InvalidError
	if errors.As(err, &invalid) {
		return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", invalid.Error())
	}
	if err != nil {
		return err
	}
	detail := map[string]any{"queue": queue, "prefix": sel.Prefix, "pattern": sel.Pattern, "items": n}
	if err := record(r, db.New(h.pool), "done.requeue", p.ID, detail); err != nil {
		return err
	}
	return h.renderAdminProject(w, r, http.StatusOK, p, fmt.Sprintf("Queued %d completed items again in %s.", n, queue), "")
}

// adminItem is POST /admin/projects/{slug}/item/{release|requeue|done}:
// one item, by its name.
func (h *Handler) adminItem(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	ctx, name, action := r.Context(), r.PostForm.Get("name"), r.PathValue("action")
	live, err := h.live.Get(ctx, p.Slug)
	if err != nil {
		return err
	}
	switch action {
	case "release":
		var released []string
		if released, err = h.items.Release(ctx, p, []string{name}, ""); err == nil && len(released) == 0 {
			err = &items.InvalidError{Err: errors.New("the item is not claimed")}
		}
	case "requeue":
		var n int64
		if n, err = h.items.RequeueDone(ctx, p, cmp.Or(strings.TrimSpace(r.PostForm.Get("queue")), "redo"), items.Exactly(name)); err == nil && n == 0 {
			err = &items.InvalidError{Err: errors.New("the item is not among the completed items (archived ones cannot be queued again)")}
		}
	case "done":
		err = h.items.MarkDone(ctx, live, name, account(r).Username)
	default:
		return errorf(http.StatusNotFound, "not-found", "no such action")
	}
	var invalid *items.InvalidError
	if errors.As(err, &invalid) || errors.Is(err, items.ErrUnknownItem) {
		return h.renderAdminProject(w, r, http.StatusBadRequest, p, "", name+": "+err.Error())
	}
	if err != nil {
		return err
	}
	if err := record(r, db.New(h.pool), "item."+action, p.ID, map[string]any{"item": name}); err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/projects/"+p.Slug+"/?item="+url.QueryEscape(name)+"&flash="+url.QueryEscape(name+": "+action+" done."), http.StatusSeeOther)
	return nil
}
