package responses

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/dialecttest"
)

var testSigner = NewSigner(&envelope.Key{7}, "api.openai.test:443")

// translateInto translates body for gpt-5 into the memory grow gives.
func translateInto(body []byte, grow dialecttest.Grow) ([]byte, error) {
	tr, err := TranslateRequest(body, RequestOptions{Model: "gpt-5", Signer: testSigner, Grow: grow})
	return tr.Body, err
}

// sse returns the data of a Responses stream's events, as the API orders
// them, for an answer with a reasoning item of two summary parts and then
// either a function call (args in two pieces) or a message.
func apiEvents(call bool) []string {
	seq := 0
	ev := func(typ, rest string) string {
		seq++
		return fmt.Sprintf(`{"type":%q,%s,"sequence_number":%d}`, typ, rest, seq)
	}
	resp := `{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[]}`
	out := []string{
		ev("response.created", `"response":`+resp),
		ev("response.in_progress", `"response":`+resp),
		ev("response.output_item.added", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`),
		ev("response.reasoning_summary_part.added", `"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`),
		ev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**Plan**\n\nList "`),
		ev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"the files \"now\"."`),
		ev("response.reasoning_summary_text.done", `"item_id":"rs_1","output_index":0,"summary_index":0,"text":"**Plan**\n\nList the files \"now\"."`),
		ev("response.reasoning_summary_part.done", `"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"**Plan**\n\nList the files \"now\"."}`),
		ev("response.reasoning_summary_part.added", `"item_id":"rs_1","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}`),
		ev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"Then answer."`),
		ev("response.output_item.done", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**\n\nList the files \"now\"."},{"type":"summary_text","text":"Then answer."}],"encrypted_content":"gAAAAABenc-1=="}`),
	}
	if call {
		out = append(out,
			ev("response.output_item.added", `"output_index":1,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_abc","name":"Bash"}`),
			ev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":1,"delta":"{\"command\":"`),
			ev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":1,"delta":"\"ls\"}"`),
			ev("response.function_call_arguments.done", `"item_id":"fc_1","output_index":1,"arguments":"{\"command\":\"ls\"}"`),
			ev("response.output_item.done", `"output_index":1,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"command\":\"ls\"}","call_id":"call_abc","name":"Bash"}`),
			ev("response.completed", `"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[],"usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":40},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":20},"total_tokens":130}}`))
		return out
	}
	return append(out,
		ev("response.output_item.added", `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}`),
		ev("response.content_part.added", `"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}`),
		ev("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Two files","logprobs":[]`),
		ev("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":": a, b.","logprobs":[]`),
		ev("response.output_text.done", `"item_id":"msg_1","output_index":1,"content_index":0,"text":"Two files: a, b.","logprobs":[]`),
		ev("response.content_part.done", `"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":"Two files: a, b."}`),
		ev("response.output_item.done", `"output_index":1,"item":{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"Two files: a, b."}],"role":"assistant"}`),
		ev("response.completed", `"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[],"usage":{"input_tokens":100,"output_tokens":30,"total_tokens":130}}`))
}

// wholeResponse returns the JSON answer whose stream apiEvents gives.
func wholeResponse(call bool) string {
	items := `{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**\n\nList the files \"now\"."},{"type":"summary_text","text":"Then answer."}],"encrypted_content":"gAAAAABenc-1=="}`
	usage := `{"input_tokens":100,"output_tokens":30,"total_tokens":130}`
	if call {
		items += `,{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"command\":\"ls\"}","call_id":"call_abc","name":"Bash"}`
		usage = `{"input_tokens":100,"input_tokens_details":{"cached_tokens":40},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":20},"total_tokens":130}`
	} else {
		items += `,{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"Two files: a, b."}],"role":"assistant"}`
	}
	return `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[` + items + `],"usage":` + usage + `}`
}

// streamed runs the events through a Stream and returns its output.
func streamed(events []string) string {
	s := NewStream(AnswerOptions{Model: "claude-sonnet-4-5", Signer: testSigner, InputTokens: 9})
	var out []byte
	for _, e := range events {
		out = s.Chunk(out, []byte(e))
	}
	return string(s.End(out))
}

// accumulate reads a Messages stream into a message, as the SDKs do.
func accumulate(t *testing.T, stream string) map[string]any {
	t.Helper()
	var msg map[string]any
	var blocks []map[string]any
	inputs := map[int]string{}
	for _, ev := range strings.Split(strings.TrimSpace(stream), "\n\n") {
		lines := strings.SplitN(ev, "\n", 2)
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
			t.Fatalf("not an SSE event: %q", ev)
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[1], "data: ")), &d); err != nil {
			t.Fatalf("event data %q: %v", lines[1], err)
		}
		if d["type"] != strings.TrimPrefix(lines[0], "event: ") {
			t.Fatalf("event %q names another type than its data", ev)
		}
		switch d["type"] {
		case "message_start":
			msg = d["message"].(map[string]any)
		case "content_block_start":
			if int(d["index"].(float64)) != len(blocks) {
				t.Fatalf("block %v out of order", d["index"])
			}
			blocks = append(blocks, d["content_block"].(map[string]any))
		case "content_block_delta":
			i := int(d["index"].(float64))
			b, delta := blocks[i], d["delta"].(map[string]any)
			switch delta["type"] {
			case "text_delta":
				b["text"] = b["text"].(string) + delta["text"].(string)
			case "thinking_delta":
				b["thinking"] = b["thinking"].(string) + delta["thinking"].(string)
			case "signature_delta":
				b["signature"] = delta["signature"]
			case "input_json_delta":
				inputs[i] += delta["partial_json"].(string)
			}
		case "message_delta":
			for k, v := range d["delta"].(map[string]any) {
				msg[k] = v
			}
			msg["usage"] = d["usage"]
		case "error":
			msg = map[string]any{"error": d["error"]}
			return msg
		}
	}
	for i, in := range inputs {
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatalf("tool input %q: %v", in, err)
		}
		blocks[i]["input"] = v
	}
	msg["content"] = blocks
	return msg
}

func TestStreamAndWholeGiveOneMessage(t *testing.T) {
	for _, call := range []bool{true, false} {
		got := accumulate(t, streamed(apiEvents(call)))
		body, err := TranslateAnswer([]byte(wholeResponse(call)), AnswerOptions{Model: "claude-sonnet-4-5", Signer: testSigner, InputTokens: 9})
		if err != nil {
			t.Fatal(err)
		}
		var whole map[string]any
		if err := json.Unmarshal(body, &whole); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		a, _ := json.Marshal(got["content"])
		b, _ := json.Marshal(whole["content"])
		if string(a) != string(b) {
			t.Errorf("call %v: streamed %s\nwhole %s", call, a, b)
		}
		content, _ := json.Marshal(got["content"])
		th := got["content"].([]map[string]any)[0]
		if th["type"] != "thinking" || th["thinking"] != "**Plan**\n\nList the files \"now\".\n\nThen answer." ||
			!strings.HasPrefix(th["signature"].(string), "llmthinking.v1.reasoning.responses.t") {
			t.Errorf("the thinking block: %s", content)
		}
		if got["model"] != "claude-sonnet-4-5" || whole["model"] != "claude-sonnet-4-5" || whole["id"] != "msg_resp_1" {
			t.Errorf("names: %v %v %v", got["model"], whole["model"], whole["id"])
		}
		u, _ := json.Marshal(whole["usage"])
		su, _ := json.Marshal(got["usage"])
		if call {
			if got["stop_reason"] != "tool_use" || whole["stop_reason"] != "tool_use" || string(u) != `{"cache_read_input_tokens":40,"input_tokens":60,"output_tokens":30}` || string(u) != string(su) {
				t.Errorf("stop %v %v, usage %s / %s", got["stop_reason"], whole["stop_reason"], u, su)
			}
			tool := got["content"].([]map[string]any)[1]
			in, _ := json.Marshal(tool["input"])
			if tool["id"] != "call_abc" || tool["name"] != "Bash" || string(in) != `{"command":"ls"}` {
				t.Errorf("the call: %s", content)
			}
		} else if got["stop_reason"] != "end_turn" || got["content"].([]map[string]any)[1]["text"] != "Two files: a, b." {
			t.Errorf("the answer: %s", content)
		}
	}
}
