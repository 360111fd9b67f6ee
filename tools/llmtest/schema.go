package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// The Messages API validates a request's shape before its thinking, and
// quotes what it does not know back in its message: an unknown block type
// ("messages.2.content.0: Input tag 'drive_file' found using 'type' does not
// match any of the expected tags: ...", seen in many gateways' trackers,
// e.g. dirac-run/dirac #57 for a tool's type), a field a block does not
// have ("messages.1.content.0.thinking.foo: Extra inputs are not
// permitted", the pydantic path the API writes), an unknown beta
// ("Unexpected value(s) `x` for the `anthropic-beta` header. ..."). A
// client can so make the API say anything it likes; the gateway must not
// take it for the server's word (see policy's evidence).
const (
	msgInputTag     = "%s: Input tag '%s' found using 'type' does not match any of the expected tags: %s"
	msgExtraInputs  = "%s.%s: Extra inputs are not permitted"
	msgToolName     = "tools.%d.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"
	msgUnknownBeta  = "Unexpected value(s) `%s` for the `anthropic-beta` header. Please consult our documentation at docs.anthropic.com or try again without the header."
	contentTags     = "'bash_code_execution_tool_result', 'code_execution_tool_result', 'container_upload', 'document', 'image', 'mcp_tool_result', 'mcp_tool_use', 'redacted_thinking', 'search_result', 'server_tool_use', 'text', 'text_editor_code_execution_tool_result', 'thinking', 'tool_result', 'tool_use', 'web_fetch_tool_result', 'web_search_tool_result'"
	systemTags      = "'text'"
	toolTags        = "'bash_20250124', 'code_execution_20250825', 'custom', 'memory_20250818', 'text_editor_20250728', 'web_fetch_20250910', 'web_search_20250305'"
	thinkingFields  = "type thinking signature cache_control"
	redactedFields  = "type data cache_control"
	betaNamePattern = `^[a-z0-9-]+$`
)

var (
	toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)
	betaNameRE = regexp.MustCompile(betaNamePattern)
)

// tagList reads a list of tags as the API writes it.
func tagList(tags string) []string {
	var out []string
	for _, t := range strings.Split(tags, ", ") {
		out = append(out, strings.Trim(t, "'"))
	}
	return out
}

// schemaRule returns the message of the first shape the API refuses in
// req, or "": unknown block types in messages and system, unknown tool
// types and names that break the API's pattern, fields a thinking block
// does not have.
func schemaRule(req *request) string {
	content, thinking, redacted := tagList(contentTags), strings.Fields(thinkingFields), strings.Fields(redactedFields)
	for i, m := range req.messages {
		for j, b := range m.blocks {
			at := fmt.Sprintf("messages.%d.content.%d", i, j)
			if !slices.Contains(content, b.typ) {
				return fmt.Sprintf(msgInputTag, at, b.typ, contentTags)
			}
			allowed := map[string][]string{"thinking": thinking, "redacted_thinking": redacted}[b.typ]
			for _, k := range sortedKeys(b.fields) {
				if allowed != nil && !slices.Contains(allowed, k) {
					return fmt.Sprintf(msgExtraInputs, at+"."+b.typ, k)
				}
			}
		}
	}
	var system []map[string]json.RawMessage
	if json.Unmarshal(req.system, &system) == nil {
		for i, b := range system {
			var typ string
			json.Unmarshal(b["type"], &typ)
			if typ != "text" {
				return fmt.Sprintf(msgInputTag, fmt.Sprintf("system.%d", i), typ, systemTags)
			}
		}
	}
	var tools []map[string]json.RawMessage
	json.Unmarshal(req.tools, &tools)
	for i, t := range tools {
		var typ, name string
		json.Unmarshal(t["type"], &typ)
		json.Unmarshal(t["name"], &name)
		if _, typed := t["type"]; typed && !slices.Contains(tagList(toolTags), typ) {
			return fmt.Sprintf(msgInputTag, fmt.Sprintf("tools.%d", i), typ, toolTags)
		}
		if (typ == "" || typ == "custom") && !toolNameRE.MatchString(name) {
			return fmt.Sprintf(msgToolName, i)
		}
	}
	return ""
}

// betaRule returns the message of the 400 the API answers a request whose
// anthropic-beta header names a beta that cannot exist, or "". Betas are
// names of lower-case letters, digits and dashes; the mock takes any such
// name, as it cannot know which the API has.
func betaRule(h http.Header) string {
	for _, v := range h.Values("Anthropic-Beta") {
		for _, beta := range strings.Split(v, ",") {
			if beta = strings.TrimSpace(beta); beta != "" && !betaNameRE.MatchString(beta) {
				return fmt.Sprintf(msgUnknownBeta, beta)
			}
		}
	}
	return ""
}

// sortedKeys returns the keys of m in order, so that the first refused is
// always the same.
func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
