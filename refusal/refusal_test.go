package refusal_test

import (
	"errors"
	"fmt"
	"testing"

	"tracker/refusal"
)

// A refusal is found through the errors that wrap it, and itself wraps
// its cause.
func TestOf(t *testing.T) {
	t.Parallel()
	cause := errors.New("no such queue")
	ref := refusal.New(refusal.Invalid, "unknown-queue", cause)
	wrapped := fmt.Errorf("moving items: %w", ref)
	if got, ok := refusal.Of(wrapped); !ok || got != ref || !errors.Is(wrapped, cause) || !refusal.IsInvalid(wrapped) {
		t.Fatalf("Of(%v) = %v, %v", wrapped, got, ok)
	}
	if refusal.IsInvalid(refusal.New(refusal.NotFound, "", cause)) || refusal.IsInvalid(cause) || refusal.IsInvalid(nil) {
		t.Fatal("IsInvalid took another kind, or no refusal")
	}
	if e := refusal.Invalidf("bad-pattern", "invalid pattern: %w", cause); e.Error() != "invalid pattern: no such queue" || !errors.Is(e, cause) {
		t.Fatalf("Invalidf: %v", e)
	}
}
