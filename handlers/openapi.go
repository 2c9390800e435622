package handlers

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// openAPIYAML is the admin API's description, OpenAPI 3: every route of
// apiRoutes, its bodies, answers and refusals (a test holds the two
// together).
//
//go:embed openapi.yaml
var openAPIYAML []byte

// OpenAPI is the admin API's description, loaded anew.
func OpenAPI() (*openapi3.T, error) {
	return openapi3.NewLoader().LoadFromData(openAPIYAML)
}

// openAPIJSON is the description as JSON.
var openAPIJSON = sync.OnceValues(func() ([]byte, error) {
	doc, err := OpenAPI()
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
})

// serveOpenAPIYAML is GET /api/v1/openapi.yaml: the description as
// written; it needs no token.
func serveOpenAPIYAML(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_, err := w.Write(openAPIYAML)
	return err
}

// serveOpenAPIJSON is GET /api/v1/openapi.json: the description as JSON,
// for the tools that read only that.
func serveOpenAPIJSON(w http.ResponseWriter, r *http.Request) error {
	b, err := openAPIJSON()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_, err = w.Write(b)
	return err
}
