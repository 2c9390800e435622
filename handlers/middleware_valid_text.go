package handlers

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// validText refuses a request whose path or query holds NUL or bytes that
// are not UTF-8, before any route runs: PostgreSQL's text holds neither, so
// such a value would reach the database only to fail there, as a 500 and an
// error in the log. It refuses too a query that cannot be read whole (a
// ';', which Go no longer takes for a separator, or a bad escape such as
// %zz): the routes read queries with URL.Query, which drops such a
// parameter without a word, so ?skipbloom=1; would be taken for no
// skipbloom at all. Two kinds of value are left to their routes:
//   - the item of GET /{project}/items/{item}.json, which the item route
//     checks as every item name is checked (naming.ValidName), answering
//     invalid-item;
//   - the backfeed's delimiter and itemseparator, which are bytes, not text
//     (NUL is the default delimiter); they never reach the database.
func validText(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !validPath(r) {
			writeErrorFor(w, r, errorf(http.StatusBadRequest, "invalid-path", "the path must be UTF-8 without NUL"))
			return
		}
		query, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			writeErrorFor(w, r, errorf(http.StatusBadRequest, "invalid-query", "the query cannot be read whole (%v): parameters are separated by & alone, and %% starts an escape such as %%3B for ;", err))
			return
		}
		raw := rawQueryKeys(r)
		for k, vs := range query {
			if !isText(k) {
				writeErrorFor(w, r, errorf(http.StatusBadRequest, "invalid-query", "query parameter names must be UTF-8 without NUL"))
				return
			}
			if raw[k] {
				continue
			}
			for _, v := range vs {
				if !isText(v) {
					writeErrorFor(w, r, errorf(http.StatusBadRequest, "invalid-query", "the query parameter %q must be UTF-8 without NUL", k))
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// validPath checks r's unescaped path, but for the item of an item route:
// only its project.
func validPath(r *http.Request) bool {
	project, _, ok := itemPath(r)
	if !ok {
		return isText(r.URL.Path)
	}
	p, err := url.PathUnescape(project)
	return err == nil && isText(p)
}

// rawQueryKeys are the query parameters of r's route that are bytes, not
// text.
func rawQueryKeys(r *http.Request) map[string]bool {
	if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/backfeed/legacy/") {
		return map[string]bool{"delimiter": true, "itemseparator": true}
	}
	return nil
}

// isText says whether s is UTF-8 without NUL: what PostgreSQL stores as text.
func isText(s string) bool {
	return utf8.ValidString(s) && !strings.Contains(s, "\x00")
}

// validForm checks the values of a parsed form as validText checks a query:
// the admin panel's forms go to the database as text.
func validForm(form url.Values) error {
	for k, vs := range form {
		if !isText(k) {
			return errorf(http.StatusBadRequest, "invalid-form", "form field names must be UTF-8 without NUL")
		}
		for _, v := range vs {
			if !isText(v) {
				return errorf(http.StatusBadRequest, "invalid-form", "the field %q must be UTF-8 without NUL", k)
			}
		}
	}
	return nil
}
