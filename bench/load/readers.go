package load

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"
)

// ReaderRoutes are what a reader reads in turn: an item's status (a name
// handed out lately), the board, stats.json and the project list. With
// itemsOnly, item status alone.
func (l *Load) ReaderRoutes(itemsOnly bool) []func() (string, string) {
	item := func() (string, string) {
		name, _ := l.sample.Load().(string)
		if name == "" {
			name = "item:1"
		}
		return "lookup", "/" + l.Project + "/items/" + url.PathEscape(name) + ".json"
	}
	if itemsOnly {
		return []func() (string, string){item}
	}
	return []func() (string, string){
		item,
		func() (string, string) { return "board", "/" + l.Project + "/" },
		func() (string, string) { return "stats.json", "/" + l.Project + "/stats.json" },
		func() (string, string) { return "projects.json", "/projects.json" },
	}
}

// RouteReader reads routes in turn, as fast as it is answered. A refusal
// (503 with Retry-After when the readers' share is taken) makes it pause
// as the warriors do after one.
func (l *Load) RouteReader(ctx context.Context, routes []func() (string, string), start int) {
	c := Client()
	for i := start; ctx.Err() == nil; i++ {
		endpoint, path := routes[i%len(routes)]()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.Base+path, nil)
		code, _, err := l.Do(c, endpoint, req)
		if err != nil || code >= 300 && code != http.StatusNotFound {
			Pause(ctx, code)
		}
	}
}

// AdminSearches are what an admin searches in turn: a nested lookahead
// (what PostgreSQL cannot bound; the tracker refuses it), and nested
// quantifiers that match nothing, so the page reads every name (what
// PostgreSQL matches in linear time; the tracker runs it).
var AdminSearches = []struct{ Endpoint, Pattern string }{
	{"search-lookahead", "(?=.*(?=.*(?=.*q)))z"},
	{"search-scan", "(x+x+)+y"},
}

// AdminSearcher searches project's queue in the browser with each of
// AdminSearches in turn, as fast as it is answered; a refusal for want of
// a turn (503) makes it pause as the readers do.
func (l *Load) AdminSearcher(ctx context.Context, c *http.Client, project string, start int) {
	for i := start; ctx.Err() == nil; i++ {
		s := AdminSearches[i%len(AdminSearches)]
		q := url.Values{"source": {"todo"}, "contains": {s.Pattern}, "regex": {"1"}}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.Base+"/admin/projects/"+project+"/browse?"+q.Encode(), nil)
		code, _, err := l.Do(c, s.Endpoint, req)
		if err != nil || code >= 500 {
			Pause(ctx, code)
		}
	}
}

// BoundClient is Client() with its connections leaving from addr.
func BoundClient(addr netip.Addr) *http.Client {
	c := Client()
	d := &net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)), Timeout: 20 * time.Second}
	c.Transport.(*http.Transport).DialContext = d.DialContext
	return c
}
