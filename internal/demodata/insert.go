package demodata

import "github.com/scopekit/scopekit/engine"

// Inserter writes records of one account straight through a transaction,
// as fixtures do that need many records (or values the API would refuse
// to build them): no hooks, no validation, no prices stored. After the
// first error it inserts nothing and Err holds that error.
type Inserter struct {
	tx      engine.Tx
	account string
	Err     error
}

// NewInserter returns an Inserter of records of the account through tx.
func NewInserter(tx engine.Tx, accountID string) *Inserter {
	return &Inserter{tx: tx, account: accountID}
}

// Insert inserts a record with attributes and to-one relationships (an
// empty id sets none) and returns its id.
func (in *Inserter) Insert(typ string, attrs map[string]any, rels map[string]string) string {
	if in.Err != nil {
		return ""
	}
	r := engine.NewRecord(typ, in.account)
	for k, v := range attrs {
		r.Attrs[k] = v
	}
	for k, v := range rels {
		if v != "" {
			r.SetRel(k, v)
		}
	}
	in.Err = in.tx.Insert(r)
	return r.ID
}
