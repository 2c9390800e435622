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
		released, err := h.items.ReleaseItem(ctx, live.Project, name)
		if err == nil && !released {
			err = &items.InvalidError{Err: errors.New("the item is not claimed")}
		}
		return err
	})
}

// adminItemRequeue is POST /admin/projects/{slug}/item/requeue: a
// completed item is queued again in "queue" (redo by default), a failed one
// (todo by default) with a fresh count of hand-outs, a retired one (todo by
// default) with its first score.
func (h *Handler) adminItemRequeue(w http.ResponseWriter, r *http.Request) error {
	return h.itemAction(w, r, "requeue", func(ctx context.Context, live *projects.Live, name string) error {
		if stopped, err := h.fromStoppedQueue(ctx, live, name, cmp.Or(strings.TrimSpace(r.PostForm.Get("queue")), "todo")); stopped || err != nil {
			return err
		}
		queue := cmp.Or(strings.TrimSpace(r.PostForm.Get("queue")), "redo")
		n, err := h.items.RequeueDone(ctx, live.Project, queue, items.Exactly(name))
		if err == nil && n == 0 {
			err = &items.InvalidError{Err: errors.New("the item is not among the completed or failed items (archived ones cannot be queued again)")}
		}
		return err
	})
}

// adminItemDrop is POST /admin/projects/{slug}/item/drop: a failed or
// retired item is dropped for good (it stays seen, so it is not queued
// again).
func (h *Handler) adminItemDrop(w http.ResponseWriter, r *http.Request) error {
	return h.itemAction(w, r, "drop", func(ctx context.Context, live *projects.Live, name string) error {
		stopped, err := h.fromStoppedQueue(ctx, live, name, "")
		if err == nil && !stopped {
			err = &items.InvalidError{Err: errors.New("only failed and retired items are dropped one by one: drain a queue for the others")}
		}
		return err
	})
}

// fromStoppedQueue moves a failed or retired item to queue (a retired one
// with its first score again), or drops it when queue is empty, and says
// whether the item was failed or retired.
func (h *Handler) fromStoppedQueue(ctx context.Context, live *projects.Live, name, queue string) (bool, error) {
	st, err := h.items.LookupNow(ctx, live, name)
	if err != nil || st.Status != items.StatusFailed && st.Status != items.StatusRetired {
		return false, err
	}
	n, err := h.items.MoveQueue(ctx, live.Project, st.Queue, queue, items.Exactly(st.Name))
	if err == nil && n == 0 {
		err = &items.InvalidError{Err: errors.New("the item left its queue meanwhile")}
	}
	return true, err
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
