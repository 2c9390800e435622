package handlers

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"tracker/items"
	"tracker/naming"
	"tracker/projects"
	"tracker/views"
)

// lineNumbers are the line numbers of an import's refusals, shown with
// thousands separators.
var lineNumbers = regexp.MustCompile(`\bline [0-9]+`)

// more says how many of n refused lines were not named, the shown first.
func more(n int64, shown int) string {
	if rest := n - int64(shown); rest > 0 {
		return fmt.Sprintf(" and %s more", views.FormatInt(rest))
	}
	return ""
}

// maxItemsFormParts bounds the parts of an items form: the panel's has
// three (queue, names, file). A flood of small parts would otherwise cost a
// pass through the form reader each, for nothing.
const maxItemsFormParts = 16

// DefaultUploadIdle is how long an admin's upload may go without a byte
// arriving before it is given up (Config.UploadIdle).
const DefaultUploadIdle = 60 * time.Second

// adminItemsAdd is POST /admin/projects/{slug}/items, a multipart form:
// "queue", then "names" (pasted) and/or "file" (uploaded). Parts are read
// as they arrive, all into one import (one audit entry counting what it
// added): a 10,000,000-line file streams into the queue without the server
// holding it, however long it takes to arrive.
func (h *Handler) adminItemsAdd(w http.ResponseWriter, r *http.Request) error {
	p, err := h.adminProject(r)
	if err != nil {
		return err
	}
	// However long the upload, the import holds at most items.AddMemory of
	// it at once: that is its share of the admin uploads' budget.
	release, err := h.bodies.admin.take(r.Context(), items.AddMemory)
	if err != nil {
		return err
	}
	defer release()
	rc := http.NewResponseController(w)
	r.Body = &flowingBody{ReadCloser: http.MaxBytesReader(w, r.Body, 8<<30), rc: rc, idle: h.uploadIdle}
	mr, err := r.MultipartReader()
	if err != nil {
		return errorf(http.StatusBadRequest, "bad-form", "send the items as multipart/form-data")
	}
	queue := "todo"
	var im *namesImport
	for parts := 1; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil && parts > maxItemsFormParts {
			err = fmt.Errorf("more than %d parts", maxItemsFormParts)
		}
		if err != nil {
			return im.cutShort(r, err)
		}
		switch part.FormName() {
		case "queue":
			if im != nil {
				return im.cutShort(r, errors.New("the queue comes before the names"))
			}
			b, _ := io.ReadAll(io.LimitReader(part, 256))
			if queue = strings.TrimSpace(string(b)); queue == "" {
				queue = "todo"
			}
			if err := naming.ValidQueue(queue); err != nil {
				return h.renderQueues(w, r, p, refused("unknown-queue", err.Error()))
			}
		case "names", "file":
			if im == nil {
				im = h.startImport(r, p, queue)
			}
			if err := im.copy(part); err != nil {
				return im.cutShort(r, err)
			}
		}
		part.Close()
	}
	total, err := im.finish(nil)
	if err != nil {
		return err
	}
	// The write deadline the server set when the request began may be long
	// past: the answer gets its own.
	if err := rc.SetWriteDeadline(time.Now().Add(h.uploadIdle)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	msg := fmt.Sprintf("Added %s to %s, skipped %s seen before.", views.FormatInt(total.Added), queue, views.FormatInt(total.Skipped))
	if total.Invalid > 0 {
		// Refused lines are a warning beside the success, not part of it:
		// they were not queued, and the admin has to see that.
		h.sessions.of(r).Put(r.Context(), sessionWarningKey, fmt.Sprintf("Left out %s invalid lines, not queued: %s%s.",
			views.FormatInt(total.Invalid), lineNumbers.ReplaceAllStringFunc(strings.Join(total.InvalidLines, "; "), func(s string) string {
				n, _ := strconv.ParseInt(s[len("line "):], 10, 64)
				return "line " + views.FormatInt(n)
			}), more(total.Invalid, len(total.InvalidLines))))
	}
	return h.toSection(w, r, p, "queues", msg)
}

// formCutShort is the answer to an items form that could not be read to its
// end: why, and how many items were added before it stopped (their batches
// committed, as in an interrupted import).
func formCutShort(r *http.Request, err error, res items.AddResult) error {
	if e := bodyRefusal(err); e != nil {
		e.Msg = fmt.Sprintf("%s; %s items were added before it stopped", e.Msg, views.FormatInt(res.Added))
		return e
	}
	if r.Context().Err() != nil {
		return err // nobody reads the answer
	}
	return errorf(http.StatusBadRequest, "bad-form", "reading the form: %v; %s items were added before it stopped", err, views.FormatInt(res.Added))
}

// errImportStopped is what feeding an import that stopped returns: the
// import's own error says why.
var errImportStopped = errors.New("the import stopped")

// namesImport is one import fed by the parts of a form in turn.
type namesImport struct {
	pw   *io.PipeWriter
	done chan struct{}
	res  items.AddResult
	err  error
}

// startImport starts an import into queue reading from the parts copy
// gives it.
func (h *Handler) startImport(r *http.Request, p projects.Project, queue string) *namesImport {
	pr, pw := io.Pipe()
	im := &namesImport{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(im.done)
		im.res, im.err = h.items.Add(r.Context(), p, queue, pr)
		// An import that stopped early stops the copying too.
		pr.CloseWithError(cmpErr(im.err, io.ErrClosedPipe))
	}()
	return im
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// copy feeds a part to the import, and a newline after it: the last line of
// one part and the first of the next stay apart. It fails with
// errImportStopped when the import stopped, else with the form's own
// failure.
func (im *namesImport) copy(part io.Reader) error {
	n, err := io.Copy(importWriter{im.pw}, part)
	if err != nil || n == 0 {
		// An empty part (the names box left empty beside a file) is no
		// line: the file's line numbers in the report stay its own.
		return err
	}
	_, err = importWriter{im.pw}.Write([]byte{'\n'})
	return err
}

// importWriter feeds an import, telling its failures from the form's.
type importWriter struct{ pw *io.PipeWriter }

func (w importWriter) Write(b []byte) (int, error) {
	n, err := w.pw.Write(b)
	if err != nil {
		err = errImportStopped
	}
	return n, err
}

// cutShort stops the import (a nil one did nothing) because the form
// failed with err, and answers: the import's own failure when it stopped
// first, else formCutShort.
func (im *namesImport) cutShort(r *http.Request, err error) error {
	res, ierr := im.finish(err)
	if errors.Is(err, errImportStopped) {
		return cmpErr(ierr, err)
	}
	if ierr != nil && !errors.Is(ierr, err) {
		return ierr // the import failed of itself (the database)
	}
	return formCutShort(r, err, res)
}

// finish ends the import's input, cut short by err when not nil, and
// returns what the import did. A nil import did nothing.
func (im *namesImport) finish(err error) (items.AddResult, error) {
	if im == nil {
		return items.AddResult{}, nil
	}
	im.pw.CloseWithError(err)
	<-im.done
	return im.res, im.err
}

// flowingBody is a request body that moves the connection's read deadline
// on before every read: an upload is given up when no byte comes for idle,
// not when it has taken longer than the server's read timeout in all.
type flowingBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
}

func (b *flowingBody) Read(p []byte) (int, error) {
	if err := b.rc.SetReadDeadline(time.Now().Add(b.idle)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, err
	}
	return b.ReadCloser.Read(p)
}
