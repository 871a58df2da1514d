package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/app"
	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// The import command (docs/import.md): `server import -account demo -file
// catalog.xlsx [-dry-run]` imports a catalog file into an account of the
// database, as the account's system actor, with the rules of POST
// /v1/catalog-import. The bbolt file must not be in use by a server (it is
// locked); on PostgreSQL (-database) the servers may keep serving.

// runImport is the import command.
func runImport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("import", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	dbf := addDBFlags(fset)
	account := fset.String("account", "", "the `slug` of the account to import into")
	file := fset.String("file", "", "the `file` to import: .xlsx, .csv (one sheet) or .zip (of CSV files)")
	sheet := fset.String("sheet", "", "for a .csv file: the `sheet` it holds (default: its name, e.g. services.csv)")
	dryRun := fset.Bool("dry-run", false, "check the file and report, write nothing")
	if err := fset.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, "Usage: server import -account SLUG -file FILE [flags]\n\n"+
			"Imports a catalog file into the account (docs/import.md); -data and -database also\nfrom SCOPEKIT_DATA and SCOPEKIT_DATABASE.\n\n")
		fset.SetOutput(stdout)
		fset.PrintDefaults()
		return nil
	} else if err != nil {
		return err
	}
	if fset.NArg() > 0 {
		return fmt.Errorf("import: unexpected argument %q (flags only; see import -h)", fset.Arg(0))
	}
	if *account == "" || *file == "" {
		return errors.New("import: -account and -file are required (see import -h)")
	}
	f, err := readImportFile(*file, *sheet)
	if err != nil {
		return err
	}
	db, svc, err := dbf.open(ctx, "import", fset, getenv)
	if err != nil {
		return err
	}
	defer db.Close()
	actor, err := accountActor(ctx, db, svc, *account)
	if err != nil {
		return err
	}
	rep, err := svc.ImportCatalog(ctx, actor, f, *dryRun)
	if rep != nil {
		fmt.Fprint(stdout, rep.Text())
	}
	var se *scopekit.Error
	if errors.As(err, &se) {
		return fmt.Errorf("import: %s: %s", *file, se.Message)
	}
	return err
}

// dbFlags are the -data and -database flags of a command that works on
// the database of a stopped server (or of running ones on PostgreSQL).
type dbFlags struct{ data, database *string }

func addDBFlags(fset *flag.FlagSet) dbFlags {
	return dbFlags{data: fset.String("data", "./scopekit.db", "bbolt database `file` (it must exist)"),
		database: fset.String("database", "", "PostgreSQL `URL` to use instead of the bbolt file")}
}

// open opens the database the flags name (SCOPEKIT_DATA and
// SCOPEKIT_DATABASE where a flag is not given) and a service over it;
// errors begin with the command's name.
func (d dbFlags) open(ctx context.Context, cmd string, fset *flag.FlagSet, getenv func(string) string) (app.Store, *scoping.Service, error) {
	for name, v := range map[string]*string{"data": d.data, "database": d.database} {
		if !flagGiven(fset, name) && getenv(envName(name)) != "" {
			*v = getenv(envName(name))
		}
	}
	cfg := app.Config{DataFile: *d.data, Database: *d.database}
	if cfg.Database == "" {
		if _, err := os.Stat(cfg.DataFile); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: the database file %s does not exist", cmd, cfg.DataFile)
		}
	}
	schema, err := scoping.NewSchema()
	if err != nil {
		return nil, nil, err
	}
	db, _, err := app.OpenStore(ctx, cfg, schema)
	if err != nil {
		if cfg.Database != "" {
			err = fmt.Errorf("database %s: %w", redactURL(cfg.Database), err)
		}
		return nil, nil, fmt.Errorf("%s: %w (a server using the file must be stopped first)", cmd, err)
	}
	return db, scoping.NewService(db, scoping.WithSchema(schema)), nil
}

// flagGiven reports whether the flag name was on the command line.
func flagGiven(fset *flag.FlagSet, name string) bool {
	given := false
	fset.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// readImportFile reads the file to import; its extension says its format.
func readImportFile(path, sheet string) (catalogimport.File, error) {
	f := catalogimport.File{Sheet: sheet}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".xlsx":
		f.Format = catalogimport.XLSX
	case ".zip":
		f.Format = catalogimport.ZipCSV
	case ".csv":
		f.Format = catalogimport.CSV
		if f.Sheet == "" {
			f.Sheet = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
	default:
		return f, fmt.Errorf("import: -file %s: the file must be .xlsx, .csv or .zip", path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return f, fmt.Errorf("import: -file: %w", err)
	}
	if info.Size() > catalogimport.MaxFileBytes {
		return f, fmt.Errorf("import: -file %s is larger than %d bytes", path, catalogimport.MaxFileBytes)
	}
	f.Data, err = os.ReadFile(path)
	if err != nil {
		return f, fmt.Errorf("import: -file: %w", err)
	}
	return f, nil
}

// accountActor returns the system actor of the account with the slug.
func accountActor(ctx context.Context, db engine.Store, svc *scoping.Service, slug string) (*engine.Actor, error) {
	var id string
	err := db.View(ctx, func(tx engine.Tx) error {
		recs, _, err := tx.List(&engine.Query{Type: views.TypeAccounts, Where: []engine.Cond{engine.Eq(views.NameSlug, slug)}, Limit: 1})
		if len(recs) > 0 {
			id = recs[0].ID
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, fmt.Errorf("import: no account with the slug %q", slug)
	}
	return svc.SystemActor(ctx, id)
}
