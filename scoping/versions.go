package scoping

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// Project versions (docs/lifecycle.md): frozen, digest-addressed
// snapshots of a project's whole scope and its pricing result. A version
// is taken when a project is created, submitted, rescoped, reverted or
// accepted, and on request; taking one of a scope that the latest version
// already holds answers that version. The frozen scope is kept beside the
// record (versionsnap.go); diffs compare two of them (versiondiff.go).

// Reasons a version was taken.
const (
	VersionCreated   = "created"
	VersionSubmitted = "submitted"
	VersionRescoped  = "rescoped"
	VersionManual    = "manual"
	VersionReverted  = "reverted"
	VersionAccepted  = "accepted"
)

// BlobVersionSnapshot is the blob kind of a version's frozen scope.
const BlobVersionSnapshot = "project-versions/snapshot"

// versionSummary are the figures a version record shows of its pricing
// result, as the project shows its own.
var versionSummary = []string{views.NameCurrency, views.NameTotalHours, views.NameContractRevenue, views.NameContractCost,
	views.NameContractProfit, views.NameContractMargin}

func declareVersions(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "project-versions", Guard: "projects", ScopeRel: "project",
		Attrs: cat([]engine.AttrDef{withMaxLen(str("name"), 200), withMaxLen(text("comment"), 4000)},
			computed(engine.AttrDef{Name: "number", Kind: engine.KindInt, Sortable: true},
				enum("reason", "", VersionCreated, VersionSubmitted, VersionRescoped, VersionManual, VersionReverted, VersionAccepted),
				str("digest"), num("size"), str("currency"), dec("total-hours"), dec("contract-revenue"), dec("contract-cost"),
				dec("contract-profit"), dec("contract-margin"))),
		Rels:    []engine.RelDef{owner("project", "projects"), {Name: "created-by", Type: "users", ReadOnly: true}},
		Filters: eq("project", "reason", "digest", "number"),
		Blobs:   []string{BlobVersionSnapshot},
		Hooks: engine.Hooks{
			Create: func(ctx context.Context, c *engine.Call, in *engine.Input) (*engine.Record, error) {
				rec, created, err := createVersion(ctx, c, in)
				if err == nil && !created {
					c.Existing()
				}
				return rec, err
			},
			Validate: func(_ context.Context, _ *engine.Call, rec, old *engine.Record) []error {
				if old != nil && rec.Rel(views.NameProject) != old.Rel(views.NameProject) {
					return []error{engine.Invalid(engine.RelPointer(views.NameProject), "a version cannot move to another project")}
				}
				return nil
			},
			Delete: func(_ context.Context, _ *engine.Call, rec *engine.Record) error {
				return scopekit.Errorf(scopekit.ECONFLICT, "project-versions %s is part of its project's history: versions are never deleted", rec.ID)
			},
		}})
}

// TakeVersion takes a version of the project's scope on request (reason
// manual) with a name and a comment (both optional), and reports whether
// it is new: a scope the latest version already holds answers that
// version, unchanged.
//
// Errors: EFORBIDDEN without projects manage; ENOTFOUND for a project
// missing or outside the actor's visibility; EINVALID for a name or
// comment over its length, pointing at /meta/name or /meta/comment.
func (s *Service) TakeVersion(ctx context.Context, a *engine.Actor, projectID, name, comment string) (*engine.Result, bool, error) {
	def := mustLookup(s.Schema(), views.TypeProjectVersions)
	if err := a.RequireWrite(def); err != nil {
		return nil, false, err
	}
	for attr, v := range map[string]string{views.NameName: name, views.NameComment: comment} {
		if err := s.Schema().CheckAttrs(def.Name, map[string]any{attr: v}); err != nil {
			// name and comment are the action's meta, not attributes
			es := scopekit.List(err)
			for i, e := range es {
				if e.Field == engine.AttrPointer(attr) {
					moved := *e
					moved.Field = "/meta/" + attr
					es[i] = &moved
				}
			}
			return nil, false, scopekit.Errors(es)
		}
	}
	var created bool
	res, err := s.writeRecord(ctx, a, def, func(c *engine.Call) (*engine.Record, error) {
		proj, err := c.GetVisible(ctx, mustLookup(s.Schema(), views.TypeProjects), projectID, nil)
		if err != nil {
			return nil, err
		}
		var v *engine.Record
		v, created, err = takeVersion(c, proj, VersionManual, name, comment)
		return v, err
	})
	return res, created, err
}

// createVersion is the create of project-versions: the input names the
// project and may give a name and a comment.
func createVersion(ctx context.Context, c *engine.Call, in *engine.Input) (*engine.Record, bool, error) {
	def := mustLookup(c.Engine.Schema(), views.TypeProjectVersions)
	var name, comment string
	for attr, raw := range in.Attrs {
		at, ok := def.Attr(attr)
		if !ok || at.Computed {
			if c.Opts.Strict || !ok {
				return nil, false, engine.BadAttr(attr, "a version takes only a name and a comment; %s is the scope's", attr)
			}
			continue
		}
		v, err := engine.DecodeAttr(at, raw)
		if err != nil {
			return nil, false, err
		}
		s, _ := v.(string)
		if attr == views.NameName {
			name = s
		} else {
			comment = s
		}
	}
	for r := range in.Rels {
		if r != views.NameProject {
			return nil, false, scopekit.FieldErrorf(scopekit.EBADREQUEST, engine.RelPointer(r), "a version takes only its project")
		}
	}
	ref := in.Rels[views.NameProject]
	if len(ref.Refs) != 1 || ref.ToMany || ref.Refs[0].Type != views.TypeProjects {
		return nil, false, engine.Invalid(engine.RelPointer(views.NameProject), "project can't be blank")
	}
	proj, err := c.GetVisible(ctx, mustLookup(c.Engine.Schema(), views.TypeProjects), ref.Refs[0].ID, nil)
	if err != nil {
		return nil, false, engine.Invalid(engine.RelPointer(views.NameProject), "projects %s does not exist in this account", ref.Refs[0].ID)
	}
	return takeVersion(c, proj, VersionManual, name, comment)
}

// takeVersion freezes the project's scope as it is in the call's
// transaction: the latest version when it holds the same scope (created
// false), else a new version with the reason, name and comment.
func takeVersion(c *engine.Call, proj *engine.Record, reason, name, comment string) (*engine.Record, bool, error) {
	_, end := svcOf(c).Span(c.Ctx, "versions.take")
	delete(state(c).pricedCache, proj.ID) // priced as the transaction now has it
	if t, ok := c.Tx.(*pricingTx); ok && t.childless[lineKey(proj.AccountID, proj.ID)] {
		// created by this transaction, and no line written since: no line to look for
		if state(c).childless == nil {
			state(c).childless = map[string]bool{}
		}
		state(c).childless[proj.ID] = true
	}
	runs, err := priced(c, []string{proj.ID}, []*engine.Record{proj})
	if err != nil {
		end(err)
		return nil, false, err
	}
	pp := runs[proj.ID]
	raw, err := freezeScope(c.Engine.Schema(), proj, pp, nil)
	if err != nil {
		end(err)
		return nil, false, err
	}
	digest := digestOf(raw)
	var latest *engine.Record
	if reason != VersionCreated { // a project just created has none
		latest, err = latestVersion(c, proj.ID)
		if err != nil || (latest != nil && latest.Str(views.NameDigest) == digest) {
			end(err)
			return latest, false, err
		}
	}
	blob, err := compressSnapshot(raw)
	if err != nil {
		end(err)
		return nil, false, err
	}
	v := engine.NewRecord(views.TypeProjectVersions, proj.AccountID)
	number := int64(1)
	if latest != nil {
		number = latest.Int(views.NameNumber) + 1
	}
	v.Attrs[views.NameNumber], v.Attrs[views.NameReason], v.Attrs[views.NameDigest] = json.Number(strconv.FormatInt(number, 10)), reason, digest
	v.Attrs[views.NameSize] = json.Number(strconv.Itoa(len(blob)))
	if name = strings.TrimSpace(name); name != "" {
		v.Attrs[views.NameName] = name
	}
	if comment != "" {
		v.Attrs[views.NameComment] = comment
	}
	summary := map[string]string{}
	lineFigures(proj, pp, func(n string, f pricing.Fixed) { summary[n] = f.String() })
	summary[views.NameCurrency] = pp.in.Currency.Code
	for _, n := range versionSummary {
		if val, ok := summary[n]; ok {
			v.Attrs[n] = val
		}
	}
	v.SetRel(views.NameProject, proj.ID)
	if c.Actor.UserID != "" {
		v.SetRel(views.NameCreatedBy, c.Actor.UserID)
	}
	if err := engine.InsertLate(c.Tx, v); err != nil { // written with the commit where the store can
		end(err)
		return nil, false, err
	}
	err = c.Tx.PutBlob(v.AccountID, BlobVersionSnapshot, v.ID, blob)
	end(err)
	return v, err == nil, err
}

// heldVersion returns the project's latest version when it holds the
// scope priced in pp (nil otherwise).
func heldVersion(c *engine.Call, proj *engine.Record, pp *pricedProject) (*engine.Record, error) {
	raw, err := freezeScope(c.Engine.Schema(), proj, pp, nil)
	if err != nil {
		return nil, err
	}
	latest, err := latestVersion(c, proj.ID)
	if err != nil || latest == nil || latest.Str(views.NameDigest) != digestOf(raw) {
		return nil, err
	}
	return latest, nil
}

// latestVersion returns the project's version with the highest number
// (nil when it has none).
func latestVersion(c *engine.Call, projectID string) (*engine.Record, error) {
	vs, err := c.Find(views.TypeProjectVersions, engine.Eq(views.NameProject, projectID))
	if err != nil {
		return nil, err
	}
	var latest *engine.Record
	for _, v := range vs {
		if latest == nil || v.Int(views.NameNumber) > latest.Int(views.NameNumber) {
			latest = v
		}
	}
	return latest, nil
}

// versionAtCommit takes a version of the project, for the reason, once the
// call's writes are done and priced (a step before the commit): what the
// version freezes is what the transaction commits.
func versionAtCommit(c *engine.Call, projectID, reason string) {
	c.BeforeCommit(func(ctx context.Context) error {
		proj, err := c.Tx.Get(views.TypeProjects, c.AccountID(), projectID)
		if err != nil {
			return err
		}
		_, _, err = takeVersion(c, proj, reason, "", "")
		return err
	})
}

// versionOf reads the version of the project with the number or id
// given as ref ("3" is the version numbered 3), visible to the call's
// actor, with its frozen scope.
func versionOf(ctx context.Context, c *engine.Call, projectID, ref string) (*engine.Record, *storedScope, error) {
	def := mustLookup(c.Engine.Schema(), views.TypeProjects)
	if _, err := c.GetVisible(ctx, def, projectID, engine.AnyActive(def)); err != nil {
		return nil, nil, err
	}
	vs, err := c.Find(views.TypeProjectVersions, engine.Eq(views.NameProject, projectID), engine.Eq(views.NameNumber, ref))
	if err != nil {
		return nil, nil, err
	}
	if len(vs) == 0 {
		return nil, nil, scopekit.Errorf(scopekit.ENOTFOUND, "projects %s has no version %s", projectID, ref)
	}
	snap, err := storedVersion(c, vs[0])
	return vs[0], snap, err
}

// storedVersion reads a version's frozen scope, checked against its
// digest.
func storedVersion(c *engine.Call, v *engine.Record) (*storedScope, error) {
	blob, err := c.Tx.Blob(v.AccountID, BlobVersionSnapshot, v.ID)
	if err != nil {
		return nil, err
	}
	return readSnapshot(blob, v.Str(views.NameDigest))
}

// applyToProject makes the frozen lines the project's own lines.
func applyToProject(c *engine.Call, projectID string, stored *storedScope) error {
	lines, err := frozenLines(stored)
	if err != nil {
		return err
	}
	existing, err := scopeRecords(c, projectID)
	if err != nil {
		return err
	}
	_, err = applyScope(c, scopeTarget{projectID: projectID, existing: existing}, lines)
	return err
}

// Current is the diff end that names the project's scope as it is now.
const Current = "current"

// DiffVersions compares two versions of a project, given by number, or a
// version with the current scope (to = Current): lines added, removed and
// changed with their price deltas, per phase and for the contract.
//
// Errors: EFORBIDDEN without projects view; ENOTFOUND for a project
// missing or outside the actor's visibility, or a version it does not
// have.
func (s *Service) DiffVersions(ctx context.Context, a *engine.Actor, projectID, from, to string) (*VersionDiff, error) {
	if err := a.Require("projects", false); err != nil {
		return nil, err
	}
	var d *VersionDiff
	err := s.read(ctx, a, func(c *engine.Call) error {
		va, sa, err := versionOf(ctx, c, projectID, from)
		if err != nil {
			return err
		}
		var vb *engine.Record
		var sb *storedScope
		var digest string
		if to == Current {
			sb, digest, err = currentScope(c, projectID)
		} else {
			vb, sb, err = versionOf(ctx, c, projectID, to)
		}
		if err != nil {
			return err
		}
		if d, err = diffScopes(sa, sb); err != nil {
			return err
		}
		d.From = diffEnd(va, d.From.Currency)
		d.To = diffEnd(vb, d.To.Currency)
		if vb == nil {
			d.To.Digest = digest
		}
		return nil
	})
	return d, err
}

// currentScope freezes the project's scope as the call's transaction has
// it (not stored), with its digest.
func currentScope(c *engine.Call, projectID string) (*storedScope, string, error) {
	proj, err := c.Get(views.TypeProjects, projectID)
	if err != nil {
		return nil, "", err
	}
	runs, err := priced(c, []string{proj.ID}, []*engine.Record{proj})
	if err != nil {
		return nil, "", err
	}
	raw, err := freezeScope(c.Engine.Schema(), proj, runs[proj.ID], nil)
	if err != nil {
		return nil, "", err
	}
	snap, err := decodeScope(raw)
	return snap, digestOf(raw), err
}

// diffEnd names a version as a side of a diff (nil: the current scope).
func diffEnd(v *engine.Record, currency string) DiffEnd {
	e := DiffEnd{Currency: currency}
	if v == nil {
		return e
	}
	n := v.Int(views.NameNumber)
	e.Number, e.Name, e.Digest = &n, v.Str(views.NameName), v.Str(views.NameDigest)
	return e
}

// Revert makes the project's scope that of one of its versions again:
// its attributes and lines as the version froze them, lines deleted since
// recreated (with new ids), lines added since removed; a new version
// records it (reason reverted). Only a project being built (draft) can be
// reverted.
//
// Errors: EFORBIDDEN without projects manage; ENOTFOUND for a project
// missing or outside the actor's visibility; EINVALID (field /data/id)
// for a version that is not the project's; ECONFLICT for a project that is
// not a draft.
func (s *Service) Revert(ctx context.Context, a *engine.Actor, projectID, versionID string) (*engine.Result, error) {
	return s.recordAction(ctx, a, "projects", true, views.TypeProjects, projectID, func(c *engine.Call, proj *engine.Record) error {
		if st := proj.Str(views.NameStatus); st != "draft" {
			return scopekit.Errorf(scopekit.ECONFLICT, "only a project being built (draft) can be reverted; this one is %s", st)
		}
		v, err := c.Get(views.TypeProjectVersions, versionID)
		if err != nil || v.Rel(views.NameProject) != proj.ID {
			return engine.Invalid("/data/id", "project-versions %s is not a version of projects %s", versionID, proj.ID)
		}
		stored, err := storedVersion(c, v)
		if err != nil {
			return err
		}
		if err := applyToProject(c, proj.ID, stored); err != nil {
			return err
		}
		def := mustLookup(s.Schema(), views.TypeProjects)
		present, err := catalogPresent(c, map[string][]*snapLine{views.TypeProjects: {&stored.Project}})
		if err != nil {
			return err
		}
		setScopeFields(def, proj, &stored.Project, func(rd *engine.RelDef, id string) string {
			if present[rd.Type][id] {
				return id
			}
			return ""
		})
		if err := c.Tx.Replace(proj); err != nil {
			return err
		}
		versionAtCommit(c, proj.ID, VersionReverted)
		return nil
	})
}

// scopeRecords reads the project's own lines (not its change orders'),
// by type and id.
func scopeRecords(c *engine.Call, projectID string) (map[string]map[string]*engine.Record, error) {
	out := map[string]map[string]*engine.Record{}
	for _, typ := range projectInputTypes {
		recs, err := c.Find(typ, lineScope{project: projectID}.where()...)
		if err != nil {
			return nil, err
		}
		out[typ] = byID(recs)
	}
	return out, nil
}
