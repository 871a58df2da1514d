// Package catalogtest helps the tests of the catalog import: a dump of an
// account's catalog to compare before and after an import, or between
// two accounts.
package catalogtest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// Types are the types a catalog import writes.
var Types = []string{views.TypePhases, views.TypeResources, views.TypeServices, views.TypeSubservices,
	views.TypeRateTables, views.TypeResourceRates, views.TypeLinesOfBusiness, views.TypeServiceCategories}

// Dump is the catalog of an account as sorted lines of text: every record
// of Types, archived ones included, with its stored attributes (computed
// ones left out) and its relationships by the name of the record they
// name, so that two accounts holding the same catalog dump alike.
func Dump(t testing.TB, svc *scoping.Service, accountID string) string {
	t.Helper()
	ctx := context.Background()
	a, err := svc.SystemActor(ctx, accountID)
	require.NoError(t, err)
	var lines []string
	require.NoError(t, svc.Read(ctx, a, engine.Options{}, func(c *engine.Call) error {
		names := map[string]string{}
		recs := map[string][]*engine.Record{}
		for _, typ := range Types {
			rs, err := c.Find(typ)
			if err != nil {
				return err
			}
			recs[typ] = rs
			for _, r := range rs {
				names[typ+"/"+r.ID] = r.Str(views.NameName)
			}
		}
		for _, typ := range Types {
			def, _ := c.Engine.Schema().Lookup(typ)
			for _, r := range recs[typ] {
				var parts []string
				for _, at := range def.Attrs {
					if v, ok := engine.TextOf(r.Attrs[at.Name]); ok && v != "" && !at.Computed {
						parts = append(parts, at.Name+"="+v)
					}
				}
				for _, rd := range def.Rels {
					if id := r.Rel(rd.Name); id != "" && rd.Stored() {
						parts = append(parts, rd.Name+"="+names[rd.Type+"/"+id])
					}
				}
				slices.Sort(parts)
				lines = append(lines, typ+": "+strings.Join(parts, " "))
			}
		}
		return nil
	}))
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
