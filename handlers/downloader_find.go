package handlers

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"tracker/naming"
	"tracker/views"
)

// downloaderFind is GET /{project}/downloader?nick=NICK, the board's nick
// box: it sends the browser to the nick's page on the project, which says
// so when the nick has done nothing there yet.
func (h *Handler) downloaderFind(w http.ResponseWriter, r *http.Request) error {
	live, err := h.readProject(r)
	if err != nil {
		return err
	}
	nick := strings.TrimSpace(r.URL.Query().Get("nick"))
	switch {
	case nick == "":
		return errorf(http.StatusBadRequest, "nick-missing", "type a downloader's nick to find their page")
	case !utf8.ValidString(nick) || utf8.RuneCountInString(nick) > naming.MaxNickRunes:
		return errorf(http.StatusBadRequest, "nick-too-long", "a nick is at most %d characters of UTF-8", naming.MaxNickRunes)
	}
	http.Redirect(w, r, "/"+live.Slug+"/downloader/"+views.PathEscape(nick), http.StatusSeeOther)
	return nil
}
