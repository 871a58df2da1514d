package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/provision"
)

// The bootstrap file (docs/operations.md, "Bootstrap file") is a
// provision.Spec in JSON: -bootstrap reads and checks it before the
// server binds, and provisions it once the database is open. The rules
// are the library's; this file reads, decodes and words the failures.

// loadBootstrap reads and decodes the file strictly (unknown members are
// errors, naming the entry that holds them) and checks everything that does
// not need the database.
func loadBootstrap(path string) (*provision.Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	spec, err := decodeBootstrap(path, data)
	if err != nil {
		return nil, err
	}
	if err := spec.Validate(); err != nil {
		return nil, bootstrapError(err)
	}
	return spec, nil
}

// bootstrapError words a failure of provisioning in one line: "bootstrap
// <entry>: ..." for the file's first problem (with how many more there
// are) or an entry that failed to apply, "bootstrap: ..." for anything
// else (the database failing).
func bootstrapError(err error) error {
	var ae *provision.ApplyError
	if err == nil {
		return nil
	}
	if errors.As(err, &ae) {
		return fmt.Errorf("bootstrap %w", err)
	}
	if es, ok := err.(scopekit.Errors); ok && len(es) > 0 {
		if len(es) == 1 {
			return errors.New("bootstrap " + es[0].Message)
		}
		return fmt.Errorf("bootstrap %s (and %d more problems)", es[0].Message, len(es)-1)
	}
	return fmt.Errorf("bootstrap: %w", err)
}

// decodeBootstrap decodes the top level and then each entry on its own, so
// that an unknown or mistyped member is reported with its entry; errors of
// the top level name the file.
func decodeBootstrap(path string, data []byte) (*provision.Spec, error) {
	if err := cleanJSONText(data); err != nil {
		return nil, fmt.Errorf("bootstrap %s: %w", path, err)
	}
	var top struct {
		Accounts []json.RawMessage `json:"accounts"`
		Users    []json.RawMessage `json:"users"`
	}
	if err := strictDecode(data, &top); err != nil {
		return nil, fmt.Errorf("bootstrap %s: %w", path, jsonError(data, err))
	}
	spec := &provision.Spec{Accounts: make([]provision.Account, len(top.Accounts)), Users: make([]provision.User, len(top.Users))}
	for i, raw := range top.Accounts {
		if err := strictDecode(raw, &spec.Accounts[i]); err != nil {
			var peek struct{ Slug any }
			_ = json.Unmarshal(raw, &peek)
			return nil, fmt.Errorf("bootstrap %s: %s", entryName("accounts", i, peek.Slug), jsonMessage(err))
		}
	}
	for i, raw := range top.Users {
		if err := strictDecode(raw, &spec.Users[i]); err != nil {
			var peek struct{ Email any }
			_ = json.Unmarshal(raw, &peek)
			return nil, fmt.Errorf("bootstrap %s: %s", entryName("users", i, peek.Email), jsonMessage(err))
		}
	}
	return spec, nil
}

// entryName names an entry of the file as the library's messages do
// (provision.EntryName), whatever JSON value its key holds.
func entryName(list string, i int, key any) string {
	k := ""
	if key != nil {
		k = fmt.Sprint(key)
	}
	return provision.EntryName(list, i, k)
}

// cleanJSONText refuses a file that is not UTF-8 or has a NUL character
// in a string: encoding/json would silently turn the first into U+FFFD and
// store the second.
func cleanJSONText(data []byte) error {
	if !utf8.Valid(data) {
		return errors.New("the file is not valid UTF-8")
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil // the strict decoding reports it, with its position
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case string:
			return !strings.ContainsRune(v, 0) && !strings.ContainsRune(v, utf8.RuneError)
		case map[string]any:
			for k, e := range v {
				if !walk(k) || !walk(e) {
					return false
				}
			}
		case []any:
			for _, e := range v {
				if !walk(e) {
					return false
				}
			}
		}
		return true
	}
	if !walk(v) {
		return errors.New("a string holds a NUL character or an unpaired surrogate escape")
	}
	return nil
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// jsonMessage is a decoding error without the "json: " prefix. The message
// of a mistyped member names Go types; it names them as it did when the
// entries were this program's own types (bsAccount, bsCurrency, ...)
// rather than the provision package's.
func jsonMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Struct != "" {
			msg = strings.Replace(msg, "Go struct field "+te.Struct+".", "Go struct field bs"+te.Struct+".", 1)
		}
		msg = strings.ReplaceAll(msg, "provision.", "main.bs")
	}
	return msg
}

// jsonError adds the line and column to a syntax error.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := 1, 1
		for _, b := range data[:min(int(se.Offset), len(data))] {
			if b == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Errorf("malformed JSON at line %d, column %d: %s", line, col, jsonMessage(err))
	}
	return errors.New(jsonMessage(err))
}
