package responsesjudge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// wireRequest is a Responses request in the OpenAI SDK's types, input
// item by item.
//
// The SDK's own request type cannot judge a body: ResponseNewParams and
// its unions decode leniently (an unknown member is dropped without a
// word) and ResponseNewParams drops the input union whole. So the top level
// is this struct, decoded with unknown fields refused, its members in the
// SDK's response-side types, and each input item and content part is
// decoded into the SDK type of its variant, whose JSON.ExtraFields holds
// any member the SDK does not know (extraFields reports them).
type wireRequest struct {
	Model             string                         `json:"model"`
	Input             json.RawMessage                `json:"input"`
	Instructions      string                         `json:"instructions,omitempty"`
	Tools             []responses.FunctionTool       `json:"tools,omitempty"`
	ToolChoice        json.RawMessage                `json:"tool_choice,omitempty"`
	MaxOutputTokens   int64                          `json:"max_output_tokens,omitempty"`
	Reasoning         *shared.Reasoning              `json:"reasoning,omitempty"`
	Store             *bool                          `json:"store,omitempty"`
	Include           []responses.ResponseIncludable `json:"include,omitempty"`
	Stream            bool                           `json:"stream,omitempty"`
	Temperature       *float64                       `json:"temperature,omitempty"`
	TopP              *float64                       `json:"top_p,omitempty"`
	ParallelToolCalls *bool                          `json:"parallel_tool_calls,omitempty"`
	Metadata          map[string]string              `json:"metadata,omitempty"`
	User              string                         `json:"user,omitempty"`
	SafetyIdentifier  string                         `json:"safety_identifier,omitempty"`
	PromptCacheKey    string                         `json:"prompt_cache_key,omitempty"`
	Text              *responses.ResponseTextConfig  `json:"text,omitempty"`
	Truncation        string                         `json:"truncation,omitempty"`
	ServiceTier       string                         `json:"service_tier,omitempty"`
	StreamOptions     *struct {
		IncludeObfuscation *bool `json:"include_obfuscation,omitempty"`
	} `json:"stream_options,omitempty"`

	// Items are the input items, each the SDK type of its variant
	// (*responses.ResponseReasoningItem, ...); a string input is one
	// *responses.EasyInputMessage.
	Items []any `json:"-"`
}

// judge decodes every request u got with the SDK's types, refusing any
// member they do not have, and returns them; it fails the test too when
// the mock refused one.
func judge(t *testing.T, u *llmtest.ResponsesUpstream) []wireRequest {
	t.Helper()
	var out []wireRequest
	for i, r := range u.Requests() {
		w, err := decodeRequest(r.Body)
		if err != nil {
			t.Fatalf("request %d is not one the OpenAI SDK reads: %v\n%s", i+1, err, r.Body)
		}
		if r.Status != http.StatusOK {
			t.Fatalf("the mock refused request %d: %s", i+1, r.ErrorMessage)
		}
		out = append(out, w)
	}
	return out
}

// decodeRequest reads one body strictly.
func decodeRequest(body []byte) (wireRequest, error) {
	var w wireRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return w, err
	}
	extra := extraFields(reflect.ValueOf(w), "")
	var text string
	if json.Unmarshal(w.Input, &text) == nil {
		w.Items = []any{&responses.EasyInputMessage{Role: "user"}}
		return w, joinExtra(extra)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(w.Input, &items); err != nil {
		return w, fmt.Errorf("input: %v", err)
	}
	for i, raw := range items {
		item, err := decodeItem(raw, fmt.Sprintf("input[%d]", i), &extra)
		if err != nil {
			return w, err
		}
		w.Items = append(w.Items, item)
	}
	return w, joinExtra(extra)
}

// decodeItem decodes an input item into the SDK type of its variant, and
// its content parts into theirs, adding what the SDK did not know to
// extra.
func decodeItem(raw json.RawMessage, path string, extra *[]string) (any, error) {
	var head struct {
		Type, Role, ID, Status string
		Content, Output        json.RawMessage
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var item any
	switch {
	case head.Type == "reasoning":
		item = &responses.ResponseReasoningItem{}
	case head.Type == "function_call":
		item = &responses.ResponseFunctionToolCall{}
	case head.Type == "function_call_output":
		item = &responses.ResponseInputItemFunctionCallOutput{}
	case head.Type != "" && head.Type != "message":
		return nil, fmt.Errorf("%s: an item of type %q", path, head.Type)
	case head.Role == "assistant" && head.ID != "":
		item = &responses.ResponseOutputMessage{}
	case head.Status != "":
		item = &responses.ResponseInputItemMessage{}
	default:
		item = &responses.EasyInputMessage{}
	}
	if err := json.Unmarshal(raw, item); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	*extra = append(*extra, extraFields(reflect.ValueOf(item), path)...)
	if head.Type == "function_call_output" {
		return item, decodeParts(head.Output, path+".output", outputParts, extra)
	}
	if head.Type == "reasoning" {
		return item, nil
	}
	return item, decodeParts(head.Content, path+".content", contentParts, extra)
}

// contentParts are the SDK types of a message's content parts, by type.
var contentParts = map[string]reflect.Type{
	"input_text":  reflect.TypeFor[responses.ResponseInputText](),
	"input_image": reflect.TypeFor[responses.ResponseInputImage](),
	"input_file":  reflect.TypeFor[responses.ResponseInputFile](),
	"output_text": reflect.TypeFor[responses.ResponseOutputText](),
	"refusal":     reflect.TypeFor[responses.ResponseOutputRefusal](),
}

// outputParts are the SDK types of the parts of a function_call_output
// given as an array (ResponseFunctionCallOutputItemUnion's variants), by
// type.
var outputParts = map[string]reflect.Type{
	"input_text":  reflect.TypeFor[responses.ResponseInputTextContent](),
	"input_image": reflect.TypeFor[responses.ResponseInputImageContent](),
	"input_file":  reflect.TypeFor[responses.ResponseInputFileContent](),
}

// decodeParts decodes each part of an array, when parts is one, into the
// SDK type types gives for its type, adding what the SDK did not know to
// extra. A string has no parts.
func decodeParts(parts json.RawMessage, path string, types map[string]reflect.Type, extra *[]string) error {
	var list []json.RawMessage
	if json.Unmarshal(parts, &list) != nil {
		return nil
	}
	for j, raw := range list {
		var p struct{ Type string }
		json.Unmarshal(raw, &p)
		at := fmt.Sprintf("%s[%d]", path, j)
		typ, ok := types[p.Type]
		if !ok {
			return fmt.Errorf("%s: a part of type %q", at, p.Type)
		}
		part := reflect.New(typ).Interface()
		if err := json.Unmarshal(raw, part); err != nil {
			return fmt.Errorf("%s: %v", at, err)
		}
		*extra = append(*extra, extraFields(reflect.ValueOf(part), at)...)
	}
	return nil
}

func joinExtra(extra []string) error {
	if len(extra) == 0 {
		return nil
	}
	return fmt.Errorf("members the SDK does not know: %s", strings.Join(extra, ", "))
}

// extraFields returns the path of every member the SDK did not know in a
// value it decoded: its types keep them in JSON.ExtraFields. Unions keep
// none, so a caller walks their variants itself.
func extraFields(v reflect.Value, path string) []string {
	var out []string
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			out = extraFields(v.Elem(), path)
		}
	case reflect.Slice:
		for i := range v.Len() {
			out = append(out, extraFields(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Name == "JSON" {
				if extra := v.Field(i).FieldByName("ExtraFields"); extra.IsValid() {
					for _, k := range extra.MapKeys() {
						out = append(out, strings.TrimPrefix(path+"."+k.String(), "."))
					}
				}
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || name == "" {
				name = f.Name
			}
			out = append(out, extraFields(v.Field(i), strings.TrimPrefix(path+"."+name, "."))...)
		}
	}
	return out
}

// TestTheJudgeRefusesWhatTheSDKDoesNotKnow: a member the SDK has no field
// for, at the top, in an item or in a part, is named; what the SDK sends
// is not.
func TestTheJudgeRefusesWhatTheSDKDoesNotKnow(t *testing.T) {
	good := `{"model":"gpt-5","store":false,"reasoning":{"effort":"low","summary":"auto"},"input":[` +
		`{"role":"user","content":[{"type":"input_text","text":"hi"}]},` +
		`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":"gAAAA"},` +
		`{"type":"function_call","id":"fc_1","call_id":"c","name":"Bash","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"c","output":"ok"}]}`
	if _, err := decodeRequest([]byte(good)); err != nil {
		t.Fatalf("refused %v", err)
	}
	for _, tc := range []struct{ old, new, want string }{
		{`"store":false`, `"store":false,"thinking":{}`, `unknown field "thinking"`},
		{`"summary":"auto"`, `"summary":"auto","budget":1`, "reasoning.budget"},
		{`"arguments":"{}"`, `"arguments":"{}","signature":"s"`, "input[2].signature"},
		{`"text":"hi"`, `"text":"hi","cache_control":{}`, "input[0].content[0].cache_control"},
		{`"output":"ok"`, `"output":[{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,JVBE","source":{}}]`, "input[3].output[0].source"},
		{`"output":"ok"`, `"output":[{"type":"document"}]`, `input[3].output[0]: a part of type "document"`},
	} {
		_, err := decodeRequest([]byte(strings.Replace(good, tc.old, tc.new, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.new, err)
		}
	}
}
