package handlers

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"tracker/items"
	"tracker/naming"
)

// apiItemsAdd is POST /api/v1/projects/{slug}/items[?queue=QUEUE]: the
// body is the items, one a line, as text/plain (NAME, or NAME<TAB>{params}
// as tracker items add reads them) or as application/x-ndjson
// ({"name": NAME, "params": {...}}). It streams into one import however
// large (universal-tracker's POST /{slug}/admin/queues took a text/plain
// body too), and answers what it added, skipped as seen before and
// refused, with the refused lines' numbers.
func (h *Handler) apiItemsAdd(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	queue := cmp.Or(strings.TrimSpace(r.URL.Query().Get("queue")), "todo")
	if err := naming.ValidQueue(queue); err != nil {
		return errorf(http.StatusBadRequest, "unknown-queue", "%v", err)
	}
	media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	ndjson := false
	switch media {
	case "text/plain", "":
	case "application/x-ndjson", "application/jsonl", "application/json-lines":
		ndjson = true
	default:
		return errorf(http.StatusUnsupportedMediaType, "unsupported-media-type", "send the items as text/plain or application/x-ndjson, not %s", media)
	}
	// However long the body, the import holds at most items.AddMemory of
	// it at once (and an NDJSON line's worth more): that is its share of
	// the admin uploads' budget, as the panel's upload takes.
	release, err := h.bodies.admin.take(r.Context(), items.AddMemory+ndjsonLineBuffer)
	if err != nil {
		return err
	}
	defer release()
	rc := http.NewResponseController(w)
	var body io.Reader = &flowingBody{ReadCloser: http.MaxBytesReader(w, r.Body, 8<<30), rc: rc, idle: h.uploadIdle}
	var conv *ndjsonNames
	if ndjson {
		conv = newNDJSONNames(body)
		body = conv
	}
	res, err := h.items.Add(r.Context(), p, queue, body)
	if err != nil {
		if e := bodyRefusal(err); e != nil {
			e.Msg = fmt.Sprintf("%s; %d items were added before it stopped", e.Msg, res.Added)
			return e
		}
		return err
	}
	// The write deadline the server set when the request began may be long
	// past: the answer gets its own.
	if err := rc.SetWriteDeadline(time.Now().Add(h.uploadIdle)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	refused, lines := res.Invalid, res.InvalidAt
	if conv != nil {
		refused += conv.refused
		lines = append(lines, conv.lines...)
		slices.SortFunc(lines, func(a, b items.InvalidLine) int { return cmp.Compare(a.Line, b.Line) })
		lines = lines[:min(len(lines), items.MaxInvalidAt)]
	}
	if lines == nil {
		lines = []items.InvalidLine{}
	}
	return writeJSON(w, http.StatusOK, apiItemsAdded{Queue: queue, Added: res.Added, Skipped: res.Skipped,
		Refused: refused, RefusedLines: lines})
}

// apiItemsAdded is the answer of an import (openapi.yaml, ItemsAdded).
type apiItemsAdded struct {
	Queue   string `json:"queue"`
	Added   int64  `json:"added"`
	Skipped int64  `json:"skipped"`
	Refused int64  `json:"refused"`
	// RefusedLines are the first items.MaxInvalidAt refused lines.
	RefusedLines []items.InvalidLine `json:"refused_lines"`
}

// ndjsonLineBuffer is what an NDJSON line is read through: a name and
// its parameters, with room for JSON's escapes.
const ndjsonLineBuffer = 4 * (naming.MaxNameBytes + items.MaxDocumentBytes)

// ndjsonNames reads NDJSON items ({"name": ..., "params": {...}}) as the
// lines an import reads (NAME or NAME<TAB>{params}), line for line: a
// line it refuses becomes a blank line, which the import passes over, so
// the import's line numbers are the body's.
type ndjsonNames struct {
	br      *bufio.Reader
	out     bytes.Buffer
	lineNo  int64
	err     error
	refused int64
	lines   []items.InvalidLine
}

func newNDJSONNames(r io.Reader) *ndjsonNames {
	return &ndjsonNames{br: bufio.NewReaderSize(r, ndjsonLineBuffer)}
}

func (n *ndjsonNames) Read(p []byte) (int, error) {
	for n.out.Len() == 0 && n.err == nil {
		n.next()
	}
	if n.out.Len() > 0 {
		return n.out.Read(p)
	}
	return 0, n.err
}

// next converts the next line into out, or sets err at the body's end.
func (n *ndjsonNames) next() {
	line, err := n.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		// A runaway line: consumed whole, refused.
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = n.br.ReadSlice('\n')
		}
		if err != nil && !errors.Is(err, io.EOF) {
			n.err = err
			return
		}
		n.lineNo++
		n.refuse(fmt.Sprintf("line longer than %d bytes", ndjsonLineBuffer))
		n.err = err
		return
	}
	if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
		n.err = err
		return
	}
	n.lineNo++
	text := bytes.TrimSpace(line)
	if len(text) == 0 {
		n.out.WriteByte('\n')
		return
	}
	var item struct {
		Name   *string         `json:"name"`
		Params json.RawMessage `json:"params"`
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	err = dec.Decode(&item)
	switch {
	case err != nil:
		n.refuse(fmt.Sprintf(`not an item {"name": ..., "params": {...}}: %v`, err))
	case dec.More():
		n.refuse(`not an item {"name": ..., "params": {...}}: data after the object`)
	case item.Name == nil || *item.Name == "":
		// An empty name would be a blank line, which the import passes
		// over without a word.
		n.refuse("empty item name")
	case strings.Contains(*item.Name, "\t{"):
		n.refuse("item name contains a tab before {")
	case len(item.Params) > 0 && !bytes.Equal(item.Params, []byte("null")) && item.Params[0] != '{':
		n.refuse("params: not a JSON object")
	case len(item.Params) > 0 && !bytes.Equal(item.Params, []byte("null")):
		// The import checks the name and the parameters, as it does a
		// text line's.
		n.out.WriteString(*item.Name)
		n.out.WriteByte('\t')
		n.out.Write(item.Params)
		n.out.WriteByte('\n')
	default:
		n.out.WriteString(*item.Name)
		n.out.WriteByte('\n')
	}
}

// refuse notes the line as refused, and puts a blank line in its place.
func (n *ndjsonNames) refuse(reason string) {
	n.refused++
	if len(n.lines) < items.MaxInvalidAt {
		n.lines = append(n.lines, items.InvalidLine{Line: n.lineNo, Reason: reason})
	}
	n.out.WriteByte('\n')
}
