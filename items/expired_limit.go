package items

import (
	"context"
	"net/netip"
	"strconv"
	"time"

	"tracker/addrkey"
	"tracker/db"
	"tracker/projects"
)

// expiredList is a project's downloaders at or over its
// expired_claims_limit, as read at a moment: a request checks it in memory
// instead of counting its downloader's expiries with a statement of its own.
type expiredList struct {
	read     time.Time
	reclaims int64 // the project's reclaims when read: a new expiry reads it again
	limit    int64
	over     map[expiredKey]int64
}

// expiredKey is whom the limit counts expiries of: a nick from a network
// of addresses (addrkey.Of). A nick is anyone's to send, so a nick alone
// would let a stranger who claims under it and lets the claims run out get
// its warrior refused.
type expiredKey struct {
	nick    string
	network netip.Prefix
}

func expiredKeyOf(nick string, ip *netip.Addr) expiredKey {
	k := expiredKey{nick: nick}
	if ip != nil {
		k.network = addrkey.Of(*ip)
	}
	return k
}

// expiredListTTL is how long a list serves: the limit lifts at most this
// late.
const expiredListTTL = time.Second

// tooManyExpired says how many claims nick made from ip's network expired
// in the last ExpiredClaimsWindow when that reaches the project's
// expired_claims_limit, else 0. The list it reads is read again once a
// second, and as soon as the project counts a claim more that expired.
func (e *Engine) tooManyExpired(ctx context.Context, live *projects.Live, nick string, ip netip.Addr) (int64, error) {
	limit := live.Config.ExpiredClaimsLimit
	e.mu.Lock()
	l := e.expired[live.ID]
	fresh := l != nil && l.limit == limit && l.reclaims == live.Summary.Reclaims && time.Since(l.read) < expiredListTTL
	e.mu.Unlock()
	if !fresh {
		// Requests that find the list stale together share one read, which
		// one of them going away must not cut short for the others.
		v, err, _ := e.expiredReads.Do(strconv.Itoa(int(live.ID)), func() (any, error) {
			ctx := context.WithoutCancel(ctx)
			now := time.Now()
			rows, err := e.q.ClaimExpiriesOverLimit(ctx, db.ClaimExpiriesOverLimitParams{ProjectID: live.ID,
				Since: now.Add(-ExpiredClaimsWindow), AtLeast: limit})
			if err != nil {
				return nil, err
			}
			l := &expiredList{read: now, reclaims: live.Summary.Reclaims, limit: limit, over: make(map[expiredKey]int64, len(rows))}
			for _, r := range rows {
				l.over[expiredKeyOf(r.Downloader, r.IP)] += r.Expired
			}
			for k, n := range l.over {
				if n < limit {
					delete(l.over, k)
				}
			}
			e.mu.Lock()
			e.expired[live.ID] = l
			e.mu.Unlock()
			return l, nil
		})
		if err != nil {
			return 0, err
		}
		l = v.(*expiredList)
	}
	return l.over[expiredKeyOf(nick, &ip)], nil
}
