package thinking

import "testing"

func TestOmissions(t *testing.T) {
	const (
		mixedEdits = `"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"},{"type":"clear_tool_uses_20250919"}]}`
		toolsEdit  = `"context_management":{"edits":[{"type":"clear_tool_uses_20250919"}]}`
	)
	history := messages(user("hi"), assistant(th("", "own"), text("x")), user("go"))
	loop := messages(user("do"), assistant(th("", "own"), toolUse("t1")), toolResult("t1"))
	omitting := func(o Omission) func(*Request, []Action) ([]byte, Result, error) {
		return func(r *Request, a []Action) ([]byte, Result, error) {
			r.Omit(o)
			return r.Rewrite(a)
		}
	}
	for _, tc := range []struct {
		omit  Omission
		cases []rewriteCase
	}{
		{OmitThinking, []rewriteCase{{
			name:    "the model cannot think",
			in:      obj(model, loop, enabled, clearOnly, stream),
			actions: []Action{Strip},
			want:    obj(model, messages(user("do"), assistant(toolUse("t1")), toolResult("t1")), stream),
			res:     Result{Stripped: 1, DroppedThinkingConfig: true, Omitted: OmitThinking},
		}, {
			name:    "other context edits stay",
			in:      obj(model, history, adaptive, mixedEdits),
			actions: []Action{Strip},
			want:    obj(model, messages(user("hi"), assistant(text("x")), user("go")), `"context_management":{"edits":[{"type":"clear_tool_uses_20250919"}]}`),
			res:     Result{Stripped: 1, DroppedThinkingConfig: true, Omitted: OmitThinking},
		}, {
			name:    "nothing to leave out",
			in:      obj(model, messages(user("hi")), stream),
			actions: []Action{},
			want:    obj(model, messages(user("hi")), stream),
		}}},
		{OmitContextManagement, []rewriteCase{{
			name:    "context management goes, signed blocks stay as they were",
			in:      obj(model, history, enabled, mixedEdits, stream),
			actions: []Action{Keep},
			want:    obj(model, history, enabled, stream),
			res:     Result{Kept: 1, Omitted: OmitContextManagement},
		}}},
		{OmitClearThinking, []rewriteCase{{
			name:    "only clear_thinking edits go",
			in:      obj(model, history, enabled, mixedEdits),
			actions: []Action{Keep},
			want:    obj(model, history, enabled, `"context_management":{"edits":[{"type":"clear_tool_uses_20250919"}]}`),
			res:     Result{Kept: 1, Omitted: OmitClearThinking},
		}, {
			name:    "and context management with them when nothing else is left",
			in:      obj(model, history, enabled, clearOnly),
			actions: []Action{Keep},
			want:    obj(model, history, enabled),
			res:     Result{Kept: 1, Omitted: OmitClearThinking},
		}, {
			name:    "no clear_thinking edit: nothing to do",
			in:      obj(model, history, enabled, toolsEdit),
			actions: []Action{Keep},
			want:    obj(model, history, enabled, toolsEdit),
			res:     Result{Kept: 1},
		}}},
		{OmitThinkingDisplay, []rewriteCase{{
			name:    "display goes, the rest of the config stays",
			in:      obj(model, history, enabled),
			actions: []Action{Keep},
			want:    obj(model, history, `"thinking":{"budget_tokens":31999,"type":"enabled"}`),
			res:     Result{Kept: 1, Omitted: OmitThinkingDisplay},
		}, {
			name:    "only display",
			in:      obj(`"thinking":{"display":"omitted"}`, model, history),
			actions: []Action{Keep},
			want:    obj(`"thinking":{}`, model, history),
			res:     Result{Kept: 1, Omitted: OmitThinkingDisplay},
		}}},
		{OmitThinkingOff, []rewriteCase{{
			name:    "a model that always thinks is not told to stop",
			in:      obj(model, messages(user("hi")), `"thinking":{"type":"disabled"}`, stream),
			actions: []Action{},
			want:    obj(model, messages(user("hi")), stream),
			res:     Result{Omitted: OmitThinkingOff},
		}, {
			name:    "thinking on stays as it is",
			in:      obj(model, history, enabled),
			actions: []Action{Keep},
			want:    obj(model, history, enabled),
			res:     Result{Kept: 1},
		}}},
		{OmitContextManagement | OmitThinkingDisplay | OmitClearThinking, []rewriteCase{{
			name:    "several at once",
			in:      obj(model, history, enabled, clearOnly, stream),
			actions: []Action{Keep},
			want:    obj(model, history, `"thinking":{"budget_tokens":31999,"type":"enabled"}`, stream),
			res:     Result{Kept: 1, Omitted: OmitContextManagement | OmitThinkingDisplay | OmitClearThinking},
		}}},
	} {
		runRewriteCases(t, tc.cases, omitting(tc.omit))
		runRewriteCases(t, tc.cases, func(r *Request, a []Action) ([]byte, Result, error) {
			r.Omit(tc.omit)
			out, res, err := r.RewriteCautiously(a)
			return out, res, err
		})
	}
}
