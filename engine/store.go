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

// Key addresses one stored record.
type Key struct{ Type, AccountID, ID string }

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
