package storemove_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/scopekit/scopekit/webhook"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// fixture writes a bbolt file holding something of every kind: two
// accounts with the demo catalog and project (and the large project in
// one, for many batches), a record deleted (its type's sequence is ahead
// of its ids), webhook subscriptions with a pending outbox, blobs (empty,
// large, with text ids), and auth data of every table. It returns the
// file's path, closed.
func fixture(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "scopekit.db")
	db := bolttest.OpenFile(t, path, scoping.DefaultSchema())
	defer db.Close()
	ctx := context.Background()
	svc := scoping.NewService(db)
	var accts, admins []string
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		for _, slug := range []string{"demo", "other"} {
			acct, err := a.EnsureAccount(slug, "Account "+slug, "USD")
			if err != nil {
				return err
			}
			admin, err := a.EnsureMember(acct.ID, scoping.Member{Email: "admin@" + slug + ".test", Name: "Admin", Role: "Account Admin"})
			if err != nil {
				return err
			}
			accts, admins = append(accts, acct.ID), append(admins, admin.ID)
		}
		return nil
	}))
	var seeded []*demodata.Seeded
	for i, acct := range accts {
		actor, err := svc.SystemActor(ctx, acct)
		require.NoError(t, err)
		s, err := demodata.Seed(ctx, svc, actor, admins[i])
		require.NoError(t, err)
		seeded = append(seeded, s)
	}
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		if _, err := demodata.SeedLarge(tx, accts[0], seeded[0].ClientID, admins[:1]); err != nil {
			return err
		}
		gone := engine.NewRecord(views.TypeClients, accts[1])
		gone.Attrs[views.NameName] = "Gone"
		if err := tx.Insert(gone); err != nil {
			return err
		}
		if err := tx.Delete(views.TypeClients, accts[1], gone.ID); err != nil {
			return err
		}
		for _, acct := range accts {
			sub := engine.NewRecord(views.TypeWebhookSubscriptions, acct)
			sub.Attrs[views.NameEventType], sub.Attrs[views.NameDestinationURL], sub.Attrs[views.NameActive] = views.EventProjectStatusChanged, "https://example.test/hook", true
			sub.Attrs[views.SealedSecretAttr] = base64.StdEncoding.EncodeToString([]byte("sealed, never opened"))
			if err := tx.Insert(sub); err != nil {
				return err
			}
			ev := engine.NewRecord(views.TypeEvents, acct)
			ev.Attrs[views.NameEventType], ev.Attrs[views.NameOccurredAt] = views.EventProjectStatusChanged, engine.FormatTime(t0)
			if err := tx.Insert(ev); err != nil {
				return err
			}
			for i := range 3 {
				d := engine.NewRecord(views.TypeWebhookDeliveries, acct)
				d.Attrs[views.NameStatus], d.Attrs[views.NameAttempt] = views.DeliveryPending, int64(i)
				d.Attrs[views.NameNextAttemptAt] = engine.FormatTime(t0.Add(time.Duration(i) * time.Minute))
				d.SetRel(views.NameWebhookSubscription, sub.ID)
				d.SetRel(views.NameEvent, ev.ID)
				if err := tx.Insert(d); err != nil {
					return err
				}
			}
		}
		big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
		for _, b := range []struct {
			acct, kind, id string
			data           []byte
		}{
			{accts[0], "project-documents/docx", "1", []byte("PK docx")},
			{accts[0], "project-documents/pdf", "1", big},
			{accts[0], "project-documents/pdf", "2", []byte{}},
			{accts[1], "document-templates/file", "7", []byte("template")},
			{accts[1], "k/text", "abc", []byte("a text id")},
			{accts[1], "k/text", "abcdefgh", []byte("a text id of 8 bytes")},
		} {
			if err := tx.PutBlob(b.acct, b.kind, b.id, b.data); err != nil {
				return err
			}
		}
		return nil
	}))
	as := db.AuthStore()
	require.NoError(t, as.SetPasswordHash(ctx, admins[0], []byte("$2a$04$not-a-real-bcrypt-hash")))
	for i := range 3 {
		require.NoError(t, as.PutToken(ctx, &auth.Token{Digest: auth.HashSecret("token " + string(rune('a'+i))), Kind: auth.KindAccess,
			Grant: auth.GrantPassword, UserID: admins[0], AccountID: accts[0], ClientID: "portal", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}))
	}
	require.NoError(t, as.Update(ctx, func(tx auth.Tx) error {
		if err := tx.PutApplication(&auth.Application{AccountID: accts[0], Name: "Portal", ClientID: "portal",
			SecretDigest: auth.HashSecret("portal secret"), RedirectURIs: []string{"https://example.test/cb"}, CreatedAt: t0}); err != nil {
			return err
		}
		if err := tx.PutServiceCredential(&auth.ServiceCredential{AccountID: accts[1], UserID: admins[1], ClientID: "bot",
			SecretDigest: auth.HashSecret("bot secret"), CreatedAt: t0}); err != nil {
			return err
		}
		if err := tx.PutMFA(&auth.MFA{UserID: admins[0], SealedSecret: []byte("sealed seed"), Recovery: [][]byte{auth.HashSecret("recovery")},
			LastStep: 42, EnrolledAt: t0}); err != nil {
			return err
		}
		return tx.PutAuthCode(&auth.AuthCode{Digest: auth.HashSecret("code"), ClientID: "portal", AccountID: accts[0], UserID: admins[0],
			RedirectURI: "https://example.test/cb", CreatedAt: t0, ExpiresAt: t0.Add(time.Minute)})
	}))
	return path
}

// requireSameData checks that the database holds exactly what the file
// holds: every record (attributes, relationships, times), blob and auth
// row, the same pending deliveries, and id sequences that continue after
// the file's.
func requireSameData(t *testing.T, path string, dst *pgstore.DB) {
	t.Helper()
	ctx := context.Background()
	src, err := boltstore.OpenReadOnly(path, scoping.DefaultSchema())
	require.NoError(t, err)
	defer src.Close()
	var seqs map[string]uint64
	records := 0
	require.NoError(t, src.Export(ctx, func(e *boltstore.Export) error {
		seqs = e.Sequences()
		return dst.View(ctx, func(tx engine.Tx) error {
			for _, set := range e.RecordSets() {
				require.NoError(t, e.Records(set, "", func(want *engine.Record) error {
					got, err := tx.Get(want.Type, want.AccountID, want.ID)
					require.NoError(t, err, "%s %s of account %q", want.Type, want.ID, want.AccountID)
					require.Equal(t, want, got)
					records++
					return nil
				}))
			}
			for _, set := range e.BlobSets() {
				require.NoError(t, e.Blobs(set, "", func(id string, want []byte) error {
					got, err := tx.Blob(set.AccountID, set.Kind, id)
					require.NoError(t, err, "blob %s %s of account %s", set.Kind, id, set.AccountID)
					require.Equal(t, want, got, "blob %s %s", set.Kind, id)
					return nil
				}))
			}
			return nil
		})
	}))
	c, err := dst.Counts(ctx)
	require.NoError(t, err)
	n := int64(0)
	for _, v := range c.Records {
		n += v
	}
	require.EqualValues(t, records, n, "the database holds no other records")
	require.Greater(t, records, 4000)

	pg, bolt := dst.AuthStore(), src.AuthStore()
	require.NoError(t, src.Export(ctx, func(e *boltstore.Export) error {
		require.NoError(t, e.Applications(func(want *auth.Application) error {
			got, err := pg.ApplicationByClientID(ctx, want.ClientID)
			require.NoError(t, err)
			require.Equal(t, want, got)
			return nil
		}))
		require.NoError(t, e.ServiceCredentials(func(want *auth.ServiceCredential) error {
			got, err := pg.ServiceCredentialByClientID(ctx, want.ClientID)
			require.NoError(t, err)
			require.Equal(t, want, got)
			return nil
		}))
		require.NoError(t, e.Tokens(func(want *auth.Token) error {
			got, err := pg.TokenByDigest(ctx, want.Digest)
			require.NoError(t, err)
			require.Equal(t, want, got)
			return nil
		}))
		require.NoError(t, e.Passwords(func(user string, want []byte) error {
			got, err := pg.PasswordHash(ctx, user)
			require.NoError(t, err)
			require.Equal(t, want, got)
			return nil
		}))
		require.NoError(t, e.SecondFactors(func(want *auth.MFA) error {
			got, err := pg.MFA(ctx, want.UserID)
			require.NoError(t, err)
			require.Equal(t, want, got)
			return nil
		}))
		return e.AuthCodes(func(want *auth.AuthCode) error {
			got, err := pg.TakeAuthCode(ctx, want.Digest)
			require.NoError(t, err)
			require.Equal(t, want, got)
			return nil
		})
	}))
	_, err = bolt.PasswordHash(ctx, "no such user") // the file's store answers read-only
	require.Error(t, err)

	q := &webhook.DeliveryQuery{Status: views.DeliveryPending, NextAttemptBy: t0.Add(time.Hour), Limit: 100}
	want, err := src.Deliveries(ctx, q)
	require.NoError(t, err)
	got, err := dst.Deliveries(ctx, q)
	require.NoError(t, err)
	require.Len(t, got, 6)
	require.Equal(t, want, got, "the same outbox is due")

	// new records continue each type's sequence, past deleted ids too
	require.NoError(t, dst.Update(ctx, func(tx engine.Tx) error {
		for _, typ := range []string{views.TypeClients, views.TypeProjectServices} {
			r := engine.NewRecord(typ, "1")
			require.NoError(t, tx.Insert(r))
			require.Equal(t, seqs[typ]+1, parseUint(t, r.ID), typ)
		}
		return nil
	}))
	require.True(t, slices.Contains(keys(seqs), views.TypeAccounts))
}
