package items

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
// MaxDocumentBytes. They come back compact.
func parseParams(doc string) (string, error) {
	if err := validDocument("parameters", []byte(doc)); err != nil {
		return "", err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
		return "", errors.New("parameters: not a JSON object")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(doc)); err != nil {
		return "", err
	}
	return compact.String(), nil
}

// validDocument says why doc cannot be an item's parameters or a result.
func validDocument(what string, doc []byte) error {
	switch {
	case len(doc) > MaxDocumentBytes:
		return fmt.Errorf("%s: %d bytes, more than %d", what, len(doc), MaxDocumentBytes)
	case !json.Valid(doc):
		return fmt.Errorf("%s: not valid JSON", what)
	case bytes.ContainsRune(doc, 0) || bytes.Contains(doc, []byte(`\u0000`)):
		// PostgreSQL's jsonb holds no NUL.
		return errors.New(what + ": contains NUL")
	}
	return nil
}
