// Package views holds the typed views of the domain's records, generated
// from their declarations in package scoping: the name of every declared
// type, attribute and relationship as a constant, and for every type a
// view (a *engine.Record with an accessor per declared attribute and
// stored relationship). Code that reads records (merge data, workbooks,
// the adapters) reads them through the views, so a name is written once,
// in its declaration; Snapshot (snapshot.go, written by hand) carries a
// project and the records around it to merge data and workbooks. It
// imports the engine and pricing, never the domain, so a builder that
// takes views pulls in no use case.
package views

//go:generate go run ../../internal/cmd/genviews -o views_gen.go

import "github.com/scopekit/scopekit/engine"

// View is any view of this package.
type View interface{ ~struct{ *engine.Record } }

// Of returns the records as views of type V.
func Of[V View](recs []*engine.Record) []V {
	out := make([]V, len(recs))
	for i, r := range recs {
		out[i] = V{r}
	}
	return out
}
