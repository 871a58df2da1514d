package engine

import (
	"strconv"
	"time"
)

// Scratch returns a transaction over tx whose writes stay in memory: its
// reads see them, tx never does. A dry run (what a write would do, priced
// as the write would price it, without doing it) runs the write's own
// code on a scratch transaction inside a read transaction, so that what
// it shows is what the write will do, and nothing is stored or locked.
//
// Records it inserts get ids past any a store assigns (19 digits), so
// they neither clash with stored ones nor look like them.
func Scratch(tx Tx) Tx {
	return &scratch{Tx: tx, recs: map[Key]*Record{}, blobs: map[[3]string][]byte{}, types: map[string]bool{}}
}

type scratch struct {
	Tx
	recs  map[Key]*Record // written; nil: deleted
	blobs map[[3]string][]byte
	types map[string]bool // types with written records
	seq   int64
}

// scratchIDBase is the first id a scratch transaction assigns.
const scratchIDBase = 1 << 62

func (s *scratch) Get(typ, accountID, id string) (*Record, error) {
	if r, ok := s.recs[Key{typ, accountID, id}]; ok {
		if r == nil {
			return nil, NotFound(typ, id)
		}
		return r.Clone(), nil
	}
	return s.Tx.Get(typ, accountID, id)
}

// List answers from tx, with the records written here in place of what
// they replace, then filters, sorts and pages as a store does.
func (s *scratch) List(q *Query) ([]*Record, int, error) {
	if !s.types[q.Type] {
		return s.Tx.List(q)
	}
	all := *q
	all.Offset, all.Limit = 0, 0
	recs, _, err := s.Tx.List(&all)
	if err != nil {
		return nil, 0, err
	}
	out := recs[:0]
	for _, r := range recs {
		if _, written := s.recs[Key{r.Type, r.AccountID, r.ID}]; !written {
			out = append(out, r)
		}
	}
	for k, r := range s.recs {
		if r != nil && k.Type == q.Type && (q.AllAccounts || k.AccountID == q.AccountID) && q.Matches(r) {
			out = append(out, r.Clone())
		}
	}
	q.SortRecords(out)
	total := len(out)
	if q.Offset > 0 {
		out = out[min(q.Offset, len(out)):]
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, total, nil
}

func (s *scratch) Insert(r *Record) error {
	if r.ID == "" {
		s.seq++
		r.ID = strconv.FormatInt(scratchIDBase+s.seq, 10)
	}
	now := FormatTime(time.Now())
	if r.CreatedAt == "" {
		r.CreatedAt = now
	}
	if r.UpdatedAt == "" {
		r.UpdatedAt = now
	}
	s.put(r)
	return nil
}

func (s *scratch) Replace(r *Record) error {
	if _, err := s.Get(r.Type, r.AccountID, r.ID); err != nil {
		return err
	}
	r.UpdatedAt = FormatTime(time.Now())
	s.put(r)
	return nil
}

func (s *scratch) put(r *Record) {
	s.recs[Key{r.Type, r.AccountID, r.ID}] = r.Clone()
	s.types[r.Type] = true
}

func (s *scratch) Delete(typ, accountID, id string) error {
	if _, err := s.Get(typ, accountID, id); err != nil {
		return err
	}
	s.recs[Key{typ, accountID, id}] = nil
	s.types[typ] = true
	return nil
}

func (s *scratch) PutBlob(accountID, kind, id string, data []byte) error {
	b := make([]byte, len(data))
	copy(b, data)
	s.blobs[[3]string{accountID, kind, id}] = b
	return nil
}

func (s *scratch) Blob(accountID, kind, id string) ([]byte, error) {
	if b, ok := s.blobs[[3]string{accountID, kind, id}]; ok {
		if b == nil {
			return nil, NotFound(kind, id)
		}
		return append([]byte(nil), b...), nil
	}
	return s.Tx.Blob(accountID, kind, id)
}

func (s *scratch) DeleteBlob(accountID, kind, id string) error {
	s.blobs[[3]string{accountID, kind, id}] = nil
	return nil
}
