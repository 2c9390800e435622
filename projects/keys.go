package projects

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"tracker/refusal"
)

// A Key is one setting operators change, of a project (Keys) or of the
// tracker (SettingKeys): how it is written (`project set SLUG KEY=VALUE`,
// `settings set KEY=VALUE`), where the admin panel asks for it, what it
// does, and who may change it. The one table is read by the CLI, the
// admin forms and their validation.
type Key[T any] struct {
	Name string
	// Label names the key for people.
	Label string
	// Section is the admin page that holds the key.
	Section Section
	Input   Input
	// Choices are the values of an InputChoice key.
	Choices []string
	// Unit is shown after a number ("seconds", "items a minute").
	Unit string
	Help string
	// GlobalOnly keys are changed by global admins only: HTML that every
	// warrior's web interface shows, and the project's visibility.
	GlobalOnly bool
	// Mode is the project mode the key means something in (ModeOnce,
	// ModeRecurring; "" for both): the panel shows it only there.
	Mode string
	// Range is the whole numbers an InputCount key takes; nil for the
	// other inputs.
	Range *Range
	// field is an InputCount key's value, for clampCounts.
	field func(t *T) *int64
	set   func(t *T, value string) error
	get   func(t T) string
}

// Range is the whole numbers a count key takes, stated once: the key's
// parsing refuses a value outside it, a stored value outside it is read
// clamped into it, the admin form bounds its field with it and shows it
// beside the help, and the docs test holds the operators' table to it.
// Every bound keeps the engine's arithmetic on the value (seconds to
// microseconds, now ± seconds, sums of counts) inside PostgreSQL's ranges.
type Range struct {
	Min, Max int64
	// Zero is what 0 means, for a key that takes it ("no limit", "never").
	Zero string
}

// count is k as a whole-number key: the field f of T, within r.
func count[T any](k Key[T], f func(t *T) *int64, r Range) Key[T] {
	k.Input, k.Range, k.field = InputCount, &r, f
	k.set = func(t *T, s string) error {
		n, err := parseCount(s)
		if err != nil || n < r.Min || n > r.Max {
			return fmt.Errorf("%q: a whole number from %d to %d", s, r.Min, r.Max)
		}
		*f(t) = n
		return nil
	}
	k.get = func(t T) string { return strconv.FormatInt(*f(&t), 10) }
	return k
}

// clampCounts brings the value of every count key of t into its range: a
// value stored before a bound existed, or written into the database by
// hand, works as the nearest one the key takes rather than failing the
// statements that use it.
func clampCounts[T any](keys []Key[T], t *T) {
	for _, k := range keys {
		if k.field != nil {
			v := k.field(t)
			*v = min(max(*v, k.Range.Min), k.Range.Max)
		}
	}
}

// Section names an admin page of a project's settings.
type Section string

const (
	SectionQueues   Section = "queues"
	SectionClaims   Section = "claims"
	SectionLimits   Section = "limits"
	SectionWarriors Section = "warriors"
	SectionArchive  Section = "archive"
)

// Input says how the admin form asks for a key.
type Input string

const (
	InputBool     Input = "bool"     // a checkbox; "true" or "false"
	InputChoice   Input = "choice"   // one of Choices
	InputCount    Input = "count"    // a whole number ≥ 0 in Unit
	InputText     Input = "text"     // one line
	InputList     Input = "list"     // comma-separated values
	InputURL      Input = "url"      // an http(s) URL or nothing
	InputHTML     Input = "html"     // HTML, shown with a preview
	InputDateTime Input = "datetime" // a moment, in UTC
)

// Set changes the key of t from its text form.
func (k Key[T]) Set(t *T, value string) error {
	if err := k.set(t, value); err != nil {
		return &FieldError{Key: k.Name, Err: err}
	}
	return nil
}

// Value is the key of t in the text form Set takes.
func (k Key[T]) Value(t T) string { return k.get(t) }

// FieldError is a value a key does not take.
type FieldError struct {
	Key string
	Err error
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// FieldErrors are the keys of one change that were refused: the admin form
// shows each next to its field.
type FieldErrors map[string]string

func (e FieldErrors) Error() string {
	parts := make([]string, 0, len(e))
	for _, k := range slices.Sorted(maps.Keys(e)) {
		parts = append(parts, k+": "+e[k])
	}
	return strings.Join(parts, "; ")
}

// fieldErrors gathers the errors of a change by key, refused as an
// invalid configuration; nil when there are none.
func fieldErrors(errs ...error) error {
	out := FieldErrors{}
	for _, err := range errs {
		var fe *FieldError
		if errors.As(err, &fe) {
			out[fe.Key] = fe.Err.Error()
		} else if err != nil {
			return err
		}
	}
	if len(out) == 0 {
		return nil
	}
	return refusal.New(refusal.Invalid, "invalid-config", out)
}

// lookup finds a key by name.
func lookup[T any](keys []Key[T], name, what string) (Key[T], error) {
	for _, k := range keys {
		if k.Name == name {
			return k, nil
		}
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return Key[T]{}, fmt.Errorf("unknown %s %q: the %ss are %s", what, name, what, strings.Join(names, ", "))
}

// apply applies KEY=VALUE assignments to t, all or none, gathering the
// refusals by key.
func apply[T any](keys []Key[T], t *T, assignments []string, what string) error {
	var errs []error
	for _, a := range assignments {
		name, value, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q: write KEY=VALUE", a)
		}
		k, err := lookup(keys, name, what)
		if err != nil {
			return err
		}
		errs = append(errs, k.Set(t, value))
	}
	return fieldErrors(errs...)
}
