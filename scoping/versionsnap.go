package scoping

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// The frozen form of a scope (versions.go): the project's attributes, its
// lines and its pricing result as canonical JSON (object keys sorted,
// lines by type and id, no timestamps), so that one scope always gives
// the same bytes and the same SHA-256. It is kept gzip-compressed beside
// the version record (BlobVersionSnapshot).

// snapshotFormat is the version of the frozen form; a reader refuses
// another.
const snapshotFormat = 1

// storedScope is a frozen scope as read back for a diff: each line's
// canonical JSON apart, so that lines whose bytes are the same in two
// scopes are told unchanged without decoding them.
type storedScope struct {
	Format  int                          `json:"format"`
	Project snapLine                     `json:"project"`
	Lines   map[string][]json.RawMessage `json:"lines"`
	Pricing json.RawMessage              `json:"pricing"`
}

// snapLine is one record of a frozen scope: what describes it (its
// declared, written attributes and to-one relationships, less what is
// not scope: status, delivery progress) and its price figures. Its id
// comes first in its JSON (the order of the fields), which lineID reads.
type snapLine struct {
	ID            string            `json:"id"`
	Attributes    map[string]any    `json:"attributes"`
	Relationships map[string]string `json:"relationships,omitempty"`
	Figures       map[string]string `json:"figures,omitempty"`
}

// notScope are attributes of the scope's types that a version leaves
// out: the workflow's status, and delivery progress, which moves on
// after the scope is settled.
var notScope = map[string][]string{
	views.TypeProjects:           {views.NameStatus, views.NameActive},
	views.TypeProjectServices:    {views.NameStatus, views.NameActualHours},
	views.TypeProjectSubservices: {views.NameActualHours},
}

// notScopeRels are relationships that a frozen line does not keep: its
// project is the version's, and a change order's copy is told apart by
// identity (changeorders.go).
var notScopeRels = []string{views.NameProject, views.NameChangeOrder}

// appendLine appends rec as a frozen line in canonical JSON: its id
// first, then attributes, relationships and figures, each by name. id
// names each id (a change order's copy names its lines by the project
// lines they stand for; nil keeps ids).
func appendLine(b []byte, def *engine.TypeDef, rec *engine.Record, pp *pricedProject, id func(typ, id string) string) []byte {
	ident := func(typ, v string) string {
		if id == nil || v == "" {
			return v
		}
		return id(typ, v)
	}
	b = append(b, `{"id":`...)
	b = appendString(b, ident(rec.Type, rec.ID))
	b = append(b, `,"attributes":{`...)
	skip, first := notScope[rec.Type], true
	for _, a := range def.AttrsByName() {
		if a.Computed || a.Name == "created-at" || a.Name == "updated-at" || slices.Contains(skip, a.Name) {
			continue
		}
		v, ok := rec.Attrs[a.Name]
		if !ok || v == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, a.Name)
		b = append(b, ':')
		b = appendValue(b, v)
	}
	b = append(b, '}')
	first = true
	for _, r := range def.RelsByName() {
		if !r.Stored() || r.ToMany || slices.Contains(notScopeRels, r.Name) {
			continue
		}
		v := rec.Rel(r.Name)
		if v == "" {
			continue
		}
		if first {
			b = append(b, `,"relationships":{`...)
		} else {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, r.Name)
		b = append(b, ':')
		b = appendString(b, ident(r.Type, v))
	}
	if !first {
		b = append(b, '}')
	}
	if pp != nil && pp.err == nil {
		var figs [8]struct{ name, value string }
		n := 0
		lineFigures(rec, pp, func(name string, f pricing.Fixed) {
			if n < len(figs) {
				figs[n].name, figs[n].value = name, f.String()
				n++
			}
		})
		slices.SortFunc(figs[:n], func(x, y struct{ name, value string }) int { return strings.Compare(x.name, y.name) })
		for i, f := range figs[:n] {
			if i == 0 {
				b = append(b, `,"figures":{`...)
			} else {
				b = append(b, ',')
			}
			b = appendString(b, f.name)
			b = append(b, ':')
			b = appendString(b, f.value)
		}
		if n > 0 {
			b = append(b, '}')
		}
	}
	return append(b, '}')
}

// appendValue appends an attribute value (the canonical forms records
// hold) as JSON.
func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return appendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		return append(b, v...)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	}
	raw, err := json.Marshal(v) // objects and lists: keys sorted
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, `\u00`...)
			b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// freezeScope returns the canonical bytes of the frozen scope of proj,
// from its pricing run pp (whose records are the scope's lines).
func freezeScope(schema *engine.Schema, proj *engine.Record, pp *pricedProject, id func(typ, id string) string) ([]byte, error) {
	if pp.err != nil {
		return nil, pp.err
	}
	price, err := json.Marshal(pp.res)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 64<<10)
	b = append(b, `{"format":`...)
	b = strconv.AppendInt(b, snapshotFormat, 10)
	b = append(b, `,"lines":{`...)
	types := slices.Sorted(slices.Values(projectInputTypes))
	first := true
	for _, typ := range types {
		recs := pp.recs[typ]
		if typ == views.TypeProjectSubservices {
			recs = nil
			for _, subs := range pp.subs {
				recs = append(recs, subs...)
			}
		}
		if len(recs) == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		def := mustLookup(schema, typ)
		sorted := slices.Clone(recs)
		if id != nil {
			slices.SortFunc(sorted, func(x, y *engine.Record) int { return engine.CompareIDs(id(typ, x.ID), id(typ, y.ID)) })
		} else {
			slices.SortFunc(sorted, func(x, y *engine.Record) int { return engine.CompareIDs(x.ID, y.ID) })
		}
		b = appendString(b, typ)
		b = append(b, ":["...)
		for i, r := range sorted {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLine(b, def, r, pp, id)
		}
		b = append(b, ']')
	}
	b = append(b, `},"pricing":`...)
	b = append(b, price...)
	b = append(b, `,"project":`...)
	b = appendLine(b, mustLookup(schema, views.TypeProjects), proj, pp, nil)
	return append(b, '}'), nil
}

// digestOf is the hex SHA-256 of a frozen scope's canonical bytes.
func digestOf(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// compressSnapshot gzips a frozen scope for storage: its JSON repeats
// the same member names line after line, which compresses well.
func compressSnapshot(raw []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxSnapshotBytes bounds a frozen scope read back (a corrupt blob must
// not unpack without limit); the largest scopes are a few MiB.
const maxSnapshotBytes = 256 << 20

// readSnapshot decodes a stored frozen scope and checks it against the
// version's digest.
func readSnapshot(blob []byte, digest string) (*storedScope, error) {
	zr, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "a stored version is not readable: %v", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxSnapshotBytes))
	if err != nil {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "a stored version is not readable: %v", err)
	}
	if digest != "" && digestOf(raw) != digest {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "a stored version does not match its digest")
	}
	return decodeScope(raw)
}

// decodeScope splits canonical bytes (as freezeScope writes them) into
// the project, the lines, each kept as its bytes, and the pricing: a
// scan for where each value ends, which costs a fraction of decoding the
// whole of a large scope.
func decodeScope(raw []byte) (*storedScope, error) {
	bad := scopekit.Errorf(scopekit.EINTERNAL, "a stored version is not readable")
	snap := &storedScope{Lines: map[string][]json.RawMessage{}}
	rest, ok := bytes.CutPrefix(raw, []byte(`{"format":`))
	if !ok {
		return nil, bad
	}
	n := bytes.IndexByte(rest, ',')
	if n < 0 {
		return nil, bad
	}
	if f, err := strconv.Atoi(string(rest[:n])); err != nil || f != snapshotFormat {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "a stored version has format %s, not %d", rest[:n], snapshotFormat)
	}
	snap.Format = snapshotFormat
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"lines":{`)); !ok {
		return nil, bad
	}
	for len(rest) > 0 && rest[0] != '}' {
		if rest[0] == ',' {
			rest = rest[1:]
		}
		end := valueEnd(rest)
		if end < 2 || len(rest) < end+2 || rest[end] != ':' || rest[end+1] != '[' {
			return nil, bad
		}
		typ := string(rest[1 : end-1])
		rest = rest[end+2:]
		var lines []json.RawMessage
		for len(rest) > 0 && rest[0] != ']' {
			if rest[0] == ',' {
				rest = rest[1:]
			}
			end := valueEnd(rest)
			if end <= 0 {
				return nil, bad
			}
			lines = append(lines, json.RawMessage(rest[:end]))
			rest = rest[end:]
		}
		if len(rest) == 0 {
			return nil, bad
		}
		snap.Lines[typ], rest = lines, rest[1:]
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`},"pricing":`)); !ok {
		return nil, bad
	}
	end := valueEnd(rest)
	if end <= 0 {
		return nil, bad
	}
	snap.Pricing = json.RawMessage(rest[:end])
	if rest, ok = bytes.CutPrefix(rest[end:], []byte(`,"project":`)); !ok {
		return nil, bad
	}
	project, err := decodeLine(bytes.TrimSuffix(rest, []byte("}")))
	if err != nil {
		return nil, err
	}
	snap.Project = *project
	return snap, nil
}

// valueEnd returns the length of the JSON value at the start of b (an
// object, array, string or number; whitespace-free canonical JSON), or -1
// when b ends first.
func valueEnd(b []byte) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i
			}
		case ',', ':':
			if depth == 0 {
				return i
			}
		}
	}
	if depth == 0 {
		return len(b)
	}
	return -1
}

// lineID reads the id of a frozen line from its canonical bytes, which
// begin {"id":"<id>".
func lineID(raw json.RawMessage) (string, bool) {
	rest, ok := bytes.CutPrefix(raw, []byte(`{"id":"`))
	if !ok {
		return "", false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return "", false
	}
	return string(rest[:end]), true
}

// decodeLine decodes one frozen line (numbers kept as json.Number, as
// records hold them).
func decodeLine(raw json.RawMessage) (*snapLine, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var l snapLine
	if err := dec.Decode(&l); err != nil {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "a stored version is not readable: %v", err)
	}
	return &l, nil
}
