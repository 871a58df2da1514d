package httpadapter

import (
	"net/http"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// Guided scoping (docs/questionnaires.md): a survey's calculate and
// apply, and questionnaires exported and imported as JSON files.

// questionnaireImportPath imports a questionnaire file into the token's
// account, as the catalog import does a catalog.
const questionnaireImportPath = "/v1/questionnaire-import"

// maxQuestionnaireFile bounds an import: a questionnaire's questions and
// rules hold at most 256 KiB each.
const maxQuestionnaireFile = 1 << 20

func (s *Server) questionnaireRoutes(r *router) {
	r.Handler(http.MethodPost, questionnaireImportPath, s.route(questionnaireImportPath, s.api(false, s.importQuestionnaire)))
}

// surveyOutcome serves POST /surveys/{id}/calculate and /apply: 200 with
// the outcome as one resource of type survey-outcomes, id the survey's.
func (s *Server) surveyOutcome(name string, run func(c *call, id string) (*scoping.SurveyOutcome, error)) func(c *call) error {
	return func(c *call) error {
		if _, err := c.actionMeta(); err != nil {
			return err
		}
		id := c.params.ByName("id")
		out, err := run(c, id)
		if err != nil {
			return err
		}
		return c.writeFigures("survey-outcomes", id, c.view.prefix+"/surveys/"+id+"/"+name, out, "survey")
	}
}

func (s *Server) calculateSurvey(c *call, id string) (*scoping.SurveyOutcome, error) {
	return s.Svc.CalculateSurvey(c.r.Context(), c.actor, id)
}

func (s *Server) applySurvey(c *call, id string) (*scoping.SurveyOutcome, error) {
	return s.Svc.ApplySurvey(c.r.Context(), c.actor, id)
}

// exportQuestionnaire serves GET .../questionnaires/{id}/export: the
// questionnaire as a JSON file.
func (s *Server) exportQuestionnaire(c *call) error {
	data, slug, err := s.Svc.ExportQuestionnaire(c.r.Context(), c.actor, c.params.ByName("id"))
	if err != nil {
		return err
	}
	serveFile(c.w, &scoping.File{Name: slug + ".questionnaire.json", ContentType: "application/json", Data: data})
	return nil
}

// importQuestionnaire serves POST /v1/questionnaire-import: the body is
// an exported questionnaire (application/json); 201 with the new
// questionnaire, or 200 with the one of the same slug updated.
func (s *Server) importQuestionnaire(c *call) error {
	if _, err := fileType(c.r, "application/json", "the questionnaire file", "application/json"); err != nil {
		return err
	}
	file, err := c.readBody(maxQuestionnaireFile,
		scopekit.Errorf(scopekit.ETOOLARGE, "a questionnaire file may be at most %d bytes", maxQuestionnaireFile))
	if err != nil {
		return err
	}
	res, created, err := s.Svc.ImportQuestionnaire(c.r.Context(), c.actor, file)
	if err != nil {
		return err
	}
	status, self := http.StatusOK, c.view.prefix+"/"+views.TypeQuestionnaires+"/"+res.Records[0].ID
	if created {
		status = http.StatusCreated
		c.w.Header().Set("Location", self)
	}
	writeRendered(c.w, c.r, status, c.view.document(res, self, nil, c.q))
	return nil
}

// outcomeMembers are the attributes of a survey-outcomes resource.
var outcomeMembers = []string{"applied", "currency", "problems", "recommendations", "removed", "conflicts",
	"contract-revenue-before", "contract-revenue-after"}

// surveyDocs describe the routes of this file for the API reference.
var surveyDocs = map[string]routeDoc{
	"surveys/calculate": {Summary: "What applying the survey would do, priced (writes nothing)",
		Description: "The survey's problems (each answer missing, of the wrong kind, out of range or not an option, named by question; each rule " +
			"that could not compute or names a record the catalog lacks), its recommendations (each rule that fires: what, how many, and the " +
			"line's hours, revenue and cost priced exactly as the line will be, with every other line of the project), the survey's lines " +
			"it would remove, the edited ones it would keep (`conflicts`), and the contract revenue before and after. Needs `projects` view.",
		Body: actionMetaBody(), Response: figuresDoc("survey-outcomes", outcomeMembers...)},
	"surveys/apply": {Summary: "Bring the project to the survey's recommendations, in one transaction",
		Description: "Adds a line per recommendation through the catalog copy (each line's `survey` and `survey-rule` say where it came from); " +
			"the survey's lines nobody edited since are updated or removed as the answers changed; edited ones are kept and listed in " +
			"`conflicts`. Applying again with the same answers changes nothing. 422 listing the problems while there are any (an answer's " +
			"error points at `/data/attributes/answers/<slug>`); 409 unless the project is a draft. Needs `projects` manage.",
		Body: actionMetaBody(), Response: figuresDoc("survey-outcomes", outcomeMembers...)},
	"questionnaires/export": {Summary: "The questionnaire as a JSON file, for another account or deployment",
		Description: "Its attributes as the API shows them (`name`, `slug`, `description`, `tags`, `questions`, `rules`); rules name catalog " +
			"records by name. POST it to /v1/questionnaire-import. Needs `catalog` view.",
		Response: obj{"type": "object"}, ResponseType: "application/json", APIErrors: true},
}

var questionnaireImportDoc = routeDoc{Tag: views.TypeQuestionnaires, Summary: "Import a questionnaire file (from /questionnaires/{id}/export)",
	Description: "The body is the file (`application/json`, at most 1 MiB). A questionnaire of the same slug is updated (and restored if archived: 200), " +
		"else one is created (201). It is checked as a write of the API: every rule naming a record this account lacks (a service, " +
		"phase, resource, governance item, product or expense category, by name) is one 422 error, pointing into the file " +
		"(`/rules/2/service`), and nothing is written. Needs `catalog` manage.",
	Body:     obj{"required": true, "content": obj{"application/json": obj{"schema": obj{"type": "object"}}}},
	Response: singleDoc(views.TypeQuestionnaires), Status: "201", MoreErrors: []string{"413", "415"}}
