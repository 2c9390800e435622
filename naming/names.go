// Package naming holds what the tracker's names must be and how they
// compare: item names, nicks, free-text labels and script versions, and
// the names of the queues items wait in. It imports no other package of
// the tracker, so any of them can use it without the item engine.
package naming

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
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
		if Invisible(r) {
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

// Invisible says whether r shows as nothing: format characters (zero-width
// joiners, bidirectional marks), variation selectors, and the other
// default-ignorable code points (the Hangul fillers, the combining
// grapheme joiner).
func Invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// MaxVersionBytes bounds a script version.
const MaxVersionBytes = 64

// ValidVersion says why v cannot be a script version, or returns nil.
// Versions are free text to the tracker, compared part by part.
func ValidVersion(v string) error {
	if len(v) > MaxVersionBytes {
		return fmt.Errorf("version longer than %d characters", MaxVersionBytes)
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
