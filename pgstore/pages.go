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

// fill gives the rows of a page of one account that a page statement
// sent without their text (their versions were known) the text of the
// entries kept for them. false: an entry is gone or of another version,
// and the page must be read again.
func (c *pageRecords) fill(rows []*stored, typ, accountID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	set := c.sets[[2]string{typ, accountID}]
	for _, s := range rows {
		if s.attrs != nil { // attrs are never NULL in a row: sent
			continue
		}
		c.unsent++
		e := set[s.id]
		if e == nil || e.xmin != s.xmin {
			return false
		}
		s.attrs, s.rels = e.attrs, e.rels
	}
	return true
}

// records returns the records of rows (of the type, each of the account
// of the same index): the ones kept when shared, else copies. A row whose
// text is not what an entry holds is decoded (outside the lock) and, when
// keep is set, kept.
//
// Only rows a read-only transaction read are kept (keep): their version
// is committed, and a committed version never changes its text. A write
// transaction's row may be its own, which it can change again at the same
// version (xmin is the transaction's) or roll back.
func (c *pageRecords) records(rows []*stored, accts []string, typ string, shared, keep bool) ([]*engine.Record, error) {
	out := make([]*engine.Record, len(rows))
	var miss, moved []int // rows to decode; rows of the same text at another version
	c.mu.Lock()
	var set map[int64]*pageEntry
	for i, s := range rows {
		if i == 0 || accts[i] != accts[i-1] {
			set = c.sets[[2]string{typ, accts[i]}]
		}
		e := set[s.id]
		switch {
		case e == nil || e.createdAt != s.createdAt || e.updatedAt != s.updatedAt || !bytes.Equal(e.attrs, s.attrs) || !bytes.Equal(e.rels, s.rels):
			miss = append(miss, i)
		case e.xmin != s.xmin:
			moved = append(moved, i)
			fallthrough
		default:
			out[i] = e.rec
		}
	}
	c.mu.Unlock()
	entries := make([]*pageEntry, 0, len(miss)+len(moved))
	for _, i := range miss {
		s := rows[i]
		r, err := s.record(typ, accts[i])
		if err != nil {
			return nil, err
		}
		out[i] = r
		entries = append(entries, &pageEntry{xmin: s.xmin, attrs: bytes.Clone(s.attrs), rels: bytes.Clone(s.rels),
			createdAt: s.createdAt, updatedAt: s.updatedAt, rec: r})
	}
	for _, i := range moved {
		s := rows[i]
		entries = append(entries, &pageEntry{xmin: s.xmin, attrs: s.attrs, rels: s.rels, createdAt: s.createdAt, updatedAt: s.updatedAt, rec: out[i]})
	}
	if keep && len(entries) > 0 {
		c.mu.Lock()
		c.decoded += int64(len(miss))
		for j, i := range append(miss, moved...) {
			c.putLocked([2]string{typ, accts[i]}, rows[i].id, entries[j])
		}
		c.mu.Unlock()
	}
	if !shared {
		for i, r := range out {
			out[i] = r.Clone()
		}
	}
	return out, nil
}

// putLocked keeps e for the row id of a type and account; c.mu is held.
func (c *pageRecords) putLocked(k [2]string, id int64, e *pageEntry) {
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
