package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"tracker/db/dbtest"
	"tracker/handlers"
	"tracker/users"
)

// NDJSON is lines of text to the validator, as text/plain is.
func init() {
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
}

// openAPIOperations are the operations of the admin API's document, as
// route patterns ("GET /api/v1/projects/{slug}").
func openAPIOperations(t *testing.T) (*openapi3.T, []string) {
	t.Helper()
	doc, err := handlers.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is no valid OpenAPI 3: %v", err)
	}
	var ops []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, method+" "+path)
		}
	}
	slices.Sort(ops)
	return doc, ops
}

// TestOpenAPIMatchesRoutes: every route of the admin API is in its
// OpenAPI document and every operation of the document is routed: a
// request to each reaches its route (a refusal for want of a token, or
// the document itself), never the API's not-found or method-not-allowed.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	_, ops := openAPIOperations(t)
	routes := handlers.New(handlers.Config{}).APIPatterns()
	slices.Sort(routes)
	if !slices.Equal(ops, routes) {
		t.Errorf("the document's operations and the routes differ:\ndocument: %q\nroutes:   %q", ops, routes)
	}

	f := setup(t)
	for _, op := range ops {
		method, path, _ := strings.Cut(op, " ")
		a := f.apiCall(t, "", method, strings.ReplaceAll(path, "{slug}", "test"), "", nil)
		switch {
		case strings.HasPrefix(path, "/api/v1/openapi."):
			if a.status != 200 {
				t.Errorf("%s: %d %s", op, a.status, a.body)
			}
		case a.status != http.StatusUnauthorized || a.reason != "token-required":
			t.Errorf("%s without a token: %d %q, want 401 token-required", op, a.status, a.reason)
		}
	}
	// And the JSON served is the document.
	a := f.apiCall(t, "", "GET", "/api/v1/openapi.json", "", nil)
	var served openapi3.T
	if err := json.Unmarshal([]byte(a.body), &served); err != nil || served.Paths.Len() != len(slices.Compact(pathsOf(ops))) {
		t.Errorf("openapi.json: %v, %d paths", err, served.Paths.Len())
	}
}

func pathsOf(ops []string) []string {
	var ps []string
	for _, op := range ops {
		_, p, _ := strings.Cut(op, " ")
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// TestOpenAPIResponsesValidate: requests as the document describes them,
// and the API's answers, success and refusal, validate against it.
func TestOpenAPIResponsesValidate(t *testing.T) {
	t.Parallel()
	doc, _ := openAPIOperations(t)
	f := setup(t, "a:1", "a:2", "b:1")
	// The document's server is the tracker's root, wherever it is.
	doc.Servers = openapi3.Servers{{URL: f.srv.URL + "/"}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	f.user(t, "root", users.RoleAdmin)
	write := f.apiToken(t, "root", users.ScopeWrite)
	read := f.apiToken(t, "root", users.ScopeRead)

	calls := []struct {
		token, method, path, contentType, body string
		status                                 int
	}{
		{write, "GET", "/api/v1/projects/test", "", "", 200},
		{write, "POST", "/api/v1/projects/test/config", "application/json", `{"paused": true, "title": "Test"}`, 200},
		{write, "POST", "/api/v1/projects/test/config", "application/json", `{"no_such_key": 1}`, 400},
		{write, "POST", "/api/v1/projects/test/items", "text/plain", "c:1\na:1\n\x00\n", 200},
		{write, "POST", "/api/v1/projects/test/items?queue=secondary", "application/x-ndjson", `{"name": "d:1", "params": {"n": 1}}` + "\n", 200},
		{write, "POST", "/api/v1/projects/test/queues/move", "application/json", `{"from": "todo", "to": "redo", "prefix": "a:"}`, 200},
		{write, "POST", "/api/v1/projects/test/queues/drain", "application/json", `{"queue": "redo"}`, 200},
		{write, "POST", "/api/v1/projects/test/queues/drain", "application/json", `{"queue": "todo", "pattern": "("}`, 400},
		{write, "POST", "/api/v1/projects/test/claims/release", "application/json", `{"older_than_minutes": 5}`, 200},
		{write, "POST", "/api/v1/projects/test/blocks/add", "application/json", `{"kind": "nick", "value": "spammer", "reason": "spam"}`, 200},
		{write, "GET", "/api/v1/projects/test/blocks", "", "", 200},
		{write, "POST", "/api/v1/projects/test/blocks/remove", "application/json", `{"kind": "nick", "value": "spammer"}`, 200},
		{write, "POST", "/api/v1/projects/test/blocks/remove", "application/json", `{"kind": "nick", "value": "spammer"}`, 404},
		{write, "POST", "/api/v1/projects/test/targets/add", "application/json", `{"url": "rsync://up.example/test/:downloader/", "weight": 2}`, 200},
		{write, "GET", "/api/v1/projects/test/targets", "", "", 200},
		{write, "POST", "/api/v1/projects/test/targets/remove", "application/json", `{"url": "rsync://up.example/test/:downloader/"}`, 200},
		{write, "POST", "/api/v1/projects/test/dictionaries", "application/octet-stream", "not a dictionary", 400},
		{read, "GET", "/api/v1/audit?project=test&limit=2", "", "", 200},
		{read, "GET", "/api/v1/audit", "", "", 200},
		{read, "POST", "/api/v1/projects/test/config", "application/json", `{"paused": false}`, 403},
		{"", "GET", "/api/v1/projects/test", "", "", 401},
		{write, "GET", "/api/v1/projects/none", "", "", 404},
	}
	for _, c := range calls {
		req, _ := http.NewRequest(c.method, f.srv.URL+c.path, strings.NewReader(c.body))
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatalf("%s %s: not in the document: %v", c.method, c.path, err)
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && c.status < 400 {
			t.Errorf("%s %s: the request does not validate: %v", c.method, c.path, err)
		}
		req.Body = io.NopCloser(strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, resp.StatusCode, c.status, body)
			continue
		}
		validateResponse(t, in, route, resp, body)
	}
	// The import refused its NUL line by number.
	var n int64
	dbtest.MustScan(t, f.pool.QueryRow(context.Background(), "SELECT count(*) FROM todo WHERE name = 'c:1'"), &n)
	if n != 1 {
		t.Errorf("c:1 queued %d times", n)
	}
}

func validateResponse(t *testing.T, in *openapi3filter.RequestValidationInput, route *routers.Route, resp *http.Response, body []byte) {
	t.Helper()
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s %s: the %d answer does not validate: %v\n%s", route.Method, route.Path, resp.StatusCode, err, body)
	}
}
