package scoping

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Guided scoping (docs/questionnaires.md): questionnaires of typed
// questions whose rules recommend catalog services, governance, products
// and expenses; surveys (surveys.go) answer one for a project and apply
// its recommendations.

func declareQuestionnaires(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "questionnaires", Guard: "catalog", Archives: true,
		Attrs: []engine.AttrDef{unique(str("name")), unique(str("slug")), text("description"),
			{Name: "tags", Kind: engine.KindList},
			{Name: "questions", Kind: engine.KindAny, MaxLen: maxQuestionsBytes, Default: []any{}, NotNull: true},
			{Name: "rules", Kind: engine.KindAny, MaxLen: maxQuestionsBytes, Default: []any{}, NotNull: true}},
		Rels:    []engine.RelDef{inverse("surveys", "surveys", "questionnaire")},
		Filters: with(eq("slug"), "name", engine.FilterDef{Op: engine.OpContains}),
		Hooks:   engine.Hooks{Validate: validateQuestionnaire},
	})
}

// questionnaireAttrs are the attributes an export holds and an import
// reads.
var questionnaireAttrs = []string{views.NameName, views.NameSlug, views.NameDescription, views.NameTags, views.NameQuestions, views.NameRules}

// validateQuestionnaire checks a questionnaire as a whole (slug,
// questions, rules, expressions, the catalog records its rules name) and
// stores its questions and rules in their canonical form.
func validateQuestionnaire(_ context.Context, c *engine.Call, rec, _ *engine.Record) []error {
	var errs []error
	if slug := rec.Str(views.NameSlug); slug != "" && (!slugPattern.MatchString(slug) || len(slug) > maxSlugChars) {
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameSlug), "slug must be 1 to %d letters, digits and underscores", maxSlugChars))
	}
	def, qerrs := parseQuestionnaire(rec.Attrs[views.NameQuestions], rec.Attrs[views.NameRules])
	errs = append(errs, qerrs...)
	if def == nil {
		return errs
	}
	targets, terrs, err := resolveTargets(c, def.rules)
	if err != nil {
		return []error{err}
	}
	for i, e := range terrs {
		if e != nil {
			errs = append(errs, engine.Invalid(rPointer(i, targets[i].field), "rule %s: %s", def.rules[i].Slug, message(e)))
		}
	}
	if len(errs) == 0 {
		rec.Attrs[views.NameQuestions] = canonical(def.questions)
		rec.Attrs[views.NameRules] = canonical(def.rules)
	}
	return errs
}

// ruleTarget is what one rule names in the catalog, found by name.
type ruleTarget struct {
	field    string         // the rule's member that failed (for errors)
	rec      *engine.Record // the service, governance item or product
	phase    *engine.Record
	resource *engine.Record
	category *engine.Record
}

// resolveTargets finds, by name, the catalog records each rule names:
// its service, governance item or product, and a service's phase and
// resource, an expense's category. errs[i] says why rule i's could not
// be (nil: found; errs is nil when all were); err is the store's.
func resolveTargets(c *engine.Call, rules []*rule) (targets []ruleTarget, errs []error, err error) {
	targets = make([]ruleTarget, len(rules))
	errs = make([]error, len(rules))
	failed := false
	for i, r := range rules {
		t := &targets[i]
		for _, look := range []struct {
			field, typ, what, name string
			dst                    **engine.Record
		}{
			{"service", views.TypeServices, "service", r.Service, &t.rec},
			{"governance", views.TypeGovernances, "governance item", r.Governance, &t.rec},
			{"product", views.TypeProducts, "product", r.Product, &t.rec},
			{"phase", views.TypePhases, "phase", r.Phase, &t.phase},
			{"resource", views.TypeResources, "resource", r.Resource, &t.resource},
			{"category", views.TypeExpenseCategories, "expense category", r.Category, &t.category},
		} {
			if look.name == "" {
				continue
			}
			rec, err := catalogByName(c, look.typ, look.what, look.name)
			if err != nil && scopekit.ErrorCode(err) != scopekit.EINVALID {
				return nil, nil, err
			}
			if err != nil {
				t.field, errs[i], failed = look.field, err, true
				break
			}
			*look.dst = rec
		}
	}
	if !failed {
		return targets, nil, nil
	}
	return targets, errs, nil
}

// catalogByName finds the active record of typ named name in the call's
// account (names compare without regard to case). EINVALID says it is
// missing, archived or ambiguous.
func catalogByName(c *engine.Call, typ, what, name string) (*engine.Record, error) {
	found, err := c.Find(typ, engine.Eq(views.NameName, name))
	if err != nil {
		return nil, err
	}
	active := slices.DeleteFunc(slices.Clone(found), func(r *engine.Record) bool { return !r.Active() })
	switch {
	case len(active) == 1:
		return active[0], nil
	case len(active) > 1:
		return nil, scopekit.Errorf(scopekit.EINVALID, "%d records are named %q; a rule names one %s", len(active), name, what)
	case len(found) > 0:
		return nil, scopekit.Errorf(scopekit.EINVALID, "the %s %q is archived", what, name)
	}
	return nil, scopekit.Errorf(scopekit.EINVALID, "no %s is named %q in this account", what, name)
}

// questionnaireOf reads the questionnaire of a survey as a checked
// definition. A questionnaire stored before a rule of the catalog went
// away still reads: such problems are found when the rules are resolved.
func questionnaireOf(c *engine.Call, id string) (*engine.Record, *questionnaireDef, error) {
	rec, err := c.Get(views.TypeQuestionnaires, id)
	if err != nil {
		return nil, nil, err
	}
	def, errs := parseQuestionnaire(rec.Attrs[views.NameQuestions], rec.Attrs[views.NameRules])
	if def == nil || len(errs) > 0 {
		return nil, nil, scopekit.Errorf(scopekit.EINTERNAL, "questionnaire %s is stored unchecked: %v", id, errs)
	}
	return rec, def, nil
}

// ExportQuestionnaire returns a questionnaire as a JSON file: its
// attributes as the API shows them (name, slug, description, tags,
// questions, rules), which ImportQuestionnaire reads in any account. Its
// rules name catalog records by name, not id.
//
// Errors: EFORBIDDEN without catalog view; ENOTFOUND.
func (s *Service) ExportQuestionnaire(ctx context.Context, a *engine.Actor, id string) ([]byte, string, error) {
	if err := a.Require("catalog", false); err != nil {
		return nil, "", err
	}
	def := mustLookup(s.Schema(), views.TypeQuestionnaires)
	var rec *engine.Record
	err := s.read(ctx, a, func(c *engine.Call) error {
		var err error
		rec, err = c.GetVisible(ctx, def, id, engine.AnyActive(def))
		return err
	})
	if err != nil {
		return nil, "", err
	}
	out := map[string]any{}
	for _, n := range questionnaireAttrs {
		out[n] = rec.Attrs[n]
	}
	b, err := json.MarshalIndent(out, "", "  ")
	return append(b, '\n'), views.Questionnaire{Record: rec}.Slug(), err
}

// ImportQuestionnaire creates a questionnaire from an export, or updates
// the account's questionnaire of the same slug (restoring it if
// archived). The file is checked as a write of the API: every rule
// naming a record the account lacks is listed (pointers are into the
// file: /rules/2/service), and nothing is written unless all is well.
//
// Errors: EFORBIDDEN without catalog manage; EBADREQUEST for a file that
// is not a JSON object of those attributes; EINVALID.
func (s *Service) ImportQuestionnaire(ctx context.Context, a *engine.Actor, file []byte) (res *engine.Result, created bool, err error) {
	if err := a.Require("catalog", true); err != nil {
		return nil, false, err
	}
	in, slug, err := importInput(file)
	if err != nil {
		return nil, false, err
	}
	def := mustLookup(s.Schema(), views.TypeQuestionnaires)
	res, err = s.writeRecord(ctx, a, def, func(c *engine.Call) (*engine.Record, error) {
		found, err := c.Find(def.Name, engine.Eq(views.NameSlug, slug))
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			created = true
			rec, _, err := c.CreateRecord(ctx, def, in)
			return rec, err
		}
		in.Attrs[views.NameActive] = json.RawMessage("true")
		return c.UpdateRecord(ctx, def, found[0], in)
	})
	return res, created, filePointers(err)
}

// importInput reads an export file as the input of a write.
func importInput(file []byte) (*engine.Input, string, error) {
	dec := json.NewDecoder(bytes.NewReader(file))
	dec.UseNumber()
	var attrs map[string]json.RawMessage
	if err := dec.Decode(&attrs); err != nil || attrs == nil {
		return nil, "", scopekit.Errorf(scopekit.EBADREQUEST, "a questionnaire file is a JSON object of %s", strings.Join(questionnaireAttrs, ", "))
	}
	for n := range attrs {
		if !slices.Contains(questionnaireAttrs, n) {
			return nil, "", scopekit.FieldErrorf(scopekit.EBADREQUEST, "/"+n, "%s is not a member of a questionnaire file (the members are %s)", n, strings.Join(questionnaireAttrs, ", "))
		}
	}
	var slug string
	if json.Unmarshal(attrs[views.NameSlug], &slug) != nil || slug == "" {
		return nil, "", scopekit.FieldErrorf(scopekit.EINVALID, "/slug", "slug can't be blank: an import finds the questionnaire to update by it")
	}
	return &engine.Input{Attrs: attrs}, slug, nil
}

// filePointers rewrites the pointers of a write's errors into a file's
// own (/data/attributes/rules/2 is /rules/2 there).
func filePointers(err error) error {
	if code := scopekit.ErrorCode(err); code != scopekit.EINVALID && code != scopekit.EBADREQUEST {
		return err
	}
	list := scopekit.List(err)
	out := make(scopekit.Errors, len(list))
	for i, e := range list {
		c := *e
		c.Field = strings.TrimPrefix(c.Field, "/data/attributes")
		out[i] = &c
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}

// message is an error's message without its code.
func message(err error) string {
	if e, ok := err.(*scopekit.Error); ok {
		return e.Message
	}
	return err.Error()
}
