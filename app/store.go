package app

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/webhook"
)

// Store is what the service keeps its data in: the records (engine), the
// webhook outbox and the token service's store. boltstore.DB and
// pgstore.DB are ones; a store of one's own passes the conformance suites
// of scoping/storetest, auth/storetest and webhook/storetest
// (docs/architecture.md, "A new store") and is opened with Schema.
type Store interface {
	engine.Store
	webhook.Store
	AuthStore() auth.Store
	Close() error
}

// Schema returns the schema of ScopeKit's types, which a store is opened
// with (boltstore.Open(path, app.Schema())); it is scoping.DefaultSchema.
func Schema() *engine.Schema { return scoping.DefaultSchema() }

// OpenStore opens the store cfg names: the PostgreSQL database of
// Database, else the bbolt file DataFile (created when missing; default
// ./scopekit.db). created reports a file or a schema this call made. It
// is what New does; commands that work on a stopped server's data use it
// alone.
func OpenStore(ctx context.Context, cfg Config, schema *engine.Schema) (db Store, created bool, err error) {
	if cfg.Database != "" {
		pg, err := pgstore.Open(ctx, cfg.Database, schema)
		if err != nil {
			return nil, false, err
		}
		if cfg.WebhookClaim > 0 {
			pg.Claim = cfg.WebhookClaim
		}
		return pg, pg.Created(), nil
	}
	path := cfg.DataFile
	if path == "" {
		path = "./scopekit.db"
	}
	_, statErr := os.Stat(path)
	bdb, err := boltstore.Open(path, schema)
	if err != nil {
		return nil, false, err
	}
	return bdb, errors.Is(statErr, fs.ErrNotExist), nil
}

// openStore takes Config.Store, or opens the store of the configuration.
func (a *App) openStore(ctx context.Context, schema *engine.Schema) error {
	if a.cfg.Store != nil {
		// a store of one's own: new when it holds no account and no
		// record of a first start (scoping.BeginFirstStart)
		a.db, a.storeCreated = a.cfg.Store, true
		return nil
	}
	db, created, err := OpenStore(ctx, a.cfg, schema)
	if err != nil {
		return err
	}
	a.db, a.ownStore, a.storeCreated = db, true, created
	return nil
}
