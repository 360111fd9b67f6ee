package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// respCreated is the created_at of every answer: a fixed time keeps the
// answers reproducible.
const respCreated = 1767225600

// responsesReply is what a ResponsesUpstream answers: a reasoning item,
// then a message or function calls.
type responsesReply struct {
	id, model   string
	req         *respRequest
	reasoningID string
	summary     string // "" when no summary was asked for
	encrypted   string // "" when include did not ask for it
	msgID, text string // "" when the answer is calls
	calls       []respCall
	input       int
}

// respCall is one function call of an answer.
type respCall struct {
	id, callID, name, arguments string
}

// compose makes the n-th reply, to a key of organization org, and
// records its reasoning item. Called with u.mu held.
func (u *ResponsesUpstream) compose(req *respRequest, n int, org string) *responsesReply {
	r := &responsesReply{id: fmt.Sprintf("resp_%s_%d", u.name, n), model: req.model, req: req,
		reasoningID: fmt.Sprintf("rs_%s_%d", u.name, n), input: 100 + 10*len(req.items)}
	if req.summary != "" {
		r.summary = u.Summary(n)
	}
	tool := ""
	for _, name := range req.tools {
		if !req.none && (tool == "" || name == "Bash") {
			tool = name
		}
	}
	last := req.items[len(req.items)-1]
	if path, ok := readAsked(last, req.tools); ok && !req.none {
		args, _ := json.Marshal(map[string]string{"file_path": path})
		r.calls = []respCall{{id: fmt.Sprintf("fc_%s_%d_0", u.name, n), callID: fmt.Sprintf("call_%s_%d_0", u.name, n), name: "Read", arguments: string(args)}}
	} else if last.kind == "message" && last.role == "user" && strings.Contains(last.text, "[tool]") && tool != "" {
		calls := 1
		if strings.Contains(last.text, "[parallel]") {
			calls = 2
		}
		for k, command := range []string{"ls", "pwd"}[:calls] {
			r.calls = append(r.calls, respCall{id: fmt.Sprintf("fc_%s_%d_%d", u.name, n, k), callID: fmt.Sprintf("call_%s_%d_%d", u.name, n, k),
				name: tool, arguments: fmt.Sprintf(`{"command":%q}`, command)})
		}
	} else {
		r.msgID, r.text = fmt.Sprintf("msg_%s_%d", u.name, n), fmt.Sprintf("%s answer %d.", u.name, n)
	}
	next := r.msgID
	if next == "" {
		next = r.calls[0].id
	}
	u.issued[r.reasoningID] = org
	u.follows[next] = r.reasoningID
	if req.encrypt {
		r.encrypted = sealReasoning(respSealed{org: org, id: r.reasoningID, next: next})
	}
	return r
}

// readAsked returns the path of "[read <path>]" in the last item, a user
// message, when the request offers a Read tool (Claude Code's).
func readAsked(last respItem, tools []string) (string, bool) {
	_, rest, found := strings.Cut(last.text, "[read ")
	path, _, closed := strings.Cut(rest, "]")
	if !found || !closed || path == "" || last.kind != "message" || last.role != "user" {
		return "", false
	}
	for _, t := range tools {
		if t == "Read" {
			return path, true
		}
	}
	return "", false
}

// reasoningItem returns the reasoning item; as a stream announces it
// (whole false), without its summary and encrypted_content yet.
func (r *responsesReply) reasoningItem(whole bool) jobj {
	item := jobj{{"id", r.reasoningID}, {"type", "reasoning"}}
	summary := []any{}
	if whole && r.encrypted != "" {
		item = append(item, kv{"encrypted_content", r.encrypted})
	}
	if whole && r.summary != "" {
		summary = append(summary, jobj{{"type", "summary_text"}, {"text", r.summary}})
	}
	return append(item, kv{"summary", summary})
}

func outputText(text string) jobj {
	return jobj{{"type", "output_text"}, {"annotations", []any{}}, {"logprobs", []any{}}, {"text", text}}
}

// message returns the message item, in progress and empty or whole.
func (r *responsesReply) message(whole bool) jobj {
	status, content := "in_progress", []any{}
	if whole {
		status, content = "completed", []any{outputText(r.text)}
	}
	return jobj{{"id", r.msgID}, {"type", "message"}, {"status", status}, {"content", content}, {"role", "assistant"}}
}

// call returns function call k, in progress without its arguments or
// whole.
func (r *responsesReply) call(k int, whole bool) jobj {
	c, status, args := r.calls[k], "in_progress", ""
	if whole {
		status, args = "completed", c.arguments
	}
	return jobj{{"id", c.id}, {"type", "function_call"}, {"status", status}, {"arguments", args}, {"call_id", c.callID}, {"name", c.name}}
}

// output returns every output item, whole.
func (r *responsesReply) output() []any {
	out := []any{r.reasoningItem(true)}
	if r.text != "" {
		return append(out, r.message(true))
	}
	for k := range r.calls {
		out = append(out, r.call(k, true))
	}
	return out
}

func (r *responsesReply) usage() jobj {
	return jobj{{"input_tokens", r.input}, {"input_tokens_details", jobj{{"cached_tokens", 40}}},
		{"output_tokens", 50}, {"output_tokens_details", jobj{{"reasoning_tokens", 30}}}, {"total_tokens", r.input + 50}}
}

// echo returns a parameter of the request as it came, or def when it was
// not set.
func (r *responsesReply) echo(name string, def any) any {
	if raw := r.req.echo.m[name]; !isNull(raw) {
		return json.RawMessage(raw)
	}
	return def
}

// object returns the response object with status and output; usage only
// once the response is complete.
func (r *responsesReply) object(status string, output []any, usage bool) jobj {
	var u any
	if usage {
		u = r.usage()
	}
	return jobj{{"id", r.id}, {"object", "response"}, {"created_at", respCreated}, {"status", status}, {"background", false},
		{"error", nil}, {"incomplete_details", nil}, {"instructions", r.echo("instructions", nil)},
		{"max_output_tokens", r.echo("max_output_tokens", nil)}, {"max_tool_calls", nil}, {"model", r.model}, {"output", output},
		{"parallel_tool_calls", r.echo("parallel_tool_calls", true)}, {"previous_response_id", nil},
		{"prompt_cache_key", r.echo("prompt_cache_key", nil)},
		{"reasoning", r.echo("reasoning", jobj{{"effort", "medium"}, {"summary", nil}})},
		{"safety_identifier", r.echo("safety_identifier", nil)}, {"service_tier", "default"},
		{"temperature", r.echo("temperature", 1)},
		{"text", r.echo("text", jobj{{"format", jobj{{"type", "text"}}}, {"verbosity", "medium"}})},
		{"tool_choice", r.echo("tool_choice", "auto")}, {"tools", r.echo("tools", []any{})}, {"top_logprobs", 0},
		{"top_p", r.echo("top_p", 1)}, {"truncation", r.echo("truncation", "disabled")}, {"usage", u},
		{"user", r.echo("user", nil)}, {"metadata", r.echo("metadata", jobj{})}}
}

// json returns the whole answer.
func (r *responsesReply) json() []byte {
	b, _ := json.Marshal(r.object("completed", r.output(), true))
	return b
}

// events returns the answer as the stream's events, in the documented
// order, without their sequence numbers: the summary and the text in
// deltas of a few characters, each call's arguments in two.
func (r *responsesReply) events() []jobj {
	var ev []jobj
	add := func(typ string, members ...kv) { ev = append(ev, append(jobj{{"type", typ}}, members...)) }
	started := r.object("in_progress", []any{}, false)
	add("response.created", kv{"response", started})
	add("response.in_progress", kv{"response", started})
	add("response.output_item.added", kv{"output_index", 0}, kv{"item", r.reasoningItem(false)})
	if r.summary != "" {
		at := func(members ...kv) []kv {
			return append([]kv{{"item_id", r.reasoningID}, {"output_index", 0}, {"summary_index", 0}}, members...)
		}
		add("response.reasoning_summary_part.added", at(kv{"part", jobj{{"type", "summary_text"}, {"text", ""}}})...)
		for _, p := range pieces(r.summary, 6) {
			add("response.reasoning_summary_text.delta", at(kv{"delta", p})...)
		}
		add("response.reasoning_summary_text.done", at(kv{"text", r.summary})...)
		add("response.reasoning_summary_part.done", at(kv{"part", jobj{{"type", "summary_text"}, {"text", r.summary}}})...)
	}
	add("response.output_item.done", kv{"output_index", 0}, kv{"item", r.reasoningItem(true)})
	if r.text != "" {
		at := func(members ...kv) []kv {
			return append([]kv{{"item_id", r.msgID}, {"output_index", 1}, {"content_index", 0}}, members...)
		}
		add("response.output_item.added", kv{"output_index", 1}, kv{"item", r.message(false)})
		add("response.content_part.added", at(kv{"part", outputText("")})...)
		for _, p := range pieces(r.text, 5) {
			add("response.output_text.delta", at(kv{"delta", p}, kv{"logprobs", []any{}})...)
		}
		add("response.output_text.done", at(kv{"text", r.text}, kv{"logprobs", []any{}})...)
		add("response.content_part.done", at(kv{"part", outputText(r.text)})...)
		add("response.output_item.done", kv{"output_index", 1}, kv{"item", r.message(true)})
	}
	for k, c := range r.calls {
		add("response.output_item.added", kv{"output_index", 1 + k}, kv{"item", r.call(k, false)})
		half := len(c.arguments) / 2
		for _, p := range []string{c.arguments[:half], c.arguments[half:]} {
			add("response.function_call_arguments.delta", kv{"item_id", c.id}, kv{"output_index", 1 + k}, kv{"delta", p})
		}
		add("response.function_call_arguments.done", kv{"item_id", c.id}, kv{"output_index", 1 + k}, kv{"arguments", c.arguments})
		add("response.output_item.done", kv{"output_index", 1 + k}, kv{"item", r.call(k, true)})
	}
	add("response.completed", kv{"response", r.object("completed", r.output(), true)})
	return ev
}

// stream writes the answer as an event stream, one event per write and
// flush; a fault ends it early with its event.
func (u *ResponsesUpstream) stream(w http.ResponseWriter, rec *Received, r *responsesReply, fault *streamFault) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	var done []any // the items done so far, for a response.failed
	for k, ev := range r.events() {
		if fault != nil && k == fault.n {
			ev = r.faultEvent(fault.event, done)
		}
		typ := ev[0].v.(string)
		b, _ := json.Marshal(append(jobj{ev[0], {"sequence_number", k}}, ev[1:]...))
		u.streamEvent(w, rec, fmt.Appendf(nil, "event: %s\ndata: %s\n\n", typ, b))
		if fault != nil && k == fault.n {
			return
		}
		if typ == "response.output_item.done" {
			done = append(done, ev.get("item"))
		}
	}
}

// faultEvent returns a scripted event, its type first; a response.failed
// gets the response object, failed with its error and the items done.
func (r *responsesReply) faultEvent(event []byte, done []any) jobj {
	o, _ := readObject(event, "")
	typ, _ := o.str("type", false)
	ev := jobj{{"type", typ}}
	for _, name := range o.names {
		v := any(json.RawMessage(o.m[name]))
		switch {
		case name == "type" || name == "sequence_number":
			continue
		case name == "response" && typ == "response.failed":
			resp, _ := readObject(o.m[name], "response")
			failed := r.object("failed", append([]any{}, done...), false)
			for i := range failed {
				if failed[i].k == "error" && resp.m["error"] != nil {
					failed[i].v = json.RawMessage(resp.m["error"])
				}
			}
			v = failed
		}
		ev = append(ev, kv{name, v})
	}
	return ev
}
