package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// flexibleString takes a JSON string or number: script versions arrive as
// "20240101.01" from current clients and as bare numbers from some old ones.
type flexibleString string

func (s *flexibleString) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = flexibleString(v)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("expected a string or a number, got %s", b)
	}
	*s = flexibleString(n)
	return nil
}
