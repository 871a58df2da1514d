package engine

import "context"

// Store persists records. Implementations run fn in one transaction:
// everything fn writes commits together, or nothing does when fn returns an
// error.
//
// The transaction runs under the ctx given to View or Update: the Tx
// methods take no context of their own, but a store that does I/O runs
// every one of them under that ctx (pgstore sends each query with it, so a
// canceled or expired ctx stops a query in flight, a lock wait included,
// and the method returns an error matching ctx.Err() under errors.Is).
// Once ctx is done an Update does not commit: it returns ctx.Err() (or an
// error wrapping it) and nothing fn wrote is kept. A store must not start
// a transaction for a ctx already done.
type Store interface {
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(tx Tx) error) error
	// Update runs fn in a read-write transaction.
	Update(ctx context.Context, fn func(tx Tx) error) error
}

// Rerunner is implemented by a Store whose reads can start without a
// transaction: ViewRerun runs fn as View does (one snapshot), but may run
// it more than once, so fn must only assign what it reads, never add to
// what a previous run left. A store that pays a round trip per statement
// (PostgreSQL) then answers a read of one statement in one round trip,
// without BEGIN and COMMIT, checks later statements against the first,
// and runs fn again in a transaction when a write came between.
type Rerunner interface {
	ViewRerun(ctx context.Context, fn func(tx Tx) error) error
}

// ViewRerun runs fn through s's ViewRerun when s offers it, its View
// otherwise; fn may run more than once.
func ViewRerun(ctx context.Context, s Store, fn func(tx Tx) error) error {
	if r, ok := s.(Rerunner); ok {
		return r.ViewRerun(ctx, fn)
	}
	return s.View(ctx, fn)
}

// Key addresses one stored record.
type Key struct{ Type, AccountID, ID string }

// Prefetcher is implemented by a Tx that can read ahead: the records of
// keys, and the lists of queries, are read with the next statement the
// transaction sends, and answered from memory when asked for (Get, List
// of an equal Query), so that a caller that knows what it will need pays
// one round trip for all of it: a project and the account its price
// figures are checked against, the lines of the projects a pricing run
// reads, the subscriptions and events of a batch of deliveries. A store
// that reads locally has no need of it.
type Prefetcher interface {
	Prefetch(keys ...Key)
	PrefetchList(qs ...*Query)
	PrefetchVia(vias ...Via)
}

// Via addresses the record of type Type that the to-one relationship Rel
// of the record From names (in From's account): read ahead with From, it
// costs no round trip of its own (a user's role).
type Via struct {
	From      Key
	Rel, Type string
}

// Prefetch tells tx of records its caller will read, when tx reads ahead.
func Prefetch(tx Tx, keys ...Key) {
	if p, ok := tx.(Prefetcher); ok && len(keys) > 0 {
		p.Prefetch(keys...)
	}
}

// PrefetchVia tells tx of records named by relationships that its caller
// will read, when tx reads ahead.
func PrefetchVia(tx Tx, vias ...Via) {
	if p, ok := tx.(Prefetcher); ok && len(vias) > 0 {
		p.PrefetchVia(vias...)
	}
}

// PrefetchList tells tx of lists its caller will read, when tx reads
// ahead.
func PrefetchList(tx Tx, qs ...*Query) {
	if p, ok := tx.(Prefetcher); ok && len(qs) > 0 {
		p.PrefetchList(qs...)
	}
}

// LateInserter is implemented by a Tx that can give a new record its id
// at once and write it later, with the values it has then (before any
// read that could see it, at the latest at commit): a record the
// transaction writes again right after its insert (a project priced once
// created) is then written once. A store that writes locally has no need
// of it.
type LateInserter interface {
	InsertLate(r *Record) error
}

// InsertLate inserts r, a record without an id that its caller expects
// to replace in the same transaction: late where tx can (LateInserter).
func InsertLate(tx Tx, r *Record) error {
	if l, ok := tx.(LateInserter); ok && r.ID == "" {
		return l.InsertLate(r)
	}
	return tx.Insert(r)
}

// SharedReader is implemented by a Tx that can return a record decoded
// once and shared by every transaction that reads it while its stored form
// is unchanged (a bbolt store compares the stored bytes; a change, by this
// process or another, is seen at the next read). A shared record must not
// be modified. Every request resolves its caller from the same few records
// (the account, the user, the role); sharing them spares decoding them
// again and again.
type SharedReader interface {
	GetShared(typ, accountID, id string) (*Record, error)
}

// GetShared reads a record the caller will only read: shared when the
// store offers it, the caller's own copy otherwise.
func GetShared(tx Tx, typ, accountID, id string) (*Record, error) {
	if sr, ok := tx.(SharedReader); ok {
		return sr.GetShared(typ, accountID, id)
	}
	return tx.Get(typ, accountID, id)
}

// Tx is a transaction of a Store. Records returned are the caller's to
// modify; they are written back only through Insert and Replace.
type Tx interface {
	// Get returns the record of type typ with id in the account, or an
	// ENOTFOUND error. accountID "" addresses global types (accounts).
	Get(typ, accountID, id string) (*Record, error)
	// List returns one page of the records matching q and the number of
	// records matching q in all. Filtering, sorting and paging happen in the
	// store, with indexes where the type declares them.
	List(q *Query) (recs []*Record, total int, err error)
	// Insert stores a new record. An empty ID is assigned from the type's
	// sequence; CreatedAt and UpdatedAt are set when empty.
	Insert(r *Record) error
	// Replace overwrites an existing record (ENOTFOUND when missing) and
	// sets UpdatedAt.
	Replace(r *Record) error
	// Delete removes a record (ENOTFOUND when missing).
	Delete(typ, accountID, id string) error
	BlobTx
}

// BlobTx is the part of Tx that keeps files beside records (a document
// template's DOCX, a generated document). A blob is addressed by the
// account, a kind (a type and a role, e.g. "project-documents/pdf") and
// the owning record's id; it is written and removed in the same
// transaction as its record, so a record never points at a missing file.
// A bbolt store keeps blobs in a bucket; a SQL store in a bytea table.
type BlobTx interface {
	// PutBlob stores data under (accountID, kind, id), replacing any
	// previous blob.
	PutBlob(accountID, kind, id string, data []byte) error
	// Blob returns the blob under (accountID, kind, id), or an ENOTFOUND
	// error. The bytes are the caller's.
	Blob(accountID, kind, id string) ([]byte, error)
	// DeleteBlob removes the blob; removing a missing blob is no error.
	DeleteBlob(accountID, kind, id string) error
}
