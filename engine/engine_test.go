package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// The engine's tests declare a small schema of their own: boxes (scopes,
// archived rather than deleted while shelves name them) hold items (owned:
// deleting a box deletes its items); shelves name boxes without owning
// them. None of these names is a domain type.
const guard = "things"

func testSchema(t *testing.T, hooks engine.Hooks) *engine.Schema {
	t.Helper()
	s := engine.NewSchema(guard, "other")
	s.Register(&engine.TypeDef{Name: "boxes", Guard: guard, Archives: true, ScopeRel: "id",
		Attrs: []engine.AttrDef{
			{Name: "name", Kind: engine.KindString, Required: true, Unique: true, Sortable: true},
			{Name: "size", Kind: engine.KindDecimal},
			{Name: "label", Kind: engine.KindString, Computed: true},
		},
		Rels: []engine.RelDef{{Name: "items", Type: "items", ToMany: true, Inverse: "box", ReadOnly: true}},
		Filters: map[string]engine.FilterDef{
			"name":          {Op: engine.OpContains},
			"created-after": {Field: "created-at", Op: engine.OpGte, Kind: engine.KindTime},
		},
		Hooks: hooks,
	})
	s.Register(&engine.TypeDef{Name: "items", Guard: guard, ScopeRel: "box",
		Attrs: []engine.AttrDef{
			{Name: "title", Kind: engine.KindString, Required: true},
			{Name: "count", Kind: engine.KindInt, Sortable: true},
		},
		Rels: []engine.RelDef{
			{Name: "box", Type: "boxes", Required: true, Cascade: true},
			{Name: "related", Type: "items", ToMany: true},
		},
		Filters: map[string]engine.FilterDef{"box": {Op: engine.OpIn}},
	})
	s.Register(&engine.TypeDef{Name: "shelves", Guard: "other",
		Attrs: []engine.AttrDef{{Name: "name", Kind: engine.KindString}},
		Rels:  []engine.RelDef{{Name: "box", Type: "boxes"}},
	})
	require.NoError(t, s.Check())
	return s
}

// env is an engine over a real bbolt store in a temp dir, checked for
// consistency when the test ends.
type env struct {
	t      *testing.T
	e      *engine.Engine
	db     *boltstore.DB
	admin  *engine.Actor
	events []string // what the Config hooks saw, in order
}

func newEnv(t *testing.T, hooks engine.Hooks, cfg engine.Config) *env {
	t.Helper()
	return newEnvWith(t, testSchema(t, hooks), cfg)
}

func newEnvWith(t *testing.T, schema *engine.Schema, cfg engine.Config) *env {
	t.Helper()
	db := bolttest.Open(t, schema)
	return &env{t: t, e: engine.New(db, schema, cfg), db: db, admin: actor(engine.AccessManage, true)}
}

// actor is a user of account 1 whose role has level on the things guard.
func actor(level string, allScopes bool) *engine.Actor {
	role := engine.NewRecord("roles", "1")
	role.Attrs["permissions"] = map[string]any{guard: level}
	return &engine.Actor{UserID: "7", Account: &engine.Record{ID: "1"}, Role: role, AllScopes: allScopes}
}

func input(attrs map[string]any, rels map[string]engine.RelInput) *engine.Input {
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: rels}
	for k, v := range attrs {
		raw, _ := json.Marshal(v)
		in.Attrs[k] = raw
	}
	return in
}

func to1(typ, id string) engine.RelInput {
	return engine.RelInput{Refs: []engine.Ref{{Type: typ, ID: id}}}
}

func (v *env) create(a *engine.Actor, typ string, in *engine.Input) (*engine.Record, error) {
	v.t.Helper()
	res, err := v.e.Create(context.Background(), a, typ, in, engine.Options{Strict: true})
	if err != nil {
		return nil, err
	}
	return res.Records[0], nil
}

func (v *env) mustCreate(typ string, attrs map[string]any, rels map[string]engine.RelInput) *engine.Record {
	v.t.Helper()
	rec, err := v.create(v.admin, typ, input(attrs, rels))
	require.NoError(v.t, err)
	return rec
}

func (v *env) list(a *engine.Actor, typ string, p engine.ListParams) (*engine.Result, error) {
	return v.e.List(context.Background(), a, typ, p, engine.Options{FilterParam: func(n string) string { return "f(" + n + ")" }})
}

func ids(recs []*engine.Record) []string {
	out := []string{}
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}

func code(err error) string { return scopekit.ErrorCode(err) }

func field(err error) string {
	var e *scopekit.Error
	if errors.As(err, &e) {
		return e.Field
	}
	var es scopekit.Errors
	if errors.As(err, &es) && len(es) > 0 {
		return es[0].Field
	}
	return ""
}

// Ensure a create checks the input against the declarations and refuses
// what breaks them with the code and field of the rule.
func TestCreateValidates(t *testing.T) {
	v := newEnv(t, engine.Hooks{}, engine.Config{})
	box := v.mustCreate("boxes", map[string]any{"name": "Tools", "size": "2.50"}, nil)
	require.Equal(t, "2.5", box.Str("size"), "decimals are stored in canonical form")
	require.Equal(t, true, box.Attrs["active"], "the engine's own active attribute defaults to true")

	for _, tc := range []struct {
		name       string
		typ        string
		in         *engine.Input
		code, what string
	}{
		{"required blank", "boxes", input(map[string]any{"name": ""}, nil), scopekit.EINVALID, "/data/attributes/name"},
		{"unique, case-insensitively", "boxes", input(map[string]any{"name": "TOOLS"}, nil), scopekit.EINVALID, "/data/attributes/name"},
		{"unknown attribute", "boxes", input(map[string]any{"name": "x", "colour": "red"}, nil), scopekit.EBADREQUEST, "/data/attributes/colour"},
		{"computed attribute, strict", "boxes", input(map[string]any{"name": "y", "label": "z"}, nil), scopekit.EBADREQUEST, "/data/attributes/label"},
		{"wrong JSON type", "boxes", input(map[string]any{"name": 5}, nil), scopekit.EBADREQUEST, "/data/attributes/name"},
		{"required relationship", "items", input(map[string]any{"title": "hammer"}, nil), scopekit.EINVALID, "/data/relationships/box"},
		{"relationship to a missing record", "items", input(map[string]any{"title": "hammer"},
			map[string]engine.RelInput{"box": to1("boxes", "99")}), scopekit.EINVALID, "/data/relationships/box"},
		{"relationship of the wrong type", "items", input(map[string]any{"title": "hammer"},
			map[string]engine.RelInput{"box": to1("items", box.ID)}), scopekit.EBADREQUEST, "/data/relationships/box"},
		{"to-many given as to-one", "items", input(map[string]any{"title": "hammer"},
			map[string]engine.RelInput{"box": to1("boxes", box.ID), "related": to1("items", "1")}), scopekit.EBADREQUEST, "/data/relationships/related"},
		{"read-only relationship, strict", "boxes", input(map[string]any{"name": "w"},
			map[string]engine.RelInput{"items": {ToMany: true}}), scopekit.EBADREQUEST, "/data/relationships/items"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.create(v.admin, tc.typ, tc.in)
			require.Equal(t, tc.code, code(err), "%v", err)
			require.Equal(t, tc.what, field(err), "%v", err)
		})
	}

	// without Strict a computed attribute is ignored, not refused
	res, err := v.e.Create(context.Background(), v.admin, "boxes", input(map[string]any{"name": "Lenient", "label": "x"}, nil), engine.Options{})
	require.NoError(t, err)
	require.NotContains(t, res.Records[0].Attrs, "label")

	all, err := v.list(v.admin, "boxes", engine.ListParams{})
	require.NoError(t, err)
	require.Equal(t, 2, all.Total, "a refused create stores nothing")
}

// Ensure reads filter (declared filters, ids, the default archive filter),
// sort, page and include, and name a refused parameter as the caller
// spells it.
func TestListQueries(t *testing.T) {
	v := newEnv(t, engine.Hooks{}, engine.Config{})
	a := v.mustCreate("boxes", map[string]any{"name": "Alpha"}, nil)
	b := v.mustCreate("boxes", map[string]any{"name": "Beta"}, nil)
	c := v.mustCreate("boxes", map[string]any{"name": "Gamma"}, nil)
	for i, box := range []*engine.Record{a, a, b} {
		v.mustCreate("items", map[string]any{"title": "t", "count": 3 - i}, map[string]engine.RelInput{"box": to1("boxes", box.ID)})
	}
	_, err := v.e.Update(context.Background(), v.admin, "boxes", c.ID, input(map[string]any{"active": false}, nil), engine.Options{})
	require.NoError(t, err)

	for _, tc := range []struct {
		name string
		p    engine.ListParams
		want []string
	}{
		{"archived hidden by default", engine.ListParams{}, []string{a.ID, b.ID}},
		{"archived on request", engine.ListParams{Filters: map[string]string{"active": "true,false"}}, []string{a.ID, b.ID, c.ID}},
		{"only archived", engine.ListParams{Filters: map[string]string{"active": "false"}}, []string{c.ID}},
		{"ids", engine.ListParams{Filters: map[string]string{"ids": b.ID + ", " + a.ID}}, []string{a.ID, b.ID}},
		{"contains, any case", engine.ListParams{Filters: map[string]string{"name": "ET"}}, []string{b.ID}},
		{"time filter", engine.ListParams{Filters: map[string]string{"created-after": "2000-01-01"}}, []string{a.ID, b.ID}},
		{"sort descending", engine.ListParams{Sort: []engine.SortSpec{{Field: "name", Desc: true}}}, []string{b.ID, a.ID}},
		{"second page of one", engine.ListParams{PageNumber: 2, PageSize: 1}, []string{b.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := v.list(v.admin, "boxes", tc.p)
			require.NoError(t, err)
			require.Equal(t, tc.want, ids(res.Records))
		})
	}

	res, err := v.list(v.admin, "boxes", engine.ListParams{PageNumber: 1, PageSize: 1})
	require.NoError(t, err)
	require.Equal(t, 2, res.Total, "the total counts every match, not the page")

	res, err = v.list(v.admin, "items", engine.ListParams{Sort: []engine.SortSpec{{Field: "count"}}, Include: []string{"box"}})
	require.NoError(t, err)
	require.Equal(t, []string{"3", "2", "1"}, ids(res.Records), "sorted by count as numbers")
	require.ElementsMatch(t, []string{a.ID, b.ID}, ids(res.Included), "each included record once")

	res, err = v.e.Get(context.Background(), v.admin, "boxes", a.ID, engine.ListParams{Include: []string{"items"}}, engine.Options{})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"1", "2"}, ids(res.Included), "an inverse relationship includes the records pointing here")

	for _, tc := range []struct {
		name  string
		p     engine.ListParams
		param string
	}{
		{"undeclared filter", engine.ListParams{Filters: map[string]string{"colour": "red"}}, "f(colour)"},
		{"bad active value", engine.ListParams{Filters: map[string]string{"active": "yes"}}, "f(active)"},
		{"bad time", engine.ListParams{Filters: map[string]string{"created-after": "soon"}}, "f(created-after)"},
		{"unsortable", engine.ListParams{Sort: []engine.SortSpec{{Field: "size"}}}, "sort"},
		{"unknown include", engine.ListParams{Include: []string{"lids"}}, "include"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.list(v.admin, "boxes", tc.p)
			require.Equal(t, scopekit.EBADREQUEST, code(err), "%v", err)
			var e *scopekit.Error
			require.True(t, errors.As(err, &e))
			require.Equal(t, tc.param, e.Parameter)
		})
	}
}

// Ensure guards and scopes hold on every use case: no access is 403, view
// access cannot write, and a record outside the actor's scopes is not
// found, not listed, not included and cannot be pointed at.
func TestGuardsAndScopes(t *testing.T) {
	var scopeCalls int
	v := newEnv(t, engine.Hooks{}, engine.Config{Scopes: func(c *engine.Call) (map[string]bool, error) {
		scopeCalls++
		return map[string]bool{"1": true}, nil
	}})
	mine := v.mustCreate("boxes", map[string]any{"name": "Mine"}, nil)
	theirs := v.mustCreate("boxes", map[string]any{"name": "Theirs"}, nil)
	v.mustCreate("items", map[string]any{"title": "a"}, map[string]engine.RelInput{"box": to1("boxes", mine.ID)})
	hidden := v.mustCreate("items", map[string]any{"title": "b"}, map[string]engine.RelInput{"box": to1("boxes", theirs.ID)})
	ctx := context.Background()

	_, err := v.list(actor(engine.AccessNone, true), "boxes", engine.ListParams{})
	require.Equal(t, scopekit.EFORBIDDEN, code(err))
	_, err = v.create(actor(engine.AccessView, true), "boxes", input(map[string]any{"name": "x"}, nil))
	require.Equal(t, scopekit.EFORBIDDEN, code(err))
	require.Equal(t, scopekit.EFORBIDDEN, code(v.e.Delete(ctx, actor(engine.AccessView, true), "boxes", mine.ID, engine.Options{})))
	_, err = v.list(v.admin, "nothings", engine.ListParams{})
	require.Equal(t, scopekit.ENOTFOUND, code(err))

	scoped := actor(engine.AccessManage, false)
	res, err := v.list(scoped, "items", engine.ListParams{})
	require.NoError(t, err)
	require.Equal(t, []string{"1"}, ids(res.Records))
	res, err = v.list(scoped, "boxes", engine.ListParams{})
	require.NoError(t, err)
	require.Equal(t, []string{mine.ID}, ids(res.Records), "a scope type is scoped by its own id")
	_, err = v.e.Get(ctx, scoped, "items", hidden.ID, engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, code(err))
	_, err = v.e.Related(ctx, scoped, "boxes", theirs.ID, "items", engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, code(err))
	_, err = v.create(scoped, "items", input(map[string]any{"title": "c"}, map[string]engine.RelInput{"box": to1("boxes", theirs.ID)}))
	require.Equal(t, scopekit.EINVALID, code(err))
	require.Contains(t, err.Error(), "boxes 2 does not exist in this account")
	require.Equal(t, scopekit.ENOTFOUND, code(v.e.Delete(ctx, scoped, "items", hidden.ID, engine.Options{})))
	require.Equal(t, 1, scopeCalls, "an actor's scopes are loaded once")

	other := actor(engine.AccessManage, true)
	other.Account = &engine.Record{ID: "2"}
	_, err = v.e.Get(ctx, other, "boxes", mine.ID, engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, code(err), "another account's record is not found")
}

// Ensure Related serves a to-one relationship as one record (or none) and
// a to-many one as a list.
func TestRelated(t *testing.T) {
	v := newEnv(t, engine.Hooks{}, engine.Config{})
	box := v.mustCreate("boxes", map[string]any{"name": "B"}, nil)
	one := v.mustCreate("items", map[string]any{"title": "one"}, map[string]engine.RelInput{"box": to1("boxes", box.ID)})
	v.mustCreate("items", map[string]any{"title": "two"}, map[string]engine.RelInput{"box": to1("boxes", box.ID),
		"related": {ToMany: true, Refs: []engine.Ref{{Type: "items", ID: one.ID}}}})
	ctx := context.Background()

	res, err := v.e.Related(ctx, v.admin, "items", one.ID, "box", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.True(t, res.Single)
	require.Equal(t, []string{box.ID}, ids(res.Records))
	res, err = v.e.Related(ctx, v.admin, "items", "2", "related", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{one.ID}, ids(res.Records))
	res, err = v.e.Related(ctx, v.admin, "boxes", box.ID, "items", engine.ListParams{Sort: []engine.SortSpec{{Field: "count"}}}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, res.Records, 2)
	_, err = v.e.Related(ctx, v.admin, "boxes", box.ID, "lids", engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, code(err))
	// an inverse list is read with its owner, but answers as if the owner
	// were read first: a missing owner before a bad sort
	bad := engine.ListParams{Sort: []engine.SortSpec{{Field: "nope"}}}
	_, err = v.e.Related(ctx, v.admin, "boxes", "99", "items", bad, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, code(err))
	_, err = v.e.Related(ctx, v.admin, "boxes", box.ID, "items", bad, engine.Options{})
	require.Equal(t, scopekit.EBADREQUEST, code(err))
	res, err = v.e.Related(ctx, v.admin, "boxes", "99", "items", engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, code(err))
	require.Nil(t, res)
}

// Ensure a delete takes owned records with it, archives a record others
// still name, and clears references to a deleted one.
func TestDelete(t *testing.T) {
	v := newEnv(t, engine.Hooks{}, engine.Config{})
	ctx := context.Background()
	box := v.mustCreate("boxes", map[string]any{"name": "Owned"}, nil)
	v.mustCreate("items", map[string]any{"title": "a"}, map[string]engine.RelInput{"box": to1("boxes", box.ID)})
	require.NoError(t, v.e.Delete(ctx, v.admin, "boxes", box.ID, engine.Options{}))
	res, err := v.list(v.admin, "items", engine.ListParams{})
	require.NoError(t, err)
	require.Empty(t, res.Records, "owned items go with their box")
	res, err = v.list(v.admin, "boxes", engine.ListParams{Filters: map[string]string{"active": "true,false"}})
	require.NoError(t, err)
	require.Empty(t, res.Records, "a box nothing else names is deleted, not archived")

	named := v.mustCreate("boxes", map[string]any{"name": "Named"}, nil)
	shelfAdmin := actor(engine.AccessManage, true)
	shelfAdmin.Role.Attrs["permissions"].(map[string]any)["other"] = engine.AccessManage
	shelf, err := v.create(shelfAdmin, "shelves", input(map[string]any{"name": "s"}, map[string]engine.RelInput{"box": to1("boxes", named.ID)}))
	require.NoError(t, err)
	require.NoError(t, v.e.Delete(ctx, v.admin, "boxes", named.ID, engine.Options{}))
	got, err := v.e.Get(ctx, v.admin, "boxes", named.ID, engine.ListParams{Filters: map[string]string{"active": "false"}}, engine.Options{})
	require.NoError(t, err, "a box a shelf still names is archived")
	require.False(t, got.Records[0].Active())
	_, err = v.e.Get(ctx, v.admin, "boxes", named.ID, engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, code(err), "an archived record is found only when asked for")

	item := v.mustCreate("items", map[string]any{"title": "x"}, map[string]engine.RelInput{"box": to1("boxes", v.mustCreate("boxes", map[string]any{"name": "C"}, nil).ID)})
	other := v.mustCreate("items", map[string]any{"title": "y"}, map[string]engine.RelInput{"box": to1("boxes", item.Rel("box")),
		"related": {ToMany: true, Refs: []engine.Ref{{Type: "items", ID: item.ID}}}})
	require.NoError(t, v.e.Delete(ctx, v.admin, "items", item.ID, engine.Options{}))
	got, err = v.e.Get(ctx, v.admin, "items", other.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Empty(t, got.Records[0].Rels["related"], "a reference to a deleted record is cleared")
	_ = shelf
}

// Ensure the domain's plug-ins run where Config says: Begin on every call,
// commit steps in order before the commit (an error rolls it back), after
// the commit the AfterCommit steps, Touched after a served write, and a
// Reread type answered as stored.
func TestConfigHooks(t *testing.T) {
	var v *env
	var failCommit bool
	hooks := engine.Hooks{
		Compute: func(_ context.Context, c *engine.Call, recs []*engine.Record) error {
			for _, r := range recs {
				r.Attrs["label"] = "box " + r.Str("name")
			}
			return nil
		},
	}
	cfg := engine.Config{
		Begin: func(c *engine.Call, write bool) {
			c.Ext = write
			if !write {
				v.events = append(v.events, "begin read")
				return
			}
			v.events = append(v.events, "begin write")
			c.BeforeCommit(func(context.Context) error {
				v.events = append(v.events, "before commit")
				if failCommit {
					return errors.New("refused at commit")
				}
				return nil
			})
			c.AfterCommit(func(context.Context) { v.events = append(v.events, "after commit") })
		},
		Touched: func(c *engine.Call, def *engine.TypeDef, rec *engine.Record) error {
			v.events = append(v.events, "touched "+def.Name+" "+engine.ScopeOf(def, rec))
			return nil
		},
	}
	v = newEnv(t, hooks, cfg)
	rec := v.mustCreate("boxes", map[string]any{"name": "A"}, nil)
	require.Equal(t, "box A", rec.Str("label"), "a create answers with computed attributes")
	require.Equal(t, []string{"begin write", "touched boxes 1", "before commit", "begin read", "after commit"}, v.events,
		"one transaction: the answer is read before the commit")

	v.events, failCommit = nil, true
	_, err := v.create(v.admin, "boxes", input(map[string]any{"name": "B"}, nil))
	require.EqualError(t, err, "refused at commit")
	require.NotContains(t, v.events, "after commit")
	failCommit = false
	res, err := v.list(v.admin, "boxes", engine.ListParams{})
	require.NoError(t, err)
	require.Equal(t, []string{"1"}, ids(res.Records), "a failed commit step keeps nothing")

	// a Reread type is served as the commit steps left it
	def, ok := v.e.Schema().Lookup("boxes")
	require.True(t, ok)
	def.Reread = true
	t.Cleanup(func() { def.Reread = false })
	res, err = v.e.WriteRecord(context.Background(), v.admin, engine.Options{}, nil, def, func(c *engine.Call) (*engine.Record, error) {
		r, err := c.Get("boxes", "1")
		if err != nil {
			return nil, err
		}
		r.Attrs["size"] = "1"
		if err := c.Tx.Replace(r); err != nil {
			return nil, err
		}
		c.BeforeCommit(func(context.Context) error {
			cur, err := c.Get("boxes", "1")
			if err != nil {
				return err
			}
			cur.Attrs["size"] = "9"
			return c.Tx.Replace(cur)
		})
		c.RespMeta["note"] = "kept"
		return r, nil
	})
	require.NoError(t, err)
	require.Equal(t, "9", res.Records[0].Str("size"))
	require.Equal(t, "kept", res.Meta["note"])
}

// countingStore counts the transactions its store runs.
type countingStore struct {
	engine.Store
	views, updates int
}

func (s *countingStore) View(ctx context.Context, fn func(tx engine.Tx) error) error {
	s.views++
	return s.Store.View(ctx, fn)
}

func (s *countingStore) Update(ctx context.Context, fn func(tx engine.Tx) error) error {
	s.updates++
	return s.Store.Update(ctx, fn)
}

// Ensure a create, an update and a delete each run as one transaction,
// their answer included.
func TestOneTransactionPerWrite(t *testing.T) {
	v := newEnv(t, engine.Hooks{}, engine.Config{})
	cs := &countingStore{Store: v.db}
	e := engine.New(cs, v.e.Schema(), engine.Config{})
	ctx := context.Background()
	res, err := e.Create(ctx, v.admin, "boxes", input(map[string]any{"name": "One"}, nil), engine.Options{})
	require.NoError(t, err)
	_, err = e.Update(ctx, v.admin, "boxes", res.Records[0].ID, input(map[string]any{"size": "3"}, nil), engine.Options{})
	require.NoError(t, err)
	require.NoError(t, e.Delete(ctx, v.admin, "boxes", res.Records[0].ID, engine.Options{}))
	require.Equal(t, 3, cs.updates)
	require.Zero(t, cs.views, "no read transaction after a write")
}
