package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The request of the Responses API as a ResponsesUpstream reads it: the
// parameters the transport may send, each item type it may send back, and
// their members; anything else is refused as OpenAI refuses it, by path.

// respRequest is a Responses request.
type respRequest struct {
	model   string
	stream  bool
	store   *bool
	encrypt bool // include asks for reasoning.encrypted_content
	summary string
	tools   []string // the function tools' names
	none    bool     // tool_choice "none": the model calls no tool
	items   []respItem
	echo    object // the request, for the parameters the response repeats
}

// respItem is one input item.
type respItem struct {
	kind      string // message, function_call, function_call_output, reasoning, item_reference
	role      string
	id        string
	text      string // a message's text, its parts joined
	callID    string
	encrypted *string // nil when absent or null
}

// respParameters are the parameters the mock knows, with their kinds;
// model and input are read apart.
var respParameters = []struct{ name, kind string }{
	{"instructions", "string"}, {"tools", "array"}, {"max_output_tokens", "integer"}, {"reasoning", "object"},
	{"store", "boolean"}, {"include", "array"}, {"stream", "boolean"}, {"temperature", "number"}, {"top_p", "number"},
	{"parallel_tool_calls", "boolean"}, {"metadata", "object"}, {"user", "string"}, {"safety_identifier", "string"},
	{"prompt_cache_key", "string"}, {"text", "object"}, {"truncation", "string"}, {"service_tier", "string"},
	{"stream_options", "object"}, {"tool_choice", ""},
}

// respIncludables are the values include takes.
var respIncludables = []string{"file_search_call.results", "web_search_call.results", "web_search_call.action.sources",
	"message.input_image.image_url", "computer_call_output.output.image_url", "code_interpreter_call.outputs",
	"reasoning.encrypted_content", "message.output_text.logprobs"}

// parseRespRequest reads a body strictly; it returns OpenAI's refusal of
// a body it refuses.
func parseRespRequest(body []byte) (*respRequest, *respErr) {
	if !json.Valid(body) {
		return nil, &respErr{status: http.StatusBadRequest, msg: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. " +
			"The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, " +
			"please contact us through our help center at help.openai.com.)"}
	}
	top, e := readObject(body, "")
	if e != nil {
		return nil, e
	}
	known := []string{"model", "input"}
	for _, p := range respParameters {
		known = append(known, p.name)
	}
	if e := top.only(known...); e != nil {
		return nil, e
	}
	for _, p := range respParameters {
		if p.kind != "" {
			if e := top.kind(p.name, p.kind); e != nil {
				return nil, e
			}
		}
	}
	req := &respRequest{echo: top}
	if req.model, e = top.str("model", true); e != nil {
		return nil, e
	}
	json.Unmarshal(top.m["stream"], &req.stream)
	if !isNull(top.m["store"]) {
		req.store = new(bool)
		json.Unmarshal(top.m["store"], req.store)
	}
	for _, read := range []func(*respRequest, object) *respErr{readMaxOutputTokens, readReasoning, readInclude, readTools, readSettings, readInput} {
		if e := read(req, top); e != nil {
			return nil, e
		}
	}
	return req, nil
}

func readReasoning(req *respRequest, top object) *respErr {
	if isNull(top.m["reasoning"]) {
		return nil
	}
	r, e := readObjectOf(top.m["reasoning"], "reasoning", "effort", "summary")
	if e != nil {
		return e
	}
	effort, e := r.str("effort", false)
	if e != nil {
		return e
	}
	if !oneOf(effort, "", "none", "minimal", "low", "medium", "high", "xhigh") {
		return invalidValue("reasoning.effort", effort, "none", "minimal", "low", "medium", "high", "xhigh")
	}
	if req.summary, e = r.str("summary", false); e != nil {
		return e
	}
	if !oneOf(req.summary, "", "auto", "concise", "detailed") {
		return invalidValue("reasoning.summary", req.summary, "auto", "concise", "detailed")
	}
	return nil
}

func readInclude(req *respRequest, top object) *respErr {
	include, _ := top.array("include")
	for i, raw := range include {
		var v string
		path := fmt.Sprintf("include[%d]", i)
		if json.Unmarshal(raw, &v) != nil {
			return invalidType(path, "a string", raw)
		}
		if !oneOf(v, respIncludables...) {
			return invalidValue(path, v, respIncludables...)
		}
		req.encrypt = req.encrypt || v == "reasoning.encrypted_content"
	}
	return nil
}

// readTools reads the function tools, the only tools the mock offers.
func readTools(req *respRequest, top object) *respErr {
	tools, _ := top.array("tools")
	for i, raw := range tools {
		t, e := readObjectOf(raw, fmt.Sprintf("tools[%d]", i), "type", "name", "description", "parameters", "strict")
		if e != nil {
			return e
		}
		typ, e := t.str("type", true)
		if e != nil {
			return e
		}
		if typ != "function" {
			return invalidValue(t.at("type"), typ, "function")
		}
		name, e := t.str("name", true)
		if e != nil {
			return e
		}
		for _, k := range []struct{ name, kind string }{{"description", "string"}, {"parameters", "object"}, {"strict", "boolean"}} {
			if e := t.kind(k.name, k.kind); e != nil {
				return e
			}
		}
		req.tools = append(req.tools, name)
	}
	return nil
}

// readSettings checks the members of text and stream_options, and the
// values of truncation and tool_choice.
func readSettings(req *respRequest, top object) *respErr {
	for _, o := range []struct {
		name  string
		known []string
	}{{"text", []string{"format", "verbosity"}}, {"stream_options", []string{"include_obfuscation"}}} {
		if isNull(top.m[o.name]) {
			continue
		}
		if _, e := readObjectOf(top.m[o.name], o.name, o.known...); e != nil {
			return e
		}
	}
	if t, _ := top.str("truncation", false); !oneOf(t, "", "auto", "disabled") {
		return invalidValue("truncation", t, "auto", "disabled")
	}
	raw := top.m["tool_choice"]
	if isNull(raw) || kindOf(raw) == "an object" {
		return nil
	}
	var choice string
	if json.Unmarshal(raw, &choice) != nil {
		return invalidType("tool_choice", "one of a string or object", raw)
	}
	if !oneOf(choice, "none", "auto", "required") {
		return invalidValue("tool_choice", choice, "none", "auto", "required")
	}
	req.none = choice == "none"
	return nil
}

// readInput reads input: a string, one user message, or an array of
// items.
func readInput(req *respRequest, top object) *respErr {
	raw := top.m["input"]
	if isNull(raw) {
		return missingParameter("input")
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		req.items = []respItem{{kind: "message", role: "user", text: text}}
		return nil
	}
	items, e := top.array("input")
	if e != nil {
		return invalidType("input", "one of a string or array of objects", raw)
	}
	if len(items) == 0 {
		return &respErr{status: http.StatusBadRequest, code: "empty_array", param: "input",
			msg: "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead."}
	}
	for i, raw := range items {
		it, e := readItem(raw, fmt.Sprintf("input[%d]", i))
		if e != nil {
			return e
		}
		req.items = append(req.items, it)
	}
	return nil
}

// readItem reads one input item at path.
func readItem(raw json.RawMessage, path string) (respItem, *respErr) {
	o, e := readObject(raw, path)
	if e != nil {
		return respItem{}, e
	}
	var it respItem
	if it.kind, e = o.str("type", false); e != nil {
		return it, e
	}
	if it.kind == "" {
		if _, role := o.m["role"]; !role {
			return it, missingParameter(o.at("type"))
		}
		it.kind = "message"
	}
	switch it.kind {
	case "message":
		if it, e = readMessage(o, it); e != nil {
			return it, e
		}
	case "function_call":
		if e := o.only("type", "id", "call_id", "name", "arguments", "status"); e != nil {
			return it, e
		}
		if it.callID, e = o.str("call_id", true); e != nil {
			return it, e
		}
		if _, e = o.str("name", true); e != nil {
			return it, e
		}
		if _, e = o.str("arguments", true); e != nil {
			return it, e
		}
	case "function_call_output":
		if e := o.only("type", "id", "call_id", "output", "status"); e != nil {
			return it, e
		}
		if it.callID, e = o.str("call_id", true); e != nil {
			return it, e
		}
		if isNull(o.m["output"]) {
			return it, missingParameter(o.at("output"))
		}
		if k := kindOf(o.m["output"]); k != "a string" && k != "an array" {
			return it, invalidType(o.at("output"), "one of a string or array of objects", o.m["output"])
		}
		if e := readOutputParts(o); e != nil {
			return it, e
		}
	case "reasoning":
		// A reasoning item's status is output only: sent back, even null,
		// it is an unknown parameter (openai/openai-agents-python#3026).
		if e := o.only("type", "id", "summary", "encrypted_content", "content"); e != nil {
			return it, e
		}
		if e := readSummary(o); e != nil {
			return it, e
		}
		if !isNull(o.m["encrypted_content"]) {
			s, e := o.str("encrypted_content", false)
			if e != nil {
				return it, e
			}
			it.encrypted = &s
		}
	case "item_reference":
		if e := o.only("type", "id"); e != nil {
			return it, e
		}
	default:
		return it, invalidValue(o.at("type"), it.kind, "message", "function_call", "function_call_output", "reasoning", "item_reference")
	}
	// A reasoning item may come without its id, as OpenAI's Codex sends
	// them with store false: its encrypted content says which it is.
	it.id, e = o.str("id", it.kind == "item_reference")
	return it, e
}

// readSummary checks a reasoning item's summary and content parts.
func readSummary(o object) *respErr {
	if isNull(o.m["summary"]) {
		return missingParameter(o.at("summary"))
	}
	for _, list := range []struct{ name, typ string }{{"summary", "summary_text"}, {"content", "reasoning_text"}} {
		parts, e := o.array(list.name)
		if e != nil {
			return e
		}
		for j, raw := range parts {
			p, e := readObjectOf(raw, fmt.Sprintf("%s[%d]", o.at(list.name), j), "type", "text")
			if e != nil {
				return e
			}
			typ, e := p.str("type", true)
			if e != nil {
				return e
			}
			if typ != list.typ {
				return invalidValue(p.at("type"), typ, list.typ)
			}
			if _, e := p.str("text", true); e != nil {
				return e
			}
		}
	}
	return nil
}

// readMessage reads a message item, in its easy form (role and content
// only) or whole: an assistant's carries the id and status it was
// answered with, its parts are output_text and refusal; the others' are
// input parts.
func readMessage(o object, it respItem) (respItem, *respErr) {
	var e *respErr
	if it.role, e = o.str("role", true); e != nil {
		return it, e
	}
	if !oneOf(it.role, "user", "assistant", "system", "developer") {
		return it, invalidValue(o.at("role"), it.role, "assistant", "system", "developer", "user")
	}
	known := []string{"type", "role", "content", "status"}
	if it.role == "assistant" {
		known = append(known, "id", "phase")
	}
	if e := o.only(known...); e != nil {
		return it, e
	}
	raw := o.m["content"]
	if isNull(raw) {
		return it, missingParameter(o.at("content"))
	}
	if json.Unmarshal(raw, &it.text) == nil {
		return it, nil
	}
	parts, e := o.array("content")
	if e != nil {
		return it, invalidType(o.at("content"), "one of a string or array of objects", raw)
	}
	var text strings.Builder
	for j, raw := range parts {
		s, e := readPart(raw, fmt.Sprintf("%s[%d]", o.at("content"), j), it.role == "assistant")
		if e != nil {
			return it, e
		}
		text.WriteString(s)
	}
	it.text = text.String()
	return it, nil
}

// readPart reads one content part and returns its text.
func readPart(raw json.RawMessage, path string, assistant bool) (string, *respErr) {
	p, e := readObject(raw, path)
	if e != nil {
		return "", e
	}
	typ, e := p.str("type", true)
	if e != nil {
		return "", e
	}
	members := map[string][]string{
		"input_text":  {"type", "text"},
		"input_image": {"type", "image_url", "file_id", "detail"},
		"input_file":  {"type", "file_id", "file_data", "file_url", "filename", "detail"},
		"output_text": {"type", "text", "annotations", "logprobs"},
		"refusal":     {"type", "refusal"},
	}
	allowed := []string{"input_text", "input_image", "input_file"}
	if assistant {
		allowed = []string{"output_text", "refusal"}
	}
	if !oneOf(typ, allowed...) {
		return "", invalidValue(path, typ, allowed...)
	}
	if e := p.only(members[typ]...); e != nil {
		return "", e
	}
	switch typ {
	case "input_text", "output_text":
		return p.str("text", true)
	case "refusal":
		_, e := p.str("refusal", true)
		return "", e
	case "input_image":
		url, e := p.str("image_url", false)
		if e != nil {
			return "", e
		}
		if id, _ := p.str("file_id", false); url == "" && id == "" {
			return "", missingParameter(p.at("image_url"))
		}
		if url != "" && !strings.HasPrefix(url, "data:image/") && !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
			return "", &respErr{status: http.StatusBadRequest, code: "invalid_value", param: p.at("image_url"),
				msg: fmt.Sprintf("Invalid image URL: '%s'. Expected a base64-encoded data URL with an image MIME type "+
					"(e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an invalid URL.", p.at("image_url"))}
		}
		if d, _ := p.str("detail", false); !oneOf(d, "", "low", "high", "auto") {
			return "", invalidValue(p.at("detail"), d, "low", "high", "auto")
		}
	case "input_file":
		return "", readFilePart(p, path)
	}
	return "", nil
}

func oneOf(s string, set ...string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}
