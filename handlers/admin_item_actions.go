package handlers

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"tracker/items"
	"tracker/projects"
)

// adminItemRelease is POST /admin/projects/{slug}/item/release: a claimed
// item ("name") goes back to its queue.
func (h *Handler) adminItemRelease(w http.ResponseWriter, r *http.Request) error {
	return h.itemAction(w, r, "release", func(ctx context.Context, live *projects.Live, name string) error {
		n, err := h.items.ReleaseWhere(ctx, live.Project, "", 0, items.Exactly(name))
		if err == nil && n == 0 {
			err = &items.InvalidError{Err: errors.New("the item is not claimed")}
		}
		return err
	})
}

// adminItemRequeue is POST /admin/projects/{slug}/item/requeue: a
// completed item is queued again in "queue" (redo by default).
func (h *Handler) adminItemRequeue(w http.ResponseWriter, r *http.Request) error {
	return h.itemAction(w, r, "requeue", func(ctx context.Context, live *projects.Live, name string) error {
		queue := cmp.Or(strings.TrimSpace(r.PostForm.Get("queue")), "redo")
		n, err := h.items.RequeueDone(ctx, live.Project, queue, items.Exactly(name))
		if err == nil && n == 0 {
			err = &items.InvalidError{Err: errors.New("the item is not among the completed items (archived ones cannot be queued again)")}
		}
		return err
	})
}

// adminItemDone is POST /admin/projects/{slug}/item/done: a queued or
// claimed item is completed by hand.
func (h *Handler) adminItemDone(w http.ResponseWriter, r *http.Request) error {
	return h.itemAction(w, r, "done", func(ctx context.Context, live *projects.Live, name string) error {
		return h.items.MarkDone(ctx, live, name, account(r).Username)
	})
}

// itemAction runs an action on the item a form names and shows the item
// again.
func (h *Handler) itemAction(w http.ResponseWriter, r *http.Request, action string, fn func(context.Context, *projects.Live, string) error) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	ctx, name := r.Context(), r.PostForm.Get("name")
	live, err := h.live.Get(ctx, p.Slug)
	if err != nil {
		return err
	}
	err = fn(ctx, live, name)
	if bad, ok := invalid(err); ok || errors.Is(err, items.ErrUnknownItem) {
		if !ok {
			bad = err.Error()
		}
		return h.renderOverview(w, r, p, refused(name+": "+bad))
	}
	if err != nil {
		return err
	}
	return h.redirectWithFlash(w, r, "/admin/projects/"+p.Slug+"/?item="+url.QueryEscape(name), name+": "+action+" done.")
}
