package responses

import (
	"strings"
	"testing"
)

// TestStreamEnds: errors in the stream, a failed response, a cut stream,
// data that is not JSON: an error event, never message_stop after it.
func TestStreamEnds(t *testing.T) {
	events := apiEvents(false)
	for _, tt := range []struct {
		name   string
		events []string
		want   string
	}{
		{"error event", append(events[:3:3], `{"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached.","param":null,"sequence_number":4}`),
			`{"type":"error","error":{"type":"rate_limit_error","message":"Rate limit reached."}}`},
		{"failed", append(events[:5:5], `{"type":"response.failed","response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The model had an error."}}}`),
			`{"type":"error","error":{"type":"api_error","message":"The model had an error."}}`},
		{"cut", events[:6], `{"type":"error","error":{"type":"api_error","message":"the upstream's stream ended before its answer was complete"}}`},
		{"nothing", nil, `{"type":"error","error":{"type":"api_error","message":"the upstream's stream ended without an answer"}}`},
		{"not JSON", append(events[:2:2], `{"type":`), `{"type":"error","error":{"type":"api_error","message":"the upstream sent an event that is not a JSON object"}}`},
	} {
		got := streamed(tt.events)
		if !strings.HasSuffix(got, "event: error\ndata: "+tt.want+"\n\n") || strings.Contains(got, "message_stop") || strings.Count(got, "event: error") != 1 {
			t.Errorf("%s: %s", tt.name, got)
		}
	}
	// Unknown events pass over; an incomplete response is cut short.
	tail := `{"type":"response.incomplete","response":{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":7}}}`
	got := accumulate(t, streamed(append(events[:len(events)-1:len(events)-1], `{"type":"response.web_search_call.searching","item_id":"ws"}`, `{"type":"response.future_thing","x":[1]}`, tail)))
	if got["stop_reason"] != "max_tokens" || len(got["content"].([]map[string]any)) != 2 {
		t.Errorf("incomplete: %v", got)
	}
}

// TestItemsThatCameWhole: servers that send an item's summary, text or
// arguments only with output_item.done.
func TestItemsThatCameWhole(t *testing.T) {
	events := []string{
		`{"type":"response.created","response":{"id":"r"}}`,
		`{"type":"response.output_item.added","item":{"id":"rs_9","type":"reasoning"}}`,
		`{"type":"response.output_item.done","item":{"id":"rs_9","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"raw thoughts"}]}}`,
		`{"type":"response.output_item.done","item":{"id":"fc_9","type":"function_call","call_id":"call_9","name":"Read","arguments":"{\"path\":\"a\"}"}}`,
		`{"type":"response.completed","response":{"id":"r","status":"completed"}}`,
	}
	got := accumulate(t, streamed(events))
	blocks := got["content"].([]map[string]any)
	if len(blocks) != 2 || blocks[0]["thinking"] != "raw thoughts" || blocks[1]["id"] != "call_9" || blocks[1]["input"].(map[string]any)["path"] != "a" {
		t.Fatalf("%v", got)
	}
	// Reasoning text goes back as content, without encrypted content.
	body := `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"thinking","thinking":"raw thoughts","signature":"` +
		blocks[0]["signature"].(string) + `"},{"type":"text","text":"ok"}]}]}`
	if out := translate(t, body, RequestOptions{}); !strings.Contains(out, `{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"raw thoughts"}]},{"type":"message"`) {
		t.Errorf("went back as %s", out)
	}
}

func TestErrorBody(t *testing.T) {
	for _, tt := range []struct {
		status int
		body   string
		want   string
	}{
		{400, `{"error":{"message":"The encrypted content gAAA could not be verified.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`,
			`{"type":"error","error":{"type":"invalid_request_error","message":"The encrypted content gAAA could not be verified."}}`},
		{401, `{"error":{"message":"Incorrect API key provided: sk-x.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			`{"type":"error","error":{"type":"authentication_error","message":"Incorrect API key provided: sk-x."}}`},
		{429, `{"error":{"message":"Rate limit reached","type":"requests"}}`, `{"type":"error","error":{"type":"rate_limit_error","message":"Rate limit reached"}}`},
		{503, `upstream down`, `{"type":"error","error":{"type":"overloaded_error","message":"upstream down"}}`},
		{500, `{}`, `{"type":"error","error":{"type":"api_error","message":"upstream answered 500 Internal Server Error"}}`},
	} {
		if got := string(ErrorBody(tt.status, []byte(tt.body))); got != tt.want {
			t.Errorf("%d: got %s, want %s", tt.status, got, tt.want)
		}
	}
}

// TestReasoningWithNothingToCarry: a reasoning item with neither text nor
// encrypted content (a request that did not ask for them) gives no block;
// one with encrypted content alone gives an empty one, which carries it.
func TestReasoningWithNothingToCarry(t *testing.T) {
	for _, tt := range []struct {
		done   string
		blocks int
	}{
		{`{"id":"rs_1","type":"reasoning","summary":[]}`, 1},
		{`{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAAAABx"}`, 2},
	} {
		events := []string{
			`{"type":"response.created","response":{"id":"r"}}`,
			`{"type":"response.output_item.added","item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
			`{"type":"response.output_item.done","item":` + tt.done + `}`,
			`{"type":"response.output_item.added","item":{"id":"m","type":"message","role":"assistant","content":[]}}`,
			`{"type":"response.output_text.delta","delta":"hi"}`,
			`{"type":"response.completed","response":{"id":"r","status":"completed"}}`,
		}
		got := accumulate(t, streamed(events))
		blocks := got["content"].([]map[string]any)
		if len(blocks) != tt.blocks || blocks[len(blocks)-1]["text"] != "hi" {
			t.Errorf("%s: %v", tt.done, blocks)
		}
		if tt.blocks == 2 && (blocks[0]["type"] != "thinking" || blocks[0]["thinking"] != "" || !strings.HasSuffix(blocks[0]["signature"].(string), ".4.rs_1.s.gAAAAABx")) {
			t.Errorf("%s: %v", tt.done, blocks[0])
		}
	}
}
