package handlers

import (
	"context"
	"fmt"
	"strings"

	"tracker/projects"
	"tracker/views"
)

// The settings a form of the panel changes that cannot be taken back by
// saving the old value again: what they set off (grab scripts refused,
// warriors sent away, completions thrown away) has happened by then. A
// settings form that changes one goes through the same confirmation as
// the action of its own (the backfeed key's button), the slug typed:
// whatever form an admin uses, the change is asked about alike.

// irreversibleChanges says, one sentence each, what the changes (key to
// new value) of a settings form do that cannot be undone; none when they
// are all harmless.
func (h *Handler) irreversibleChanges(ctx context.Context, p projects.Project, changes map[string]string) ([]string, error) {
	var out []string
	if _, ok := changes["backfeed_key"]; ok {
		q, err := h.backfeedKeyQuestion(ctx, p)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	if v, ok := changes["finished"]; ok {
		if v == "true" {
			out = append(out, fmt.Sprintf("This marks %s finished: it leaves the warriors' project list, every warrior running it stops at its next update and those on auto move to another project; its requests are answered 404 finished.", p.Slug))
		} else {
			out = append(out, fmt.Sprintf("This marks %s as running again: warriors are handed its items, and it may become their auto project.", p.Slug))
		}
	}
	if v, ok := changes["hidden"]; ok {
		if v == "true" {
			out = append(out, fmt.Sprintf("This hides %s: it leaves the home page and the warriors' project list, so every warrior running it stops at its next update.", p.Slug))
		} else {
			out = append(out, fmt.Sprintf("This shows %s again on the home page and in the warriors' project list, to every warrior.", p.Slug))
		}
	}
	if v, ok := changes["mode"]; ok {
		effect := "a done then schedules the item's next visit instead of finishing it, and items go out highest score first."
		if v == projects.ModeOnce {
			effect = "a done then finishes the item for good, and the items waiting for their next visit are visited no more."
		}
		out = append(out, fmt.Sprintf("This changes the mode of %s from %s to %s: %s", p.Slug, p.Config.Mode, v, effect))
	}
	if v, ok := changes["archive_mode"]; ok && v == "discard" {
		out = append(out, fmt.Sprintf("This makes %s discard the completions it archives: only their counts are kept, and the items can no longer be looked up.", p.Slug))
	}
	return out, nil
}

// backfeedKeyQuestion is what a new backfeed key does, asked before it is
// made by its button or typed in the settings.
func (h *Handler) backfeedKeyQuestion(ctx context.Context, p projects.Project) (string, error) {
	b, _, _, err := h.stats.Board(ctx, p)
	if err != nil {
		return "", err
	}
	var backfed int64
	for _, s := range b.Shards {
		backfed += s.New
	}
	return fmt.Sprintf("This replaces the backfeed key of %s. Every running grab script posts the items it finds "+
		"to the old URL, which stops working at once: their backfeed is refused until each script is given the new URL. "+
		"Backfeed queued %s items in the last hour.", p.Slug, views.FormatInt(backfed)), nil
}

// saveButton is the confirmation's button for a save of the keys changed.
func saveButton(p projects.Project, changed []string) string {
	return "Save " + strings.Join(changed, ", ") + " of " + p.Slug
}
