package handlers

import (
	"errors"
	"net/http"
	"strings"

	"tracker/items"
	"tracker/naming"
)

// itemShow answers GET /{project}/items/{item}.json[?shard=S]: where the
// item stands, found by its backfeed key or by its name as queued. The name may hold slashes (URLs); the client escapes the rest.
// Who holds it, its parameters and result only when the project publishes
// them or the viewer runs the project (itemDetails).
func (h *Handler) itemShow(w http.ResponseWriter, r *http.Request) error {
	live, err := h.readProject(r)
	if err != nil {
		return err
	}
	name, ok := strings.CutSuffix(r.PathValue("item"), ".json")
	if !ok {
		return errorf(http.StatusNotFound, "not-found", "item addresses end in .json")
	}
	if err := naming.ValidName(name); err != nil {
		return errorf(http.StatusBadRequest, "invalid-item", "%v", err)
	}
	// A backfeed key is looked up in its shard when one is named.
	shard := r.URL.Query().Get("shard")
	if err := items.ValidShard(shard); err != nil {
		return errorf(http.StatusBadRequest, "invalid-shard", "%v", err)
	}
	st, err := h.reads.statuses.Lookup(r.Context(), live, shard, name)
	if errors.Is(err, items.ErrUnknownItem) {
		return errorf(http.StatusNotFound, "unknown-item", "the project has no item %q", name)
	}
	if err != nil {
		return err
	}
	full, err := h.itemDetails(w, r, live)
	if err != nil {
		return err
	}
	if !full {
		st = st.Public()
	}
	return writeJSON(w, http.StatusOK, st)
}
