package handlers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"tracker/items"
	"tracker/projects"
	"tracker/refusal"
)

// adminItemRelease is POST /admin/projects/{slug}/item/release: a claimed
// item ("name") goes back to its queue.
func (h *Handler) adminItemRelease(w http.ResponseWriter, r *http.Request) error {
	return h.itemAction(w, r, "release", nil, func(ctx context.Context, live *projects.Live, name string) error {
		released, err := h.items.ReleaseItem(ctx, live.Project, name)
		if err == nil && !released {
			err = refusal.New(refusal.Invalid, "", errors.New("the item is not claimed"))
		}
		return err
	})
}

// adminItemRequeue is POST /admin/projects/{slug}/item/requeue: a
// completed item is queued again in "queue" (redo by default), a failed one
// (todo by default) with a fresh count of hand-outs, a retired one (todo by
// default) with its first score.
func (h *Handler) adminItemRequeue(w http.ResponseWriter, r *http.Request) error {
	return h.itemAction(w, r, "requeue", nil, func(ctx context.Context, live *projects.Live, name string) error {
		if stopped, err := h.fromStoppedQueue(ctx, live, name, cmp.Or(strings.TrimSpace(r.PostForm.Get("queue")), "todo")); stopped || err != nil {
			return err
		}
		queue := cmp.Or(strings.TrimSpace(r.PostForm.Get("queue")), "redo")
		n, err := h.items.RequeueDone(ctx, live.Project, queue, items.Exactly(name))
		if err == nil && n == 0 {
			err = refusal.New(refusal.Invalid, "", errors.New("the item is not among the completed or failed items (archived ones cannot be queued again)"))
		}
		return err
	})
}

// adminItemDrop is POST /admin/projects/{slug}/item/drop: a failed or
// retired item is dropped for good (it stays seen, so it is not queued
// again), once confirmed.
func (h *Handler) adminItemDrop(w http.ResponseWriter, r *http.Request) error {
	return h.itemAction(w, r, "drop", func(st items.ItemStatus) (confirmation, error) {
		if st.Status != items.StatusFailed && st.Status != items.StatusRetired {
			return confirmation{}, errDropNotStopped
		}
		return confirmation{
			question: fmt.Sprintf("This drops the %s item %s (in %s, handed out %d times) for good: it stays seen, so backfeed does not queue it again.",
				st.Status, st.Name, st.Queue, st.ClaimCount),
			button: "Drop " + st.Name,
		}, nil
	}, func(ctx context.Context, live *projects.Live, name string) error {
		stopped, err := h.fromStoppedQueue(ctx, live, name, "")
		if err == nil && !stopped {
			err = errDropNotStopped
		}
		return err
	})
}

// errDropNotStopped refuses to drop an item of a queue served from.
var errDropNotStopped = refusal.New(refusal.Invalid, "", errors.New("only failed and retired items are dropped one by one: drain a queue for the others"))

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
		err = refusal.New(refusal.Invalid, "", errors.New("the item left its queue meanwhile"))
	}
	return true, err
}

// adminItemDone is POST /admin/projects/{slug}/item/done: a queued or
// claimed item is completed by hand, once confirmed.
func (h *Handler) adminItemDone(w http.ResponseWriter, r *http.Request) error {
	return h.itemAction(w, r, "done", func(st items.ItemStatus) (confirmation, error) {
		where := "queued in " + st.Queue + ", completed in your name"
		switch st.Status {
		case items.StatusClaimed:
			where = "out with " + st.Downloader + ", completed in their name"
		case items.StatusFailed:
			where = "failed, in " + st.Queue + ", completed in your name"
		case items.StatusTodo:
		default:
			return confirmation{}, refusal.New(refusal.Invalid, "", fmt.Errorf("the item is %s, not queued, failed or claimed", st.Status))
		}
		return confirmation{
			question: fmt.Sprintf("This marks the item %s (%s) done by hand, with no bytes: it is handed out no more.", st.Name, where),
			button:   "Mark " + st.Name + " done",
		}, nil
	}, func(ctx context.Context, live *projects.Live, name string) error {
		return h.items.MarkDone(ctx, live, name, account(r).Username)
	})
}

// itemAction runs an action on the item a form names and shows the item
// again. An action that cannot be undone has ask, which says what it will do
// to the item as it is now (or why it cannot): it runs once confirmed.
func (h *Handler) itemAction(w http.ResponseWriter, r *http.Request, action string,
	ask func(items.ItemStatus) (confirmation, error), fn func(context.Context, *projects.Live, string) error) error {
	p, err := h.adminProjectForm(w, r)
	if err != nil {
		return err
	}
	ctx, name := r.Context(), r.PostForm.Get("name")
	live, err := h.live.Get(ctx, p.Slug)
	if err != nil {
		return err
	}
	if ask != nil && !confirmed(r) {
		var st items.ItemStatus
		var c confirmation
		if st, err = h.items.LookupNow(ctx, live, name); err == nil {
			if c, err = ask(st); err == nil {
				c.back = "/admin/projects/" + p.Slug + "/?item=" + url.QueryEscape(name)
				return h.askDestructive(w, r, p, "", c)
			}
		}
	} else {
		err = fn(ctx, live, name)
	}
	if st, ok := invalid(err); ok {
		st.err = name + ": " + st.err
		return h.renderOverview(w, r, p, st)
	}
	if errors.Is(err, items.ErrUnknownItem) {
		return h.renderOverview(w, r, p, refused("unknown-item", name+": "+err.Error()))
	}
	if err != nil {
		return err
	}
	return h.redirectWithFlash(w, r, "/admin/projects/"+p.Slug+"/?item="+url.QueryEscape(name), name+": "+action+" done.")
}
