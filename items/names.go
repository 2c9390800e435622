// Package items is the item engine: queueing names, handing them out to
// warriors as claims, and recording their completion, all in PostgreSQL.
package items

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"tracker/projects"
)

// MaxNameBytes bounds an item name. Names are opaque (usernames, ids, URLs);
// this leaves room for very long URLs while keeping one bad line from
// swallowing memory.
const MaxNameBytes = 8192

// ValidName says why name cannot be an item name, or returns nil. Names are
// any UTF-8 text without NUL (the multi-item separator) or newline (the
// import separator).
func ValidName(name string) error {
	switch {
	case name == "":
		return errors.New("empty item name")
	case len(name) > MaxNameBytes:
		return fmt.Errorf("item name longer than %d bytes", MaxNameBytes)
	case !utf8.ValidString(name):
		return errors.New("item name is not valid UTF-8")
	case strings.ContainsAny(name, "\x00\n\r"):
		return errors.New("item name contains NUL, CR or newline")
	}
	return nil
}

// MaxNickRunes bounds a downloader's nick.
const MaxNickRunes = 64

// ValidNick says why nick cannot name a downloader, or returns nil. Nicks
// are 1-64 letters, digits, marks, '-', '_' and '.': a superset of the
// original tracker's ^[-_a-zA-Z0-9]{3,30}$ that still needs no escaping in
// a page or a path. "." and ".." are refused (a path segment of that name
// is the directory itself or its parent), and so are characters that show
// as nothing, and nicks of combining marks alone: a nick must read as
// something, and as itself.
func ValidNick(nick string) error {
	if nick == "" {
		return errors.New("empty downloader name")
	}
	if nick == "." || nick == ".." {
		return fmt.Errorf("downloader name %q is a path segment of its own", nick)
	}
	if !utf8.ValidString(nick) {
		return errors.New("downloader name is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(nick); n > MaxNickRunes {
		return fmt.Errorf("downloader name longer than %d characters", MaxNickRunes)
	}
	marks := 0
	for _, r := range nick {
		if projects.Invisible(r) {
			return fmt.Errorf("downloader name contains %U, which shows as nothing", r)
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) && !strings.ContainsRune("-_.", r) {
			return fmt.Errorf("downloader name contains %q: use letters, digits, '-', '_' and '.'", r)
		}
		if unicode.IsMark(r) {
			marks++
		}
	}
	if marks == utf8.RuneCountInString(nick) {
		return errors.New("downloader name has only combining marks")
	}
	return nil
}

// ValidVersion says why v cannot be a script version, or returns nil.
// Versions are free text to the tracker, compared part by part.
func ValidVersion(v string) error {
	if len(v) > 64 {
		return errors.New("version longer than 64 characters")
	}
	return ValidLabel("version", v)
}

// ValidLabel says why a short free-text field (a version, a server name)
// cannot be stored: it must be UTF-8 without control characters.
func ValidLabel(field, v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s is not valid UTF-8", field)
	}
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return fmt.Errorf("%s contains a control character", field)
	}
	return nil
}

// DownloaderQueue is the queue of items set aside for one downloader.
func DownloaderQueue(nick string) string { return "downloader:" + nick }

// ValidQueue says why queue cannot name a queue, or returns nil.
func ValidQueue(queue string) error {
	if nick, ok := strings.CutPrefix(queue, "downloader:"); ok {
		if err := ValidNick(nick); err != nil {
			return fmt.Errorf("queue %q: %w", queue, err)
		}
		return nil
	}
	if slices.Contains(projects.StandardQueues, queue) || queue == projects.ErrorQueue || queue == projects.RetiredQueue ||
		slices.Contains(projects.RevisitQueues, queue) {
		return nil
	}
	return fmt.Errorf("unknown queue %q: use todo, backfeed, secondary, redo, error, retired, revisit:00 to revisit:99 or downloader:NICK", queue)
}
