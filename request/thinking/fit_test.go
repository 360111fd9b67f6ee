package thinking

import "testing"

func TestRetype(t *testing.T) {
	const (
		maxTokens = `"max_tokens":32000`
		small     = `"max_tokens":1000`
		history   = `"messages":[{"role":"user","content":"hi"}]`
	)
	retyping := func(typ string) func(*Request, []Action) ([]byte, Result, error) {
		return func(r *Request, a []Action) ([]byte, Result, error) {
			r.Retype(typ)
			return r.Rewrite(a)
		}
	}
	runRewriteCases(t, []rewriteCase{{
		name: "enabled goes adaptive, its budget as effort",
		in:   obj(model, history, maxTokens, enabled, clearOnly, stream),
		want: obj(model, history, maxTokens, `"output_config":{"effort":"high"},"thinking":{"type":"adaptive","display":"omitted"}`, clearOnly, stream),
		res:  Result{Retyped: "adaptive"},
	}, {
		name: "a small budget is a low effort",
		in:   obj(model, history, `"thinking":{"type":"enabled","budget_tokens":2048}`),
		want: obj(model, history, `"output_config":{"effort":"low"},"thinking":{"type":"adaptive"}`),
		res:  Result{Retyped: "adaptive"},
	}, {
		name: "into the output_config there is",
		in:   obj(model, history, `"thinking":{"type":"enabled","budget_tokens":10000}`, `"output_config":{"format":{"type":"json_schema"}}`),
		want: obj(model, history, `"thinking":{"type":"adaptive"}`, `"output_config":{"effort":"medium","format":{"type":"json_schema"}}`),
		res:  Result{Retyped: "adaptive"},
	}, {
		name: "an effort the request sets stays",
		in:   obj(model, history, enabled, `"output_config":{"effort":"max"}`),
		want: obj(model, history, `"thinking":{"type":"adaptive","display":"omitted"}`, `"output_config":{"effort":"max"}`),
		res:  Result{Retyped: "adaptive"},
	}, {
		name: "adaptive already",
		in:   obj(model, history, adaptive, `"output_config":{"effort":"high"}`),
		want: obj(model, history, adaptive, `"output_config":{"effort":"high"}`),
	}, {
		name: "thinking off stays off",
		in:   obj(model, history, `"thinking":{"type":"disabled"}`),
		want: obj(model, history, `"thinking":{"type":"disabled"}`),
	}}, retyping("adaptive"))

	runRewriteCases(t, []rewriteCase{{
		name: "adaptive goes enabled, with Claude Code's budget for effort high",
		in:   obj(model, history, maxTokens, adaptive, clearOnly, `"output_config":{"effort":"high"}`, stream),
		want: obj(model, history, maxTokens, `"thinking":{"type":"enabled","budget_tokens":31999,"display":"omitted"}`, clearOnly, `"output_config":{"effort":"high"}`, stream),
		res:  Result{Retyped: "enabled"},
	}, {
		name: "a low effort is a small budget",
		in:   obj(model, history, maxTokens, adaptive, `"output_config":{"effort":"low"}`),
		want: obj(model, history, maxTokens, `"thinking":{"type":"enabled","budget_tokens":4096,"display":"omitted"}`, `"output_config":{"effort":"low"}`),
		res:  Result{Retyped: "enabled"},
	}, {
		name: "the budget stays below max_tokens",
		in:   obj(model, history, `"max_tokens":8000`, adaptive),
		want: obj(model, history, `"max_tokens":8000`, `"thinking":{"type":"enabled","budget_tokens":7999,"display":"omitted"}`),
		res:  Result{Retyped: "enabled"},
	}, {
		name: "no room for a budget: without thinking",
		in:   obj(model, history, small, adaptive, clearOnly),
		want: obj(model, history, small),
		res:  Result{DroppedThinkingConfig: true, Omitted: OmitThinking},
	}, {
		name: "enabled already",
		in:   obj(model, history, maxTokens, enabled),
		want: obj(model, history, maxTokens, enabled),
	}}, retyping("enabled"))
}

func TestRetypeWithoutDisplay(t *testing.T) {
	runRewriteCases(t, []rewriteCase{{
		name: "both at once",
		in:   obj(model, `"messages":[]`, enabled),
		want: obj(model, `"messages":[]`, `"output_config":{"effort":"high"},"thinking":{"type":"adaptive"}`),
		res:  Result{Retyped: "adaptive", Omitted: OmitThinkingDisplay},
	}}, func(r *Request, a []Action) ([]byte, Result, error) {
		r.Retype("adaptive")
		r.Omit(OmitThinkingDisplay)
		return r.Rewrite(a)
	})
}

// filled is the unsigned thinking block a message gets whose filler is
// what (see messagesapi.AppendFiller).
func filled(what string) string { return th("Step without its reasoning: "+what, "") }

func TestWantThinkingBack(t *testing.T) {
	fill := filled("called Bash {} (t1).")
	backing := func(tb ThinkingBack) func(*Request, []Action) ([]byte, Result, error) {
		return func(r *Request, a []Action) ([]byte, Result, error) {
			r.WantThinkingBack(tb)
			return r.Rewrite(a)
		}
	}
	loop := func(first string) string {
		return messages(user("do"), assistant(first, toolUse("t1")), toolResult("t1"))
	}
	runRewriteCases(t, []rewriteCase{{
		name:    "a tool call message whose thinking was another backend's",
		in:      obj(model, loop(th("", "anthropic")), enabled, clearOnly),
		actions: []Action{Strip},
		want:    obj(model, messages(user("do"), assistant(fill, toolUse("t1")), toolResult("t1")), enabled, clearOnly),
		res:     Result{Stripped: 1, Backfilled: 1},
	}, {
		name:    "its own block is all it needs",
		in:      obj(model, loop(th("mine", "kimi")), enabled),
		actions: []Action{Keep},
		want:    obj(model, loop(th("mine", "kimi")), enabled),
		res:     Result{Kept: 1},
	}, {
		name: "a tool call that never had thinking, and a text answer that needs none",
		in: obj(model, messages(user("do"), assistant(toolUse("t1")), toolResult("t1"), assistant(text("done")), user("more")),
			adaptive),
		actions: []Action{},
		want: obj(model, messages(user("do"), assistant(fill, toolUse("t1")), toolResult("t1"), assistant(text("done")), user("more")),
			adaptive),
		res: Result{Backfilled: 1},
	}, {
		name:    "thinking off: nothing is wanted",
		in:      obj(model, loop(th("", "anthropic")), `"thinking":{"type":"disabled"}`),
		actions: []Action{Strip},
		want:    obj(model, messages(user("do"), assistant(toolUse("t1")), toolResult("t1")), `"thinking":{"type":"disabled"}`),
		res:     Result{Stripped: 1},
	}, {
		name:    "a prefill is left alone",
		in:      obj(model, messages(user("do"), assistant(toolUse("t1"))), enabled),
		actions: []Action{},
		want:    obj(model, messages(user("do"), assistant(toolUse("t1"))), enabled),
	}}, backing(ThinkingBackOnToolCalls))

	runRewriteCases(t, []rewriteCase{{
		name: "every assistant message, a string content too",
		in: obj(model, messages(user("a"), assistant(th("", "anthropic"), text("x")), user("b"),
			`{"role":"assistant","content":"plain"}`, user("c")), enabled),
		actions: []Action{Strip},
		want: obj(model, messages(user("a"), assistant(filled(`answered "x".`), text("x")), user("b"),
			`{"role":"assistant","content":[`+filled(`answered "plain".`)+`,{"type":"text","text":"plain"}]}`, user("c")), enabled),
		res: Result{Stripped: 1, Backfilled: 2},
	}, {
		name:    "a message left with thinking alone ends in the placeholder",
		in:      obj(model, messages(user("a"), assistant(th("", "anthropic")), user("b")), enabled),
		actions: []Action{Strip},
		want:    obj(model, messages(user("a"), assistant(filled("no call, no text."), placeholder), user("b")), enabled),
		res:     Result{Stripped: 1, Backfilled: 1},
	}}, backing(ThinkingBackEverywhere))
}

// TestWantThinkingBackConverted: when the mode converts foreign thinking,
// the message's thinking is that text, unsigned, in place of the text.
func TestWantThinkingBackConverted(t *testing.T) {
	runRewriteCases(t, []rewriteCase{{
		name:    "converted to text",
		in:      obj(model, messages(user("do"), assistant(th("plan", "anthropic"), text("x"), toolUse("t1")), toolResult("t1")), enabled),
		actions: []Action{ConvertToText},
		want:    obj(model, messages(user("do"), assistant(th("plan", ""), text("x"), toolUse("t1")), toolResult("t1")), enabled),
		res:     Result{Converted: 1, Backfilled: 1},
	}, {
		name:    "no text to convert: the filler",
		in:      obj(model, messages(user("do"), assistant(th("", "anthropic"), toolUse("t1")), toolResult("t1")), enabled),
		actions: []Action{ConvertToText},
		want:    obj(model, messages(user("do"), assistant(filled("called Bash {} (t1)."), toolUse("t1")), toolResult("t1")), enabled),
		res:     Result{Stripped: 1, Backfilled: 1},
	}}, func(r *Request, a []Action) ([]byte, Result, error) {
		r.WantThinkingBack(ThinkingBackOnToolCalls)
		return r.Rewrite(a)
	})
}

// TestWantThinkingBackCautiously: a replay that must not be refused
// turns thinking off when the latest assistant message lost a block, as
// for any backend; the filler goes with the rest of the final turn's
// thinking, and counts for nothing.
func TestWantThinkingBackCautiously(t *testing.T) {
	runRewriteCases(t, []rewriteCase{{
		name:    "the latest message lost its block",
		in:      obj(model, messages(user("do"), assistant(th("", "anthropic"), toolUse("t1")), toolResult("t1")), enabled),
		actions: []Action{Strip},
		want:    obj(model, messages(user("do"), assistant(toolUse("t1")), toolResult("t1"))),
		res:     Result{Stripped: 1, DroppedThinkingConfig: true, ToolLoopRule: true},
	}, {
		name: "an earlier one keeps its filler",
		in: obj(model, messages(user("do"), assistant(th("", "anthropic"), toolUse("t1")), toolResult("t1"),
			assistant(th("", "kimi"), text("done")), user("more")), enabled),
		actions: []Action{Strip, Keep},
		want: obj(model, messages(user("do"), assistant(filled("called Bash {} (t1)."), toolUse("t1")), toolResult("t1"),
			assistant(th("", "kimi"), text("done")), user("more")), enabled),
		res: Result{Kept: 1, Stripped: 1, Backfilled: 1},
	}}, func(r *Request, a []Action) ([]byte, Result, error) {
		r.WantThinkingBack(ThinkingBackOnToolCalls)
		return r.RewriteCautiously(a)
	})
}
