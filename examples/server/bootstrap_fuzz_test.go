package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/scoping"
)

// FuzzBootstrapFile holds the bootstrap file's reading to its promises,
// whatever the file: no panic, a refusal is one line naming the file or
// an entry, and a file that passes the checks applies to a database
// without an internal error.
func FuzzBootstrapFile(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "bootstrap.json")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{`{}`, `{"accounts":[]}`, `{"accounts":[{"slug":"a","name":"A","default-currency":"EUR"}]}`,
		`{"accounts":[{"slug":"a","name":"A","default-currency":"USD","currencies":[{"code":"JPY","conversion-rate":150,"minor-units":0}]}]}`,
		`{"accounts":[{"slug":"a","name":"A\u0000","default-currency":"USD"}]}`,
		"{\"accounts\":[{\"slug\":\"a\",\"name\":\"\xff\",\"default-currency\":\"USD\"}]}",
		`{"accounts":[{"slug":"a","name":"A","default-currency":"USD","roles":[{"name":"R","permissions":{"projects":"view"},"project-visibility":"assigned"}]}]}`,
		`{"users":[{"email":"a@b.c","name":"N","password":"correct horse battery","memberships":[{"account":"a","role":"Account Admin"}]}]}`,
		`{"accounts":[{"slug":"a","name":"` + strings.Repeat("n", 300) + `","default-currency":"USD"}]}`,
		`[`, `null`, `{"accounts":[{"currencies":[{"conversion-rate":" 1 "}]}]}`} {
		f.Add([]byte(s))
	}
	db := bolttest.Open(f, scoping.DefaultSchema())
	svc := scoping.NewService(db)
	as := &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), BcryptCost: 4}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkOneLine := func(err error) {
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.HasPrefix(msg, "bootstrap ") {
				t.Fatalf("refusal is not one line naming the file: %q", msg)
			}
		}
		bf, err := decodeBootstrap("fuzz.json", data)
		if err != nil {
			checkOneLine(err)
			return
		}
		if err := bootstrapError(bf.Validate()); err != nil {
			checkOneLine(err)
			return
		}
		if err := applyBootstrap(context.Background(), bf, db, svc, as); err != nil {
			checkOneLine(err)
			var se *scopekit.Error
			if errors.As(err, &se) && se.Code == scopekit.EINTERNAL {
				t.Fatalf("internal error applying a checked file: %v", err)
			}
		}
	})
}
