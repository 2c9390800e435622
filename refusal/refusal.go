// Package refusal is the one error type of a request refused for what it
// asked, not for a failure of the tracker: an invalid value, a thing that
// does not exist, a change that conflicts with the state, a client asking
// too often. Every package returns its refusals as an *Error of a Kind
// with a Reason for machines; the handlers answer each Kind with its one
// status (handlers/errors.go), so no package's refusal becomes a 500. It
// imports no other package of the tracker.
package refusal

import (
	"errors"
	"fmt"
	"time"
)

// Kind is what sort of refusal an Error is, which decides its status.
type Kind uint8

const (
	// Invalid: the request cannot be done as asked (400).
	Invalid Kind = iota + 1
	// NotFound: what it names does not exist (404).
	NotFound
	// Conflict: what it would make exists already, or the state it
	// assumed changed meanwhile (409).
	Conflict
	// Throttled: too many such requests lately (429, after RetryAfter).
	Throttled
)

// Error is a refusal: its Kind, a short Reason for machines (sent as
// X-Tracker-Reason; empty for the Kind's general one) and Err, why, for
// people.
type Error struct {
	Kind   Kind
	Reason string
	Err    error
	// RetryAfter is when asking again makes sense (0: no advice).
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// New is a refusal of kind for reason, err saying why.
func New(kind Kind, reason string, err error) *Error {
	return &Error{Kind: kind, Reason: reason, Err: err}
}

// Invalidf is an Invalid refusal for reason, its message formatted as
// fmt.Errorf formats (%w wraps).
func Invalidf(reason, format string, args ...any) *Error {
	return New(Invalid, reason, fmt.Errorf(format, args...))
}

// Of is err's refusal, if err is or wraps one.
func Of(err error) (*Error, bool) {
	return errors.AsType[*Error](err)
}

// IsInvalid says whether err is or wraps an Invalid refusal.
func IsInvalid(err error) bool {
	e, ok := Of(err)
	return ok && e.Kind == Invalid
}
