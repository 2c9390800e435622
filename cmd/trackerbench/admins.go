package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Admins beside warriors: whether admins searching the queue browser with
// costly regular expressions slow the warriors down. Before the admin
// panel read through a pool of its own, searches with nested lookaheads
// over 10,000 names of 8 KB held the warriors' connections for up to a
// minute each. The warriors run alone and beside the admins in turn, as
// in the readers scenario (readers.go).

const (
	// searchNames are the names of the project the admins search, each
	// of searchNameBytes: a page of the browser reads them all.
	searchNames     = 10_000
	searchNameBytes = 8000
	benchAdmin      = "benchadmin"
	benchPassword   = "correct horse battery staple"
)

// adminSearches are what an admin searches in turn: a nested lookahead
// (what PostgreSQL cannot bound; the tracker refuses it), and nested
// quantifiers that match nothing, so the page reads every name (what
// PostgreSQL matches in linear time; the tracker runs it).
var adminSearches = []struct{ endpoint, pattern string }{
	{"search-lookahead", "(?=.*(?=.*(?=.*q)))z"},
	{"search-scan", "(x+x+)+y"},
}

// signIn is a browser signed in to the admin panel as the bench's admin.
func (b *bench) signIn() (*http.Client, error) {
	jar, _ := cookiejar.New(nil)
	c := client()
	c.Jar = jar
	c.Timeout = time.Minute // a search may take long before the fix
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	form := url.Values{"username": {benchAdmin}, "password": {benchPassword}}
	req, _ := http.NewRequest(http.MethodPost, b.url+"/admin/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("admin sign-in: %s %s", resp.Status, resp.Header.Get("X-Tracker-Reason"))
	}
	return c, nil
}

// adminSearcher searches project's queue in the browser with each of
// adminSearches in turn, as fast as it is answered; a refusal for want of
// a turn (503) makes it pause as the readers do.
func (l *load) adminSearcher(ctx context.Context, c *http.Client, project string, start int) {
	for i := start; ctx.Err() == nil; i++ {
		s := adminSearches[i%len(adminSearches)]
		q := url.Values{"source": {"todo"}, "contains": {s.pattern}, "regex": {"1"}}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.base+"/admin/projects/"+project+"/browse?"+q.Encode(), nil)
		code, _, err := l.do(c, s.endpoint, req)
		if err != nil || code >= 500 {
			pause(ctx, code)
		}
	}
}

// adminSearch runs warriors alone and beside admins searching in turn
// (A B A B A B A), each run beside admins against the mean of the runs
// alone just before and after it.
func (b *bench) adminSearch(ctx context.Context, name string, warriors, admins int) error {
	// The searched project: long names of letters no pattern above
	// matches, compressed by PostgreSQL no better than real URLs are.
	searched := fmt.Sprintf("search%d", time.Now().Unix())
	if _, err := b.createProject(searched, "Searched by admins"); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if _, err := b.fillLines(searched, searchNames, func(w *bufio.Writer, i int) {
		w.WriteString("url:" + strconv.Itoa(i) + ":")
		for range searchNameBytes {
			w.WriteByte('a' + byte(rng.IntN(16)))
		}
		w.WriteByte('\n')
	}); err != nil {
		return err
	}
	if _, err := b.cli(benchPassword+"\n", "admin", "create", benchAdmin); err != nil && !strings.Contains(err.Error(), "exists") {
		return err
	}
	clients := make([]*http.Client, admins)
	for i := range clients {
		var err error
		if clients[i], err = b.signIn(); err != nil {
			return err
		}
	}
	return b.beside(ctx, name, warriors, others{
		count: admins,
		start: func(ctx context.Context, l *load) []func() {
			var fs []func()
			for i, c := range clients {
				fs = append(fs, func() { l.adminSearcher(ctx, c, searched, i) })
			}
			return fs
		},
		did: func(l *load) string {
			var parts []string
			for _, s := range adminSearches {
				parts = append(parts, fmt.Sprintf("%s %.1f/s", s.endpoint, float64(l.stats.count(s.endpoint))/b.o.duration.Seconds()))
			}
			return fmt.Sprintf("%d admins searching %d names of %d bytes by regular expression (%s)",
				admins, searchNames, searchNameBytes, strings.Join(parts, ", "))
		},
	})
}
