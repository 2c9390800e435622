package handlers

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"tracker/items"
)

// adminItemsAdd is POST /admin/projects/{slug}/items, a multipart form:
// "queue", then "names" (pasted) and/or "file" (uploaded). Parts are read
// as they arrive: a 10,000,000-line file streams into the queue without
// the server holding it.
func (h *Handler) adminItemsAdd(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, 8<<30)
	mr, err := r.MultipartReader()
	if err != nil {
		return errorf(http.StatusBadRequest, "bad-form", "send the items as multipart/form-data")
	}
	queue := "todo"
	var total items.AddResult
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return errorf(http.StatusBadRequest, "bad-form", "reading the form: %v", err)
		}
		switch part.FormName() {
		case "queue":
			b, _ := io.ReadAll(io.LimitReader(part, 256))
			if queue = strings.TrimSpace(string(b)); queue == "" {
				queue = "todo"
			}
			if err := items.ValidQueue(queue); err != nil {
				return h.renderQueues(w, r, p, refused(err.Error()))
			}
		case "names", "file":
			res, err := h.items.Add(r.Context(), p, queue, part)
			addResults(&total, res)
			if err != nil {
				return err
			}
		}
		part.Close()
	}
	msg := fmt.Sprintf("Added %d to %s, skipped %d seen before", total.Added, queue, total.Skipped)
	if total.Invalid > 0 {
		msg += fmt.Sprintf(", left out %d invalid lines (%s)", total.Invalid, strings.Join(total.InvalidLines, "; "))
	}
	return h.toSection(w, r, p, "queues", msg+".")
}

func addResults(total *items.AddResult, r items.AddResult) {
	total.Added += r.Added
	total.Skipped += r.Skipped
	total.Invalid += r.Invalid
	total.InvalidLines = append(total.InvalidLines, r.InvalidLines...)
}
