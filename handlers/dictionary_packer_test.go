package handlers_test

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"tracker/db/dbtest"
	"tracker/dictionaries"
)

// zstdFrame starts a zstd frame: a dictionary served compressed.
var zstdFrame = []byte{0x28, 0xB5, 0x2F, 0xFD}

// grabScriptDictionary does what a grab script does for its dictionary
// (ArchiveTeam/urls-grab pipeline.py, ZstdDict.get_dict): GET
// /dictionary?project=P, download url, check its SHA-256 against sha256,
// decompress a zstd frame. It returns the id as the script writes it into
// its files' names ('%(dict_id)s': a string as it is, a number in
// decimal) and the dictionary it compresses with.
func grabScriptDictionary(t *testing.T, base, project string) (string, []byte) {
	t.Helper()
	resp, err := http.Get(base + "/dictionary?" + url.Values{"project": {project}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		t.Fatalf("GET /dictionary?project=%s: %d %s", project, resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
	}
	var r struct {
		ID     any    `json:"id"`
		URL    string `json:"url"`
		SHA256 string `json:"sha256"`
	}
	dec := json.NewDecoder(resp.Body)
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		t.Fatal(err)
	}
	raw, err := fetchChecked(r.URL, r.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(raw, zstdFrame) {
		if raw, err = unzstd(raw, nil); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprint(r.ID), raw
}

// packerPattern is how the staging servers' packer reads a file's project
// and dictionary id (ArchiveTeam/megawarc, MegawarcPacker.process_file).
var packerPattern = regexp.MustCompile(`\.([0-9a-zA-Z-]+)\.([0-9]{10})\.warc\.zst$`)

// packerDictionary does what the packer does for the dictionary of a file
// it read project and dictID from (megawarc, init_zst_megawarc): GET
// /dictionary?project=P&id=ID; refuse the answer unless its id equals
// dictID (Python's != of the JSON value and the string read: a number is
// never equal); download url and check its SHA-256 against sha256; the
// dictionary is the bytes, decompressed when they are a zstd frame. The
// packer retries a failed request forever (every second): an error here
// is a packer that never finishes.
func packerDictionary(server, project, dictID string) ([]byte, error) {
	resp, err := http.Get(server + "?" + url.Values{"project": {project}, "id": {dictID}}.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("failed to contact API: %d %s (retried forever)", resp.StatusCode, resp.Header.Get("X-Tracker-Reason"))
	}
	var r map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, fmt.Errorf("failed to contact API: %v (retried forever)", err)
	}
	if id, ok := r["id"].(string); !ok || id != dictID {
		return nil, fmt.Errorf("received wrong dictionary ID: %#v for %q", r["id"], dictID)
	}
	address, _ := r["url"].(string)
	sum, _ := r["sha256"].(string)
	data, err := fetchChecked(address, sum)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, zstdFrame) {
		return data, nil
	}
	return unzstd(data, nil)
}

// fetchChecked downloads address and checks the SHA-256 of its bytes.
func fetchChecked(address, sum string) ([]byte, error) {
	resp, err := http.Get(address)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("failed to download dictionary: %d", resp.StatusCode)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
		return nil, errors.New("hash of dictionary does not match")
	}
	return data, nil
}

// unzstd decompresses b, with dict when not nil (`zstd -d -D dict`).
func unzstd(b, dict []byte) ([]byte, error) {
	var opts []zstd.DOption
	if dict != nil {
		opts = append(opts, zstd.WithDecoderDicts(dict))
	}
	dec, err := zstd.NewReader(nil, opts...)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	return dec.DecodeAll(b, nil)
}

// grabbedWARC is a WARC record a grab script compressed with dict, as
// wget-at does with --warc-zstd-dict (the dictionary not included), under
// the name the script uploads it as: {base}.{dict_project}.{dict_id}.warc.zst.
type grabbedWARC struct {
	name, record string
	body         []byte
}

func grabWARC(t *testing.T, project, dictID string, dict []byte, item string) grabbedWARC {
	t.Helper()
	record := "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + item + "\r\n\r\n" +
		"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + string(dictionarySamples()[5])
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderDict(dict))
	if err != nil {
		t.Fatal(err)
	}
	body := enc.EncodeAll([]byte(record), nil)
	enc.Close()
	hash := sha1.Sum([]byte(item))
	base := fmt.Sprintf("urls-%x-20261128-151500", hash)
	return grabbedWARC{name: base + "." + project + "." + dictID + ".warc.zst", record: record, body: body}
}

// pack does what the packer does with one file: read project and id from
// its name, get that dictionary, and decompress the file with it
// (`zstd -d -D`), which must give the record back.
func pack(t *testing.T, server string, w grabbedWARC) {
	t.Helper()
	m := packerPattern.FindStringSubmatch(w.name)
	if m == nil {
		t.Fatalf("the packer refuses %s: bad ZST WARC filename", w.name)
	}
	dict, err := packerDictionary(server, m[1], m[2])
	if err != nil {
		t.Fatalf("packing %s: %v", w.name, err)
	}
	back, err := unzstd(w.body, dict)
	if err != nil || string(back) != w.record {
		t.Fatalf("packing %s: decompressed with the dictionary it got: %v", w.name, err)
	}
}

// The staging servers' packer packs what grab scripts upload: each file
// names the dictionary it was compressed with, the packer asks for that
// one by project and id and gets it, an older one as well as the newest,
// and what it gets decompresses the file.
func TestDictionaryPackerPacks(t *testing.T) {
	t.Parallel()
	f := setup(t)
	server := f.srv.URL + "/dictionary"
	store := dictionaries.NewStore(f.pool)
	older, err := dictionaries.Train(dictionarySamples(), 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	newer, err := dictionaries.Train(dictionarySamples()[10:], 8<<10)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(older, newer) {
		t.Fatal("two dictionaries alike")
	}

	// The scripts compress with the dictionary of the day, one before the
	// newer one is installed (raw), the other after (compressed, as the
	// trainer uploads them).
	if _, err := store.Add(t.Context(), f.project.ID, older, ""); err != nil {
		t.Fatal(err)
	}
	id, dict := grabScriptDictionary(t, f.srv.URL, "test")
	before := grabWARC(t, "test", id, dict, "https://example.org/a")
	enc, _ := zstd.NewWriter(nil)
	if _, err := store.Add(t.Context(), f.project.ID, enc.EncodeAll(newer, nil), ""); err != nil {
		t.Fatal(err)
	}
	enc.Close()
	id2, dict2 := grabScriptDictionary(t, f.srv.URL, "test")
	if id2 == id || !bytes.Equal(dict2, newer) || !bytes.Equal(dict, older) {
		t.Fatalf("the scripts got dictionary %s, then %s", id, id2)
	}
	after := grabWARC(t, "test", id2, dict2, "https://example.org/b")

	// Packed in either order: each gets its own dictionary.
	pack(t, server, after)
	pack(t, server, before)
}

// The packer is answered the dictionary it asks for or nothing: an id the
// project never had (another project's, or none's) is a 404
// unknown-dictionary, never the newest, which the packer would refuse as
// a wrong id; an id that is no number is a 400.
func TestDictionaryByID(t *testing.T) {
	t.Parallel()
	f := setup(t)
	store := dictionaries.NewStore(f.pool)
	raw, err := dictionaries.Train(dictionarySamples(), 8<<10)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := store.Add(t.Context(), f.project.ID, raw, "")
	if err != nil {
		t.Fatal(err)
	}
	other, err := f.store.Create(t.Context(), "other", "")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := store.Add(t.Context(), other.ID, raw, "")
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprint(mine.ID)
	if got, err := packerDictionary(f.srv.URL+"/dictionary", "test", id); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("the packer asking for %s: %v", id, err)
	}
	for _, c := range []struct {
		query, reason string
		status        int
	}{
		{"project=test&id=" + fmt.Sprint(theirs.ID), "unknown-dictionary", 404},
		{"project=test&id=" + fmt.Sprint(mine.ID+3600), "unknown-dictionary", 404},
		{"project=test&id=0" + id, "unknown-dictionary", 404},
		{"project=test&id=99999999999999999999", "invalid-dictionary-id", 400},
		{"project=test&id=abc", "invalid-dictionary-id", 400},
		{"project=test&id=", "invalid-dictionary-id", 400},
		{"project=nope&id=" + id, "unknown-project", 404},
	} {
		if a := f.do(t, "GET", "/dictionary?"+c.query, ""); a.status != c.status || a.reason != c.reason {
			t.Errorf("?%s: %d %q, want %d %q", c.query, a.status, a.reason, c.status, c.reason)
		}
	}

	// A dictionary installed before ids were Unix seconds answers to its
	// old id too, as the old id (what a name written with it holds), and
	// its bytes are served at its old address.
	dbtest.MustExec(t, f.pool, `UPDATE dictionaries SET legacy_id = 7 WHERE public_id = $1`, mine.ID)
	var r map[string]any
	if resp := getJSON(t, f.srv.URL+"/dictionary?project=test&id=7", nil, &r); resp.StatusCode != 200 || r["id"] != "7" || r["sha256"] != mine.SHA256 {
		t.Fatalf("by the old id: %d %v", resp.StatusCode, r)
	}
	if got, err := packerDictionary(f.srv.URL+"/dictionary", "test", "7"); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("the packer asking for the old id: %v", err)
	}
	for _, path := range []string{"/dictionary/7", "/dictionary/7-" + mine.Token} {
		if a := f.do(t, "GET", path, ""); a.status != 200 || a.body != string(raw) {
			t.Errorf("%s: %d", path, a.status)
		}
	}
	if a := f.do(t, "GET", "/dictionary?project=other&id=7", ""); a.status != 404 || a.reason != "unknown-dictionary" {
		t.Errorf("another project's old id: %d %q", a.status, a.reason)
	}
}

// A project whose slug the packer cannot read from a file's name (an '_')
// is flagged where its dictionary is set: its files would never be
// packed.
func TestDictionaryUnpackableSlugFlagged(t *testing.T) {
	t.Parallel()
	f := setup(t)
	p, err := f.store.Create(t.Context(), "zst_test", "")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := dictionaries.Train(dictionarySamples(), 8<<10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dictionaries.NewStore(f.pool).Add(t.Context(), p.ID, raw, ""); err != nil {
		t.Fatal(err)
	}
	id, dict := grabScriptDictionary(t, f.srv.URL, p.Slug)
	if w := grabWARC(t, p.Slug, id, dict, "https://example.org/c"); packerPattern.MatchString(w.name) {
		t.Fatalf("the packer reads %s", w.name)
	}

	c := f.admin(t)
	page := c.get(t, "/admin/projects/zst_test/feeds")
	if page.status != 200 || !strings.Contains(page.body, `data-testid="dictionary-warning"`) || !strings.Contains(page.body, "zst_test") {
		t.Fatalf("zst_test's dictionary section: %d, no warning", page.status)
	}
	if page := c.get(t, "/admin/projects/test/feeds"); page.status != 200 || strings.Contains(page.body, `data-testid="dictionary-warning"`) {
		t.Fatalf("test's dictionary section: %d, warned", page.status)
	}
}
