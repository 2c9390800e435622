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
// returns it as it is stored: JSON that PostgreSQL's jsonb takes and keeps
// as it is given, of at most MaxDocumentBytes. Every number must be one a
// float64 holds (finite, and not so near zero that it rounds to it) and is
// written out without an exponent, as jsonb keeps and prints it (see
// storedNumber); every string is free of NUL, a lone UTF-16 surrogate
// (which encoding/json lets through and jsonb refuses) replaced, as
// decoding does, by U+FFFD. The bound is measured on the document so
// encoded, which is what every answer carrying it sends: written out,
// 1e-300 is 302 bytes, and "<" is escaped as \u003c, six. A document jsonb
// would refuse must be the client's 400, never a failed batch.
func normalDocument(what string, doc []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, fmt.Errorf("%s: not valid JSON", what)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: not valid JSON", what)
	}
	v, err := jsonbSafe(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	normal, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(normal) > MaxDocumentBytes {
		return nil, fmt.Errorf("%s: %d bytes as stored (numbers written out, <, > and & escaped), more than %d", what, len(normal), MaxDocumentBytes)
	}
	return normal, nil
}

// jsonbSafe says why a decoded document is not one jsonb stores, or
// returns it with its numbers as stored.
func jsonbSafe(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		return storedNumber(v)
	case string:
		if strings.ContainsRune(v, 0) {
			return nil, errors.New("contains NUL")
		}
	case []any:
		for i, e := range v {
			var err error
			if v[i], err = jsonbSafe(e); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		for k, e := range v {
			if strings.ContainsRune(k, 0) {
				return nil, errors.New("contains NUL")
			}
			n, err := jsonbSafe(e)
			if err != nil {
				return nil, err
			}
			v[k] = n
		}
	}
	return v, nil
}

// storedNumber is a JSON number as jsonb stores and prints it: its decimal
// digits, exactly, written out without an exponent (1.5e-3 is 0.0015, 1e3
// is 1000, 1.50 stays 1.50). jsonb keeps every digit of a number, so
// 1e-16383 would come back as 16,385 characters and 1e-20000 is refused by
// PostgreSQL outright although encoding/json takes it: a number is refused
// unless a float64 holds it, finite and, unless it is zero, not rounding to
// zero, which keeps a number written out within a few hundred digits beyond
// the ones it was sent with. Zero, in any form, is 0.
func storedNumber(n json.Number) (json.Number, error) {
	s := string(n)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return "", fmt.Errorf("number %.40s out of range", s)
	}
	// JSON's grammar, checked by the decoder: -?INT(.FRAC)?([eE][+-]?EXP)?
	mantissa, exp, _ := strings.Cut(strings.ToLower(s), "e")
	negative := strings.HasPrefix(mantissa, "-")
	mantissa = strings.TrimPrefix(mantissa, "-")
	intPart, frac, _ := strings.Cut(mantissa, ".")
	digits := intPart + frac
	if strings.Trim(digits, "0") == "" {
		return "0", nil
	}
	if f == 0 {
		return "", fmt.Errorf("number %.40s out of range (too near zero)", s)
	}
	shift := 0
	if exp != "" {
		// Finite and not zero, a float64's exponent is within ±324 of the
		// digits' own: one further off is no number a float64 holds.
		if shift, err = strconv.Atoi(exp); err != nil {
			return "", fmt.Errorf("number %.40s out of range", s)
		}
	}
	point := len(intPart) + shift // where the decimal point goes in digits
	var whole, fraction string
	switch {
	case point <= 0:
		whole, fraction = "0", strings.Repeat("0", -point)+digits
	case point >= len(digits):
		whole = digits + strings.Repeat("0", point-len(digits))
	default:
		whole, fraction = digits[:point], digits[point:]
	}
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	out := whole
	if fraction != "" {
		out += "." + fraction
	}
	if negative {
		out = "-" + out
	}
	return json.Number(out), nil
}
