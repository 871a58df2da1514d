package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// Tool names.
const (
	ToolSearchProjects   = "scopekit_search_projects"
	ToolGetProject       = "scopekit_get_project"
	ToolListProjectItems = "scopekit_list_project_items"
	ToolGetDocument      = "scopekit_get_document"
	ToolDeliveryRollup   = "scopekit_delivery_rollup"
	ToolEstimateVsActual = "scopekit_estimate_vs_actual"

	ToolCreateProject       = "scopekit_create_project"
	ToolUpdateProject       = "scopekit_update_project"
	ToolAddServiceToProject = "scopekit_add_service_to_project"
	ToolApplyBlueprint      = "scopekit_apply_blueprint"
	ToolReviewProjectScope  = "scopekit_review_project_scope"
	ToolGenerateDocument    = "scopekit_generate_document"
	ToolGetDocumentText     = "scopekit_get_document_text"

	ToolUpdateProjectService = "scopekit_update_project_service"
	ToolRemoveProjectItem    = "scopekit_remove_project_item"
)

// Response formats of the tools that take response_format.
const (
	Concise  = "concise"
	Detailed = "detailed"
)

// Search paging.
const (
	DefaultLimit = 25
	MaxLimit     = 100
)

// tools are the handlers, sharing the server and how callers are resolved.
type tools struct {
	s   *Server
	ses session
}

// The annotations of the tools: what a client may assume before calling
// one. No tool reaches outside ScopeKit.
var (
	readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	// adds records; calling it again adds them again
	additive = &mcp.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)}
	// overwrites what it is given; calling it again changes nothing more
	overwrites = &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)}
	// removes a record; calling it again finds nothing to remove
	removes = &mcp.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(false)}
)

func (t *tools) register(srv *mcp.Server) {
	checks := map[string]enums{}
	addTool(srv, checks, &mcp.Tool{Name: ToolSearchProjects, Annotations: readOnly,
		Description: "Search the projects you can see by name, status, client (an id or a name), and creation or " +
			"approval date (RFC 3339 dates or times). Returns up to limit projects (default 25, at most 100), a " +
			"next_cursor for the next page, and the filters that applied (with a note saying so when nothing " +
			"matched). Archived projects are not searched. approved_at is set only for projects approved through " +
			"the approval workflow."},
		t.searchProjects, enums{"status": t.enum(views.TypeProjects, views.NameStatus)})
	addTool(srv, checks, &mcp.Tool{Name: ToolGetProject, Annotations: readOnly,
		Description: "Read one project with its pricing summary (hours, professional services, governance, " +
			"expenses, materials, managed services and contract totals)."},
		t.getProject, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolListProjectItems, Annotations: readOnly,
		Description: "List the items of a project by type: documents (generated SOWs and workbooks, with their " +
			"type, template, creation time and status), services, phases, locations, governance, expenses or " +
			"products. response_format concise (default) gives names, statuses and key figures; detailed adds " +
			"every attribute, and for documents the download links."},
		t.listProjectItems, enums{"type": itemTypeArgs(), "response_format": {Concise, Detailed}})
	addTool(srv, checks, &mcp.Tool{Name: ToolGetDocument, Annotations: readOnly,
		Description: "Read one generated project document (SOW, pricing or breakdown workbook): its status, type, " +
			"template, file name and size. response_format detailed adds the download links (fetch them with the " +
			"same bearer token); " + ToolGetDocumentText + " gives a finished SOW's text."},
		t.getDocument, enums{"response_format": {Concise, Detailed}})
	addTool(srv, checks, &mcp.Tool{Name: ToolDeliveryRollup, Annotations: readOnly,
		Description: "The delivery rollup of a project, per phase and in total: services by delivery status, " +
			"estimated and actual hours, and percent complete (estimated hours of complete services over those " +
			"not canceled)."},
		t.deliveryRollup, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolEstimateVsActual, Annotations: readOnly,
		Description: "The estimate-versus-actual table of a project: one row per service and subservice with " +
			"estimated, actual and variance hours, variance ratio, estimated and actual cost; totals per phase and " +
			"for the project. The variances are null where no actual hours were recorded."},
		t.estimateVsActual, nil)
	t.registerWrites(srv, checks)
	t.registerSurveys(srv, checks)
	t.registerLifecycle(srv, checks) // lifecycle.go
	t.registerPrompts(srv)
	srv.AddReceivingMiddleware(checkEnums(checks))
}

// registerWrites registers the tools that write, and those that read
// what they made.
func (t *tools) registerWrites(srv *mcp.Server, checks map[string]enums) {
	addTool(srv, checks, &mcp.Tool{Name: ToolCreateProject, Annotations: additive,
		Description: "Create a draft project for a client (the client's id, its name, or the start of the only name that " +
			"begins with it; otherwise an error lists the candidates). The account's required governance items, default " +
			"rate table and payment term come with it. Returns the project with its pricing summary."},
		t.createProject, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolUpdateProject, Annotations: overwrites,
		Description: "Change a project's name, client, line of business or texts (executive summary, solution " +
			"summary, out of scope). Only the arguments given change; an empty text clears it. Returns the project " +
			"with its pricing summary."},
		t.updateProject, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolAddServiceToProject, Annotations: additive,
		Description: "Add a catalog service (its id or name) to a project: its hours, subservices, phase and " +
			"resource come from the catalog, at the project's rate table. quantity defaults to 1; phase (a phase of " +
			"the project or of the catalog), resource (a resource of the project or of the catalog) and location " +
			"(a location of the project) replace what the catalog gives, each by id or name. Returns the new line " +
			"and the project's new contract revenue."},
		t.addService, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolUpdateProjectService, Annotations: overwrites,
		Description: "Change a service line of a project: its quantity, unit hours, phase, resource or location " +
			"(phase and resource of the project or of the catalog, location of the project, each by id or name; an empty " +
			"one clears it). Fix a wrong or doubled line with this or " + ToolRemoveProjectItem + ", never by adding " +
			"another line. The line is its id, or its name when no other line has it. Returns the line and the " +
			"project's new contract revenue."},
		t.updateProjectService, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolRemoveProjectItem, Annotations: removes,
		Description: "Remove an item from a project: a service line (with its subservices), a phase, a location, a " +
			"governance line, an expense or a product, by its id (from " + ToolListProjectItems + ") or its name when " +
			"no other item of the type has it. Returns what was removed and the project's new contract revenue."},
		t.removeProjectItem, enums{"type": removableTypes()})
	addTool(srv, checks, &mcp.Tool{Name: ToolApplyBlueprint, Annotations: additive,
		Description: "Add every active service of a catalog blueprint (its id or name) to a project, each with the " +
			"blueprint's quantity. Returns the new lines and the project's new contract revenue."},
		t.applyBlueprint, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolReviewProjectScope, Annotations: readOnly,
		Description: "Review a project's scope before its SOW is sent: findings to act on (service lines with 0 " +
			"hours or no resource, service lines that repeat another, phases without services, missing governance, a " +
			"margin below an approval threshold, hours or rates that differ from the catalog), the approval steps " +
			"submitting it would need with their approvers, and its price. ready is true only without findings."},
		t.reviewProjectScope, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolGenerateDocument, Annotations: additive,
		Description: "Generate a project document: a SOW from a document template (its id or name; every account " +
			"has the built-in \"Standard SOW\"), optionally with a PDF, a pricing or breakdown workbook, or a change order's " +
			"document (type change_order with change_order_id, from the built-in \"Standard change order\"). The " +
			"document is queued; wait (seconds, at most 25) waits for it to finish. Returns the document."},
		t.generateDocument, enums{"type": t.enum(views.TypeProjectDocuments, views.NameDocumentType)})
	addTool(srv, checks, &mcp.Tool{Name: ToolGetDocumentText, Annotations: readOnly,
		Description: "The text of a finished SOW document as Markdown (headings and tables kept), to read back " +
			"what was generated: a Word SOW's body, a PowerPoint SOW's slides, an Excel SOW's sheets."},
		t.getDocumentText, nil)
}

// enums are the allowed values of a tool's string arguments, by argument.
type enums map[string][]string

// checkEnums refuses a tool call whose argument is not one of its allowed
// values (checks: by tool) with a tool error naming the argument and the
// values, before the SDK's schema check would refuse it less plainly.
func checkEnums(checks map[string]enums) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if !ok || call.Params == nil || len(checks[call.Params.Name]) == 0 {
				return next(ctx, method, req)
			}
			var args map[string]json.RawMessage
			if json.Unmarshal(call.Params.Arguments, &args) != nil {
				return next(ctx, method, req) // the SDK's check answers
			}
			for _, arg := range slices.Sorted(maps.Keys(checks[call.Params.Name])) {
				var v string
				allowed := checks[call.Params.Name][arg]
				if raw, ok := args[arg]; ok && json.Unmarshal(raw, &v) == nil && !slices.Contains(allowed, v) {
					res := &mcp.CallToolResult{}
					res.SetError(argError(arg, "%q is not one of %s", v, orList(allowed)))
					return res, nil
				}
			}
			return next(ctx, method, req)
		}
	}
}

// orList is "a, b or c" of the non-blank values.
func orList(values []string) string {
	vs := slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == "" })
	if len(vs) < 2 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

// enum returns the allowed values of an attribute, as declared.
func (t *tools) enum(typ, attr string) []string {
	if def, ok := t.s.Svc.Schema().Lookup(typ); ok {
		if a, ok := def.Attr(attr); ok {
			return a.Enum
		}
	}
	panic(fmt.Sprintf("mcpadapter: %s has no attribute %s", typ, attr))
}

// guard is the permission that guards a type (to read it at view level,
// to write it at manage level).
func (t *tools) guard(typ string) string {
	def, ok := t.s.Svc.Schema().Lookup(typ)
	if !ok {
		panic("mcpadapter: no type " + typ)
	}
	return def.Guard
}

// addTool registers a typed tool with the schemas of its Go types,
// inferred as the SDK does but with four types described as they are on
// the wire: pricing.Fixed is a decimal string, an ID a string or an
// integer, a Decimal a string or a number, an AnswerValue any value; arguments in en list their
// allowed values (and "", as if not given, for an optional one), which
// checks records for checkEnums.
func addTool[In, Out any](srv *mcp.Server, checks map[string]enums, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out], en enums) {
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[pricing.Fixed](): {Type: "string", Description: "a decimal number"},
		reflect.TypeFor[ID]():            {Types: []string{"string", "integer"}},
		reflect.TypeFor[Decimal]():       {Types: []string{"string", "number"}},
		reflect.TypeFor[AnswerValue]():   {Description: "any JSON value"},
	}}
	in, err := jsonschema.For[In](opts)
	if err != nil {
		panic(fmt.Sprintf("mcpadapter: input schema of %s: %v", tool.Name, err))
	}
	for arg, values := range en {
		p, ok := in.Properties[arg]
		if !ok || len(values) == 0 {
			panic(fmt.Sprintf("mcpadapter: %s has no argument %s to list values of", tool.Name, arg))
		}
		if !slices.Contains(in.Required, arg) {
			p.Enum = append(p.Enum, "") // blank: as if not given
		}
		for _, v := range values {
			p.Enum = append(p.Enum, v)
		}
		if checks[tool.Name] == nil {
			checks[tool.Name] = enums{}
		}
		for _, v := range p.Enum {
			checks[tool.Name][arg] = append(checks[tool.Name][arg], v.(string))
		}
	}
	out, err := jsonschema.For[Out](opts)
	if err != nil {
		panic(fmt.Sprintf("mcpadapter: output schema of %s: %v", tool.Name, err))
	}
	tool.InputSchema, tool.OutputSchema = in, out
	mcp.AddTool(srv, tool, h)
}

// ID is a record id argument. Ids look like numbers, and assistants send
// them as JSON strings or integers: both are accepted. Arguments that
// also take a name are IDs too.
type ID string

// UnmarshalJSON accepts a JSON string or number.
func (id *ID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = ID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("an id must be a string or an integer")
	}
	*id = ID(n.String())
	return nil
}

// Decimal is a decimal number argument, sent as a JSON string or number.
type Decimal string

// UnmarshalJSON accepts a JSON string or number.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	var id ID
	if err := id.UnmarshalJSON(b); err != nil {
		return errors.New("a decimal must be a string or a number")
	}
	*d = Decimal(id)
	return nil
}

// argError is a bad tool argument: "invalid argument <name>: <why>".
func argError(arg, format string, args ...any) error {
	return fmt.Errorf("invalid argument %s: %s", arg, fmt.Sprintf(format, args...))
}

// fail turns a use case's error into the tool error the assistant reads.
// Internal errors are logged and shown only as "internal error"; a
// cancelled call is not an internal error.
func (t *tools) fail(err error) error { return t.failWrite(err, nil) }

// failWrite is fail for a write whose attributes and relationships are
// the tool's arguments by the names in args (attribute or relationship →
// argument): a validation error names the argument. Several errors are
// reported together.
func (t *tools) failWrite(err error, args map[string]string) error {
	if errors.Is(err, context.Canceled) {
		// the client cancelled the call or went away: nothing went wrong
		// here, and no one may read the answer
		t.s.log().Info("mcp: tool call cancelled", "err", err)
		return errors.New("cancelled: the call was cancelled before it finished")
	}
	var e *scopekit.Error
	var es scopekit.Errors
	if !errors.As(err, &e) && !errors.As(err, &es) {
		t.s.log().Error("mcp: tool failed", "err", err)
		return errors.New("internal error")
	}
	list := scopekit.List(err)
	e = list[0]
	switch e.Code {
	case scopekit.ENOTFOUND:
		return fmt.Errorf("not found: %s", e.Message)
	case scopekit.EFORBIDDEN:
		return fmt.Errorf("forbidden: %s", e.Message)
	case scopekit.EUNAUTHORIZED:
		return errors.New("unauthorized: the access token is no longer valid")
	case scopekit.ECONFLICT:
		return fmt.Errorf("conflict: %s", e.Message)
	case scopekit.EBADREQUEST, scopekit.EINVALID:
		msgs := make([]string, 0, len(list))
		for _, e := range list {
			msgs = append(msgs, invalidText(e, args))
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	t.s.log().Error("mcp: tool failed", "err", err)
	return errors.New("internal error")
}

// invalidText is the text of one validation error, naming the argument
// behind its parameter or field where there is one.
func invalidText(e *scopekit.Error, args map[string]string) string {
	name, arg := e.Parameter, ""
	if name != "" {
		arg = argName(name)
	} else if e.Field != "" {
		name = path.Base(e.Field)
		arg = args[name]
	}
	if arg == "" {
		return "invalid: " + e.Message
	}
	// the name as a word: "project" in "projects 9" is not the argument's
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	return argError(arg, "%s", word.ReplaceAllLiteralString(e.Message, arg)).Error()
}

// searchArgs maps project list filters to the tool's argument names.
var searchArgs = map[string]string{
	"name": "query", "status": "status", "client": "client",
	"created-after": "created_after", "created-before": "created_before",
	"approved-after": "approved_after", "approved-before": "approved_before",
}

// argName names the tool argument behind a filter or query parameter of
// the list use case (filter created-after is created_after).
func argName(param string) string {
	if a, ok := searchArgs[param]; ok {
		return a
	}
	return strings.ReplaceAll(param, "-", "_")
}

// opts are the engine options of the tools: errors name filters by the
// tool's argument names.
var opts = engine.Options{FilterParam: argName}

// responseFormat checks a response_format argument; "" is concise.
func responseFormat(v string) (detailed bool, err error) {
	switch v {
	case "", Concise:
		return false, nil
	case Detailed:
		return true, nil
	}
	return false, argError("response_format", "%q is not one of %s or %s", v, Concise, Detailed) // as checkEnums says
}

// caller starts a tool about one record: the id argument arg, and who
// calls.
func (t *tools) caller(ctx context.Context, req *mcp.CallToolRequest, arg string, v ID) (string, *engine.Actor, error) {
	id, err := requireID(arg, v)
	if err != nil {
		return "", nil, err
	}
	a, err := t.ses.actor(ctx, req)
	if err != nil {
		return "", nil, t.fail(err)
	}
	return id, a, nil
}

func requireID(arg string, id ID) (string, error) {
	v := strings.TrimSpace(string(id))
	if v == "" {
		return "", argError(arg, "is required")
	}
	return v, nil
}
