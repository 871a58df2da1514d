package engine

import "context"

// The optional capabilities of a store. A Store (or its Tx) that offers
// one of these interfaces is used through it; one that does not still
// serves every use case correctly, and loses only what each one's "Without
// it" says. boltstore and pgstore offer those that pay for themselves on
// their engine; a new store may start with none.

// SchemaReporter is implemented by a Store that indexes the types of a
// schema it was opened with (boltstore.Open and pgstore.Open take one).
// Without it, a service over the store must be told the schema itself
// (scoping.WithSchema), or it serves scoping.DefaultSchema.
type SchemaReporter interface {
	Schema() *Schema
}

// Versioned is implemented by a Store that can tell cheaply whether the
// records of a type may have changed: TypeVersion returns a count that
// moves after every committed transaction that wrote a record of typ, by
// any writer (a count that cannot tell is new at every call). Counts are
// asked of the types declared Versioned (TypeDef.Versioned). A store that
// other processes write as well learns of their writes by notification
// and then also implements auth.Syncer: the counts are synced once per
// request before they are compared.
//
// Without it, every request resolves its caller (the account, user and
// role records) and validates its token from the store again: no answer
// changes, each request costs those reads.
type Versioned interface {
	TypeVersion(typ string) uint64
}

// Rerunner is implemented by a Store whose reads can start without a
// transaction: ViewRerun runs fn as View does (one snapshot), but may run
// it more than once, so fn must only assign what it reads, never add to
// what a previous run left. A store that pays a round trip per statement
// (PostgreSQL) then answers a read of one statement in one round trip,
// without BEGIN and COMMIT, checks later statements against the first,
// and runs fn again in a transaction when a write came between.
//
// Without it, ViewRerun is a View: a read pays for its transaction's
// BEGIN and COMMIT.
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

// Prefetcher is implemented by a Tx that can read ahead: the records of
// keys, and the lists of queries, are read with the next statement the
// transaction sends, and answered from memory when asked for (Get, List
// of an equal Query), so that a caller that knows what it will need pays
// one round trip for all of it: a project and the account its price
// figures are checked against, the lines of the projects a pricing run
// reads, the subscriptions and events of a batch of deliveries.
//
// Without it, each read is a statement of its own: nothing is lost to a
// store that reads locally (bbolt); a remote one pays a round trip each.
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
// created) is then written once.
//
// Without it, such a record is inserted, then replaced: nothing is lost to
// a store that writes locally; a remote one pays a statement more.
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

// IDReserver is implemented by a Tx that asks a remote sequence for the
// ids of the records it inserts (PostgreSQL): ReserveIDs takes the ids of
// the next n records of typ the transaction inserts without an id in one
// round trip, so that those inserts need not wait for their ids one by one
// and go out together. Ids reserved and not used are skipped, as those of
// a rolled back insert are: a caller reserves what it is about to insert
// (a catalog import, the rows it will create).
//
// Without it, each insert takes its id when it is written: nothing is lost
// to a store that numbers records locally (bbolt); a remote one waits a
// round trip per insert.
type IDReserver interface {
	ReserveIDs(typ string, n int) error
}

// ReserveIDs reserves the ids of the next n records of typ that tx
// inserts, when tx can (IDReserver).
func ReserveIDs(tx Tx, typ string, n int) error {
	if r, ok := tx.(IDReserver); ok && n > 1 {
		return r.ReserveIDs(typ, n)
	}
	return nil
}

// SharedReader is implemented by a Tx that can return a record decoded
// once and shared by every transaction that reads it while its stored form
// is unchanged (a bbolt store compares the stored bytes; a change, by this
// process or another, is seen at the next read). A shared record must not
// be modified. Every request resolves its caller from the same few records
// (the account, the user, the role); sharing them spares decoding them
// again and again.
//
// Without it, GetShared is a Get: each caller decodes its own copy.
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
