package mcpadapter

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompts: the two tasks an assistant is asked for most, offered by MCP
// clients to their users (a slash command, a menu), each naming the tools
// that do it.

// Prompt names.
const (
	PromptScopeProject  = "scopekit_scope_project"
	PromptReviewProject = "scopekit_review_before_sow"
)

func (t *tools) registerPrompts(srv *mcp.Server) {
	srv.AddPrompt(&mcp.Prompt{Name: PromptScopeProject, Title: "Scope a project from a description",
		Description: "Create a ScopeKit project from a description of the work, add the catalog services it needs, " +
			"review it and report its price.",
		Arguments: []*mcp.PromptArgument{
			{Name: "description", Title: "Description", Description: "what the client needs, in your words", Required: true},
			{Name: "client", Title: "Client", Description: "the client's name or id", Required: true},
			{Name: "name", Title: "Project name", Description: "the project's name (default: one made from the description)"},
		}}, scopeProjectPrompt)
	srv.AddPrompt(&mcp.Prompt{Name: PromptReviewProject, Title: "Review a project before sending its SOW",
		Description: "Review a ScopeKit project's scope, fix what can be fixed, generate its SOW and read it back.",
		Arguments: []*mcp.PromptArgument{
			{Name: "project", Title: "Project", Description: "the project's id or name", Required: true},
			{Name: "template", Title: "SOW template", Description: "the document template (default: Standard SOW)"},
		}}, reviewProjectPrompt)
}

// promptArg returns a prompt argument, or an error when a required one is
// missing.
func promptArg(req *mcp.GetPromptRequest, name string, required bool) (string, error) {
	v := strings.TrimSpace(req.Params.Arguments[name])
	if v == "" && required {
		return "", fmt.Errorf("the argument %s is required", name)
	}
	return v, nil
}

func scopeProjectPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	desc, err := promptArg(req, "description", true)
	if err != nil {
		return nil, err
	}
	client, err := promptArg(req, "client", true)
	if err != nil {
		return nil, err
	}
	name, _ := promptArg(req, "name", false)
	if name == "" {
		name = "a short name you make from the description"
	}
	text := fmt.Sprintf(`Scope a ScopeKit project for the client %q from this description:

%s

1. Call %s with the query of the project's likely name to make sure it does not exist yet.
2. Call %s with the name %s, the client %q and an executive_summary of the description. If the client is ambiguous or unknown, the error lists the clients: ask me which one.
3. If a catalog blueprint fits the work, call %s; then call %s for each other catalog service the work needs, with a quantity (an unknown service name is an error listing the catalog's services). Check each answer's matched: a name you gave only the start of picks the one catalog name that begins with it.
4. Call %s and fix what you can by changing or removing lines, never by adding another line beside a wrong one: a wrong quantity, hours, phase, resource or location with %s; a line that should not be there, or a duplicate_line finding, with %s (after raising the quantity of the line you keep); missing governance; services that differ from the catalog. Tell me about a margin below an approval threshold and the approval steps the project will need, with their approvers.
5. Report the project's id, its services and its price (total_contract_value, margin) from the review's pricing.`,
		client, desc, ToolSearchProjects, ToolCreateProject, name, client, ToolApplyBlueprint, ToolAddServiceToProject,
		ToolReviewProjectScope, ToolUpdateProjectService, ToolRemoveProjectItem)
	return promptResult("Scope a project from a description", text), nil
}

func reviewProjectPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	project, err := promptArg(req, "project", true)
	if err != nil {
		return nil, err
	}
	template, _ := promptArg(req, "template", false)
	if template == "" {
		template = "Standard SOW"
	}
	text := fmt.Sprintf(`Review the ScopeKit project %q before its SOW is sent.

1. If %q is not an id, find the project with %s (query).
2. Call %s. For each finding, say what it means and fix it where a tool can, changing or removing the line at fault rather than adding another (%s, %s, %s); ask me before changing what the client will see.
3. Tell me the approval steps submitting it will need and whether its margin is below an approval threshold.
4. Call %s with type sow, template %q and wait 25; when it is finished, call %s with its id.
5. Check the SOW's text: the project name, the services and the total agree with %s (total_contract_value). Report what you found and the document's id.`,
		project, project, ToolSearchProjects, ToolReviewProjectScope, ToolUpdateProject, ToolUpdateProjectService, ToolRemoveProjectItem,
		ToolGenerateDocument, template, ToolGetDocumentText, ToolGetProject)
	return promptResult("Review a project before sending its SOW", text), nil
}

func promptResult(desc, text string) *mcp.GetPromptResult {
	return &mcp.GetPromptResult{Description: desc,
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}
}
