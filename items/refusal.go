package items

import (
	"fmt"
	"time"
)

// Reasons a request gets no item. They travel to the warrior as the
// X-Tracker-Reason header, so they are part of the protocol.
const (
	ReasonPaused                = "paused"
	ReasonFinished              = "finished"
	ReasonVersion               = "version-too-old"
	ReasonBlocked               = "blocked"
	ReasonRateLimited           = "rate-limited"
	ReasonTypeRateLimited       = "type-rate-limited"
	ReasonClaimsLimit           = "claims-limit"
	ReasonDownloaderClaimsLimit = "downloader-claims-limit"
	ReasonTooManyExpired        = "too-many-expired"
	ReasonSitesWaiting          = "sites-waiting"
	ReasonNoItems               = "no-items"
)

// Refusal is a request the engine turned down, and why.
type Refusal struct {
	Reason string
	Detail string
	// RetryAfter is when trying again makes sense (0: no advice).
	RetryAfter time.Duration
}

func (r *Refusal) Error() string {
	if r.Detail == "" {
		return r.Reason
	}
	return fmt.Sprintf("%s: %s", r.Reason, r.Detail)
}
