package thinking

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Builders for compact request bodies, so expected outputs can be spelled
// out byte for byte.
func obj(members ...string) string { return "{" + strings.Join(members, ",") + "}" }
func messages(ms ...string) string { return `"messages":[` + strings.Join(ms, ",") + "]" }
func user(text string) string {
	return fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%q}]}`, text)
}
func assistant(blocks ...string) string {
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + "]}"
}
func th(text, sig string) string {
	return fmt.Sprintf(`{"type":"thinking","thinking":%q,"signature":%q}`, text, sig)
}
func red(data string) string { return fmt.Sprintf(`{"type":"redacted_thinking","data":%q}`, data) }
func text(s string) string   { return fmt.Sprintf(`{"type":"text","text":%q}`, s) }
func toolUse(id string) string {
	return fmt.Sprintf(`{"type":"tool_use","id":%q,"name":"Bash","input":{}}`, id)
}
func toolResult(id string) string {
	return fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"ok"}]}`, id)
}

const (
	model     = `"model":"claude-sonnet-4-5"`
	enabled   = `"thinking":{"budget_tokens":31999,"type":"enabled","display":"omitted"}`
	adaptive  = `"thinking":{"type":"adaptive","display":"omitted"}`
	clearOnly = `"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}`
	stream    = `"stream":true`
)

// rewriteCase is a body, the actions for its blocks, and what a rewrite
// must make of them.
type rewriteCase struct {
	name    string
	in      string
	actions []Action
	want    string
	res     Result
}

// runRewriteCases checks each case with rewrite, Rewrite or
// RewriteCautiously: the exact body, the result, and valid JSON.
func runRewriteCases(t *testing.T, tests []rewriteCase, rewrite func(*Request, []Action) ([]byte, Result, error)) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			defer req.Release()
			out, res, err := rewrite(req, tt.actions)
			if err != nil {
				t.Fatalf("rewrite: %v", err)
			}
			if string(out) != tt.want {
				t.Errorf("body\n got %s\nwant %s", out, tt.want)
			}
			if res != tt.res {
				t.Errorf("result = %+v, want %+v", res, tt.res)
			}
			if !json.Valid(out) {
				t.Errorf("output is not valid JSON")
			}
		})
	}
}

func TestRewrite(t *testing.T) {
	tests := []rewriteCase{
		{
			name:    "nothing foreign leaves the body as it is",
			in:      obj(model, messages(user("hi"), assistant(th("a", "s1"), text("x")), user("go")), enabled),
			actions: []Action{Keep},
			want:    obj(model, messages(user("hi"), assistant(th("a", "s1"), text("x")), user("go")), enabled),
			res:     Result{Kept: 1},
		},
		{
			name:    "strip a foreign block from history, keep our own byte for byte",
			in:      obj(model, messages(user("hi"), assistant(th("a", "s1"), text("x")), user("more"), assistant(th("b", "own"), text("y")), user("go")), enabled),
			actions: []Action{Strip, Keep},
			want:    obj(model, messages(user("hi"), assistant(text("x")), user("more"), assistant(th("b", "own"), text("y")), user("go")), enabled),
			res:     Result{Kept: 1, Stripped: 1},
		},
		{
			name:    "an assistant message left empty gets a placeholder",
			in:      obj(messages(user("hi"), assistant(th("a", "s1")), user("go")), stream),
			actions: []Action{Strip},
			want:    obj(messages(user("hi"), assistant(placeholder), user("go")), stream),
			res:     Result{Stripped: 1},
		},
		{
			name:    "the final assistant message may stay empty",
			in:      obj(messages(user("hi"), assistant(red("r1")))),
			actions: []Action{Strip},
			want:    obj(messages(user("hi"), assistant())),
			res:     Result{Stripped: 1},
		},
		{
			name:    "an edited message never ends in thinking",
			in:      obj(messages(user("hi"), assistant(th("own", "s0"), th("foreign", "s1")), user("go"))),
			actions: []Action{Keep, Strip},
			want:    obj(messages(user("hi"), assistant(th("own", "s0"), placeholder), user("go"))),
			res:     Result{Kept: 1, Stripped: 1},
		},
		{
			name:    "convert to text reuses the escaped literal",
			in:      obj(messages(user("hi"), assistant(th("line 1\n\"quoted\" <b>é", "s1"), text("x")), user("go"))),
			actions: []Action{ConvertToText},
			want:    obj(messages(user("hi"), assistant(text("line 1\n\"quoted\" <b>é"), text("x")), user("go"))),
			res:     Result{Converted: 1},
		},
		{
			name:    "convert to tags",
			in:      obj(messages(user("hi"), assistant(th("plan\nact", "s1"), text("x")), user("go"))),
			actions: []Action{ConvertToTags},
			want:    obj(messages(user("hi"), assistant(text("<think>plan\nact</think>"), text("x")), user("go"))),
			res:     Result{Converted: 1},
		},
		{
			name:    "conversions strip what they cannot use: omitted text, whitespace, redacted data",
			in:      obj(messages(user("hi"), assistant(th("", "s1"), th(" \n", "s2"), red("r"), text("x")), user("go"))),
			actions: []Action{ConvertToText, ConvertToTags, ConvertToText},
			want:    obj(messages(user("hi"), assistant(text("x")), user("go"))),
			res:     Result{Stripped: 3},
		},
		{
			name:    "drop signature keeps the rest of the block",
			in:      obj(messages(user("hi"), assistant(`{"signature":"s1","type":"thinking","thinking":"a"}`, `{"type":"thinking","signature":"s2","thinking":"b"}`, th("c", "s3"), text("x")), user("go"))),
			actions: []Action{DropSignature, DropSignature, DropSignature},
			want:    obj(messages(user("hi"), assistant(`{"type":"thinking","thinking":"a"}`, `{"type":"thinking","thinking":"b"}`, `{"type":"thinking","thinking":"c"}`, text("x")), user("go"))),
			res:     Result{Converted: 3},
		},
		{
			name:    "tool loop losing its leading thinking drops the thinking config and clear_thinking",
			in:      obj(model, messages(user("do it"), assistant(th("", "glm"), toolUse("t1")), toolResult("t1")), enabled, clearOnly, stream),
			actions: []Action{Strip},
			want:    obj(model, messages(user("do it"), assistant(toolUse("t1")), toolResult("t1")), stream),
			res:     Result{Stripped: 1, DroppedThinkingConfig: true, ToolLoopRule: true},
		},
		{
			name:    "a trailing system message does not hide the tool loop",
			in:      obj(messages(user("do it"), assistant(th("", "glm"), toolUse("t1")), toolResult("t1"), `{"role":"system","content":[{"type":"text","text":"env"}]}`), enabled),
			actions: []Action{Strip},
			want:    obj(messages(user("do it"), assistant(toolUse("t1")), toolResult("t1"), `{"role":"system","content":[{"type":"text","text":"env"}]}`)),
			res:     Result{Stripped: 1, DroppedThinkingConfig: true, ToolLoopRule: true},
		},
		{
			name:    "the rest of the loop's thinking goes with the config",
			in:      obj(messages(user("do it"), assistant(th("", "glm"), toolUse("t1")), toolResult("t1"), assistant(th("", "own"), toolUse("t2")), toolResult("t2")), enabled),
			actions: []Action{Strip, Keep},
			want:    obj(messages(user("do it"), assistant(toolUse("t1")), toolResult("t1"), assistant(toolUse("t2")), toolResult("t2"))),
			res:     Result{Stripped: 2, DroppedThinkingConfig: true, ToolLoopRule: true},
		},
		{
			name:    "a converted block in the loop counts as stripped when the loop is repaired",
			in:      obj(messages(user("do it"), assistant(th("x", "glm"), toolUse("t1")), toolResult("t1"), assistant(th("y", "other"), toolUse("t2")), toolResult("t2")), enabled),
			actions: []Action{ConvertToText, DropSignature},
			want:    obj(messages(user("do it"), assistant(text("x"), toolUse("t1")), toolResult("t1"), assistant(toolUse("t2")), toolResult("t2"))),
			res:     Result{Stripped: 1, Converted: 1, DroppedThinkingConfig: true, ToolLoopRule: true},
		},
		{
			name:    "a later message of the loop may lose its thinking: the API only checks the first",
			in:      obj(messages(user("do it"), assistant(th("", "own"), toolUse("t1")), toolResult("t1"), assistant(th("", "glm"), toolUse("t2")), toolResult("t2")), enabled),
			actions: []Action{Keep, Strip},
			want:    obj(messages(user("do it"), assistant(th("", "own"), toolUse("t1")), toolResult("t1"), assistant(toolUse("t2")), toolResult("t2")), enabled),
			res:     Result{Kept: 1, Stripped: 1},
		},
		{
			name:    "adaptive thinking is repaired like enabled: the config goes, never turned into another type",
			in:      obj(messages(user("do it"), assistant(th("", "glm"), toolUse("t1")), toolResult("t1")), adaptive, clearOnly),
			actions: []Action{Strip},
			want:    obj(messages(user("do it"), assistant(toolUse("t1")), toolResult("t1"))),
			res:     Result{Stripped: 1, DroppedThinkingConfig: true, ToolLoopRule: true},
		},
		{
			name:    "the target's own reasoning kept as tags leaves a tool loop its thinking",
			in:      obj(messages(user("do it"), assistant(th("plan", "llmthinking.v1.m"), toolUse("t1")), toolResult("t1")), enabled, clearOnly),
			actions: []Action{KeepAsTags},
			want:    obj(messages(user("do it"), assistant(text("<think>plan</think>"), toolUse("t1")), toolResult("t1")), enabled, clearOnly),
			res:     Result{Kept: 1, AsTags: 1},
		},
		{
			name:    "outside a tool loop the config stays",
			in:      obj(messages(user("q"), assistant(th("", "glm"), toolUse("t1")), toolResult("t1"), assistant(text("done")), user("next")), enabled),
			actions: []Action{Strip},
			want:    obj(messages(user("q"), assistant(toolUse("t1")), toolResult("t1"), assistant(text("done")), user("next")), enabled),
			res:     Result{Stripped: 1},
		},
		{
			name:    "other context edits survive",
			in:      obj(enabled, `"context_management":{"edits":[{"type":"clear_tool_uses_20250919"},{"type":"clear_thinking_20251015","keep":"all"}]}`, messages(user("do"), assistant(th("", "glm"), toolUse("t1")), toolResult("t1"))),
			actions: []Action{Strip},
			want:    obj(`"context_management":{"edits":[{"type":"clear_tool_uses_20250919"}]}`, messages(user("do"), assistant(toolUse("t1")), toolResult("t1"))),
			res:     Result{Stripped: 1, DroppedThinkingConfig: true, ToolLoopRule: true},
		},
		{
			name:    "config members removed from the front of the object",
			in:      obj(enabled, clearOnly, messages(user("do"), assistant(th("", "glm"), toolUse("t1")), toolResult("t1"))),
			actions: []Action{Strip},
			want:    obj(messages(user("do"), assistant(toolUse("t1")), toolResult("t1"))),
			res:     Result{Stripped: 1, DroppedThinkingConfig: true, ToolLoopRule: true},
		},
		{
			name:    "config members removed from the end of the object",
			in:      obj(messages(user("do"), assistant(th("", "glm"), toolUse("t1")), toolResult("t1")), clearOnly, enabled),
			actions: []Action{Strip},
			want:    obj(messages(user("do"), assistant(toolUse("t1")), toolResult("t1"))),
			res:     Result{Stripped: 1, DroppedThinkingConfig: true, ToolLoopRule: true},
		},
		{
			name:    "escaped keys are keys",
			in:      `{"messages":[{"role":"assistant","content":[{"\u0074ype":"thinking","thinking":"a","signature":"s"},{"type":"text","text":"x"}]},{"role":"user","content":"go"}]}`,
			actions: []Action{Strip},
			want:    `{"messages":[{"role":"assistant","content":[{"type":"text","text":"x"}]},{"role":"user","content":"go"}]}`,
			res:     Result{Stripped: 1},
		},
	}
	runRewriteCases(t, tests, (*Request).Rewrite)
}

func TestRewriteWithNothingToChangeReturnsTheSameBytes(t *testing.T) {
	in := []byte(obj(messages(user("hi"), assistant(th("a", "s1"), text("x")), user("go"))))
	req := mustParse(t, in)
	out, _, err := req.Rewrite([]Action{Keep})
	if err != nil {
		t.Fatal(err)
	}
	if &out[0] != &in[0] {
		t.Fatal("an unchanged body was copied")
	}
}

func TestRewriteLeavesInvalidJSONUntouched(t *testing.T) {
	// Structurally sound, but a string holds a raw control character.
	in := []byte(obj(messages(user("hi"), assistant(th("a", "s1"), `{"type":"text","text":"bad`+"\x01"+`"}`), user("go"))))
	req, err := Parse(in)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	out, res, err := req.Rewrite([]Action{Strip})
	if !errors.Is(err, ErrInvalidJSON) {
		t.Fatalf("err = %v, want ErrInvalidJSON", err)
	}
	if string(out) != string(in) || res.Changed() {
		t.Fatalf("invalid body was edited: %s (%+v)", out, res)
	}
}

func TestRewriteNeedsOneActionPerBlock(t *testing.T) {
	req := mustParse(t, []byte(obj(messages(assistant(th("a", "s"), text("x"))))))
	if _, _, err := req.Rewrite(nil); err == nil {
		t.Fatal("Rewrite accepted too few actions")
	}
}
