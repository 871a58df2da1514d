package documents

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// A strict XML tokenizer over a part's bytes. Tokens are ranges of the
// input, never copies, so a part costs its own bytes and the nodes built
// from it, however its text is laid out (60 MiB of spaces are one token
// of 60 MiB that is never copied). It checks what a reader of the result
// relies on: names, quoting, entity references, characters (UTF-8, XML
// 1.0's range), comments; a DOCTYPE is refused (errDoctype), since entity
// definitions are how XML makes a small file expand.

// tokKind is what a token is.
type tokKind uint8

const (
	tokStart   tokKind = iota // <name attrs> or <name attrs/>
	tokEnd                    // </name>
	tokText                   // character data, entity references checked, not decoded
	tokCDATA                  // <![CDATA[...]]>
	tokComment                // <!--...-->
	tokPI                     // <?target ...?>
)

// xtoken is one token of a part: its bytes are b[start:end].
type xtoken struct {
	kind       tokKind
	start, end int
	name       []byte // tokStart, tokEnd: the qualified name as written; tokPI: the target
	attrs      []byte // tokStart: what follows the name up to > or />
	empty      bool   // tokStart: <name/>
}

// errDoctype is the error of a part holding a document type declaration.
var errDoctype = errors.New("it has a DOCTYPE declaration, which templates may not have")

// scanner reads tokens from b.
type scanner struct {
	b   []byte
	pos int
}

func (s *scanner) errorf(at int, format string, args ...any) error {
	line := 1 + bytes.Count(s.b[:min(at, len(s.b))], []byte{'\n'})
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// next returns the next token, or io.EOF after the last.
func (s *scanner) next() (xtoken, error) {
	b, start := s.b, s.pos
	if start >= len(b) {
		return xtoken{}, io.EOF
	}
	if b[start] != '<' {
		end := bytes.IndexByte(b[start:], '<')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		s.pos = end
		return xtoken{kind: tokText, start: start, end: end}, s.checkText(start, end, false)
	}
	if start+1 >= len(b) {
		return xtoken{}, s.errorf(start, "unexpected end of the part")
	}
	switch b[start+1] {
	case '/':
		name, i, err := s.name(start + 2)
		if err != nil {
			return xtoken{}, err
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '>' {
			return xtoken{}, s.errorf(i, "end tag </%s> is not closed by >", name)
		}
		s.pos = i + 1
		return xtoken{kind: tokEnd, start: start, end: s.pos, name: name}, nil
	case '?':
		return s.procInst(start)
	case '!':
		rest := b[start+2:]
		switch {
		case bytes.HasPrefix(rest, []byte("--")):
			return s.comment(start)
		case bytes.HasPrefix(rest, []byte("[CDATA[")):
			i := bytes.Index(b[start+9:], []byte("]]>"))
			if i < 0 {
				return xtoken{}, s.errorf(start, "unclosed CDATA section")
			}
			end := start + 9 + i + 3
			s.pos = end
			return xtoken{kind: tokCDATA, start: start, end: end}, s.checkText(start+9, end-3, true)
		case len(rest) >= 7 && strings.EqualFold(string(rest[:7]), "DOCTYPE"):
			return xtoken{}, errDoctype
		}
		return xtoken{}, s.errorf(start, "unexpected <!")
	}
	return s.startTag(start)
}

// startTag reads <name attr="v" ...> or <name .../> at start.
func (s *scanner) startTag(start int) (xtoken, error) {
	b := s.b
	name, i, err := s.name(start + 1)
	if err != nil {
		return xtoken{}, err
	}
	attrs := i
	for {
		j := skipSpace(b, i)
		if j >= len(b) {
			return xtoken{}, s.errorf(start, "<%s> is not closed by >", name)
		}
		switch {
		case b[j] == '>':
			s.pos = j + 1
			return xtoken{kind: tokStart, start: start, end: s.pos, name: name, attrs: b[attrs:j]}, nil
		case b[j] == '/':
			if j+1 >= len(b) || b[j+1] != '>' {
				return xtoken{}, s.errorf(j, "unexpected / in <%s>", name)
			}
			s.pos = j + 2
			return xtoken{kind: tokStart, start: start, end: s.pos, name: name, attrs: b[attrs:j], empty: true}, nil
		case j == i:
			return xtoken{}, s.errorf(j, "attributes of <%s> must be separated by spaces", name)
		}
		aname, k, err := s.name(j)
		if err != nil {
			return xtoken{}, err
		}
		k = skipSpace(b, k)
		if k >= len(b) || b[k] != '=' {
			return xtoken{}, s.errorf(k, "attribute %s of <%s> has no value", aname, name)
		}
		k = skipSpace(b, k+1)
		if k >= len(b) || (b[k] != '"' && b[k] != '\'') {
			return xtoken{}, s.errorf(k, "the value of attribute %s of <%s> is not quoted", aname, name)
		}
		end := bytes.IndexByte(b[k+1:], b[k])
		if end < 0 {
			return xtoken{}, s.errorf(k, "the value of attribute %s of <%s> is not closed", aname, name)
		}
		end += k + 1
		if bytes.IndexByte(b[k+1:end], '<') >= 0 {
			return xtoken{}, s.errorf(k, "< in the value of attribute %s of <%s>", aname, name)
		}
		if err := s.checkText(k+1, end, false); err != nil {
			return xtoken{}, err
		}
		i = end + 1
	}
}

// comment reads <!--...--> at start; "--" may not occur inside.
func (s *scanner) comment(start int) (xtoken, error) {
	i := bytes.Index(s.b[start+4:], []byte("--"))
	if i < 0 {
		return xtoken{}, s.errorf(start, "unclosed comment")
	}
	i += start + 4
	if i+2 >= len(s.b) || s.b[i+2] != '>' {
		return xtoken{}, s.errorf(i, "-- inside a comment")
	}
	s.pos = i + 3
	return xtoken{kind: tokComment, start: start, end: s.pos}, s.checkText(start+4, i, true)
}

// procInst reads <?target ...?> at start. An XML declaration may declare
// no encoding but UTF-8.
func (s *scanner) procInst(start int) (xtoken, error) {
	target, i, err := s.name(start + 2)
	if err != nil {
		return xtoken{}, err
	}
	end := bytes.Index(s.b[i:], []byte("?>"))
	if end < 0 {
		return xtoken{}, s.errorf(start, "unclosed processing instruction <?%s", target)
	}
	end += i
	if err := s.checkText(i, end, true); err != nil {
		return xtoken{}, err
	}
	if strings.EqualFold(string(target), "xml") {
		if v := pseudoAttr(s.b[i:end], "version"); v != "" && v != "1.0" {
			return xtoken{}, s.errorf(start, "XML version %q; only 1.0 is read", v)
		}
		if enc := pseudoAttr(s.b[i:end], "encoding"); enc != "" && !strings.EqualFold(enc, "utf-8") {
			return xtoken{}, s.errorf(start, "the part is encoded in %s; only UTF-8 is read", enc)
		}
	}
	s.pos = end + 2
	return xtoken{kind: tokPI, start: start, end: s.pos, name: target}, nil
}

// pseudoAttr returns the value of name="value" in an XML declaration.
func pseudoAttr(decl []byte, name string) string {
	i := bytes.Index(decl, []byte(name))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(decl[i+len(name):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
		return ""
	}
	end := bytes.IndexByte(rest[1:], rest[0])
	if end < 0 {
		return ""
	}
	return string(rest[1 : 1+end])
}

// name reads an XML name at i, returning it and the index after it.
func (s *scanner) name(i int) ([]byte, int, error) {
	b := s.b
	start := i
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if !asciiName(c, i == start) {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError || !nameRune(r, i == start) {
			break
		}
		i += size
	}
	if i == start || bytes.Count(b[start:i], []byte{':'}) > 1 {
		return nil, i, s.errorf(i, "expected a name after %q", b[max(0, start-1):start])
	}
	return b[start:i], i, nil
}

func asciiName(c byte, first bool) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_', c == ':':
		return true
	case '0' <= c && c <= '9', c == '-', c == '.':
		return !first
	}
	return false
}

func nameRune(r rune, first bool) bool {
	if unicode.IsLetter(r) {
		return true
	}
	return !first && (unicode.IsDigit(r) || r == 0xB7 || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Lm, unicode.Nl))
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// checkText checks b[start:end] is character data: UTF-8 of characters
// XML allows and, unless raw (comments, CDATA, processing instructions),
// entity references XML predefines or character references, and no ]]>.
func (s *scanner) checkText(start, end int, raw bool) error {
	b := s.b
	for i := start; i < end; {
		c := b[i]
		switch {
		case c == '&' && !raw:
			_, n, ok := entity(b[i:end])
			if !ok {
				return s.errorf(i, "invalid entity reference %q", b[i:min(end, i+12)])
			}
			i += n
		case c == ']' && !raw && bytes.HasPrefix(b[i:end], []byte("]]>")):
			return s.errorf(i, "]]> outside a CDATA section")
		case c >= 0x20 || c == '\t' || c == '\n' || c == '\r':
			if c < utf8.RuneSelf {
				i++
				continue
			}
			r, size := utf8.DecodeRune(b[i:end])
			if r == utf8.RuneError && size == 1 || !xmlChar(r) {
				return s.errorf(i, "invalid character (not UTF-8, or not allowed in XML)")
			}
			i += size
		default:
			return s.errorf(i, "invalid character %U", rune(c))
		}
	}
	return nil
}

func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || (r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// entity reads the reference at the start of b (&amp; &#38; &#x26;),
// returning its character and length.
func entity(b []byte) (rune, int, bool) {
	semi := bytes.IndexByte(b[:min(len(b), 12)], ';')
	if semi < 2 {
		return 0, 0, false
	}
	ref := string(b[1:semi])
	switch ref {
	case "lt":
		return '<', semi + 1, true
	case "gt":
		return '>', semi + 1, true
	case "amp":
		return '&', semi + 1, true
	case "apos":
		return '\'', semi + 1, true
	case "quot":
		return '"', semi + 1, true
	}
	if ref[0] != '#' || len(ref) < 2 {
		return 0, 0, false
	}
	digits, base := ref[1:], 10
	if digits[0] == 'x' {
		digits, base = digits[1:], 16
	}
	if digits == "" {
		return 0, 0, false
	}
	var r rune
	for _, c := range []byte(digits) {
		var d rune
		switch {
		case '0' <= c && c <= '9':
			d = rune(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			d = rune(c-'A') + 10
		default:
			return 0, 0, false
		}
		r = r*rune(base) + d
		if r > unicode.MaxRune {
			return 0, 0, false
		}
	}
	return r, semi + 1, xmlChar(r)
}

// decode returns the text of checked character data of a part: references
// replaced, line ends made "\n" as XML reads them, CDATA markup taken off.
// Text that needs none of that is not copied: the string shares the
// part's bytes, which nothing writes once they are unpacked, so a part's
// long texts are in memory once.
func decode(b []byte) string {
	if bytes.HasPrefix(b, []byte("<![CDATA[")) {
		b = b[9 : len(b)-3]
		if bytes.IndexByte(b, '\r') < 0 {
			return view(b)
		}
		return strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(b))
	}
	if bytes.IndexByte(b, '&') < 0 && bytes.IndexByte(b, '\r') < 0 {
		return view(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '&':
			r, n, _ := entity(b[i:])
			sb.WriteRune(r)
			i += n
		case '\r':
			sb.WriteByte('\n')
			if i++; i < len(b) && b[i] == '\n' {
				i++
			}
		default:
			sb.WriteByte(c)
			i++
		}
	}
	return sb.String()
}

// view returns b as a string without copying it; b must never change.
func view(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// decodeAttrs returns the attributes of a start tag's checked attribute
// bytes, values decoded.
func decodeAttrs(b []byte) []xml.Attr {
	var attrs []xml.Attr
	for i := skipSpace(b, 0); i < len(b); i = skipSpace(b, i) {
		eq := bytes.IndexByte(b[i:], '=') + i
		name := bytes.TrimRight(b[i:eq], " \t\r\n")
		q := skipSpace(b, eq+1)
		end := bytes.IndexByte(b[q+1:], b[q]) + q + 1
		n := xml.Name{Local: string(name)}
		if prefix, local, ok := bytes.Cut(name, []byte{':'}); ok {
			n = xml.Name{Space: string(prefix), Local: string(local)}
		}
		attrs = append(attrs, xml.Attr{Name: n, Value: decode(b[q+1 : end])})
		i = end + 1
	}
	return attrs
}
