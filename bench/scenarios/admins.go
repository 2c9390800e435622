package scenarios

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
	"tracker/bench/load"
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

// signIn is a browser signed in to the admin panel as the bench's admin.
func (b *bench) signIn() (*http.Client, error) {
	jar, _ := cookiejar.New(nil)
	c := load.Client()
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
		start: func(ctx context.Context, l *load.Load) []func() {
			var fs []func()
			for i, c := range clients {
				fs = append(fs, func() { l.AdminSearcher(ctx, c, searched, i) })
			}
			return fs
		},
		did: func(l *load.Load) string {
			var parts []string
			for _, s := range load.AdminSearches {
				parts = append(parts, fmt.Sprintf("%s %.1f/s", s.Endpoint, float64(l.Stats.Count(s.Endpoint))/b.o.Duration.Seconds()))
			}
			return fmt.Sprintf("%d admins searching %d names of %d bytes by regular expression (%s)",
				admins, searchNames, searchNameBytes, strings.Join(parts, ", "))
		},
	})
}
