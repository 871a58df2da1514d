package jsonapi

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Paging bounds of the HTTP contract.
const (
	DefaultPageSize = 250
	MaxPageSize     = 1000
)

// maxPageNumber keeps (number-1)*size, the offset a store computes, far from
// overflowing an int64.
const maxPageNumber = 1<<31 - 1

// SortField is one entry of the sort parameter.
type SortField struct {
	Field string
	Desc  bool
}

// Query is a parsed JSON:API query string. Its maps are never nil. Which
// filters, includes, fields and sort keys a collection supports is for the
// caller to decide: ParseQuery checks syntax only.
type Query struct {
	PageNumber int                 // default 1
	PageSize   int                 // default DefaultPageSize
	Filters    map[string]string   // filter[name] => raw value (comma lists stay raw)
	Include    []string            // include=a,b
	Fields     map[string][]string // fields[type]=a,b; an empty value gives an empty, non-nil list
	Sort       []SortField         // sort=name,-created-at
	Other      url.Values          // parameters that are none of the above (e.g. "version"), left for the caller
}

// ParseQuery parses the JSON:API parameters of v. The error is always an
// *Error with Parameter set to the offending key. Each of page[...],
// filter[...], fields[...], include and sort may be given once: a repeated
// key is ambiguous (which value wins?), so it is rejected rather than guessed.
func ParseQuery(v url.Values) (*Query, error) {
	q, err := parseQuery(v)
	if err != nil {
		return nil, err
	}
	return q, nil
}

func parseQuery(v url.Values) (*Query, *Error) {
	q := &Query{
		PageNumber: 1,
		PageSize:   DefaultPageSize,
		Filters:    map[string]string{},
		Fields:     map[string][]string{},
		Other:      url.Values{},
	}
	// Sorted keys make the reported error independent of map order.
	for _, key := range slices.Sorted(maps.Keys(v)) {
		if !cleanText(key) {
			return nil, badParameter(strings.ToValidUTF8(strings.ReplaceAll(key, "\x00", "\uFFFD"), "\uFFFD"), "query parameter names must be UTF-8 text without NUL characters")
		}
		for _, val := range v[key] {
			if !cleanText(val) && key != "" { // an unnamed parameter is never read
				return nil, badParameter(key, "%s must be UTF-8 text without NUL characters", key)
			}
		}
		family, name, bracketed, wellFormed := splitKey(key)
		switch family {
		case "page", "filter", "fields", "include", "sort":
		default:
			q.Other[key] = v[key]
			continue
		}
		if !wellFormed {
			return nil, badParameter(key, "%s is not a valid parameter name: write %s", key, usage(family))
		}
		if bracketed != (family == "page" || family == "filter" || family == "fields") {
			return nil, badParameter(key, "%s is not a valid parameter name: write %s", key, usage(family))
		}
		if len(v[key]) == 0 {
			continue
		}
		if len(v[key]) > 1 {
			return nil, badParameter(key, "%s is given %d times; give it once (comma-separate several values)", key, len(v[key]))
		}
		value := v[key][0]
		var err *Error
		switch family {
		case "page":
			err = q.page(key, name, value)
		case "filter":
			q.Filters[name] = value
		case "fields":
			q.Fields[name], err = fieldList(key, name, value)
		case "include":
			q.Include, err = includeList(key, value)
		case "sort":
			q.Sort, err = sortList(key, value)
		}
		if err != nil {
			return nil, err
		}
	}
	return q, nil
}

// splitKey splits "family[name]" into its parts. wellFormed is false for an
// unclosed or nested bracket or an empty name.
func splitKey(key string) (family, name string, bracketed, wellFormed bool) {
	i := strings.IndexByte(key, '[')
	if i < 0 {
		return key, "", false, true
	}
	family, rest := key[:i], key[i+1:]
	name, ok := strings.CutSuffix(rest, "]")
	wellFormed = ok && name != "" && !strings.ContainsAny(name, "[]")
	return family, name, true, wellFormed
}

func usage(family string) string {
	switch family {
	case "page":
		return "page[number] or page[size]"
	case "filter":
		return "filter[name]=value"
	case "fields":
		return "fields[type]=a,b"
	}
	return family + "=a,b"
}

func (q *Query) page(key, name, value string) *Error {
	switch name {
	case "number":
		n, ok := positive(value)
		if !ok || n > maxPageNumber {
			return badParameter(key, "page[number] must be a whole number from 1 to %d, not %q", maxPageNumber, value)
		}
		q.PageNumber = n
	case "size":
		n, ok := positive(value)
		if !ok || n > MaxPageSize {
			return badParameter(key, "page[size] must be a whole number from 1 to %d, not %q", MaxPageSize, value)
		}
		q.PageSize = n
	default:
		return badParameter(key, "%s is not supported; page with page[number] and page[size]", key)
	}
	return nil
}

// positive parses a decimal integer of digits only (no sign, no spaces).
func positive(s string) (int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

func fieldList(key, typ, value string) ([]string, *Error) {
	if !validMemberName(typ) {
		return nil, badParameter(key, "%s names the type %q, which is not a valid member name", key, typ)
	}
	if value == "" {
		return []string{}, nil // "fields[t]=" asks for no fields at all
	}
	fields := strings.Split(value, ",")
	for _, f := range fields {
		if !validMemberName(f) {
			return nil, badParameter(key, "%s lists %q, which is not a field name; give a comma-separated list of attribute and relationship names", key, f)
		}
	}
	return fields, nil
}

func includeList(key, value string) ([]string, *Error) {
	if value == "" {
		return nil, nil
	}
	paths := strings.Split(value, ",")
	for _, p := range paths {
		if !validPath(p) {
			return nil, badParameter(key, "include lists %q, which is not a relationship path; give comma-separated relationship names (dots for nested ones)", p)
		}
	}
	return paths, nil
}

func sortList(key, value string) ([]SortField, *Error) {
	entries := strings.Split(value, ",")
	sort := make([]SortField, 0, len(entries))
	for _, s := range entries {
		field, desc := strings.CutPrefix(s, "-")
		if !validPath(field) {
			return nil, badParameter(key, `sort lists %q, which is not a field name; give comma-separated field names, each optionally prefixed with "-" for descending order`, s)
		}
		sort = append(sort, SortField{Field: field, Desc: desc})
	}
	return sort, nil
}

// validPath reports whether p is a dot-separated list of member names.
func validPath(p string) bool {
	for part := range strings.SplitSeq(p, ".") {
		if !validMemberName(part) {
			return false
		}
	}
	return true
}

// cleanText reports whether s is valid UTF-8 without NUL bytes: what a
// query value must be before it can name anything.
func cleanText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}
