package pgstore

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/scopekit/scopekit/engine"
)

// pageRecords keeps the records of the pages lists read, decoded, with
// the stored text they were decoded from (attributes, relationships,
// times) and the row version (xmin) it was read at, by type and account.
// Two savings come of it:
//
//   - An entry serves a row whose text is the same, whoever wrote it and
//     whenever, so it never serves what was replaced; what it saves is
//     the decoding, which was most of the cost of a page. A list that
//     only reads its records (engine.Query.Shared) gets the records kept,
//     any other a copy (Clone), which it may change.
//   - A page statement of a read names the versions it holds (known), and
//     PostgreSQL sends the text of a row only when its version is another:
//     the text of an unchanged row is neither produced, nor sent, nor
//     copied and scanned again. The versions only save the sending: the
//     text a row then gets is the entry's, which is compared as above.
//
// The map holds at most pageRecordsSize entries and starts over when full,
// as the other caches do (internal/bounded).
type pageRecords struct {
	mu   sync.Mutex
	sets map[[2]string]map[int64]*pageEntry // type and account → id →
	n    int
	// decoded counts the rows decoded, unsent those that came without
	// their text (known versions); tests read them.
	decoded, unsent int64
	// afterKnown, when set (tests), runs after known has read the versions.
	afterKnown func()
}

// pageRecordsSize bounds the records pageRecords keeps: a few pages of
// the largest size.
const pageRecordsSize = 2048

type pageEntry struct {
	xmin                 int64
	attrs, rels          []byte
	createdAt, updatedAt string
	rec                  *engine.Record
}

func newPageRecords() *pageRecords {
	return &pageRecords{sets: map[[2]string]map[int64]*pageEntry{}}
}

// known returns, as a JSON object, the ids of a type's records of an
// account that the map holds with the row version each was read at
// ({"12":"7301"}); "" for none.
func (c *pageRecords) known(typ, accountID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	set := c.sets[[2]string{typ, accountID}]
	if len(set) == 0 {
		return ""
	}
	b := make([]byte, 0, len(set)*16)
	b = append(b, '{')
	for id, e := range set {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(strconv.AppendInt(append(b, '"'), id, 10), `":"`...)
		b = append(strconv.AppendInt(b, e.xmin, 10), '"')
	}
	b = append(b, '}')
	if c.afterKnown != nil {
		c.afterKnown()
	}
	return string(b)
}

// fill gives row s, which a page statement sent without its text (its
// version was known), the text of the entry kept for it. false: the
// entry is gone or of another version, and the row must be read again.
func (c *pageRecords) fill(s *stored, typ, accountID string) bool {
	c.mu.Lock()
	e := c.sets[[2]string{typ, accountID}][s.id]
	c.unsent++
	c.mu.Unlock()
	if e == nil || e.xmin != s.xmin {
		return false
	}
	s.attrs, s.rels = e.attrs, e.rels
	return true
}

// record returns the record of row s (of the type and account): the one
// kept when shared, else a copy.
func (c *pageRecords) record(s *stored, typ, accountID string, shared bool) (*engine.Record, error) {
	k := [2]string{typ, accountID}
	c.mu.Lock()
	e := c.sets[k][s.id]
	c.mu.Unlock()
	if e == nil || e.createdAt != s.createdAt || e.updatedAt != s.updatedAt || !bytes.Equal(e.attrs, s.attrs) || !bytes.Equal(e.rels, s.rels) {
		c.mu.Lock()
		c.decoded++
		c.mu.Unlock()
		r, err := s.record(typ, accountID)
		if err != nil {
			return nil, err
		}
		e = &pageEntry{xmin: s.xmin, attrs: bytes.Clone(s.attrs), rels: bytes.Clone(s.rels),
			createdAt: s.createdAt, updatedAt: s.updatedAt, rec: r}
		c.put(k, s.id, e)
	} else if e.xmin != s.xmin { // the same text at a new version
		next := *e
		next.xmin = s.xmin
		c.put(k, s.id, &next)
	}
	if shared {
		return e.rec, nil
	}
	return e.rec.Clone(), nil
}

func (c *pageRecords) put(k [2]string, id int64, e *pageEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n >= pageRecordsSize {
		c.sets, c.n = map[[2]string]map[int64]*pageEntry{}, 0
	}
	set := c.sets[k]
	if set == nil {
		set = map[int64]*pageEntry{}
		c.sets[k] = set
	}
	if _, ok := set[id]; !ok {
		c.n++
	}
	set[id] = e
}
