package scoping

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Client acceptance (docs/lifecycle.md): a finished SOW or change order
// document of an approved project (or change order) is shared with the
// client through a link; the client reads it on a public page and accepts
// or declines it. The document's PDF is frozen when it is shared; the
// link's token is random (256 bits), stored only as its digest, expires
// and can be revoked. A decision records immutable evidence (acceptances)
// and, for an acceptance, a certificate PDF; an accepted SOW moves the
// project to won, an accepted change order's scope becomes the project's.
// The public page is an adapter's (package webapp); it calls
// AcceptanceLink, AcceptanceDocument and Decide with the token.

// Statuses of an acceptance request.
const (
	RequestPending  = "pending"
	RequestAccepted = "accepted"
	RequestDeclined = "declined"
	RequestRevoked  = "revoked"
	RequestExpired  = "expired" // shown, never stored: a pending request past its expiry
)

// Blob kinds of acceptance.
const (
	BlobRequestPDF     = "acceptance-requests/pdf" // the document's PDF as shared
	BlobCertificatePDF = "acceptances/certificate" // the acceptance certificate
)

// Share link limits.
const (
	DefaultExpiryDays = 30
	MaxExpiryDays     = 365
	tokenBytes        = 32
)

// attrTokenDigest holds, on an acceptance request, the SHA-256 of its link
// token; it is stored but not declared, so never served.
const attrTokenDigest = "token-digest"

// DefaultConsentText is the consent an account that has written none
// shows (version 0).
const DefaultConsentText = "By accepting, I confirm that I have read the document shown on this page, that I am authorised to accept it " +
	"on behalf of my organisation, and that my typed name below is my electronic signature, with the same effect as a handwritten one."

func declareAcceptance(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "acceptance-requests", Guard: "documents", ScopeRel: "project", ReadOnly: true,
		Attrs: computed(enum("status", RequestPending, RequestPending, RequestAccepted, RequestDeclined, RequestRevoked, RequestExpired),
			str("document-type"), engine.AttrDef{Name: "expires-at", Kind: engine.KindTime}, str("document-sha256"), str("version-digest"),
			text("decline-comment"), engine.AttrDef{Name: "decided-at", Kind: engine.KindTime}, engine.AttrDef{Name: "revoked-at", Kind: engine.KindTime},
			engine.AttrDef{Name: "url", Kind: engine.KindString}),
		Rels: []engine.RelDef{owner("project", "projects"), {Name: "project-document", Type: "project-documents", ReadOnly: true},
			{Name: "change-order", Type: "change-orders", ReadOnly: true}, {Name: "requested-by", Type: "users", ReadOnly: true},
			{Name: "acceptance", Type: "acceptances", ReadOnly: true}},
		Filters: eq("project", "status", "project-document"),
		Blobs:   []string{BlobRequestPDF},
		Hooks:   engine.Hooks{Compute: showExpiry},
	})
	register(s, &engine.TypeDef{Name: "acceptances", Guard: "documents", ScopeRel: "project", ReadOnly: true,
		Attrs: computed(enum("decision", "", RequestAccepted, RequestDeclined), str("signer-name"), str("signer-title"), str("signer-email"),
			str("signature"), engine.AttrDef{Name: "agreed", Kind: engine.KindBool}, text("comment"), text("consent-text"), num("consent-version"),
			engine.AttrDef{Name: "decided-at", Kind: engine.KindTime}, str("ip-address"), text("user-agent"), str("document-sha256"),
			str("version-digest"), str("document-filename"), engine.AttrDef{Name: "certificate-url", Kind: engine.KindString, Link: true}),
		Rels: []engine.RelDef{owner("project", "projects"), {Name: "project-document", Type: "project-documents", ReadOnly: true},
			{Name: "acceptance-request", Type: "acceptance-requests", ReadOnly: true}, {Name: "change-order", Type: "change-orders", ReadOnly: true}},
		Filters: eq("project", "decision", "project-document"),
		Blobs:   []string{BlobCertificatePDF},
	})
	register(s, &engine.TypeDef{Name: "consent-texts", Guard: "settings", ReadOnly: true,
		Attrs: cat([]engine.AttrDef{required(withMaxLen(text("body"), 8000))}, computed(num("version"))),
		Hooks: engine.Hooks{Create: createConsentText},
	})
}

// createConsentText stores a new version of the account's consent text:
// versions are never changed, so what a signer agreed to stays readable.
func createConsentText(_ context.Context, c *engine.Call, in *engine.Input) (*engine.Record, error) {
	def := mustLookup(c.Engine.Schema(), views.TypeConsentTexts)
	at, _ := def.Attr(views.NameBody)
	for name := range in.Attrs {
		if name != views.NameBody {
			return nil, engine.BadAttr(name, "a consent text takes only its body")
		}
	}
	if len(in.Rels) > 0 {
		return nil, scopekit.FieldErrorf(scopekit.EBADREQUEST, "/data/relationships", "a consent text has no relationships")
	}
	v, e := engine.DecodeAttr(at, in.Attrs[views.NameBody])
	if e != nil {
		return nil, e
	}
	body, _ := v.(string)
	if strings.TrimSpace(body) == "" {
		return nil, engine.Invalid(engine.AttrPointer(views.NameBody), "body can't be blank")
	}
	latest, err := consentText(c)
	if err != nil {
		return nil, err
	}
	rec := engine.NewRecord(views.TypeConsentTexts, c.AccountID())
	rec.Attrs[views.NameBody] = body
	rec.Attrs[views.NameVersion] = json.Number(strconv.FormatInt(latest.Int(views.NameVersion)+1, 10))
	return rec, c.Tx.Insert(rec)
}

// consentText returns the account's current consent text: its latest
// version, or the default (version 0, not stored).
func consentText(c *engine.Call) (*engine.Record, error) {
	texts, err := c.Find(views.TypeConsentTexts)
	if err != nil {
		return nil, err
	}
	latest := engine.NewRecord(views.TypeConsentTexts, c.AccountID())
	latest.Attrs[views.NameBody], latest.Attrs[views.NameVersion] = DefaultConsentText, json.Number("0")
	for _, t := range texts {
		if t.Int(views.NameVersion) > latest.Int(views.NameVersion) {
			latest = t
		}
	}
	return latest, nil
}

// showExpiry shows a pending request past its expiry as expired.
func showExpiry(_ context.Context, c *engine.Call, recs []*engine.Record) error {
	now := engine.FormatTime(svcOf(c).Now())
	for _, r := range recs {
		if r.Str(views.NameStatus) == RequestPending && r.Str(views.NameExpiresAt) <= now {
			r.Attrs[views.NameStatus] = RequestExpired
		}
	}
	return nil
}

// Share creates an acceptance request for a finished SOW or change order
// document that has a PDF: the PDF is frozen with its SHA-256 and the
// version digest the document records, and a link token is made, valid
// for expiresInDays (DefaultExpiryDays when 0). It answers the request
// and the token, shown this once (the store keeps its digest only).
//
// Errors: EFORBIDDEN without documents manage; ENOTFOUND for a document
// missing or outside the actor's visibility; EINVALID (meta.expires-in)
// for an expiry outside 1..MaxExpiryDays; ECONFLICT for a document that is
// not a finished SOW or change order with a PDF, or whose project (or
// change order) is not approved.
func (s *Service) Share(ctx context.Context, a *engine.Actor, documentID string, expiresInDays int) (*engine.Result, string, error) {
	if expiresInDays == 0 {
		expiresInDays = DefaultExpiryDays
	}
	if expiresInDays < 1 || expiresInDays > MaxExpiryDays {
		return nil, "", scopekit.FieldErrorf(scopekit.EINVALID, "/meta/expires-in", "expires-in must be a number of days from 1 to %d", MaxExpiryDays)
	}
	secret := make([]byte, tokenBytes)
	if _, err := rand.Read(secret); err != nil {
		return nil, "", err
	}
	var token string
	if err := a.Require("documents", true); err != nil {
		return nil, "", err
	}
	def := mustLookup(s.Schema(), views.TypeAcceptanceRequests)
	res, err := s.writeRecord(ctx, a, def, func(c *engine.Call) (*engine.Record, error) {
		doc, err := c.GetVisible(ctx, mustLookup(s.Schema(), views.TypeProjectDocuments), documentID, nil)
		if err != nil {
			return nil, err
		}
		if err := shareable(c, doc); err != nil {
			return nil, err
		}
		pdf, err := c.Tx.Blob(doc.AccountID, BlobDocumentPDF, doc.ID)
		if err != nil {
			return nil, err
		}
		d := views.ProjectDocument{Record: doc}
		sum := sha256.Sum256(pdf)
		req := engine.NewRecord(views.TypeAcceptanceRequests, c.AccountID())
		req.Attrs[views.NameStatus], req.Attrs[views.NameDocumentType] = RequestPending, d.DocumentType()
		req.Attrs[views.NameExpiresAt] = engine.FormatTime(s.Now().Add(time.Duration(expiresInDays) * 24 * time.Hour))
		req.Attrs[views.NameDocumentSha256], req.Attrs[views.NameVersionDigest] = hex.EncodeToString(sum[:]), d.VersionDigest()
		req.SetRel(views.NameProject, d.Project())
		req.SetRel(views.NameProjectDocument, doc.ID)
		req.SetRel(views.NameChangeOrder, d.ChangeOrder())
		req.SetRel(views.NameRequestedBy, a.UserID)
		if err := c.Tx.Insert(req); err != nil {
			return nil, err
		}
		secretText := base64.RawURLEncoding.EncodeToString(secret)
		token = req.AccountID + "." + req.ID + "." + secretText
		req.Attrs[attrTokenDigest] = tokenDigest(secretText)
		if err := c.Tx.Replace(req); err != nil {
			return nil, err
		}
		return req, c.Tx.PutBlob(req.AccountID, BlobRequestPDF, req.ID, pdf)
	})
	if err != nil {
		return nil, "", err
	}
	return res, token, nil
}

// shareable checks that a document can be shared for acceptance.
func shareable(c *engine.Call, doc *engine.Record) error {
	d := views.ProjectDocument{Record: doc}
	switch {
	case !templated(d.DocumentType()):
		return scopekit.Errorf(scopekit.ECONFLICT, "only a SOW or a change order document is accepted by a client; this one is %s", d.DocumentType())
	case d.Status() != DocumentFinished:
		return scopekit.Errorf(scopekit.ECONFLICT, "project-documents %s is %s; share it once it is finished", doc.ID, d.Status())
	case d.PdfSize() == 0:
		return scopekit.Errorf(scopekit.ECONFLICT, "project-documents %s has no PDF; generate it with generate-pdf true to share it", doc.ID)
	}
	if co := d.ChangeOrder(); co != "" {
		o, err := c.Get(views.TypeChangeOrders, co)
		if err != nil {
			return err
		}
		if st := o.Str(views.NameStatus); st != ChangeOrderApproved {
			return scopekit.Errorf(scopekit.ECONFLICT, "change-orders %s is %s: only an approved change order is shared for acceptance", co, st)
		}
		return nil
	}
	p, err := c.Get(views.TypeProjects, d.Project())
	if err != nil {
		return err
	}
	if st := p.Str(views.NameStatus); st != "approved" {
		return scopekit.Errorf(scopekit.ECONFLICT, "projects %s is %s: only an approved project's documents are shared for acceptance", p.ID, st)
	}
	return nil
}

func tokenDigest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Revoke revokes a pending acceptance request: its link stops working.
//
// Errors: EFORBIDDEN without documents manage; ENOTFOUND outside the
// actor's visibility; ECONFLICT for a request decided or revoked already.
func (s *Service) Revoke(ctx context.Context, a *engine.Actor, id string) (*engine.Result, error) {
	return s.recordAction(ctx, a, "documents", true, views.TypeAcceptanceRequests, id, func(c *engine.Call, req *engine.Record) error {
		if st := req.Str(views.NameStatus); st != RequestPending {
			return scopekit.Errorf(scopekit.ECONFLICT, "acceptance-requests %s is %s already", id, st)
		}
		req.Attrs[views.NameRevokedAt] = engine.FormatTime(s.Now())
		return setRequestStatus(c, req, RequestRevoked)
	})
}

// setRequestStatus moves an acceptance request to status with its event.
func setRequestStatus(c *engine.Call, req *engine.Record, status string) error {
	old := req.Str(views.NameStatus)
	req.Attrs[views.NameStatus] = status
	if err := c.Tx.Replace(req); err != nil {
		return err
	}
	return recordEvent(c, views.EventAcceptanceStatusChanged, req, req.Rel(views.NameProject), old, status)
}

// Link errors: what a public page tells the holder of a link.
var (
	// ErrLinkUnknown: no request has this token (a typo, or made up).
	ErrLinkUnknown = scopekit.Errorf(scopekit.ENOTFOUND, "this link is not valid")
)

// linkClosed is the error of a link that no longer takes a decision.
func linkClosed(status string) error {
	switch status {
	case RequestExpired:
		return scopekit.Errorf(scopekit.ECONFLICT, "this link has expired; ask your contact for a new one")
	case RequestRevoked:
		return scopekit.Errorf(scopekit.ECONFLICT, "this link was withdrawn; ask your contact for a new one")
	}
	return scopekit.Errorf(scopekit.ECONFLICT, "this document was %s already; the link cannot be used again", status)
}

// requestOfToken finds the request a link token names, in a call as the
// request's account (the token holder is no user): ErrLinkUnknown unless
// the token's secret matches the stored digest.
func (s *Service) requestOfToken(ctx context.Context, token string, write bool, fn func(c *engine.Call, req *engine.Record) error) error {
	acct, rest, ok1 := strings.Cut(token, ".")
	id, secret, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || len(token) > 200 || secret == "" {
		return ErrLinkUnknown
	}
	a, err := s.SystemActor(ctx, acct)
	if err != nil {
		return ErrLinkUnknown
	}
	run := func(c *engine.Call) error {
		req, err := c.Get(views.TypeAcceptanceRequests, id)
		if err != nil {
			return ErrLinkUnknown
		}
		if subtle.ConstantTimeCompare([]byte(req.Str(attrTokenDigest)), []byte(tokenDigest(secret))) != 1 {
			return ErrLinkUnknown
		}
		return fn(c, req)
	}
	if write {
		_, err = s.write(ctx, a, run)
	} else {
		err = s.read(ctx, a, run)
	}
	return err
}
