package handlers_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/klauspost/compress/zstd"

	"tracker/dictionaries"
)

// dictionarySamples are pages alike in markup, different in text.
func dictionarySamples() [][]byte {
	var out [][]byte
	for i := range 40 {
		out = append(out, fmt.Appendf(nil, `<html><head><title>Item %d - Example</title><link rel="stylesheet" href="/s.css"></head>`+
			`<body><div class="nav"><a href="/">Home</a> <a href="/about">About</a></div><div class="item" id="i%d">`+
			`<span class="by">user%d</span><p>Text %x of item %d.</p></div><div class="foot">Example site &copy; 2026</div></body></html>`,
			i, i, i*3, i*2654435761, i))
	}
	return out
}

// uploadDictionary posts a file to the admin form.
func uploadDictionary(t *testing.T, c *adminClient, b []byte) answer {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "test.zstdict")
	fw.Write(b)
	mw.Close()
	req, _ := http.NewRequest("POST", c.f.srv.URL+"/admin/projects/test/dictionary", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.send(t, req)
}

// A dictionary uploaded from the admin panel reaches a grab script as the
// script fetches it: GET /dictionary names it, its url serves the bytes
// whose SHA-256 it gives, and what those bytes decompress to compresses
// and decompresses a page.
func TestDictionaryRoundTrip(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if a := f.do(t, "GET", "/dictionary?project=test", ""); a.status != 404 || a.reason != "no-dictionary" {
		t.Fatalf("before any: %d %q", a.status, a.reason)
	}
	if a := f.do(t, "GET", "/dictionary?project=nope", ""); a.status != 404 || a.reason != "unknown-project" {
		t.Fatalf("unknown project: %d %q", a.status, a.reason)
	}

	c := f.admin(t)
	if a := uploadDictionary(t, c, []byte("not a dictionary")); a.status != 400 || a.reason != "invalid-dictionary" || !strings.Contains(a.body, "dictionary magic") {
		t.Fatalf("garbage upload: %d %q", a.status, a.reason)
	}
	raw, err := dictionaries.Train(dictionarySamples(), 8<<10)
	if err != nil {
		t.Fatal(err)
	}
	if a := uploadDictionary(t, c, raw); a.status != 303 || !strings.Contains(c.flash(t, a), "installed") {
		t.Fatalf("raw upload: %d %s", a.status, a.body)
	}
	// The same dictionary again, zstd-compressed as the scripts also
	// accept it: a new id, served from now on.
	enc, _ := zstd.NewWriter(nil)
	packed := enc.EncodeAll(raw, nil)
	enc.Close()
	if a := uploadDictionary(t, c, packed); a.status != 303 {
		t.Fatalf("compressed upload: %d %s", a.status, a.body)
	}

	var got struct {
		ID     *string `json:"id"`
		URL    string  `json:"url"`
		SHA256 string  `json:"sha256"`
	}
	resp := getJSON(t, f.srv.URL+"/dictionary?project=test", nil, &got)
	if resp.StatusCode != 200 || got.ID == nil || !strings.HasPrefix(got.URL, f.srv.URL+"/") {
		t.Fatalf("GET /dictionary: %d %+v", resp.StatusCode, got)
	}
	listed, err := dictionaries.NewStore(f.pool).List(t.Context(), f.project.ID)
	if err != nil || len(listed) != 2 || strconv.FormatInt(listed[0].ID, 10) != *got.ID {
		t.Fatalf("listed %+v (%v), served %s", listed, err, *got.ID)
	}
	first := listed[1].ID

	// What the script does: download, check, decompress when compressed.
	resp, err = http.Get(got.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if resp.StatusCode != 200 || hex.EncodeToString(sum[:]) != got.SHA256 || !bytes.Equal(b, packed) {
		t.Fatalf("GET %s: %d, %d bytes, sha256 %x, want %s", got.URL, resp.StatusCode, len(b), sum, got.SHA256)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" || resp.Header.Get("ETag") != `"`+got.SHA256+`"` {
		t.Errorf("Cache-Control %q, ETag %q", cc, resp.Header.Get("ETag"))
	}
	if bytes.HasPrefix(b, []byte{0x28, 0xB5, 0x2F, 0xFD}) {
		dec, _ := zstd.NewReader(nil)
		b, err = dec.DecodeAll(b, nil)
		dec.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	page := dictionarySamples()[3]
	enc, err = zstd.NewWriter(nil, zstd.WithEncoderDict(b))
	if err != nil {
		t.Fatal(err)
	}
	small := enc.EncodeAll(page, nil)
	enc.Close()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDicts(b))
	if err != nil {
		t.Fatal(err)
	}
	back, err := dec.DecodeAll(small, nil)
	dec.Close()
	if err != nil || !bytes.Equal(back, page) {
		t.Fatalf("compressed with the served dictionary, decompressed: %v", err)
	}

	// Unchanged under its id: a cache revalidates to a 304.
	req, _ := http.NewRequest("GET", got.URL, nil)
	req.Header.Set("If-None-Match", `"`+got.SHA256+`"`)
	if a := c.send(t, req); a.status != 304 {
		t.Errorf("If-None-Match: %d", a.status)
	}
	if a := f.do(t, "GET", fmt.Sprintf("/dictionary/%d", listed[0].ID+10), ""); a.status != 404 {
		t.Errorf("a missing id: %d", a.status)
	}
	if a := f.do(t, "GET", "/dictionary/x", ""); a.status != 404 {
		t.Errorf("a bad id: %d", a.status)
	}

	// The admin section lists both, the newest served; both were audited.
	page2 := c.get(t, "/admin/projects/test/feeds")
	if n := strings.Count(page2.body, "/dictionary/"); page2.status != 200 || n < 2 || !strings.Contains(page2.body, fmt.Sprintf("/dictionary/%d", first)) {
		t.Errorf("feeds section: %d, %d dictionary links", page2.status, n)
	}
	// Queues & items is what is done with the items: the feeds have their
	// own page.
	if queues := c.get(t, "/admin/projects/test/queues"); queues.status != 200 || strings.Contains(queues.body, `data-testid="dictionary-url"`) ||
		strings.Contains(queues.body, `data-testid="backfeed-url"`) || !strings.Contains(queues.body, `data-testid="items-submit"`) {
		t.Errorf("queues section: %d, with the feeds", queues.status)
	}
	var audited int
	if err := f.pool.QueryRow(t.Context(), "SELECT count(*) FROM audit_log WHERE action = 'dictionary.set'").Scan(&audited); err != nil || audited != 2 {
		t.Errorf("%d audit entries (%v), want 2", audited, err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(f.do(t, "GET", "/dictionary?project=test", "").body), &doc); err != nil || len(doc) != 3 {
		t.Errorf("GET /dictionary keys %v (%v): want id, url and sha256 only", doc, err)
	}
}

// statementCounter counts the statements of a pool whose text holds a
// string.
type statementCounter struct {
	holding string
	n       atomic.Int64
}

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if strings.Contains(data.SQL, c.holding) {
		c.n.Add(1)
	}
	return ctx
}

func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// A dictionary's revalidation (304) and HEAD are answered from its row's
// head, without reading its bytes; a hidden project's dictionaries are
// served only at the address GET /dictionary hands out, never by counting
// ids.
func TestDictionaryConditionalAndHidden(t *testing.T) {
	t.Parallel()
	f := setup(t)
	// The server's statements are counted: those that read the bytes.
	cfg, err := pgxpool.ParseConfig(f.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	reads := &statementCounter{holding: "name: DictionaryBytes "}
	cfg.ConnConfig.Tracer = reads
	traced, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(traced.Close)
	g := f
	g.pool = traced
	g = g.serve(t, io.Discard, nil)

	raw, err := dictionaries.Train(dictionarySamples(), 8<<10)
	if err != nil {
		t.Fatal(err)
	}
	store := dictionaries.NewStore(f.pool)
	older, err := store.Add(t.Context(), f.project.ID, raw, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Add(t.Context(), f.project.ID, raw, ""); err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID     string `json:"id"`
		URL    string `json:"url"`
		SHA256 string `json:"sha256"`
	}
	if resp := getJSON(t, g.srv.URL+"/dictionary?project=test", nil, &got); resp.StatusCode != 200 {
		t.Fatalf("GET /dictionary: %d", resp.StatusCode)
	}
	address := strings.TrimPrefix(got.URL, g.srv.URL)
	if !strings.HasPrefix(address, "/dictionary/"+got.ID+"-") || len(address) < len("/dictionary/1-")+32 {
		t.Fatalf("url %q: want the id and a token", got.URL)
	}

	fetch := func(method, path string, header map[string]string) answer {
		t.Helper()
		req, _ := http.NewRequest(method, g.srv.URL+path, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return answer{status: resp.StatusCode, body: string(b), header: resp.Header}
	}
	etag := `"` + got.SHA256 + `"`
	for _, match := range []string{etag, `"x", W/` + etag, "*"} {
		if a := fetch("GET", address, map[string]string{"If-None-Match": match}); a.status != 304 || a.body != "" || a.header.Get("ETag") != etag {
			t.Fatalf("If-None-Match %s: %d, %d bytes, ETag %q", match, a.status, len(a.body), a.header.Get("ETag"))
		}
	}
	if a := fetch("HEAD", address, nil); a.status != 200 || a.header.Get("Content-Length") != strconv.Itoa(len(raw)) {
		t.Fatalf("HEAD: %d, Content-Length %q", a.status, a.header.Get("Content-Length"))
	}
	if n := reads.n.Load(); n != 0 {
		t.Fatalf("the bytes were read %d times for revalidations and a HEAD", n)
	}
	if a := fetch("GET", address, map[string]string{"If-None-Match": `"other"`}); a.status != 200 || a.body != string(raw) {
		t.Fatalf("GET: %d, %d bytes", a.status, len(a.body))
	}
	if n := reads.n.Load(); n != 1 {
		t.Fatalf("the bytes were read %d times for one GET", n)
	}

	// A public project's dictionaries are also found by id alone.
	if a := fetch("GET", fmt.Sprintf("/dictionary/%d", older.ID), nil); a.status != 200 {
		t.Fatalf("a public project's dictionary by id: %d", a.status)
	}

	// Hidden: by id alone, or with a wrong token, no dictionary is found,
	// not even a revalidation; at the address handed out, it is served.
	f.set(t, "hidden=true")
	for id := older.ID - 3; id <= older.ID+6; id++ {
		for _, path := range []string{fmt.Sprintf("/dictionary/%d", id), fmt.Sprintf("/dictionary/%d-%s", id, strings.Repeat("0", 32))} {
			if a := fetch("GET", path, map[string]string{"If-None-Match": "*"}); a.status != 404 || a.body == string(raw) {
				t.Fatalf("hidden, %s: %d", path, a.status)
			}
		}
	}
	if a := fetch("GET", fmt.Sprintf("/dictionary/%s-%s", got.ID, older.Token), nil); a.status != 404 {
		t.Fatalf("hidden, another dictionary's token: %d", a.status)
	}
	if resp := getJSON(t, g.srv.URL+"/dictionary?project=test", nil, &got); resp.StatusCode != 200 || strings.TrimPrefix(got.URL, g.srv.URL) != address {
		t.Fatalf("hidden, GET /dictionary: %d %q", resp.StatusCode, got.URL)
	}
	if a := fetch("GET", address, nil); a.status != 200 || a.body != string(raw) {
		t.Fatalf("hidden, at its address: %d", a.status)
	}
}
