package catalogimport_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/catalogimport/catalogtest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// env is a service over a real bbolt file with two accounts, acme and
// globex, both in USD.
type env struct {
	t     *testing.T
	svc   *scoping.Service
	db    engine.Store
	accts map[string]string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvOn(t, bolttest.Open(t, scoping.DefaultSchema()))
}

// newEnvOn is newEnv over the store db.
func newEnvOn(t *testing.T, db engine.Store) *env {
	t.Helper()
	e := &env{t: t, svc: scoping.NewService(db), db: db, accts: map[string]string{}}
	require.NoError(t, e.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		for _, slug := range []string{"acme", "globex"} {
			acct, err := a.EnsureAccount(slug, slug, "USD")
			if err != nil {
				return err
			}
			e.accts[slug] = acct.ID
		}
		return nil
	}))
	return e
}

// actor is a system actor of the account (every permission).
func (e *env) actor(slug string) *engine.Actor {
	a, err := e.svc.SystemActor(context.Background(), e.accts[slug])
	require.NoError(e.t, err)
	return a
}

func (e *env) importFile(slug string, f catalogimport.File, dryRun bool) (*catalogimport.Report, error) {
	return e.svc.ImportCatalog(context.Background(), e.actor(slug), f, dryRun)
}

// dump is the account's catalog as text (catalogtest.Dump).
func (e *env) dump(slug string) string { return catalogtest.Dump(e.t, e.svc, e.accts[slug]) }

// book builds a workbook: sheet name, then its rows (the header first).
func book(t *testing.T, sheets ...any) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for i := 0; i < len(sheets); i += 2 {
		name := sheets[i].(string)
		if i == 0 {
			require.NoError(t, f.SetSheetName("Sheet1", name))
		} else {
			_, err := f.NewSheet(name)
			require.NoError(t, err)
		}
		for r, row := range sheets[i+1].([][]any) {
			cell, _ := excelize.CoordinatesToCellName(1, r+1)
			require.NoError(t, f.SetSheetRow(name, cell, &row))
		}
	}
	buf, err := f.WriteToBuffer()
	require.NoError(t, err)
	return buf.Bytes()
}

// zipOf builds a zip of named files.
func zipOf(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(files); i += 2 {
		w, err := zw.Create(files[i])
		require.NoError(t, err)
		_, err = w.Write([]byte(files[i+1]))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// problems lists a report's problems as lines.
func problems(r *catalogimport.Report) string {
	var b strings.Builder
	for _, p := range r.Problems {
		fmt.Fprintln(&b, p.String())
	}
	return b.String()
}

func xlsx(data []byte) catalogimport.File {
	return catalogimport.File{Format: catalogimport.XLSX, Data: data}
}
