package handlers

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// APIRate is how many requests an API token makes a second, on average,
// with a burst of APIBurst: a bot queueing items, a script polling counts.
// The throttle is each process's, per token: one token's loop never takes
// another's turn, and a token past its rate is refused 429
// token-throttled with Retry-After.
const (
	APIRate  = 5
	APIBurst = 20
)

// An address that sends badTokenLimit tokens that are none within
// badTokenWindow is refused 429 too-many-bad-tokens until the window
// ends: a secret of 256 bits is not guessed, but each guess costs a read
// of the database.
const (
	badTokenLimit  = 20
	badTokenWindow = 10 * time.Minute
)

// tokenThrottle holds a rate limiter per token that made a request. Only
// a token that authenticated gets one, so there are at most as many as
// there are tokens.
type tokenThrottle struct {
	mu    sync.Mutex
	rate  rate.Limit
	burst int
	by    map[int32]*rate.Limiter
}

func newTokenThrottle(perSecond float64, burst int) *tokenThrottle {
	return &tokenThrottle{rate: rate.Limit(perSecond), burst: burst, by: map[int32]*rate.Limiter{}}
}

// allow takes a request of token id from its allowance, or says in how
// many seconds it would have one.
func (t *tokenThrottle) allow(id int32) (retryAfter int, ok bool) {
	t.mu.Lock()
	l := t.by[id]
	if l == nil {
		l = rate.NewLimiter(t.rate, t.burst)
		t.by[id] = l
	}
	t.mu.Unlock()
	res := l.Reserve()
	if d := res.Delay(); d > 0 {
		res.Cancel() // refused: it takes nothing from the allowance
		return int(math.Ceil(max(d, time.Second).Seconds())), false
	}
	return 0, true
}
