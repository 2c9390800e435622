package handlers_test

import (
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"tracker/handlers"
	"tracker/naming"
	"tracker/views"
)

// An items file that arrives slowly, for longer than the server's read
// timeout, is read to its end while bytes keep coming, and the answer says
// what it added.
func TestAdminItemsUploadTrickles(t *testing.T) {
	t.Parallel()
	const readTimeout = 300 * time.Millisecond
	f := setup(t)
	c := f.admin(t)
	// Another server on the database, with short timeouts, takes the
	// upload; the admin's session (and cookie) is good there too.
	slow := f.serve(t, io.Discard, func(_ *handlers.Handler, srv *http.Server) {
		srv.ReadTimeout, srv.WriteTimeout = readTimeout, readTimeout
	}, func(c *handlers.Config) { c.UploadIdle = 5 * time.Second })

	const chunks, perChunk = 8, 1000
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		mw.WriteField("queue", "todo")
		fw, _ := mw.CreateFormFile("file", "items.txt")
		start := time.Now()
		for i := range chunks {
			for j := range perChunk {
				fmt.Fprintf(fw, "slow:%d\n", i*perChunk+j)
			}
			// The trickle: the whole upload takes twice the read timeout.
			time.Sleep(2 * readTimeout / chunks)
		}
		if time.Since(start) <= readTimeout {
			pw.CloseWithError(fmt.Errorf("the upload took no longer than the read timeout"))
			return
		}
		mw.Close()
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", slow.srv.URL+"/admin/projects/test/items", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	a := c.send(t, req)
	if want := fmt.Sprintf("Added %s to todo", views.FormatInt(chunks*perChunk)); a.status != 303 || !strings.Contains(c.flash(t, a), want) {
		t.Fatalf("a slow upload: %d %q, want %q", a.status, c.flash(t, a), want)
	}
	if s := f.summary(t); s.Queues["todo"] != chunks*perChunk {
		t.Fatalf("%d queued", s.Queues["todo"])
	}
}

// All the parts of an items form make one import, with one audit entry
// counting what it added; a form of more parts than the panel's is refused
// when its part over the bound arrives. An upload that added nothing
// leaves no entry; one refused after it added some leaves its entry,
// counting them and saying it was cut short.
func TestAdminItemsFormParts(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.admin(t)
	// upload sends the names of first, then parts-1 more parts of one name.
	upload := func(first string, parts int) answer {
		t.Helper()
		var body strings.Builder
		mw := multipart.NewWriter(&body)
		mw.WriteField("queue", "todo")
		mw.WriteField("names", first)
		for i := 1; i < parts; i++ {
			// No newline at the end: parts are lines of their own.
			mw.WriteField("names", fmt.Sprintf("part:%d", i))
		}
		mw.Close()
		req, _ := http.NewRequest("POST", f.srv.URL+"/admin/projects/test/items", strings.NewReader(body.String()))
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		return c.send(t, req)
	}
	type entry struct{ added, cutShort string }
	audited := func() []entry {
		t.Helper()
		rows, err := f.pool.Query(t.Context(), "SELECT detail->>'added', coalesce(detail->>'cut_short', '') FROM audit_log WHERE action = 'items.add' ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []entry
		for rows.Next() {
			var e entry
			if err := rows.Scan(&e.added, &e.cutShort); err != nil {
				t.Fatal(err)
			}
			out = append(out, e)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}

	if a := upload("part:0", 15); a.status != 303 || !strings.Contains(c.flash(t, a), "Added 15 to todo") {
		t.Fatalf("15 parts of names: %d %q", a.status, a.body)
	}
	if got := audited(); len(got) != 1 || got[0] != (entry{"15", ""}) {
		t.Fatalf("audit entries %v, want one of 15", got)
	}

	// The same names again: nothing added, nothing recorded, whether the
	// form is read to its end or refused.
	if a := upload("part:0", 15); a.status != 303 || !strings.Contains(c.flash(t, a), "Added 0 to todo, skipped 15") {
		t.Fatalf("15 parts of names seen before: %d %q", a.status, a.body)
	}
	if a := upload("part:0", 20_000); a.status != 400 || a.reason != "bad-form" || !strings.Contains(a.body, "more than 16 parts") {
		t.Fatalf("20,000 parts: %d %q", a.status, a.reason)
	}
	if got := audited(); len(got) != 1 {
		t.Fatalf("audit entries %v after uploads that added nothing, want the first alone", got)
	}

	// A first part of a full batch and a few names more: the batch is
	// written before the part over the bound arrives, the names after it
	// are not.
	var big strings.Builder
	for i := range 10_005 {
		fmt.Fprintf(&big, "big:%d\n", i)
	}
	if a := upload(big.String(), 20); a.status != 400 || a.reason != "bad-form" || !strings.Contains(a.body, "10,000 items were added before it stopped") {
		t.Fatalf("a batch, then too many parts: %d %q %q", a.status, a.reason, a.body)
	}
	if got := audited(); len(got) != 2 || got[1].added != "10000" || !strings.Contains(got[1].cutShort, "more than 16 parts") {
		t.Fatalf("audit entries %v, want a second of 10000 cut short by the parts", got)
	}
	if s := f.summary(t); s.Queues["todo"] != 15+10_000 {
		t.Fatalf("%d queued, want the first form's 15 and the batch of 10,000", s.Queues["todo"])
	}
}

// An upload's report counts with thousands separators, and the lines it
// refused are a warning of their own beside the success, not words lost in
// it.
func TestAdminItemsUploadWarnsOfRefusedLines(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.admin(t)
	var names strings.Builder
	for i := range 1200 {
		fmt.Fprintf(&names, "n:%d\n", i)
		if i == 10 || i == 20 {
			names.WriteString(strings.Repeat("x", naming.MaxNameBytes+1) + "\n")
		}
	}
	var body strings.Builder
	mw := multipart.NewWriter(&body)
	mw.WriteField("queue", "todo")
	fw, _ := mw.CreateFormFile("file", "names.txt")
	io.WriteString(fw, names.String())
	mw.Close()
	req, _ := http.NewRequest("POST", f.srv.URL+"/admin/projects/test/items", strings.NewReader(body.String()))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	a := c.send(t, req)
	if a.status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", a.status, a.reason)
	}
	page := c.get(t, a.header.Get("Location"))
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page.body))
	if err != nil {
		t.Fatal(err)
	}
	flash, warning := doc.Find(`[data-testid="flash"]`).Text(), doc.Find(`[data-testid="flash-warning"]`)
	if flash != "Added 1,200 to todo, skipped 0 seen before." {
		t.Errorf("the report says %q", flash)
	}
	if !warning.HasClass("warning") || !strings.HasPrefix(warning.Text(), "Left out 2 invalid lines, not queued: line 12: ") ||
		!strings.Contains(warning.Text(), "line 23: ") {
		t.Errorf("the warning: %q (class %q)", warning.Text(), warning.AttrOr("class", ""))
	}
}
