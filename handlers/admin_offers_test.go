package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tracker/users"
)

// A project admin is offered only what they may do: the walk goes through
// every page of the panel they reach from its home, following each link
// and sending each form (as a browser would: its fields as they are, a
// required one left empty filled in) to the real handlers, and none of
// them answers 403. A page that offered a global admin's link or button
// (the bar's audit log of every project, the Lift of a block on every
// project) fails here, whatever page it is on.
func TestProjectAdminOfferedOnlyWhatTheyMayDo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setup(t)
	// A project with sites, claims, a completion and failed items, so
	// that every section has its lists and their buttons.
	f.sited(t, "https://a.example/1", "https://a.example/2", "https://b.example/1", "https://c.example/1", "https://d.example/1")
	names, _ := f.request(t, "alice", 4)
	f.done(t, "alice", names[0])
	p, err := f.store.Set(ctx, f.project, []string{"max_claims=1"})
	if err != nil {
		t.Fatal(err)
	}
	f.project = p
	f.expireClaims(t)
	f.request(t, "alice", 1)
	root := f.admin(t)
	if a := root.post(t, "/admin/projects", url.Values{"slug": {"other"}, "title": {"Other"}}); a.status != http.StatusSeeOther {
		t.Fatalf("create other: %d %s", a.status, a.body)
	}
	for _, form := range []url.Values{
		{"kind": {"nick"}, "value": {"bob"}, "reason": {"spam"}, "scope": {"project"}},
		{"kind": {"nick"}, "value": {"mallory"}, "reason": {"everywhere"}, "scope": {"all"}},
	} {
		if a := root.post(t, "/admin/projects/test/blocks/add", form); a.status != http.StatusSeeOther {
			t.Fatalf("block %v: %d %s", form, a.status, a.body)
		}
	}
	if a := root.post(t, "/admin/projects/test/targets/add", url.Values{"url": {"rsync://host/module/:downloader/"}, "weight": {"1"}, "enabled": {"true"}}); a.status != http.StatusSeeOther {
		t.Fatalf("target: %d %s", a.status, a.body)
	}
	f.user(t, "helper", users.RoleProjectAdmin)
	if _, err := f.pool.Exec(ctx, "INSERT INTO project_admins SELECT id, $1 FROM users WHERE username = 'helper'", f.project.ID); err != nil {
		t.Fatal(err)
	}

	w := &walker{c: f.signedIn(t, "helper"), seen: map[string]int{}}
	w.queue = append(w.queue, target{method: "GET", path: "/admin/", from: "(start)"})
	for len(w.queue) > 0 && w.sent < 800 {
		next := w.queue[0]
		w.queue = w.queue[1:]
		w.visit(t, next)
	}
	if len(w.queue) > 0 {
		t.Fatalf("the walk stopped after %d requests with %d to go", w.sent, len(w.queue))
	}
	for _, want := range []string{"GET /admin/projects/test/limits", "POST /admin/projects/test/blocks/remove", "GET /admin/audit", "GET /admin/jobs",
		"POST /admin/projects/test/sites/block", "POST /admin/projects/test/item/release", "POST /admin/projects/test/browse/requeue"} {
		if w.seen[want] == 0 {
			t.Errorf("the walk never reached %s (%d requests)", want, w.sent)
		}
	}
	for _, r := range w.refused {
		t.Error(r)
	}
}

// target is a link to follow or a form to send, and where it was found.
type target struct {
	method, path string
	form         url.Values
	multipart    bool
	from, what   string
}

// walker goes through the admin panel as its client.
type walker struct {
	c       *adminClient
	queue   []target
	seen    map[string]int // by method and path: how many were sent
	keys    map[string]bool
	sent    int
	refused []string
}

// key tells targets apart: their method, path and the names of their
// fields, and the values of their hidden ones (what the user cannot
// change: a block's scope, an item's name).
func (w *walker) key(tg target) string {
	var parts []string
	for name, values := range tg.form {
		parts = append(parts, name+"="+strings.Join(values, ","))
	}
	slices.Sort(parts)
	return tg.method + " " + tg.path + "?" + strings.Join(parts, "&")
}

func (w *walker) add(tg target) {
	u, err := url.Parse(tg.path)
	if err != nil || u.IsAbs() || !strings.HasPrefix(u.Path, "/admin/") {
		return // the public pages refuse no one
	}
	if tg.method != "GET" && tg.method != "POST" {
		return // method="dialog": a form the page's script keeps
	}
	if tg.method == "GET" {
		// A link's query is its form.
		q := u.Query()
		for name, values := range tg.form {
			q[name] = values
		}
		tg.path, tg.form = u.Path, q
	}
	if w.keys == nil {
		w.keys = map[string]bool{}
	}
	k := w.key(tg)
	// A route is walked a few times: many links differ by an item or a
	// page alone.
	if w.keys[k] || w.seen[tg.method+" "+tg.path] >= 15 {
		return
	}
	w.keys[k] = true
	w.seen[tg.method+" "+tg.path]++
	w.queue = append(w.queue, tg)
}

func (w *walker) visit(t *testing.T, tg target) {
	t.Helper()
	if tg.method == "POST" && tg.path == "/admin/logout" {
		return // every admin signs out; the walk would end there
	}
	w.sent++
	var a answer
	switch {
	case tg.method == "GET":
		u := tg.path
		if len(tg.form) > 0 {
			u += "?" + tg.form.Encode()
		}
		a = w.c.get(t, u)
	case tg.multipart:
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for name, values := range tg.form {
			for _, v := range values {
				mw.WriteField(name, v)
			}
		}
		mw.Close()
		req, _ := http.NewRequest("POST", w.c.f.srv.URL+tg.path, &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		a = w.c.send(t, req)
	default:
		a = w.c.post(t, tg.path, tg.form)
	}
	where := fmt.Sprintf("%s %s (%s on %s)", tg.method, tg.path, tg.what, tg.from)
	if a.status == http.StatusForbidden {
		w.refused = append(w.refused, fmt.Sprintf("offered to a project admin, refused: %s: %s", where, strings.TrimSpace(a.header.Get("X-Tracker-Reason"))))
	}
	if a.status >= 500 {
		t.Fatalf("%s: %d %s", where, a.status, a.body)
	}
	if loc := a.header.Get("Location"); a.status == http.StatusSeeOther && loc != "" {
		w.add(target{method: "GET", path: loc, from: where, what: "its redirect"})
	}
	if !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") {
		return
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	page := tg.method + " " + tg.path
	doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		w.add(target{method: "GET", path: s.AttrOr("href", ""), from: page, what: "link " + strings.TrimSpace(s.Text())})
	})
	doc.Find("form").Each(func(_ int, form *goquery.Selection) {
		method := strings.ToUpper(form.AttrOr("method", "GET"))
		action := form.AttrOr("action", tg.path)
		multi := form.AttrOr("enctype", "") == "multipart/form-data"
		fields := formFields(form)
		buttons := form.Find(`button:not([type]), button[type="submit"], input[type="submit"]`)
		if buttons.Length() == 0 {
			w.add(target{method: method, path: action, form: fields, multipart: multi, from: page, what: "form"})
		}
		buttons.Each(func(_ int, b *goquery.Selection) {
			values := url.Values{}
			for k, v := range fields {
				values[k] = slices.Clone(v)
			}
			if name := b.AttrOr("name", ""); name != "" {
				values.Add(name, b.AttrOr("value", ""))
			}
			w.add(target{method: method, path: b.AttrOr("formaction", action), form: values, multipart: multi, from: page,
				what: "button " + strings.TrimSpace(b.Text())})
		})
	})
}

// formFields are the values a browser sends for a form as it stands:
// enabled fields, checked boxes, selected options (or the first), and
// "walk" in a required field left empty.
func formFields(form *goquery.Selection) url.Values {
	values := url.Values{}
	form.Find("input, select, textarea").Each(func(_ int, s *goquery.Selection) {
		name := s.AttrOr("name", "")
		if _, disabled := s.Attr("disabled"); name == "" || disabled {
			return
		}
		value := s.AttrOr("value", "")
		switch goquery.NodeName(s) {
		case "select":
			option := s.Find("option[selected]")
			if option.Length() == 0 {
				option = s.Find("option").First()
			}
			value = option.AttrOr("value", option.Text())
		case "textarea":
			value = s.Text()
		default:
			switch s.AttrOr("type", "text") {
			case "submit", "button", "file", "reset", "image":
				return
			case "checkbox", "radio":
				if _, checked := s.Attr("checked"); !checked {
					return
				}
				if value == "" {
					value = "on"
				}
			}
		}
		if _, required := s.Attr("required"); required && value == "" {
			value = "walk"
		}
		values.Add(name, value)
	})
	return values
}
