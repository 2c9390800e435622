package handlers

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a-h/templ"

	"tracker/items"
	"tracker/naming"
	"tracker/projects"
	"tracker/refusal"
	"tracker/views"
)

// What the admin pages share: the chrome of a page, a project's header,
// the fields of a settings form, the state of a refused form, the
// confirmation of bulk actions.

// adminPageOf is the chrome of an admin page for the request's account,
// with the message the last action left in the session.
func (h *Handler) adminPageOf(r *http.Request) views.AdminPage {
	a := account(r)
	s := h.sessions.of(r)
	return views.AdminPage{Username: a.Username, IsAdmin: a.IsAdmin(), Flash: s.PopString(r.Context(), sessionFlashKey),
		Warning: s.PopString(r.Context(), sessionWarningKey), Nav: adminNav(r.URL.Path)}
}

// adminNav is the part of the panel a path is in, for the bar.
func adminNav(path string) string {
	for _, part := range []string{"audit", "jobs", "users", "settings", "account"} {
		if path == "/admin/"+part || strings.HasPrefix(path, "/admin/"+part+"/") {
			return part
		}
	}
	return "projects"
}

// redirectWithFlash sends the browser to path after an action, with a
// message for the page there. The message travels in the session, never
// in the address: nobody can make the panel show words of their own.
func (h *Handler) redirectWithFlash(w http.ResponseWriter, r *http.Request, path, msg string) error {
	h.sessions.of(r).Put(r.Context(), sessionFlashKey, msg)
	http.Redirect(w, r, path, http.StatusSeeOther)
	return nil
}

// adminProject reads the project of an admin route and checks the admin
// may run it.
func (h *Handler) adminProject(r *http.Request) (projects.Project, error) {
	p, err := h.adm.projects.Get(r.Context(), r.PathValue("slug"))
	if errors.Is(err, projects.ErrNotFound) {
		return p, errorf(http.StatusNotFound, "unknown-project", "no project %q", r.PathValue("slug"))
	}
	if err != nil {
		return p, err
	}
	return p, canRun(r, p.ID)
}

// adminProjectForm is adminProject for a POST whose small form it reads.
func (h *Handler) adminProjectForm(w http.ResponseWriter, r *http.Request) (projects.Project, error) {
	p, err := h.adminProject(r)
	if err != nil {
		return p, err
	}
	return p, parseSmallForm(w, r)
}

// formState is what a page shows after a refused form: the status, the
// reason (X-Tracker-Reason: scripts that post the panel's forms tell
// refusals apart by it), the refusal, and, for a settings form, the values
// sent and each field's refusal.
type formState struct {
	status int
	reason string
	err    string
	values map[string]string
	errs   projects.FieldErrors
}

func shown() formState { return formState{status: http.StatusOK} }

// refused is a form refused 400 for reason, msg shown on the page.
func refused(reason, msg string) formState {
	return formState{status: http.StatusBadRequest, reason: reason, err: msg}
}

// refusedBy is a form refused with e's status, reason and message.
func refusedBy(e *Error) formState { return formState{status: e.Status, reason: e.Reason, err: e.Msg} }

// renderForm renders the page c of a form in the state st: with its
// refusal's status and reason when it was refused.
func renderForm(w http.ResponseWriter, r *http.Request, st formState, c templ.Component) error {
	if st.reason != "" {
		w.Header().Set("X-Tracker-Reason", st.reason)
	}
	return render(w, r, st.status, c)
}

// projectPage is the header of a project's admin page, and the summary it
// was read from.
func (h *Handler) projectPage(r *http.Request, p projects.Project, section string, st formState) (views.AdminProjectPage, projects.Summary, error) {
	s, err := h.adm.projects.Summary(r.Context(), p)
	if err != nil {
		return views.AdminProjectPage{}, s, err
	}
	page := h.adminPageOf(r)
	if st.err != "" {
		page.Flash, page.Error = "", st.err
	}
	v := views.AdminProjectPage{AdminPage: page, Project: projectInfo(p), Section: section, Claims: s.Claims, Done: s.Done}
	for _, q := range naming.QueueNames(s.Queues) {
		v.Queues = append(v.Queues, views.QueueSize{Name: q, Items: s.Queues[q]})
	}
	return v, s, nil
}

// fields are the settings form of the keys include picks, showing the
// values sent and the refusals of st when a save was refused.
func fields[T any](keys []projects.Key[T], t T, include func(projects.Key[T]) bool, globalAdmin bool, st formState) []views.Field {
	var out []views.Field
	for _, k := range keys {
		if !include(k) {
			continue
		}
		f := views.Field{Name: k.Name, Label: k.Label, Input: string(k.Input), Choices: k.Choices, Unit: k.Unit,
			Help: k.Help, Value: k.Value(t), Error: st.errs[k.Name], Locked: k.GlobalOnly && !globalAdmin}
		if r := k.Range; r != nil {
			f.Range = &views.FieldRange{Min: r.Min, Max: r.Max, Zero: r.Zero}
		}
		if v, ok := st.values[k.Name]; ok {
			f.Value = v
		}
		out = append(out, f)
	}
	return out
}

// sectionFields are the settings form of one section of a project: the
// keys that mean something in the project's mode.
func sectionFields(r *http.Request, p projects.Project, section projects.Section, st formState) []views.Field {
	return fields(projects.Keys, p, func(k projects.Key[projects.Project]) bool {
		return k.Section == section && (k.Mode == "" || k.Mode == p.Config.Mode)
	}, account(r).IsAdmin(), st)
}

// formValue is a key's value in a settings form, and whether the form
// holds it: a checkbox left unticked is not sent, and means false.
func formValue(form url.Values, name string, input projects.Input) (string, bool) {
	if input == projects.InputBool {
		if slices.Contains(form[name], "true") {
			return "true", true
		}
		return "false", true
	}
	vs, ok := form[name]
	if !ok || len(vs) != 1 {
		return "", false
	}
	return vs[0], true
}

// toSection sends the browser to a section of a project's admin with a
// message: after a change, a reload does not send the form again.
func (h *Handler) toSection(w http.ResponseWriter, r *http.Request, p projects.Project, section, flash string) error {
	return h.redirectWithFlash(w, r, "/admin/projects/"+p.Slug+"/"+section, flash)
}

// confirmed says whether an action's form came back from its
// confirmation page.
func confirmed(r *http.Request) bool { return r.PostForm.Get("confirmed") == "1" }

// A confirmation is what an action says before it runs: the question
// (what it does, counted and named), the button that goes on, what must be
// typed to go on ("" for a click), and where Cancel leads ("" for the
// section's page).
type confirmation struct {
	question, button, typed, back string
}

// askConfirmation shows what a bulk action will do and sends the same form
// again, confirmed, when the admin agrees. typed, when set, must be typed.
func (h *Handler) askConfirmation(w http.ResponseWriter, r *http.Request, p projects.Project, section, question, button, typed string) error {
	return h.askProject(w, r, p, section, confirmation{question: question, button: button, typed: typed}, false)
}

// askDestructive is askConfirmation for an action that cannot be undone
// (a drop, a new backfeed key, a block lifted): its button is red, and the
// form sent without its confirmation is answered 400 `unconfirmed` with
// the confirmation page, so that a script posting it learns it changed
// nothing.
func (h *Handler) askDestructive(w http.ResponseWriter, r *http.Request, p projects.Project, section string, c confirmation) error {
	return h.askProject(w, r, p, section, c, true)
}

func (h *Handler) askProject(w http.ResponseWriter, r *http.Request, p projects.Project, section string, c confirmation, destructive bool) error {
	page, _, err := h.projectPage(r, p, section, shown())
	if err != nil {
		return err
	}
	if c.back == "" {
		c.back = projectURL(p.Slug, section)
	}
	return h.confirmPage(w, r, views.AdminConfirmView{AdminProjectPage: page}, "Confirm · "+displayTitle(p), c, destructive)
}

// confirmPage renders the confirmation v of c, carrying the form's values.
func (h *Handler) confirmPage(w http.ResponseWriter, r *http.Request, v views.AdminConfirmView, title string, c confirmation, destructive bool) error {
	v.Question, v.Action, v.Button, v.Typed, v.Back, v.Destructive = c.question, r.URL.Path, c.button, c.typed, c.back, destructive
	for _, name := range slices.Sorted(maps.Keys(r.PostForm)) {
		if name == "confirmed" || name == "confirm" {
			continue
		}
		for _, value := range r.PostForm[name] {
			v.Hidden = append(v.Hidden, views.HiddenField{Name: name, Value: value})
		}
	}
	status := http.StatusOK
	if destructive {
		status = http.StatusBadRequest
		if confirmed(r) && c.typed != "" {
			v.Error = fmt.Sprintf("Type %s exactly to go on.", c.typed)
		}
		setErrorHeaders(w, errorf(status, "unconfirmed", "confirm first"))
	}
	return render(w, r, status, views.AdminLayout(title, views.AdminConfirm(v)))
}

// live says whether a GET asks for the live regions of a page alone
// (live=1): static/refresh.js reads them again every few seconds, so they
// read only what those regions show.
func live(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Query().Get("live") == "1"
}

// projectURL is the address of a section of a project's admin.
func projectURL(slug, section string) string { return "/admin/projects/" + slug + "/" + section }

// parseSmallForm reads a form of at most 1 MiB, all of it text.
func parseSmallForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		return errorf(http.StatusBadRequest, "bad-form", "the form could not be read")
	}
	return validForm(r.PostForm)
}

// textRefusal is the answer to a text an admin entered that the store
// refuses (too long, or no one line), naming the field and its bound; nil
// for any other error.
func textRefusal(err error) *Error {
	var long *projects.TooLongError
	if errors.As(err, &long) {
		return errorf(http.StatusBadRequest, "too-long", "%v", err)
	}
	var field *projects.FieldError
	if errors.As(err, &field) {
		return errorf(http.StatusBadRequest, "invalid-form", "%v", err)
	}
	return nil
}

// selection is the items a bulk action's form picks by name.
func selection(form url.Values) items.Selection {
	return items.Selection{Prefix: form.Get("prefix"), Pattern: strings.TrimSpace(form.Get("pattern"))}
}

// invalid is the refusal of an error in what the admin asked (a bad
// queue, a bad pattern), with the engine's reason, and whether err is one.
func invalid(err error) (formState, bool) {
	if e, ok := refusal.Of(err); ok && e.Kind == refusal.Invalid {
		return refused(cmp.Or(e.Reason, "invalid-request"), e.Error()), true
	}
	return formState{}, false
}

// describeSelection says which names a bulk action picks, for its
// confirmation.
func describeSelection(sel items.Selection) string {
	var parts []string
	if sel.Prefix != "" {
		parts = append(parts, fmt.Sprintf("starting with %q", sel.Prefix))
	}
	if sel.Pattern != "" {
		parts = append(parts, fmt.Sprintf("matching %q", sel.Pattern))
	}
	if len(parts) == 0 {
		return ""
	}
	return "(names " + strings.Join(parts, " and ") + ") "
}
