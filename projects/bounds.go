package projects

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"tracker/refusal"
)

// Bounds of the text admins enter (in the panel or the shell), each set by
// what the text feeds. They are checked where the text is stored, so the
// panel and the shell share them; `tracker check` finds a stored text past
// its bound (books: BooksBlocksLong and the like).
const (
	// MaxBlockReason: a block's reason ends the refusal line a warrior
	// prints for every request of the nick or address it blocks.
	MaxBlockReason = 256
	// MaxBlockNick bounds a nick block's value: a nick is at most 64
	// characters, of up to four bytes each.
	MaxBlockNick = 256
	// MaxURL bounds a URL an admin enters (an upload target, which every
	// upload answer carries; a repository or logo, which the projects
	// file and the pages carry): what browsers, curl and rsync take, with
	// room to spare.
	MaxURL = 2048
	// MaxTitle bounds a project's title: the warriors' project list and
	// the pages show it.
	MaxTitle = 1024
	// MaxText bounds the free text of the pages and the projects file
	// (description, marker_html, broadcast_message, tracker_banner_html).
	MaxText = 16 << 10
	// MaxHost bounds the host key: a DNS name is at most 253 characters.
	MaxHost = 255
	// MaxMinVersion bounds min_version, a script version (at most 64
	// characters, as a warrior's own).
	MaxMinVersion = 64
	// MaxListed bounds the entries of the list keys (domains,
	// type_limits): every done is checked against the domains, every
	// claim reads the limited types; a done names at most 100 domains.
	MaxListed = 100
)

// TooLongError is a text an admin entered past its bound.
type TooLongError struct {
	Field string
	Max   int
}

func (e *TooLongError) Error() string { return fmt.Sprintf("%s: at most %d bytes", e.Field, e.Max) }

// boundedLine checks a one-line text an admin entered: at most max bytes
// of UTF-8, no control characters (it is printed as a line).
func boundedLine(field, s string, max int) error {
	if len(s) > max {
		return refusal.New(refusal.Invalid, "too-long", &TooLongError{Field: field, Max: max})
	}
	if !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return refusal.New(refusal.Invalid, "invalid-form", &FieldError{Key: field, Err: errors.New("one line of UTF-8, without control characters")})
	}
	return nil
}
