package scoping

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The client's side of acceptance (acceptance.go): what a link shows, its
// frozen PDF, and the decision with its evidence and certificate.

// AcceptanceLink is what the public page of a link shows.
type AcceptanceLink struct {
	Status           string // pending, or why the link no longer decides
	AccountName      string
	ProjectName      string
	ClientName       string
	DocumentType     string // sow or change_order
	DocumentFilename string // of the PDF
	ChangeOrder      string // "Change order 2: Second site", for a change order
	Currency         string
	// The price summary: the contract value the document states, and for
	// a change order the value before it and the change.
	ContractValue, ValueBefore, ValueChange string
	TotalHours                              string
	ConsentText                             string
	ConsentVersion                          int64
	ExpiresAt                               time.Time
	DocumentSHA256                          string
}

// AcceptanceLink reads what the link of token shows. A link that no longer
// takes a decision (expired, revoked, decided) answers the link with its
// status and an ECONFLICT error saying why.
//
// Errors: ErrLinkUnknown (ENOTFOUND) for a token that names no request.
func (s *Service) AcceptanceLink(ctx context.Context, token string) (*AcceptanceLink, error) {
	var out *AcceptanceLink
	err := s.requestOfToken(ctx, token, false, func(c *engine.Call, req *engine.Record) error {
		var err error
		out, err = linkView(c, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	if out.Status != RequestPending {
		return out, linkClosed(out.Status)
	}
	return out, nil
}

// linkView is the page's view of a request.
func linkView(c *engine.Call, req *engine.Record) (*AcceptanceLink, error) {
	showExpiry(c.Ctx, c, []*engine.Record{req})
	r := views.AcceptanceRequest{Record: req}
	out := &AcceptanceLink{Status: r.Status(), AccountName: views.Account{Record: c.Actor.Account}.Name(), DocumentType: r.DocumentType(),
		DocumentSHA256: r.DocumentSha256()}
	out.ExpiresAt, _ = time.Parse(engine.TimeFormat, r.ExpiresAt())
	proj, err := c.Get(views.TypeProjects, r.Project())
	if err != nil {
		return nil, err
	}
	p := views.Project{Record: proj}
	out.ProjectName = p.ProjectName()
	if cl, err := c.Get(views.TypeClients, p.Client()); err == nil {
		out.ClientName = views.Client{Record: cl}.Name()
	}
	if doc, err := c.Get(views.TypeProjectDocuments, r.ProjectDocument()); err == nil {
		out.DocumentFilename = pdfName(views.ProjectDocument{Record: doc}.Filename())
		if v, err := c.Get(views.TypeProjectVersions, views.ProjectDocument{Record: doc}.ProjectVersion()); err == nil {
			pv := views.ProjectVersion{Record: v}
			out.Currency, out.ContractValue, out.TotalHours = pv.Currency(), v.Str(views.NameContractRevenue), v.Str(views.NameTotalHours)
		}
	}
	if coID := r.ChangeOrder(); coID != "" {
		co, err := c.Get(views.TypeChangeOrders, coID)
		if err != nil {
			return nil, err
		}
		if err := computeChangeOrders(c.Ctx, c, []*engine.Record{co}); err != nil {
			return nil, err
		}
		o := views.ChangeOrder{Record: co}
		out.ChangeOrder = "Change order " + co.Str(views.NameNumber) + ": " + o.Title()
		out.ValueBefore = out.ContractValue // the base version the document records
		out.ContractValue, out.ValueChange = co.Str(views.NameContractRevenue), co.Str(views.NameDeltaRevenue)
		out.Currency, out.TotalHours = o.Currency(), co.Str(views.NameTotalHours)
	}
	consent, err := consentText(c)
	if err != nil {
		return nil, err
	}
	out.ConsentText, out.ConsentVersion = consent.Str(views.NameBody), consent.Int(views.NameVersion)
	return out, nil
}

// pdfName is the name of a document's PDF.
func pdfName(filename string) string {
	if i := strings.LastIndexByte(filename, '.'); i > 0 {
		return filename[:i] + ".pdf"
	}
	return filename + ".pdf"
}

// AcceptanceDocument returns the PDF a link shares, as it was frozen; a
// link that no longer decides still shows what was (or would have been)
// accepted, except a revoked one.
//
// Errors: ErrLinkUnknown; ECONFLICT for a revoked link.
func (s *Service) AcceptanceDocument(ctx context.Context, token string) (*File, error) {
	var f *File
	err := s.requestOfToken(ctx, token, false, func(c *engine.Call, req *engine.Record) error {
		if st := req.Str(views.NameStatus); st == RequestRevoked {
			return linkClosed(st)
		}
		data, err := c.Tx.Blob(req.AccountID, BlobRequestPDF, req.ID)
		if err != nil {
			return err
		}
		view, err := linkView(c, req)
		if err != nil {
			return err
		}
		f = &File{Name: view.DocumentFilename, ContentType: ContentTypePDF, Data: data}
		return nil
	})
	return f, err
}

// Decision is what a client sends from a link's page, and from where.
type Decision struct {
	Accept    bool // false: decline
	Name      string
	Title     string
	Email     string
	Signature string // the name typed again as a signature
	Agreed    bool   // "I agree" checked
	Comment   string
	IP        string
	UserAgent string
}

// check validates a decision's entries, all at once.
func (d *Decision) check() error {
	var errs scopekit.Errors
	field := func(name, value string, max int, required bool) {
		switch {
		case required && strings.TrimSpace(value) == "":
			errs = append(errs, scopekit.FieldErrorf(scopekit.EINVALID, name, "%s is required", name))
		case utf8.RuneCountInString(value) > max || strings.ContainsFunc(value, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' }):
			errs = append(errs, scopekit.FieldErrorf(scopekit.EINVALID, name, "%s must be at most %d characters of text", name, max))
		}
	}
	field("name", d.Name, 200, true)
	field("title", d.Title, 200, d.Accept)
	field("email", d.Email, 254, true)
	field("signature", d.Signature, 200, d.Accept)
	field("comment", d.Comment, 4000, !d.Accept)
	if strings.TrimSpace(d.Email) != "" && CheckEmail(d.Email) != nil {
		errs = append(errs, scopekit.FieldErrorf(scopekit.EINVALID, "email", "email must be one email address"))
	}
	if d.Accept && strings.TrimSpace(d.Signature) != "" && !strings.EqualFold(strings.Join(strings.Fields(d.Signature), " "), strings.Join(strings.Fields(d.Name), " ")) {
		errs = append(errs, scopekit.FieldErrorf(scopekit.EINVALID, "signature", "type your full name as your signature"))
	}
	if d.Accept && !d.Agreed {
		errs = append(errs, scopekit.FieldErrorf(scopekit.EINVALID, "agree", "check \"I agree\" to accept"))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// Decide records a client's decision on the link of token: the evidence
// (the entries, the consent text and its version, the time, address and
// user agent, the frozen document's SHA-256 and the version digest), in
// one transaction with what the decision does. An acceptance of a SOW
// moves its approved project to won (with its event) and takes a version
// (accepted); of a change order, makes its scope the project's
// (ChangeOrderAction accept). The certificate PDF is made and kept with
// the evidence, which the document then names. A decline records the
// comment on the request and leaves the project as it is.
//
// Errors: ErrLinkUnknown; EINVALID for entries that fail (each naming its
// field: name, title, email, signature, agree, comment); ECONFLICT for a
// link that no longer decides, or a project (or change order) no longer
// in the state the link was made in.
func (s *Service) Decide(ctx context.Context, token string, d Decision) (*engine.Record, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	var evidence *engine.Record
	err := s.requestOfToken(ctx, token, true, func(c *engine.Call, req *engine.Record) error {
		view, err := linkView(c, req)
		if err != nil {
			return err
		}
		if view.Status != RequestPending {
			return linkClosed(view.Status)
		}
		evidence = newEvidence(c, req, view, &d)
		if err := c.Tx.Insert(evidence); err != nil {
			return err
		}
		req.SetRel(views.NameAcceptance, evidence.ID)
		req.Attrs[views.NameDecidedAt] = evidence.Attrs[views.NameDecidedAt]
		if !d.Accept {
			req.Attrs[views.NameDeclineComment] = d.Comment
			return setRequestStatus(c, req, RequestDeclined)
		}
		if err := setRequestStatus(c, req, RequestAccepted); err != nil {
			return err
		}
		if err := acceptInto(c, req); err != nil {
			return err
		}
		return attachCertificate(c, evidence, view)
	})
	return evidence, err
}

// newEvidence is the evidence record of a decision.
func newEvidence(c *engine.Call, req *engine.Record, view *AcceptanceLink, d *Decision) *engine.Record {
	e := engine.NewRecord(views.TypeAcceptances, req.AccountID)
	decision := RequestAccepted
	if !d.Accept {
		decision = RequestDeclined
	}
	for k, v := range map[string]any{views.NameDecision: decision, views.NameSignerName: strings.TrimSpace(d.Name),
		views.NameSignerTitle: strings.TrimSpace(d.Title), views.NameSignerEmail: strings.TrimSpace(d.Email),
		views.NameSignature: strings.TrimSpace(d.Signature), views.NameAgreed: d.Agreed, views.NameComment: d.Comment,
		views.NameConsentText: view.ConsentText, views.NameConsentVersion: json.Number(strconv.FormatInt(view.ConsentVersion, 10)),
		views.NameDecidedAt: engine.FormatTime(svcOf(c).Now()), views.NameIpAddress: d.IP, views.NameUserAgent: truncate(d.UserAgent, 1000),
		views.NameDocumentSha256: req.Str(views.NameDocumentSha256), views.NameVersionDigest: req.Str(views.NameVersionDigest),
		views.NameDocumentFilename: view.DocumentFilename} {
		e.Attrs[k] = v
	}
	for _, r := range []string{views.NameProject, views.NameProjectDocument, views.NameChangeOrder} {
		e.SetRel(r, req.Rel(r))
	}
	e.SetRel(views.NameAcceptanceRequest, req.ID)
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// acceptInto carries an acceptance to its project: a SOW's approved
// project is won, a change order is accepted into its project.
func acceptInto(c *engine.Call, req *engine.Record) error {
	if co := req.Rel(views.NameChangeOrder); co != "" {
		o, err := c.Get(views.TypeChangeOrders, co)
		if err != nil {
			return err
		}
		return acceptChangeOrder(c, o)
	}
	proj, err := c.Get(views.TypeProjects, req.Rel(views.NameProject))
	if err != nil {
		return err
	}
	if st := proj.Str(views.NameStatus); st != "approved" {
		return scopekit.Errorf(scopekit.ECONFLICT, "the project is no longer awaiting acceptance (it is %s); please contact your supplier", st)
	}
	if err := setProjectStatus(c, proj, "won"); err != nil {
		return err
	}
	versionAtCommit(c, proj.ID, VersionAccepted)
	return nil
}

// CertificateData is what an acceptance certificate shows: a title and
// the evidence as labelled rows.
type CertificateData struct {
	Title string
	Rows  [][2]string
}

// attachCertificate makes the acceptance certificate (when the service
// has a maker) and keeps it with the evidence; the accepted document
// names the evidence.
func attachCertificate(c *engine.Call, evidence *engine.Record, view *AcceptanceLink) error {
	doc, err := c.Get(views.TypeProjectDocuments, evidence.Rel(views.NameProjectDocument))
	if err != nil {
		return err
	}
	doc.SetRel(views.NameAcceptance, evidence.ID)
	if err := c.Tx.Replace(doc); err != nil {
		return err
	}
	maker := svcOf(c).Documents.Certificate
	if maker == nil {
		return nil
	}
	e := views.Acceptance{Record: evidence}
	what := "Statement of work"
	if view.ChangeOrder != "" {
		what = view.ChangeOrder
	}
	data := CertificateData{Title: "Acceptance certificate", Rows: [][2]string{
		{"Account", view.AccountName}, {"Client", view.ClientName}, {"Project", view.ProjectName}, {"Document", what},
		{"File", view.DocumentFilename}, {"Contract value", strings.TrimSpace(view.ContractValue + " " + view.Currency)},
		{"Decision", "Accepted"}, {"Name", e.SignerName()}, {"Title", e.SignerTitle()}, {"Email", e.SignerEmail()},
		{"Typed signature", e.Signature()}, {"I agree", "checked"}, {"Time (UTC)", e.DecidedAt()}, {"IP address", e.IpAddress()},
		{"User agent", e.UserAgent()}, {"Consent text (version " + strconv.FormatInt(e.ConsentVersion(), 10) + ")", e.ConsentText()},
		{"Document SHA-256", e.DocumentSha256()}, {"Version digest", e.VersionDigest()},
	}}
	if data.Rows[14][1] == "" {
		data.Rows[14][1] = "-"
	}
	pdf, err := maker(data)
	if err != nil {
		return scopekit.Errorf(scopekit.EINTERNAL, "the acceptance certificate could not be made: %v", err)
	}
	evidence.Attrs[views.NameCertificateURL] = "certificate"
	if err := c.Tx.Replace(evidence); err != nil {
		return err
	}
	return c.Tx.PutBlob(evidence.AccountID, BlobCertificatePDF, evidence.ID, pdf)
}

// Certificate returns the acceptance certificate of an acceptance.
//
// Errors: EFORBIDDEN without documents view; ENOTFOUND for an acceptance
// missing, outside the actor's visibility, or without a certificate.
func (s *Service) Certificate(ctx context.Context, a *engine.Actor, id string) (*File, error) {
	def, err := s.ReadableType(a, views.TypeAcceptances)
	if err != nil {
		return nil, err
	}
	var f *File
	err = s.read(ctx, a, func(c *engine.Call) error {
		rec, err := c.GetVisible(ctx, def, id, nil)
		if err != nil {
			return err
		}
		data, err := c.Tx.Blob(rec.AccountID, BlobCertificatePDF, rec.ID)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return scopekit.Errorf(scopekit.ENOTFOUND, "acceptances %s has no certificate", id)
		}
		f = &File{Name: "Acceptance certificate " + id + ".pdf", ContentType: ContentTypePDF, Data: data}
		return err
	})
	return f, err
}
