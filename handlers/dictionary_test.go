package handlers_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"tracker/dictionaries"
	"tracker/users"
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

	f.user(t, "root", users.RoleAdmin)
	c := f.adminClient(t)
	c.login(t, "root", "correct horse battery")
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
		ID     *int64 `json:"id"`
		URL    string `json:"url"`
		SHA256 string `json:"sha256"`
	}
	resp := getJSON(t, f.srv.URL+"/dictionary?project=test", nil, &got)
	if resp.StatusCode != 200 || got.ID == nil || !strings.HasPrefix(got.URL, f.srv.URL+"/") {
		t.Fatalf("GET /dictionary: %d %+v", resp.StatusCode, got)
	}
	first := *got.ID - 1

	// What the script does: download, check, decompress when compressed.
	resp, err = http.Get(got.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
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
	if a := f.do(t, "GET", fmt.Sprintf("/dictionary/%d", *got.ID+10), ""); a.status != 404 {
		t.Errorf("a missing id: %d", a.status)
	}
	if a := f.do(t, "GET", "/dictionary/x", ""); a.status != 404 {
		t.Errorf("a bad id: %d", a.status)
	}

	// The admin section lists both, the newest served; both were audited.
	page2 := c.get(t, "/admin/projects/test/queues")
	if n := strings.Count(page2.body, "/dictionary/"); page2.status != 200 || n < 2 || !strings.Contains(page2.body, fmt.Sprintf("/dictionary/%d", first)) {
		t.Errorf("queues section: %d, %d dictionary links", page2.status, n)
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
