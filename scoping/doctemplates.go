package scoping

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Document templates: their DOCX files, checked by the configured
// validator and stored beside the record, and the built-in templates
// every account gets.

// BuiltinTemplate is a document template every account gets.
type BuiltinTemplate struct {
	Name     string
	Format   string // docx (also when empty), pptx or xlsx
	Filename string
	File     []byte
}

// UploadTemplateFile validates file as the template's file of its format
// (DOCX, PPTX or XLSX) and stores it with the template's size, sha256 and
// tags; filename, when not empty, replaces the template's filename. A
// file that fails validation stores nothing. contentType, when not
// empty, is the file's declared media type, which must be the format's.
//
// Errors: EFORBIDDEN without documents manage; ENOTFOUND for a missing
// or archived template (as its GET); EINVALID for a filename a PATCH would refuse (too long);
// ETOOLARGE above MaxTemplateSize; EUNSUPPORTEDMEDIA for a
// contentType that is not the template format's; EINVALID for a file
// that is not of the format or a malformed template (naming the tag and
// its paragraph).
func (s *Service) UploadTemplateFile(ctx context.Context, a *engine.Actor, id, filename, contentType string, file []byte) (*engine.Result, error) {
	if err := a.Require("documents", true); err != nil {
		return nil, err
	}
	def := mustLookup(s.Schema(), views.TypeDocumentTemplates)
	if max := s.Documents.MaxTemplateSize; max > 0 && len(file) > max {
		return nil, scopekit.Errorf(scopekit.ETOOLARGE, "a template file may be at most %d bytes", max)
	}
	if s.Documents.Tags == nil {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "no template validator configured")
	}
	// validated outside the write transaction (a large file takes a while),
	// after the template is known to exist
	var format string
	lenient := false
	if err := s.read(ctx, a, func(c *engine.Call) error {
		rec, err := c.GetVisible(ctx, def, id, nil) // an archived template is 404, as its GET
		if err == nil {
			format, lenient = templateFormat(rec), views.DocumentTemplate{Record: rec}.Lenient()
		}
		return err
	}); err != nil {
		return nil, err
	}
	if filename != "" { // the rule a PATCH of filename keeps
		if err := s.Schema().CheckAttrs(def.Name, map[string]any{views.NameFilename: filename}); err != nil {
			return nil, scopekit.FieldErrorf(scopekit.EINVALID, views.NameFilename, "the file's name: %s", scopekit.List(err)[0].Message)
		}
	}
	if want := TemplateFormats[format]; contentType != "" && contentType != want {
		return nil, scopekit.Errorf(scopekit.EUNSUPPORTEDMEDIA, "document-templates %s is a %s template: Content-Type must be %s (the file itself is the body), not %q",
			id, format, want, contentType)
	}
	tags, err := checkTemplateFile(ctx, s.Documents.Tags, format, file)
	if err != nil {
		return nil, err
	}
	problems, err := s.lintTemplateFile(ctx, format, file, lenient)
	if err != nil {
		return nil, err
	}
	return s.writeRecord(ctx, a, def, func(c *engine.Call) (*engine.Record, error) {
		old, err := c.GetVisible(ctx, def, id, nil)
		if err != nil {
			return nil, err
		}
		rec := old.Clone()
		setTemplateFile(rec, filename, file, tags)
		rec.Attrs[views.NameProblems] = anyList(problems)
		if err := c.Tx.Replace(rec); err != nil {
			return nil, err
		}
		return rec, c.Tx.PutBlob(rec.AccountID, BlobTemplateFile, rec.ID, file)
	})
}

// checkTemplateFile runs the validator, turning its failures into
// EINVALID errors about the file; a validation stopped by ctx (the request
// canceled or out of time) ends with ctx's error.
func checkTemplateFile(ctx context.Context, validate func(context.Context, string, []byte) ([]string, error), format string, file []byte) ([]string, error) {
	tags, err := validate(ctx, format, file)
	if err == nil {
		return tags, nil
	}
	return nil, checkError(ctx, format, err)
}

// checkError is a validator's error as the upload answers it.
func checkError(ctx context.Context, format string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if se, ok := err.(*scopekit.Error); ok && se.Code == scopekit.EINVALID {
		return scopekit.Errorf(scopekit.EINVALID, "%s", se.Message)
	}
	return scopekit.Errorf(scopekit.EINVALID, "the file is not a usable %s template: %v", strings.ToUpper(format), err)
}

// templateFormat is a template's format, docx when unset.
func templateFormat(rec *engine.Record) string {
	if f := rec.Str(views.NameFormat); f != "" {
		return f
	}
	return "docx"
}

// TemplateProblem is a tag of a template whose path merge data does not
// have (DocumentConfig.Lint): the tag as written, the path, where it is
// (paragraph 38, paragraph 2 of slide 3, cell B5 of Sheet1), the text a
// person finds it by (the paragraph's opening words, the slide's title),
// the nearest known path, and all of it in one message.
type TemplateProblem struct {
	Tag, Path, Where, Context, Suggestion, Message string
}

// LintError refuses a strict template whose tags have problems: its Err
// (EINVALID about the file, listing the first problems) is what adapters
// answer; Problems are all of them, for a page that shows them apart.
type LintError struct {
	Err      *scopekit.Error
	Problems []TemplateProblem
}

func (e *LintError) Error() string { return e.Err.Error() }

// Unwrap makes the error's code EINVALID.
func (e *LintError) Unwrap() error { return e.Err }

// lintTemplateFile checks the template's tags against the merge data: a
// problem refuses a strict template (a *LintError) and is returned for a
// lenient one.
func (s *Service) lintTemplateFile(ctx context.Context, format string, file []byte, lenient bool) ([]string, error) {
	if s.Documents.Lint == nil {
		return nil, nil
	}
	problems, err := s.Documents.Lint(ctx, format, file)
	if err != nil {
		return nil, checkError(ctx, format, err)
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Message
	}
	if len(problems) == 0 || lenient {
		return msgs, nil
	}
	const shown = 10
	msg := strings.Join(msgs[:min(len(msgs), shown)], "; ")
	if len(msgs) > shown {
		msg += fmt.Sprintf("; and %d more", len(msgs)-shown)
	}
	return nil, &LintError{Problems: problems, Err: scopekit.FieldErrorf(scopekit.EINVALID, "file",
		"%s (set lenient to true to store the template anyway, with these listed in problems)", msg)}
}

// TemplateProblems checks the stored file of a template again and
// returns its problems with their parts (those a lenient template keeps
// as messages in its problems attribute). filters are as TemplateFile's.
//
// Errors: as TemplateFile's; those of the check.
func (s *Service) TemplateProblems(ctx context.Context, a *engine.Actor, id string, filters map[string]string) ([]TemplateProblem, error) {
	f, err := s.TemplateFile(ctx, a, id, filters)
	if err != nil || s.Documents.Lint == nil {
		return nil, err
	}
	format := formatOfType(f.ContentType)
	problems, err := s.Documents.Lint(ctx, format, f.Data)
	if err != nil {
		return nil, checkError(ctx, format, err)
	}
	return problems, nil
}

// anyList is a list attribute's value.
func anyList(ss []string) []any {
	list := make([]any, len(ss))
	for i, s := range ss {
		list[i] = s
	}
	return list
}

// templateFilename is the name a template's file is served under: its
// filename, or (none given, or cleared since) the template's name.
func templateFilename(rec *engine.Record) string {
	t := views.DocumentTemplate{Record: rec}
	if name := t.Filename(); name != "" {
		return name
	}
	return t.Name() + "." + templateFormat(rec)
}

func setTemplateFile(rec *engine.Record, filename string, file []byte, tags []string) {
	sum := sha256.Sum256(file)
	if filename != "" {
		rec.Attrs[views.NameFilename] = filename
	} else {
		rec.Attrs[views.NameFilename] = templateFilename(rec)
	}
	rec.Attrs[views.NameSize], rec.Attrs[views.NameSha256] = int64(len(file)), hex.EncodeToString(sum[:])
	rec.Attrs[views.NameTags] = anyList(tags)
	rec.Attrs[views.NameProblems] = []any{}
}

// TemplateFile returns the file of a document template. filters are those
// of a GET of the template: an archived one is found only with an active
// filter covering it (nil: active templates only).
//
// Errors: EFORBIDDEN without documents view; ENOTFOUND for a missing
// template, one the filters do not cover, or one without a file.
func (s *Service) TemplateFile(ctx context.Context, a *engine.Actor, id string, filters map[string]string) (*File, error) {
	def, err := s.eng.ReadableType(a, views.TypeDocumentTemplates)
	if err != nil {
		return nil, err
	}
	var f *File
	err = s.read(ctx, a, func(c *engine.Call) error {
		rec, err := c.GetVisible(ctx, def, id, filters)
		if err != nil {
			return err
		}
		data, err := c.Tx.Blob(rec.AccountID, BlobTemplateFile, rec.ID)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return scopekit.Errorf(scopekit.ENOTFOUND, "document-templates %s has no file yet", id)
		}
		f = &File{Name: templateFilename(rec), ContentType: TemplateFormats[templateFormat(rec)], Data: data}
		return err
	})
	return f, err
}

// ensureBuiltinTemplates creates the built-in templates the account lacks
// (by name, archived ones included, so an archived built-in stays
// archived).
func (a *Admin) ensureBuiltinTemplates(accountID string) error {
	c := a.c
	for _, b := range svcOf(c).Documents.Builtins {
		have, _, err := c.Tx.List(&engine.Query{Type: views.TypeDocumentTemplates, AccountID: accountID, Where: []engine.Cond{engine.Eq(views.NameName, b.Name)}, Limit: 1})
		if err != nil {
			return err
		}
		if len(have) > 0 {
			continue
		}
		rec := engine.NewRecord(views.TypeDocumentTemplates, accountID)
		format := b.Format
		if format == "" {
			format = "docx"
		}
		rec.Attrs[views.NameName], rec.Attrs[views.NameFormat], rec.Attrs[views.NameTemplateFormat] = b.Name, format, "v2"
		rec.Attrs[views.NameActive], rec.Attrs[views.NameBuiltin] = true, true
		var tags []string
		if svcOf(c).Documents.Tags != nil {
			// the server's own templates: validated at once, not canceled
			if tags, err = svcOf(c).Documents.Tags(context.Background(), format, b.File); err != nil {
				return fmt.Errorf("built-in template %q: %w", b.Name, err)
			}
		}
		setTemplateFile(rec, b.Filename, b.File, tags)
		if err := c.Tx.Insert(rec); err != nil {
			return err
		}
		if err := c.Tx.PutBlob(accountID, BlobTemplateFile, rec.ID, b.File); err != nil {
			return err
		}
	}
	return nil
}

// EnsureBuiltinTemplates gives every account the built-in templates it
// lacks (accounts created before a built-in existed). A built-in that was deleted comes back; archive it to
// keep it out of the way.
func (s *Service) EnsureBuiltinTemplates(ctx context.Context) error {
	if len(s.Documents.Builtins) == 0 {
		return nil
	}
	return s.Setup(ctx, func(a *Admin) error {
		accts, _, err := a.c.Tx.List(&engine.Query{Type: views.TypeAccounts})
		if err != nil {
			return err
		}
		for _, acct := range accts {
			if err := a.ensureBuiltinTemplates(acct.ID); err != nil {
				return err
			}
		}
		return nil
	})
}
