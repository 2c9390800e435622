package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
	"tracker/views"
)

// selectionAction is an action of the queue browser on the items ticked
// (the form's "name" values) of list source: like the panel's other bulk
// actions, it first says how many items it will touch (question and
// button, from the count) and runs only once the admin confirmed; then it
// goes back to the page it came from with what it did (done, from the
// count done). A refusal shows the page again with the reason. One that
// cannot be undone (destructive) asks as the panel's other drops do: red,
// the source's name typed.
type selectionAction struct {
	source      string
	destructive bool
	question    func(n int64) (string, string)
	run         func(ctx context.Context, p projects.Project, names []string) (int64, error)
	done        func(n int64) string
}

func (h *Handler) onSelection(w http.ResponseWriter, r *http.Request, p projects.Project, a selectionAction) error {
	ctx, names := r.Context(), r.PostForm["name"]
	bs, err := browseStateOf(r.PostForm)
	if err != nil {
		return err
	}
	if !confirmed(r) || a.destructive && r.PostForm.Get("confirm") != a.source {
		n, err := h.adm.items.CountSelected(ctx, p, a.source, names)
		if err != nil {
			return h.refuseBrowse(w, r, p, err)
		}
		if n == 0 {
			return h.renderBrowse(w, r, p, refused("nothing-left", fmt.Sprintf("None of the %s items ticked is in %s now: nothing to do.",
				views.FormatInt(int64(len(names))), a.source)))
		}
		question, button := a.question(n)
		if int(n) < len(names) {
			question += fmt.Sprintf(" (Of the %s items ticked, the others are no longer in %s.)", views.FormatInt(int64(len(names))), a.source)
		}
		if a.destructive {
			return h.askDestructive(w, r, p, "browse", confirmation{question: question, button: button, typed: a.source})
		}
		return h.askConfirmation(w, r, p, "browse", question, button, "")
	}
	n, err := a.run(ctx, p, names)
	if err != nil {
		return h.refuseBrowse(w, r, p, err)
	}
	return h.redirectWithFlash(w, r, bs.url(p, bs.place()), a.done(n))
}

// refuseBrowse shows the browser again with the reason of an action the
// engine refused (400, its reason in X-Tracker-Reason); other errors are
// returned.
func (h *Handler) refuseBrowse(w http.ResponseWriter, r *http.Request, p projects.Project, err error) error {
	st, ok := invalid(err)
	if !ok {
		return err
	}
	return h.renderBrowse(w, r, p, st)
}

// formQueue is the queue a browser's form names in field key ("" when
// none), or an Invalid refusal (unknown-queue) when that is no queue's name.
func formQueue(r *http.Request, key string) (string, error) {
	q := strings.TrimSpace(r.PostForm.Get(key))
	if q == "" {
		return "", nil
	}
	if err := naming.ValidQueue(q); err != nil {
		return "", refusal.New(refusal.Invalid, "unknown-queue", err)
	}
	return q, nil
}
