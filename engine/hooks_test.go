package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// Ensure a type's hooks run where the engine promises: Defaults before
// validation on create only, Validate with the old record on update,
// AfterWrite after the store, Upsert restoring an existing record, Create
// and Delete replacing the generic ones.
func TestTypeHooks(t *testing.T) {
	var seen []string
	hooks := engine.Hooks{
		Defaults: func(_ context.Context, c *engine.Call, rec *engine.Record) error {
			seen = append(seen, "defaults")
			if !c.Given("size") {
				rec.Attrs["size"] = "1"
			}
			return nil
		},
		Validate: func(_ context.Context, c *engine.Call, rec, old *engine.Record) []error {
			was := "nil"
			if old != nil {
				was = old.Str("name")
			}
			seen = append(seen, "validate old="+was)
			if rec.Str("name") == "forbidden" {
				return []error{engine.Invalid(engine.AttrPointer("name"), "not that name"), nil}
			}
			if rec.Str("name") == "conflict" {
				return []error{scopekit.Errorf(scopekit.ECONFLICT, "not now")}
			}
			return nil
		},
		AfterWrite: func(_ context.Context, c *engine.Call, rec, old *engine.Record) error {
			seen = append(seen, "after "+rec.ID)
			return nil
		},
		Upsert: func(_ context.Context, c *engine.Call, rec *engine.Record) (*engine.Record, error) {
			if !strings.HasPrefix(rec.Str("name"), "same") {
				return nil, nil
			}
			ex, err := c.Find("boxes", engine.Eq("name", rec.Str("name")), engine.Eq("active", "false"))
			if err != nil || len(ex) == 0 {
				return nil, err
			}
			ex[0].Attrs["active"] = true
			return ex[0], nil
		},
		Delete: func(_ context.Context, c *engine.Call, rec *engine.Record) error {
			rec.Attrs["name"] = rec.Str("name") + " (removed)"
			return c.Tx.Replace(rec)
		},
	}
	v := newEnv(t, hooks, engine.Config{})
	ctx := context.Background()

	box := v.mustCreate("boxes", map[string]any{"name": "same"}, nil)
	require.Equal(t, "1", box.Str("size"), "Defaults filled what the input left out")
	require.Equal(t, []string{"defaults", "validate old=nil", "after 1"}, seen)

	seen = nil
	_, err := v.e.Update(ctx, v.admin, "boxes", box.ID, input(map[string]any{"active": false, "size": "2"}, nil), engine.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"validate old=same", "after 1"}, seen, "no Defaults on update")

	res, err := v.e.Create(ctx, v.admin, "boxes", input(map[string]any{"name": "same"}, nil), engine.Options{})
	require.NoError(t, err)
	require.False(t, res.Created, "an upsert restores rather than creates")
	require.Equal(t, box.ID, res.Records[0].ID)
	require.True(t, res.Records[0].Active())

	_, err = v.create(v.admin, "boxes", input(map[string]any{"name": "forbidden"}, nil))
	require.Equal(t, scopekit.EINVALID, code(err))
	require.Equal(t, "/data/attributes/name", field(err))
	_, err = v.create(v.admin, "boxes", input(map[string]any{"name": "conflict"}, nil))
	require.Equal(t, scopekit.ECONFLICT, code(err), "a rule error that is not EINVALID is returned as it is")

	require.NoError(t, v.e.Delete(ctx, v.admin, "boxes", box.ID, engine.Options{}))
	got, err := v.e.Get(ctx, v.admin, "boxes", box.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "same (removed)", got.Records[0].Str("name"), "the Delete hook replaced the removal")
}

// Ensure Prepare runs before the write transaction opens, on create and
// update (with the record as stored) only, and that its error is the
// write's answer: the store takes another write while it runs.
func TestPrepareHook(t *testing.T) {
	var seen []string
	var v *env
	hooks := engine.Hooks{Prepare: func(ctx context.Context, c *engine.Call, old *engine.Record, in *engine.Input) error {
		require.Nil(t, c.Tx, "no transaction")
		require.Equal(t, "started", c.Ext, "the domain's call state is set")
		was := "nil"
		if old != nil {
			was = old.Str("name")
		}
		seen = append(seen, "prepare old="+was+" in="+string(in.Attrs["name"]))
		if string(in.Attrs["name"]) == `"refused"` {
			return engine.Invalid(engine.AttrPointer("name"), "refused before the write")
		}
		done := make(chan error, 1)
		go func() { done <- v.db.Update(ctx, func(engine.Tx) error { return nil }) }()
		select {
		case err := <-done:
			return err
		case <-time.After(5 * time.Second):
			return errors.New("another write waited for Prepare: it runs inside a transaction")
		}
	}}
	v = newEnv(t, hooks, engine.Config{Begin: func(c *engine.Call, _ bool) { c.Ext = "started" }})
	ctx := context.Background()
	box := v.mustCreate("boxes", map[string]any{"name": "first"}, nil)
	_, err := v.e.Update(ctx, v.admin, "boxes", box.ID, input(map[string]any{"name": "second"}, nil), engine.Options{})
	require.NoError(t, err)
	_, err = v.create(v.admin, "boxes", input(map[string]any{"name": "refused", "size": "-1"}, nil))
	require.Equal(t, scopekit.EINVALID, code(err))
	var fields []string
	for _, e := range scopekit.List(err) {
		fields = append(fields, e.Field)
	}
	require.ElementsMatch(t, []string{"/data/attributes/name", "/data/attributes/size"}, fields, "told with the write's own errors")
	_, err = v.e.Update(ctx, v.admin, "boxes", "404", input(map[string]any{"name": "x"}, nil), engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, code(err))
	_, err = v.create(actor(engine.AccessView, true), "boxes", input(map[string]any{"name": "x"}, nil))
	require.Equal(t, scopekit.EFORBIDDEN, code(err), "the guard first")
	require.Equal(t, []string{`prepare old=nil in="first"`, `prepare old=first in="second"`, `prepare old=nil in="refused"`}, seen)
	res, err := v.list(v.admin, "boxes", engine.ListParams{})
	require.NoError(t, err)
	require.Len(t, res.Records, 1, "the refused create stored nothing")
}

// Ensure a Create hook replaces the generic create and the type's guard
// still applies at manage level.
func TestCreateHook(t *testing.T) {
	hooks := engine.Hooks{Create: func(_ context.Context, c *engine.Call, in *engine.Input) (*engine.Record, error) {
		rec := engine.NewRecord("boxes", c.AccountID())
		rec.Attrs["name"] = "made by the hook"
		return rec, c.Tx.Insert(rec)
	}}
	v := newEnv(t, hooks, engine.Config{})
	rec := v.mustCreate("boxes", map[string]any{"name": "ignored"}, nil)
	require.Equal(t, "made by the hook", rec.Str("name"))
	_, err := v.create(actor(engine.AccessView, true), "boxes", input(nil, nil))
	require.Equal(t, scopekit.EFORBIDDEN, code(err))
}

// Ensure a through relationship lists the To side of the joining records
// that ThroughWhere keeps, and a filter with a default applies when the
// request gives none.
func TestThroughAndFilterDefaults(t *testing.T) {
	s := engine.NewSchema(guard)
	s.Register(&engine.TypeDef{Name: "people", Guard: guard, Attrs: []engine.AttrDef{{Name: "name", Kind: engine.KindString}},
		Rels: []engine.RelDef{{Name: "friends", Type: "people", ToMany: true, ReadOnly: true, Through: "links", From: "from", To: "to",
			ThroughWhere: []engine.Cond{{Field: "gone", Op: engine.OpNull}}}}})
	s.Register(&engine.TypeDef{Name: "links", Guard: guard, Attrs: []engine.AttrDef{{Name: "gone", Kind: engine.KindTime}},
		Rels: []engine.RelDef{{Name: "from", Type: "people"}, {Name: "to", Type: "people"}},
		Filters: map[string]engine.FilterDef{
			"current": {Field: "gone", Op: engine.OpNull, Kind: engine.KindBool, Default: "true",
				Build: func(_ context.Context, c *engine.Call, v string) ([]engine.Cond, error) {
					if v != "true" {
						return nil, scopekit.ParamErrorf(scopekit.EBADREQUEST, c.FilterParam("current"), "only true")
					}
					return []engine.Cond{{Field: "gone", Op: engine.OpNull}}, nil
				}},
		}})
	require.NoError(t, s.Check())
	v := newEnvWith(t, s, engine.Config{})
	for _, n := range []string{"ann", "bob", "cy"} {
		v.mustCreate("people", map[string]any{"name": n}, nil)
	}
	link := func(from, to string) *engine.Record {
		return v.mustCreate("links", nil, map[string]engine.RelInput{"from": to1("people", from), "to": to1("people", to)})
	}
	link("1", "2")
	gone := link("1", "3")
	ctx := context.Background()
	_, err := v.e.Update(ctx, v.admin, "links", gone.ID, input(map[string]any{"gone": "2026-01-02T03:04:05.000000Z"}, nil), engine.Options{})
	require.NoError(t, err)

	res, err := v.e.Related(ctx, v.admin, "people", "1", "friends", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"2"}, ids(res.Records), "ThroughWhere leaves the gone link out")
	res, err = v.e.Get(ctx, v.admin, "people", "1", engine.ListParams{Include: []string{"friends"}}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"2"}, ids(res.Included))

	res, err = v.list(v.admin, "links", engine.ListParams{})
	require.NoError(t, err)
	require.Equal(t, []string{"1"}, ids(res.Records), "the default filter applies")
	_, err = v.list(v.admin, "links", engine.ListParams{Filters: map[string]string{"current": "false"}})
	require.Equal(t, scopekit.EBADREQUEST, code(err))
	require.Contains(t, err.Error(), "f(current)")
}

// Ensure the record accessors read canonical values and tolerate absent
// or mistyped ones.
func TestRecordAccessors(t *testing.T) {
	r := engine.NewRecord("boxes", "1")
	r.Attrs = map[string]any{"s": "x", "b": true, "n": json.Number("42"), "i": int64(7), "d": "12.50", "bad": "x1",
		"l": []any{"a", 3, "b"}, "o": map[string]any{"k": "v"}}
	require.Equal(t, "x", r.Str("s"))
	require.Equal(t, "", r.Str("b"))
	require.True(t, r.Bool("b"))
	require.False(t, r.Bool("s"))
	require.Equal(t, int64(42), r.Int("n"))
	require.Equal(t, int64(7), r.Int("i"))
	require.Equal(t, int64(0), r.Int("s"))
	require.True(t, decimal.RequireFromString("12.5").Equal(r.Dec("d")))
	_, ok := r.DecOK("bad")
	require.False(t, ok)
	_, ok = r.DecOK("missing")
	require.False(t, ok)
	require.Equal(t, []string{"a", "b"}, r.Strings("l"))
	require.Nil(t, r.Strings("s"))
	require.Equal(t, "v", r.Object("o")["k"])
	require.Nil(t, r.Object("s"))

	r.SetRel("box", "9")
	require.Equal(t, "9", r.Rel("box"))
	require.Equal(t, []string{"9"}, r.FieldValues("box"))
	r.SetRel("box", "")
	require.Equal(t, "", r.Rel("box"))
	require.Equal(t, []string{"a,b"}, r.FieldValues("l"), "a list matches as its joined text")

	c := r.Clone()
	c.Attrs["s"] = "changed"
	require.Equal(t, "x", r.Str("s"), "a clone's maps are its own")

	for _, tc := range []struct{ a, b string }{{"2", "10"}, {"9", "10"}, {"10", "11"}} {
		require.Negative(t, engine.CompareIDs(tc.a, tc.b), "%s < %s", tc.a, tc.b)
	}
	require.Zero(t, engine.CompareIDs("12", "12"))
	for v, want := range map[any]bool{nil: true, "": true, "  ": true, "x": false, false: false} {
		require.Equal(t, want, engine.Blank(v), "%#v", v)
	}
}

// Ensure CheckAttrs holds values set outside a write request to the
// declarations' limits and null rules.
func TestCheckAttrs(t *testing.T) {
	s := testSchema(t, engine.Hooks{})
	require.NoError(t, s.CheckAttrs("boxes", map[string]any{"name": "ok", "internal": "x"}))
	err := s.CheckAttrs("boxes", map[string]any{"name": strings.Repeat("n", engine.MaxStringChars+1)})
	require.Equal(t, scopekit.EINVALID, code(err))
	require.Equal(t, scopekit.EINTERNAL, code(s.CheckAttrs("nothings", nil)))
}

// Ensure Check names each kind of broken declaration.
func TestCheckFindsBrokenDeclarations(t *testing.T) {
	s := testSchema(t, engine.Hooks{})
	s.Register(&engine.TypeDef{Name: "broken", Guard: "no-such-guard", ScopeRel: "owner",
		Rels: []engine.RelDef{{Name: "ghost", Type: "no-such-type"}, {Name: "kids", Type: "items", ToMany: true, Inverse: "parent"},
			{Name: "pals", Type: "items", ToMany: true, Through: "shelves", From: "box", To: "box"}},
		Filters: map[string]engine.FilterDef{"colour": {Op: engine.OpIn}}})
	err := s.Check()
	require.Error(t, err)
	for _, want := range []string{
		`guard "no-such-guard" is not a permission`,
		`scope relationship "owner" is not declared`,
		`relationship ghost names undeclared type "no-such-type"`,
		`inverse relationship kids: items has no stored relationship "parent" to broken`,
		`through relationship pals: shelves has no relationship "box" to broken`,
		`filter colour compares undeclared field "colour"`,
	} {
		require.Contains(t, err.Error(), "broken: "+want)
	}
	require.Panics(t, func() { s.Register(&engine.TypeDef{Name: "boxes"}) }, "a type declared twice")
}

// Ensure a type's WriteGuards are needed, at manage level, for every
// write (create, update, delete) besides its Guard, and for no read; and
// that the schema check refuses a write guard it does not know.
func TestWriteGuards(t *testing.T) {
	s := engine.NewSchema(guard, "other")
	s.Register(&engine.TypeDef{Name: "locks", Guard: guard, WriteGuards: []string{"other"},
		Attrs: []engine.AttrDef{{Name: "name", Kind: engine.KindString}}})
	require.NoError(t, s.Check())
	v := newEnvWith(t, s, engine.Config{})
	both := actor(engine.AccessManage, true)
	both.Role.Attrs["permissions"].(map[string]any)["other"] = engine.AccessManage
	one := actor(engine.AccessManage, true)
	ctx := context.Background()

	_, err := v.create(one, "locks", input(map[string]any{"name": "a"}, nil))
	require.Equal(t, scopekit.EFORBIDDEN, code(err))
	require.Contains(t, err.Error(), "other permission at manage level")
	res, err := v.create(both, "locks", input(map[string]any{"name": "a"}, nil))
	require.NoError(t, err)
	id := res.ID
	_, err = v.e.Get(ctx, one, "locks", id, engine.ListParams{}, engine.Options{})
	require.NoError(t, err, "a read needs the guard alone")
	_, err = v.e.Update(ctx, one, "locks", id, input(map[string]any{"name": "b"}, nil), engine.Options{})
	require.Equal(t, scopekit.EFORBIDDEN, code(err))
	require.Equal(t, scopekit.EFORBIDDEN, code(v.e.Delete(ctx, one, "locks", id, engine.Options{})))
	require.NoError(t, v.e.Delete(ctx, both, "locks", id, engine.Options{}))

	bad := engine.NewSchema(guard)
	bad.Register(&engine.TypeDef{Name: "locks", Guard: guard, WriteGuards: []string{"nothing"}})
	require.ErrorContains(t, bad.Check(), `guard "nothing" is not a permission`)
}
