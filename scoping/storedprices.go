package scoping

import (
	"context"
	"slices"

	"github.com/scopekit/scopekit/engine"

	"github.com/scopekit/scopekit/scoping/views"
)

// Stored prices: a project's price figures are computed when its price
// inputs are written, in the same transaction, and stored on the records
// they belong to (the project's totals on the project, each line's on the
// line). A read serves them as stored and prices nothing.
//
// Every write of the engine goes through pricingTx, which notes the
// projects whose own inputs change (the project record, its lines,
// resources, phases and locations) and re-prices them once, just before
// the transaction commits. This works on any Store: nothing here depends
// on how records are kept.
//
// Inputs shared by many projects (a rate table's currency, a payment
// term's flags, the account's currencies and default currency) would make
// one write re-price every project of an account. Instead, such a write
// bumps the account's price epoch; each project stores the epoch its
// figures were computed under, and figures of an older epoch are not
// trusted: a read prices such a project as before (correct, but not
// free). After the commit the writer re-prices the account's stale
// projects in transactions of refreshChunk projects each (RefreshPrices),
// so the fan-out never makes one long transaction and an interrupted
// refresh only costs reads until the next one. Because the epoch is stored
// with the data, several servers on one database agree on what is stale.

const (
	// priceEpochAttr (accounts) counts the changes of shared price inputs.
	priceEpochAttr = "price-epoch"
	// pricedEpochAttr (projects) is the account epoch the project's stored
	// figures were computed under; absent when never priced on write.
	pricedEpochAttr = "priced-epoch"
	// refreshChunk is how many projects one refresh transaction re-prices.
	refreshChunk = 100
)

// figureAttrs are the stored price figures of each priced type.
var figureAttrs = map[string][]string{
	views.TypeProjects: {views.NameCurrency, views.NameTotalHours, views.NameContractRevenue, views.NameContractCost,
		views.NameContractProfit, views.NameContractMargin},
	views.TypeChangeOrders: {views.NameCurrency, views.NameTotalHours, views.NameContractRevenue, views.NameContractCost,
		views.NameContractProfit, views.NameContractMargin},
	views.TypeProjectServices:    {views.NameExtendedHours, views.NameTotalHours, views.NameRevenue, views.NameCost},
	views.TypeProjectSubservices: {views.NameExtendedHours, views.NameRevenue, views.NameCost},
	views.TypeProjectGovernances: {views.NameHours, views.NameRevenue, views.NameCost},
	views.TypeProjectExpenses:    {views.NameRevenue, views.NameCost, views.NameProfit},
	views.TypeProjectProducts:    {views.NameRevenue, views.NameCost, views.NameProfit},
	views.TypeProjectResources:   {views.NameTotalHours, views.NameRevenue, views.NameCost},
}

// projectInputTypes are the children of a project that a pricing run reads.
var projectInputTypes = []string{views.TypeProjectResources, views.TypeProjectPhases, views.TypeProjectLocations,
	views.TypeProjectServices, views.TypeProjectSubservices, views.TypeProjectGovernances, views.TypeProjectExpenses,
	views.TypeProjectProducts}

// sharedInputs are the attributes of records shared by many projects that
// pricing reads; a change to one of them bumps the account's price epoch.
var sharedInputs = map[string][]string{
	views.TypeRateTables:   {views.NameCurrency},
	views.TypePaymentTerms: {views.NameIncludeExpenses, views.NameIncludeHardware},
	views.TypeCurrencies:   {views.NameCode, views.NameMinorUnits, views.NameConversionRate},
	views.TypeAccounts:     {views.NameDefaultCurrency},
}

// projectInputs are the project's own attributes and relationships that
// pricing reads.
var projectInputs = []string{views.NameRevenueAdjustment, views.NameCostAdjustment, views.NameMrrTerms, views.NameRateTable,
	views.NamePaymentTerm}

// epochOf returns the price epoch stored on an account (or, with
// pricedEpochAttr, on a project) and whether it is set.
func epochOf(r *engine.Record, attr string) (int64, bool) {
	if _, ok := r.Attrs[attr]; !ok {
		return 0, false
	}
	return r.Int(attr), true
}

// pricesFresh reports whether the figures stored on proj were computed
// under the account's price epoch cur.
func pricesFresh(proj *engine.Record, cur int64) bool {
	e, ok := epochOf(proj, pricedEpochAttr)
	return ok && e == cur
}

// txAccount returns the call's account as this transaction sees it (the
// actor's copy may be older): pricing reads its default currency and
// price epoch.
func txAccount(c *engine.Call) (*engine.Record, error) {
	if state(c).acct == nil {
		acct, err := c.Tx.Get(views.TypeAccounts, "", c.AccountID())
		if err != nil {
			return nil, err
		}
		state(c).acct = acct
	}
	return state(c).acct, nil
}

// accountAhead is the Prefetch hook of the priced types: serving their
// figures in a write reads the account (txAccount); a read checks them
// against the actor's first (figuresAccount).
func accountAhead(c *engine.Call) []engine.Key {
	if _, write := c.Tx.(*pricingTx); !write || state(c).acct != nil {
		return nil
	}
	return []engine.Key{{Type: views.TypeAccounts, ID: c.AccountID()}}
}

// pricingTx is the Tx of a write: it passes every write through and notes
// which projects to re-price and which accounts' epochs to bump.
type pricingTx struct {
	engine.Tx
	svc     *Service
	dirty   map[string][]string // account → projects to re-price, in order
	bumped  map[string]bool     // accounts whose epoch this transaction bumped
	touched bool                // bumped or dirty since the last flush
	// childless holds the projects this transaction created under a new
	// id (so no earlier record can name them) that no line written since
	// names: their pricing needs no query for lines. Keys: lineKey.
	childless map[string]bool
	// runs are the pricing runs of the last flush, by project id (keys:
	// lineKey): the figures as stored, which the write's answer may serve
	// while nothing was written since (touched false).
	runs map[string]*pricedProject
}

func newPricingTx(tx engine.Tx, svc *Service) *pricingTx {
	return &pricingTx{Tx: tx, svc: svc, dirty: map[string][]string{}, bumped: map[string]bool{}, childless: map[string]bool{}}
}

// lineKey names a project of an account in pricingTx.childless.
func lineKey(accountID, projectID string) string { return accountID + "\x00" + projectID }

func (t *pricingTx) markDirty(accountID, projectID string) {
	if projectID == "" || slices.Contains(t.dirty[accountID], projectID) {
		return
	}
	t.dirty[accountID] = append(t.dirty[accountID], projectID)
	t.touched = true
	// what flush will read: the account and its currencies
	engine.Prefetch(t.Tx, engine.Key{Type: views.TypeAccounts, ID: accountID})
	engine.PrefetchList(t.Tx, &engine.Query{Type: views.TypeCurrencies, AccountID: accountID})
}

// tracked reports whether writes of typ may change prices.
func tracked(typ string) bool {
	_, shared := sharedInputs[typ]
	return typ == views.TypeProjects || typ == views.TypeChangeOrders || shared || slices.Contains(projectInputTypes, typ)
}

// Prefetch implements engine.Prefetcher for a Tx that reads ahead.
func (t *pricingTx) Prefetch(keys ...engine.Key) { engine.Prefetch(t.Tx, keys...) }

// PrefetchVia implements engine.Prefetcher for a Tx that reads ahead.
func (t *pricingTx) PrefetchVia(vias ...engine.Via) { engine.PrefetchVia(t.Tx, vias...) }

// PrefetchList implements engine.Prefetcher for a Tx that reads ahead.
func (t *pricingTx) PrefetchList(qs ...*engine.Query) { engine.PrefetchList(t.Tx, qs...) }

// ReserveIDs implements engine.IDReserver for a Tx that reserves ids.
func (t *pricingTx) ReserveIDs(typ string, n int) error { return engine.ReserveIDs(t.Tx, typ, n) }

// Insert implements Tx.
func (t *pricingTx) Insert(r *engine.Record) error {
	newID := r.ID == ""
	insert := t.Tx.Insert
	if _, priced := figureAttrs[r.Type]; priced {
		insert = func(r *engine.Record) error { return engine.InsertLate(t.Tx, r) } // its figures follow
	}
	if err := insert(r); err != nil {
		return err
	}
	if newID && r.Type == views.TypeProjects {
		t.childless[lineKey(r.AccountID, r.ID)] = true
	}
	return t.note(r, nil)
}

// InsertLate implements engine.LateInserter where the store does: r gets
// its id at once and is written with the transaction's later writes.
func (t *pricingTx) InsertLate(r *engine.Record) error {
	if err := engine.InsertLate(t.Tx, r); err != nil {
		return err
	}
	return t.note(r, nil)
}

// Replace implements Tx.
func (t *pricingTx) Replace(r *engine.Record) error {
	if !tracked(r.Type) {
		return t.Tx.Replace(r)
	}
	old, err := t.Tx.Get(r.Type, r.AccountID, r.ID)
	if err != nil {
		return err
	}
	switch r.Type {
	case views.TypeAccounts:
		// the epoch only grows, whatever copy of the account is written
		e, _ := epochOf(old, priceEpochAttr)
		if n, _ := epochOf(r, priceEpochAttr); n > e {
			e = n
		}
		if !t.bumped[r.ID] && !sameAttrs(old, r, sharedInputs[views.TypeAccounts]) {
			e++
			t.bumped[r.ID], t.touched = true, true
		}
		r.Attrs[priceEpochAttr] = e
	case views.TypeProjects, views.TypeChangeOrders:
		// figures survive a rewrite of the record that does not carry them
		for _, a := range append([]string{pricedEpochAttr}, figureAttrs[r.Type]...) {
			if _, ok := r.Attrs[a]; !ok && old.Attrs[a] != nil {
				r.Attrs[a] = old.Attrs[a]
			}
		}
	}
	if err := t.Tx.Replace(r); err != nil {
		return err
	}
	return t.note(r, old)
}

// Delete implements Tx.
func (t *pricingTx) Delete(typ, accountID, id string) error {
	if !tracked(typ) || typ == views.TypeProjects || typ == views.TypeChangeOrders {
		return t.Tx.Delete(typ, accountID, id)
	}
	old, err := t.Tx.Get(typ, accountID, id)
	if err != nil {
		return err
	}
	if err := t.Tx.Delete(typ, accountID, id); err != nil {
		return err
	}
	return t.note(nil, old)
}

// note records what a write of cur (nil: deleted) over old (nil: created)
// changes for prices.
func (t *pricingTx) note(cur, old *engine.Record) error {
	some := cur
	if some == nil {
		some = old
	}
	switch typ := some.Type; {
	case typ == views.TypeProjects:
		if old == nil || cur != nil && !sameAttrs(old, cur, projectInputs) {
			t.markDirty(some.AccountID, some.ID)
		}
	case typ == views.TypeChangeOrders:
		if old == nil || cur != nil && !sameAttrs(old, cur, changeOrderInputs) {
			t.markDirty(some.AccountID, coScope(some.ID))
		}
	case slices.Contains(projectInputTypes, typ):
		for _, r := range []*engine.Record{old, cur} {
			if r != nil {
				t.markDirty(r.AccountID, projectOfPriced(r))
				delete(t.childless, lineKey(r.AccountID, r.Rel(views.NameProject)))
			}
		}
	case typ == views.TypeAccounts:
		// handled in Replace
	case typ == views.TypeCurrencies && (old == nil || cur == nil):
		// a currency added or removed changes how its code prices
		return t.bump(some.AccountID)
	case old != nil && cur != nil && !sameAttrs(old, cur, sharedInputs[typ]):
		// a new rate table or payment term prices no project yet; one
		// removed is first cleared from (or kept by) its projects
		return t.bump(some.AccountID)
	}
	return nil
}

// bump increments the price epoch of an account, once per transaction.
func (t *pricingTx) bump(accountID string) error {
	if t.bumped[accountID] {
		return nil
	}
	acct, err := t.Tx.Get(views.TypeAccounts, "", accountID)
	if err != nil {
		return err
	}
	e, _ := epochOf(acct, priceEpochAttr)
	acct.Attrs[priceEpochAttr] = e + 1
	t.bumped[accountID], t.touched = true, true
	return t.Tx.Replace(acct)
}

// sameAttrs reports whether a and b agree on the named attributes and
// relationships.
func sameAttrs(a, b *engine.Record, names []string) bool {
	for _, n := range names {
		if !slices.Equal(a.FieldValues(n), b.FieldValues(n)) {
			return false
		}
	}
	return true
}

// flush re-prices the projects the transaction's writes touched and stores
// their figures. It reads the account's epoch before any price input, so
// that figures are never stored under an epoch newer than their inputs.
func (t *pricingTx) flush(ctx context.Context) error {
	if !t.touched {
		return nil
	}
	t.touched = false
	accts := make([]string, 0, len(t.dirty))
	for a := range t.dirty {
		accts = append(accts, a)
	}
	slices.SortFunc(accts, engine.CompareIDs)
	for _, acctID := range accts {
		ids := t.dirty[acctID]
		delete(t.dirty, acctID)
		var none map[string]bool
		for _, id := range ids {
			if t.childless[lineKey(acctID, id)] {
				if none == nil {
					none = map[string]bool{}
				}
				none[id] = true
			}
		}
		runs, err := t.svc.storePrices(ctx, t.Tx, acctID, ids, none)
		if err != nil {
			return err
		}
		for id, pp := range runs {
			// a write may not bring a project's sums past maxFigure
			if pp != nil && pp.res != nil {
				if err := checkFigures(pp.res); err != nil {
					return err
				}
			}
			if t.runs == nil {
				t.runs = map[string]*pricedProject{}
			}
			t.runs[lineKey(acctID, id)] = pp
		}
	}
	return nil
}

// storePrices prices the projects ids of an account from the data in tx
// and writes the figures that changed, with the account's current epoch.
// The projects in childless have no lines (a project just created): their
// lines are not looked for. It returns the pricing runs, by project id.
func (s *Service) storePrices(ctx context.Context, tx engine.Tx, accountID string, ids []string, childless map[string]bool) (map[string]*pricedProject, error) {
	acct, err := tx.Get(views.TypeAccounts, "", accountID)
	if err != nil {
		return nil, err
	}
	epoch, _ := epochOf(acct, priceEpochAttr)
	c := &engine.Call{Ctx: ctx, Engine: s.eng, Tx: tx, Actor: &engine.Actor{Account: acct, AllScopes: true},
		Ext: &callState{svc: s, acct: acct, pricedCache: map[string]*pricedProject{}, childless: childless}}
	d, err := loadProjectData(c, ids, nil)
	if err != nil {
		return nil, err
	}
	if err := priceData(c, d, ids); err != nil {
		return nil, err
	}
	owners := d[views.TypeChangeOrders] // a change order holds its copy's figures
	for _, proj := range d[views.TypeProjects] {
		if changeOrderOf(proj.ID) == "" {
			owners = append(owners, proj)
		}
	}
	for _, owner := range owners {
		changed := setFigures(c, owner)
		if e, ok := epochOf(owner, pricedEpochAttr); !ok || e != epoch {
			owner.Attrs[pricedEpochAttr] = epoch
			changed = true
		}
		if changed {
			if err := tx.Replace(owner); err != nil {
				return nil, err
			}
		}
	}
	for _, typ := range projectInputTypes {
		if _, priced := figureAttrs[typ]; !priced {
			continue
		}
		for _, r := range d[typ] {
			if setFigures(c, r) {
				if err := tx.Replace(r); err != nil {
					return nil, err
				}
			}
		}
	}
	return state(c).pricedCache, nil
}

// RefreshPrices re-prices the projects of an account whose stored figures
// are older than the account's price epoch (or were never stored), in
// transactions of at most refreshChunk projects. Writes call it after
// changing a shared price input; composition roots may call it at start
// (RefreshAllPrices) for data written before prices were stored.
func (s *Service) RefreshPrices(ctx context.Context, accountID string) error {
	for off := 0; ; off += refreshChunk {
		n := 0
		err := s.eng.Store().Update(ctx, func(tx engine.Tx) error {
			acct, err := tx.Get(views.TypeAccounts, "", accountID)
			if err != nil {
				return err
			}
			epoch, _ := epochOf(acct, priceEpochAttr)
			projects, _, err := tx.List(&engine.Query{Type: views.TypeProjects, AccountID: accountID, Limit: refreshChunk, Offset: off})
			if err != nil {
				return err
			}
			// change orders after the projects, in chunks of their own
			orders, _, err := tx.List(&engine.Query{Type: views.TypeChangeOrders, AccountID: accountID, Limit: refreshChunk, Offset: off})
			if err != nil {
				return err
			}
			n = max(len(projects), len(orders))
			var stale []string
			for _, p := range append(projects, orders...) {
				if !pricesFresh(p, epoch) {
					stale = append(stale, projectOfPriced(p))
				}
			}
			if len(stale) == 0 {
				return nil
			}
			_, err = s.storePrices(ctx, tx, accountID, stale, nil)
			return err
		})
		if err != nil || n < refreshChunk {
			return err
		}
	}
}

// RefreshAllPrices runs RefreshPrices for every account.
func (s *Service) RefreshAllPrices(ctx context.Context) error {
	var ids []string
	err := s.eng.Store().View(ctx, func(tx engine.Tx) error {
		accts, _, err := tx.List(&engine.Query{Type: views.TypeAccounts})
		for _, a := range accts {
			ids = append(ids, a.ID)
		}
		return err
	})
	if err != nil {
		return err
	}
	slices.SortFunc(ids, engine.CompareIDs)
	for _, id := range ids {
		if err := s.RefreshPrices(ctx, id); err != nil {
			return err
		}
	}
	return nil
}
