package mcpadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// checkArguments is a receiving middleware of both transports: it checks
// the arguments of a tools/call against the tool's input schema before
// the SDK's own check, so that a bad argument is a tool error that names
// it and says what it must be ("invalid argument limit: must be an
// integer, not \"ten\"") instead of the schema validator's text, which
// shows Go values. Arguments that are not an object are invalid params.
func checkArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		schema := inputSchema(ctx, next, call)
		if schema == nil { // an unknown tool: the SDK answers -32602 naming it
			return next(ctx, method, req)
		}
		args := map[string]any{}
		if raw := call.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, &jsonrpc.Error{Code: CodeInvalidParams, Message: "invalid params: arguments must be an object"}
			}
			if args, ok = v.(map[string]any); !ok {
				return nil, &jsonrpc.Error{Code: CodeInvalidParams, Message: "invalid params: arguments must be an object, not " + describeValue(v)}
			}
		}
		if msg := argumentProblem(call.Params.Name, schema, args); msg != "" {
			res := &mcp.CallToolResult{}
			res.SetError(fmt.Errorf("%s", msg))
			return res, nil
		}
		return next(ctx, method, req)
	}
}

// inputSchema returns the input schema of the tool a call names, as the
// server lists it; nil for an unknown tool or a schema of another form.
func inputSchema(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest) *jsonschema.Schema {
	res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: call.Session, Params: &mcp.ListToolsParams{}, Extra: call.Extra})
	if err != nil {
		return nil
	}
	list, _ := res.(*mcp.ListToolsResult)
	if list == nil {
		return nil
	}
	for _, t := range list.Tools {
		if t.Name == call.Params.Name {
			s, _ := t.InputSchema.(*jsonschema.Schema)
			return s
		}
	}
	return nil
}

// argumentProblem returns the first problem of args under the tool's
// input schema, as "invalid argument NAME: ...", or "" when there is none
// it can name (the SDK's own check still runs).
func argumentProblem(tool string, schema *jsonschema.Schema, args map[string]any) string {
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if _, ok := schema.Properties[name]; !ok && schema.AdditionalProperties != nil {
			if !valid(schema.AdditionalProperties, args[name]) {
				return fmt.Sprintf("invalid argument %s: unknown argument; %s takes %s", name, tool,
					strings.Join(slices.Sorted(maps.Keys(schema.Properties)), ", "))
			}
		}
	}
	for _, name := range schema.Required {
		if _, ok := args[name]; !ok {
			return fmt.Sprintf("invalid argument %s: is required", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if prop, ok := schema.Properties[name]; ok && !valid(prop, args[name]) {
			return fmt.Sprintf("invalid argument %s: must be %s, not %s", name, describeSchema(prop), describeValue(args[name]))
		}
	}
	return ""
}

// valid reports whether v satisfies s; a schema that does not resolve on
// its own (a $ref) is left to the SDK's check.
func valid(s *jsonschema.Schema, v any) bool {
	r, err := s.Resolve(nil)
	if err != nil {
		return true
	}
	return r.Validate(v) == nil
}

// describeSchema says in words what a value of s must be.
func describeSchema(s *jsonschema.Schema) string {
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = describeValue(e)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	var words []string
	for _, t := range types {
		switch t {
		case "boolean":
			words = append(words, "true or false")
		case "null":
			words = append(words, "null")
		case "array":
			if s.Items != nil {
				words = append(words, "an array whose items are each "+describeSchema(s.Items))
			} else {
				words = append(words, "an array")
			}
		default:
			words = append(words, article(t)+" "+t+bounds(s, t))
		}
	}
	if len(words) == 0 {
		return "a value the tool's input schema allows"
	}
	return strings.Join(words, " or ")
}

// bounds describes the range of a number schema.
func bounds(s *jsonschema.Schema, t string) string {
	if t != "integer" && t != "number" {
		return ""
	}
	switch {
	case s.Minimum != nil && s.Maximum != nil:
		return fmt.Sprintf(" from %g to %g", *s.Minimum, *s.Maximum)
	case s.Minimum != nil:
		return fmt.Sprintf(" of at least %g", *s.Minimum)
	case s.Maximum != nil:
		return fmt.Sprintf(" of at most %g", *s.Maximum)
	}
	return ""
}

// honestCapabilities is a receiving middleware that keeps the server from
// declaring what it cannot do: over stateless HTTP with JSON answers it
// can send no notification, so it declares no logging and no list
// changes (its tools and prompts are fixed anyway).
func honestCapabilities(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var caps *mcp.ServerCapabilities
		switch r := res.(type) {
		case *mcp.InitializeResult:
			caps = r.Capabilities
		case *mcp.DiscoverResult:
			caps = r.Capabilities
		}
		if caps != nil {
			caps.Logging = nil
			if caps.Tools != nil {
				caps.Tools.ListChanged = false
			}
			if caps.Prompts != nil {
				caps.Prompts.ListChanged = false
			}
			if caps.Resources != nil {
				caps.Resources.ListChanged, caps.Resources.Subscribe = false, false
			}
		}
		return res, err
	}
}
