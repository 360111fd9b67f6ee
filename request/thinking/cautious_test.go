package thinking

import (
	"testing"
)

const disabled = `"thinking":{"type":"disabled"}`

func TestRewriteCautiously(t *testing.T) {
	tests := []rewriteCase{
		{
			name:    "a history that needs nothing stays byte for byte",
			in:      obj(model, messages(user("hi"), assistant(th("", "own"), text("x")), user("go")), enabled),
			actions: []Action{Keep},
			want:    obj(model, messages(user("hi"), assistant(th("", "own"), text("x")), user("go")), enabled),
			res:     Result{Kept: 1},
		},
		{
			name:    "an older turn losing its thinking keeps thinking on",
			in:      obj(messages(user("hi"), assistant(th("", "old"), text("x")), user("more"), assistant(th("", "own"), text("y")), user("go")), adaptive),
			actions: []Action{Strip, Keep},
			want:    obj(messages(user("hi"), assistant(text("x")), user("more"), assistant(th("", "own"), text("y")), user("go")), adaptive),
			res:     Result{Kept: 1, Stripped: 1},
		},
		{
			name:    "the latest assistant message losing thinking turns thinking off, adaptive too",
			in:      obj(messages(user("hi"), assistant(th("", "refused"), text("x")), user("go")), adaptive, clearOnly),
			actions: []Action{Strip},
			want:    obj(messages(user("hi"), assistant(text("x")), user("go"))),
			res:     Result{Stripped: 1, DroppedThinkingConfig: true, ToolLoopRule: true},
		},
		{
			name:    "a tool loop the client sent without leading thinking turns thinking off",
			in:      obj(messages(user("do"), assistant(toolUse("t1")), toolResult("t1")), enabled),
			actions: []Action{},
			want:    obj(messages(user("do"), assistant(toolUse("t1")), toolResult("t1"))),
			res:     Result{DroppedThinkingConfig: true, ToolLoopRule: true},
		},
		{
			name:    "with thinking off, the final turn loses its thinking and clear_thinking goes",
			in:      obj(messages(user("do"), assistant(th("", "own"), toolUse("t1")), toolResult("t1")), disabled, clearOnly),
			actions: []Action{Keep},
			want:    obj(messages(user("do"), assistant(toolUse("t1")), toolResult("t1"))),
			res:     Result{Stripped: 1},
		},
		{
			name:    "with thinking off, a trailing assistant message loses its thinking",
			in:      obj(messages(user("do"), assistant(th("", "own"), text("prefill"))), disabled),
			actions: []Action{Keep},
			want:    obj(messages(user("do"), assistant(text("prefill"))), disabled),
			res:     Result{Stripped: 1},
		},
		{
			name:    "no assistant message ends in thinking, even one no action touched",
			in:      obj(messages(user("hi"), assistant(text("x"), th("", "own")), user("go"))),
			actions: []Action{Keep},
			want:    obj(messages(user("hi"), assistant(text("x"), th("", "own"), placeholder), user("go"))),
			res:     Result{Kept: 1},
		},
	}
	runRewriteCases(t, tests, (*Request).RewriteCautiously)
}
