package scoping_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Ensure the generic create of project-versions: a version of the project
// given (201), the latest one for an unchanged scope (200), a name and
// comment taken, anything else refused as the engine refuses it.
func TestVersionsGenericCreate(t *testing.T) {
	w := newWfWorld(t)
	in := func(at map[string]string, rels map[string]engine.RelInput) *engine.Input {
		m := attrs()
		for k, v := range at {
			m[k] = []byte(v)
		}
		return &engine.Input{Attrs: m, Rels: rels}
	}
	proj := map[string]engine.RelInput{"project": rel("projects", w.project)}
	res, err := w.svc.Create(w.ctx, w.admin, "project-versions", in(nil, proj), engine.Options{})
	require.NoError(t, err)
	require.True(t, res.Created, "the lines added since its creation")
	res, err = w.svc.Create(w.ctx, w.admin, "project-versions", in(nil, proj), engine.Options{})
	require.NoError(t, err)
	require.False(t, res.Created, "an unchanged scope: the latest version")
	_, err = w.update(w.admin, "project-services", w.list("project-services", map[string]string{"project": w.project})[0].ID, attrs("quantity", `2`), nil)
	require.NoError(t, err)
	res, err = w.svc.Create(w.ctx, w.admin, "project-versions", in(map[string]string{"name": `"Named"`, "comment": `"why"`}, proj), engine.Options{})
	require.NoError(t, err)
	require.True(t, res.Created)
	require.Equal(t, "Named", res.Records[0].Str("name"))
	require.Equal(t, "why", res.Records[0].Str("comment"))
	for _, tc := range []struct {
		in   *engine.Input
		opts engine.Options
		code string
	}{
		{in(map[string]string{"digest": `"x"`}, proj), engine.Options{Strict: true}, scopekit.EBADREQUEST},
		{in(map[string]string{"bogus": `1`}, proj), engine.Options{}, scopekit.EBADREQUEST},
		{in(map[string]string{"name": `7`}, proj), engine.Options{}, scopekit.EBADREQUEST},
		{in(nil, map[string]engine.RelInput{"created-by": rel("users", w.adminID)}), engine.Options{}, scopekit.EBADREQUEST},
		{in(nil, nil), engine.Options{}, scopekit.EINVALID},
		{in(nil, map[string]engine.RelInput{"project": rel("projects", "999")}), engine.Options{}, scopekit.EINVALID},
	} {
		_, err := w.svc.Create(w.ctx, w.admin, "project-versions", tc.in, tc.opts)
		wfCode(t, tc.code, err)
	}
	v := res.Records[0].ID
	_, err = w.update(w.admin, "project-versions", v, nil, map[string]engine.RelInput{"project": rel("projects", w.approvedProject("Other"))})
	wfCode(t, scopekit.EINVALID, err)
}

// Ensure a change order's title, reason and adjustments change only while
// it is a draft, never its project; that it is deleted with its copy while
// not accepted; and that its document's snapshot is its scope, with its
// deltas in merge data and its base version recorded.
func TestChangeOrderRulesAndDocument(t *testing.T) {
	w := newWfWorld(t)
	p := w.wonProject()
	co := w.changeOrder(p, "Extra")
	_, err := w.update(w.admin, "change-orders", co.ID, attrs("title", `"Extra work"`, "revenue-adjustment", `"-100"`), nil)
	require.NoError(t, err)
	require.Equal(t, "-100.00", w.get("change-orders", co.ID).Str("delta-revenue"))
	_, err = w.update(w.admin, "change-orders", co.ID, nil, map[string]engine.RelInput{"project": rel("projects", w.approvedProject("Other"))})
	wfCode(t, scopekit.EINVALID, err)
	line := w.coLines("project-services", co.ID)[0]
	_, err = w.update(w.admin, "project-services", line.ID, attrs("quantity", `3`), nil)
	require.NoError(t, err)
	_, err = w.update(w.admin, "project-services", line.ID, nil, map[string]engine.RelInput{"change-order": {}})
	wfCode(t, scopekit.EINVALID, err) // a line stays in its scope

	tmpl := w.create(w.sys, "document-templates", attrs("name", `"CO"`), nil)
	require.NoError(t, w.svc.Store().Update(w.ctx, func(tx engine.Tx) error {
		r, err := tx.Get("document-templates", w.acct, tmpl.ID)
		if err != nil {
			return err
		}
		r.Attrs["size"] = int64(1)
		if err := tx.Replace(r); err != nil {
			return err
		}
		return tx.PutBlob(w.acct, scoping.BlobTemplateFile, tmpl.ID, []byte("x"))
	}))
	_, err = w.svc.Create(w.ctx, w.admin, "project-documents", &engine.Input{Attrs: attrs("document-type", `"change_order"`),
		Rels: map[string]engine.RelInput{"project": rel("projects", w.approvedProject("Third")), "document-template": rel("document-templates", tmpl.ID),
			"change-order": rel("change-orders", co.ID)}}, engine.Options{})
	wfCode(t, scopekit.EINVALID, err) // a change order of another project
	_, err = w.svc.Create(w.ctx, w.admin, "project-documents", &engine.Input{Attrs: attrs("document-type", `"sow"`),
		Rels: map[string]engine.RelInput{"project": rel("projects", p), "document-template": rel("document-templates", tmpl.ID),
			"change-order": rel("change-orders", co.ID)}}, engine.Options{})
	wfCode(t, scopekit.EINVALID, err) // only change_order documents name one
	doc := w.create(w.admin, "project-documents", attrs("document-type", `"change_order"`),
		map[string]engine.RelInput{"project": rel("projects", p), "document-template": rel("document-templates", tmpl.ID),
			"change-order": rel("change-orders", co.ID)})
	job, err := w.svc.ClaimDocument(w.ctx, time.Minute)
	require.NoError(t, err)
	require.Equal(t, doc.ID, job.Document.ID)
	require.Equal(t, []byte("x"), job.Template)
	snap, err := w.svc.JobSnapshot(w.ctx, job)
	require.NoError(t, err)
	require.Equal(t, p, snap.Project.ID)
	require.Equal(t, co.Rel("base-version"), snap.Version.ID)
	md := mergedata.BuildV2(snap, time.Now())
	require.NotNil(t, md.ChangeOrder)
	require.Equal(t, "Extra work", md.ChangeOrder.Title)
	require.Equal(t, w.get("change-orders", co.ID).Str("delta-revenue"), md.ChangeOrder.Total.Delta.Revenue)
	require.Equal(t, w.get("change-orders", co.ID).Str("contract-revenue"), md.ProjectPricing.TotalContractValue.String())
	require.Len(t, md.ChangeOrder.Lines, 1)
	require.Equal(t, "quantity 1 → 3", md.ChangeOrder.Lines[0].Details)

	_, err = w.coAction(w.admin, co.ID, "submit")
	require.NoError(t, err)
	_, err = w.update(w.admin, "change-orders", co.ID, attrs("title", `"Late"`), nil)
	wfCode(t, scopekit.ECONFLICT, err)
	wfCode(t, scopekit.ECONFLICT, w.svc.Delete(w.ctx, w.admin, "change-orders", co.ID, engine.Options{}))
	_, err = w.coAction(w.admin, co.ID, "cancel")
	require.NoError(t, err)
	_, err = w.coAction(w.admin, co.ID, "cancel")
	wfCode(t, scopekit.ECONFLICT, err)
	_, err = w.coAction(w.admin, co.ID, "rebase")
	wfCode(t, scopekit.ECONFLICT, err)
	_, err = w.coAction(w.admin, co.ID, "bogus")
	wfCode(t, scopekit.ENOTFOUND, err)
	require.NoError(t, w.svc.Delete(w.ctx, w.admin, "change-orders", co.ID, engine.Options{}))
	require.Empty(t, w.coLines("project-services", co.ID), "its copy goes with it")
}

// Ensure the frozen form keeps text exactly: quotes, backslashes and
// control characters in a line's text survive a version and show in a
// diff as they were written.
func TestVersionFrozenText(t *testing.T) {
	w := newWfWorld(t)
	line := w.list("project-services", map[string]string{"project": w.project})[0]
	text := "say \"hi\"\\ then\nnew\tline \u0001 é"
	_, err := w.update(w.admin, "project-services", line.ID, attrs("service-description", `"say \"hi\"\\ then\nnew\tline \u0001 é"`), nil)
	require.NoError(t, err)
	_, _, err = w.svc.TakeVersion(w.ctx, w.admin, w.project, "", "")
	require.NoError(t, err)
	_, err = w.update(w.admin, "project-services", line.ID, attrs("service-description", `"plain"`), nil)
	require.NoError(t, err)
	vs := w.list("project-versions", map[string]string{"project": w.project})
	d, err := w.svc.DiffVersions(w.ctx, w.admin, w.project, fmt.Sprint(vs[len(vs)-1].Int("number")), scoping.Current)
	require.NoError(t, err)
	require.Len(t, d.Changed, 1)
	require.Equal(t, text, d.Changed[0].Changes[0].Before)
	require.Equal(t, "plain", d.Changed[0].Changes[0].After)
}
