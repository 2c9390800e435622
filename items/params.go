package items

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxDocumentBytes bounds an item's parameters and a completion's result.
const MaxDocumentBytes = 64 << 10

// paramsSeparator starts an item's parameters on an import line or in a
// backfeed entry that carries them: "NAME<TAB>{...}".
const paramsSeparator = "\t{"

// splitParams cuts an import line "NAME<TAB>{...}" into the name and its
// parameters (see parseParams); a line without the separator is a name
// alone.
func splitParams(line string) (name, params string, err error) {
	i := strings.Index(line, paramsSeparator)
	if i < 0 {
		return line, "", nil
	}
	return line[:i], line[i+1:], nil
}

// parseParams checks an item's parameters: a JSON object of at most
// MaxDocumentBytes. They come back as stored (see normalDocument).
func parseParams(doc string) (string, error) {
	normal, err := normalDocument("parameters", []byte(doc))
	if err != nil {
		return "", err
	}
	if normal[0] != '{' {
		return "", errors.New("parameters: not a JSON object")
	}
	return string(normal), nil
}

// normalDocument checks a document (an item's parameters, a result) and
// returns it as PostgreSQL's jsonb takes it: at most MaxDocumentBytes of
// JSON, every number finite in a float64 and every string free of NUL, and
// a lone UTF-16 surrogate (which encoding/json lets through and jsonb
// refuses) replaced, as decoding does, by U+FFFD. A document jsonb would
// refuse must be the client's 400, never a failed batch.
func normalDocument(what string, doc []byte) (json.RawMessage, error) {
	if len(doc) > MaxDocumentBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", what, len(doc), MaxDocumentBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, fmt.Errorf("%s: not valid JSON", what)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: not valid JSON", what)
	}
	if err := jsonbSafe(v); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return json.Marshal(v)
}

// jsonbSafe says why a decoded document is not one jsonb stores.
func jsonbSafe(v any) error {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("number %.40s out of range", v)
		}
	case string:
		if strings.ContainsRune(v, 0) {
			return errors.New("contains NUL")
		}
	case []any:
		for _, e := range v {
			if err := jsonbSafe(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range v {
			if strings.ContainsRune(k, 0) {
				return errors.New("contains NUL")
			}
			if err := jsonbSafe(e); err != nil {
				return err
			}
		}
	}
	return nil
}
