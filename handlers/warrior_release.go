package handlers

import (
	"errors"
	"net/http"
	"strings"

	"tracker/items"
)

// releaseBody is a release's: whose claims, of which items (NUL-joined).
type releaseBody struct {
	Downloader string `json:"downloader"`
	Item       string `json:"item"`
}

// warriorRelease gives claimed items back to their queue: only the
// claims of the "downloader" the body names. Naming an item someone else
// holds, or (claimer_network) one claimed from another network, releases
// nothing (403 not-your-claim): admins release anyone's claims from the
// panel. Without a downloader (what a grab script turning an item down may
// send), the claims made from the caller's network are released, and
// nothing when any named was claimed elsewhere: the item goes to another
// warrior at once instead of waiting for its claim to run out, which
// would count against the warrior under expired_claims_limit.
func (h *Handler) warriorRelease(w http.ResponseWriter, r *http.Request) error {
	live, body, release, err := warriorCall[releaseBody](h, w, r, maxWarriorBody)
	if err != nil {
		return err
	}
	defer release()
	p := live.Project
	names := strings.Split(body.Item, "\x00")
	var released []string
	if body.Downloader == "" {
		released, err = h.items.ReleaseOwn(r.Context(), p, names, clientIP(r))
		if errors.Is(err, items.ErrNotHeld) {
			return errorf(http.StatusForbidden, "not-your-claim", "A release without a downloader gives back only items claimed from its own network.")
		}
	} else {
		released, err = h.items.ReleaseFrom(r.Context(), p, names, body.Downloader, clientIP(r))
		if errors.Is(err, items.ErrNotHeld) {
			return errorf(http.StatusForbidden, "not-your-claim", "Another downloader holds this item, or it was claimed from another network.")
		}
	}
	if err != nil {
		return err
	}
	if len(released) == 0 {
		return errorf(http.StatusNotFound, "not-claimed", "Invalid item.")
	}
	return writeText(w, http.StatusOK, "Released OK.\n")
}
