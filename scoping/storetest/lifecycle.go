package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// Ensure what the lifecycle keeps (docs/lifecycle.md) reads back from the
// store as it was written, through the domain's own use cases: versions
// (their records, numbers and compressed frozen scopes, checked against
// their digests by a diff), a change order's copy, and a client's
// decision with its evidence, frozen PDF and certificate.
func testLifecycle(t *testing.T, open Opener) {
	s := openDefault(t, open)
	ctx := context.Background()
	svc := scoping.NewService(s)
	svc.Documents.Certificate = func(d scoping.CertificateData) ([]byte, error) { return []byte("%PDF certificate"), nil }
	var acct string
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		r, err := a.EnsureAccount("acme", "Acme", "USD")
		if r != nil {
			acct = r.ID
		}
		return err
	}))
	a, err := svc.SystemActor(ctx, acct)
	require.NoError(t, err)
	seeded, err := demodata.Seed(ctx, svc, a, "")
	require.NoError(t, err)
	pid := seeded.ProjectID
	in := func(kv ...string) *engine.Input {
		m := map[string]json.RawMessage{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return &engine.Input{Attrs: m}
	}

	// the demo is seeded in one transaction: its creation version holds
	// it all, so the scope changes before the first version taken here
	_, err = svc.Update(ctx, a, "projects", pid, in("revenue-adjustment", `"-300"`), engine.Options{})
	require.NoError(t, err)
	v1, created, err := svc.TakeVersion(ctx, a, pid, "first", "")
	require.NoError(t, err)
	require.True(t, created)
	lines, err := svc.List(ctx, a, "project-services", engine.ListParams{Filters: map[string]string{"project": pid}}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Update(ctx, a, "project-services", lines.Records[0].ID, in("quantity", `"5"`), engine.Options{})
	require.NoError(t, err)
	v2, created, err := svc.TakeVersion(ctx, a, pid, "second", "")
	require.NoError(t, err)
	require.True(t, created)
	d, err := svc.DiffVersions(ctx, a, pid, fmt.Sprint(v1.Records[0].Int(views.NameNumber)), fmt.Sprint(v2.Records[0].Int(views.NameNumber)))
	require.NoError(t, err)
	require.Len(t, d.Project, 0)
	require.NotEmpty(t, d.Changed)
	require.Equal(t, v2.Records[0].Str(views.NameDigest), d.To.Digest)
	again, created, err := svc.TakeVersion(ctx, a, pid, "", "")
	require.NoError(t, err)
	require.False(t, created, "the same digest is found again")
	require.Equal(t, v2.Records[0].ID, again.Records[0].ID)

	// approved, its SOW shared and accepted by the client
	_, err = svc.Update(ctx, a, views.TypeProjects, pid, in("status", `"approved"`), engine.Options{})
	require.NoError(t, err)
	tmpl := engine.NewRecord(views.TypeDocumentTemplates, acct)
	tmpl.Attrs[views.NameName], tmpl.Attrs[views.NameSize], tmpl.Attrs[views.NameActive] = "SOW", int64(1), true
	require.NoError(t, s.Update(ctx, func(tx engine.Tx) error {
		if err := tx.Insert(tmpl); err != nil {
			return err
		}
		return tx.PutBlob(acct, scoping.BlobTemplateFile, tmpl.ID, []byte("x"))
	}))
	doc, err := svc.Create(ctx, a, "project-documents", &engine.Input{Attrs: in("document-type", `"sow"`, "generate-pdf", `true`).Attrs,
		Rels: map[string]engine.RelInput{"project": {Refs: []engine.Ref{{Type: views.TypeProjects, ID: pid}}}, "document-template": {Refs: []engine.Ref{{Type: views.TypeDocumentTemplates, ID: tmpl.ID}}}}},
		engine.Options{})
	require.NoError(t, err)
	job, err := svc.ClaimDocument(ctx, time.Minute)
	require.NoError(t, err)
	snap, err := svc.JobSnapshot(ctx, job)
	require.NoError(t, err)
	pdf := []byte("%PDF-1.4 the document as shared")
	require.NoError(t, svc.FinishDocument(ctx, job, &scoping.DocumentOutput{Filename: "p - SOW.docx", ContentType: scoping.ContentTypeDOCX,
		File: []byte("docx"), PDF: pdf, Version: snap.Version}))
	_, token, err := svc.Share(ctx, a, doc.Records[0].ID, 0)
	require.NoError(t, err)
	f, err := svc.AcceptanceDocument(ctx, token)
	require.NoError(t, err)
	require.Equal(t, pdf, f.Data)
	ev, err := svc.Decide(ctx, token, scoping.Decision{Accept: true, Name: "Jane Client", Title: "CTO", Email: "jane@example.com",
		Signature: "Jane Client", Agreed: true, IP: "192.0.2.1", UserAgent: "UA"})
	require.NoError(t, err)
	read, err := svc.Get(ctx, a, "acceptances", ev.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	for _, attr := range []string{"signer-name", "signer-email", "signature", "consent-text", "ip-address", "document-sha256", "version-digest", "decided-at"} {
		require.Equal(t, ev.Str(attr), read.Records[0].Str(attr), attr)
	}
	require.EqualValues(t, 0, read.Records[0].Int(views.NameConsentVersion))
	require.True(t, read.Records[0].Bool(views.NameAgreed))
	cert, err := svc.Certificate(ctx, a, ev.ID)
	require.NoError(t, err)
	require.Equal(t, "%PDF certificate", string(cert.Data))

	// won: a change order's copy, filtered by its change order
	co, err := svc.Create(ctx, a, "change-orders", &engine.Input{Attrs: in("title", `"More"`).Attrs,
		Rels: map[string]engine.RelInput{"project": {Refs: []engine.Ref{{Type: views.TypeProjects, ID: pid}}}}}, engine.Options{})
	require.NoError(t, err)
	copied, err := svc.List(ctx, a, "project-services", engine.ListParams{Filters: map[string]string{"change-order": co.Records[0].ID}}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, copied.Records, len(lines.Records))
	own, err := svc.List(ctx, a, "project-services", engine.ListParams{Filters: map[string]string{"project": pid}}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, own.Records, len(lines.Records), "the project's own lines leave the copy out")
	deltas, err := svc.ChangeOrderDeltas(ctx, a, co.Records[0].ID)
	require.NoError(t, err)
	require.Equal(t, "0.00", deltas.Total.Delta.Revenue)
}
