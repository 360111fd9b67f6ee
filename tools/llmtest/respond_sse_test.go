package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// streamOf says text in a new streaming conversation with up and returns
// the conversation, its turn and the input_tokens the stream must report.
func streamOf(t *testing.T, up *Upstream, text string, show bool) (*Conversation, *Turn, int) {
	t.Helper()
	c := NewConversation(up.URL(), "session-1")
	c.ShowThinking = show
	turn := must(t)(c.Say(text))
	if got := turn.Header.Get("Content-Type"); got != "text/event-stream; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	return c, turn, len(up.Requests()[0].Body) / 4
}

func event(name, data string) string {
	return "event: " + name + "\ndata: " + data + "\n\n"
}

func messageStart(id string, inputTokens int) string {
	return event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":%q,"type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, id, inputTokens))
}

func delta(index int, d string) string {
	return event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, index, d))
}

func blockStart(index int, b string) string {
	return event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, index, b))
}

func blockStop(index int) string {
	return event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
}

// deltas are the deltas of the block at index, of type typ ("text",
// "thinking"), that stream chunks.
func deltas(index int, typ string, chunks ...string) string {
	var out strings.Builder
	for _, c := range chunks {
		j, _ := json.Marshal(c)
		out.WriteString(delta(index, `{"type":"`+typ+`_delta","`+typ+`":`+string(j)+`}`))
	}
	return out.String()
}

// textBlock is a text block at index, streamed as chunks.
func textBlock(index int, chunks ...string) string {
	return blockStart(index, `{"type":"text","text":""}`) + deltas(index, "text", chunks...) + blockStop(index)
}

func messageEnd(stop string, outputTokens int) string {
	return event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, outputTokens)) +
		event("message_stop", `{"type":"message_stop"}`)
}

func TestStreamFramingStrict(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	c, turn, in := streamOf(t, up, "do it [tool] [redacted]", true)
	sig, data := field(t, c, 1, 0, "signature"), field(t, c, 1, 1, "data")
	want := messageStart("msg_a_1", in) +
		event("ping", `{"type":"ping"}`) +
		blockStart(0, `{"type":"thinking","thinking":"","signature":""}`) +
		deltas(0, "thinking", "a thinks #1", `: "plan" <b`, ">é😀\nstep 2") +
		delta(0, `{"type":"signature_delta","signature":"`+sig+`"}`) +
		blockStop(0) +
		blockStart(1, `{"type":"redacted_thinking","data":"`+data+`"}`) +
		blockStop(1) +
		blockStart(2, `{"type":"tool_use","id":"toolu_a_1","name":"Bash","input":{}}`) +
		delta(2, `{"type":"input_json_delta","partial_json":"{\"comma"}`) +
		delta(2, `{"type":"input_json_delta","partial_json":"nd\":\"ec"}`) +
		delta(2, `{"type":"input_json_delta","partial_json":"ho a\"}"}`) +
		blockStop(2) +
		messageEnd("tool_use", 15)
	if string(turn.Raw) != want {
		t.Errorf("stream\n got %q\nwant %q", turn.Raw, want)
	}
	if sig == "" || data == "" {
		t.Errorf("signature %q, data %q", sig, data)
	}
	wantMsg := `{"role":"assistant","content":[{"type":"thinking","thinking":"a thinks #1: \"plan\" <b>é😀\nstep 2","signature":"` + sig +
		`"},{"type":"redacted_thinking","data":"` + data + `"},{"type":"tool_use","id":"toolu_a_1","name":"Bash","input":{"command":"echo a"}}]}`
	if string(turn.Message) != wantMsg {
		t.Errorf("message\n got %s\nwant %s", turn.Message, wantMsg)
	}
}

func TestStreamFramingOmittedThinking(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	c, turn, in := streamOf(t, up, "hi", false)
	sig := field(t, c, 1, 0, "signature")
	want := messageStart("msg_a_1", in) +
		event("ping", `{"type":"ping"}`) +
		blockStart(0, `{"type":"thinking","thinking":"","signature":""}`) +
		delta(0, `{"type":"signature_delta","signature":"`+sig+`"}`) +
		blockStop(0) +
		textBlock(1, "a an", "swer", " 1.") +
		messageEnd("end_turn", 3)
	if string(turn.Raw) != want {
		t.Errorf("stream\n got %q\nwant %q", turn.Raw, want)
	}
}

func TestStreamFramingUnsigned(t *testing.T) {
	up := newUpstream(t, "o", Unsigned)
	_, turn, in := streamOf(t, up, "hi [redacted]", true)
	want := messageStart("msg_o_1", in) +
		event("ping", `{"type":"ping"}`) +
		blockStart(0, `{"type":"thinking","thinking":""}`) +
		deltas(0, "thinking", "o thinks #1", `: "plan" <b`, ">é😀\nstep 2") +
		blockStop(0) +
		textBlock(1, "o an", "swer", " 1.") +
		messageEnd("end_turn", 12)
	if string(turn.Raw) != want {
		t.Errorf("stream\n got %q\nwant %q", turn.Raw, want)
	}
	wantMsg := `{"role":"assistant","content":[{"type":"thinking","thinking":"o thinks #1: \"plan\" <b>é😀\nstep 2"},{"type":"text","text":"o answer 1."}]}`
	if string(turn.Message) != wantMsg {
		t.Errorf("message\n got %s\nwant %s", turn.Message, wantMsg)
	}
}

func TestStreamFramingLenient(t *testing.T) {
	up := newUpstream(t, "g", Lenient)
	c, turn, _ := streamOf(t, up, "hi [redacted]", false)
	sig, data := field(t, c, 1, 0, "signature"), field(t, c, 1, 1, "data")
	if !strings.HasPrefix(sig, "glm.") || len(sig) != len("glm.")+2*(16+32) {
		t.Errorf("signature %q", sig)
	}
	if !strings.HasPrefix(data, "glm.redacted.") {
		t.Errorf("data %q", data)
	}
	if !strings.Contains(string(turn.Raw), delta(0, `{"type":"signature_delta","signature":"`+sig+`"}`)+blockStop(0)) {
		t.Errorf("signature_delta is not the last event before stop:\n%s", turn.Raw)
	}
}

func TestStreamWithoutThinking(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	c := NewConversation(up.URL(), "session-1")
	c.Thinking = "disabled"
	turn := must(t)(c.Say("hi [redacted]"))
	want := `{"role":"assistant","content":[{"type":"text","text":"a answer 1."}]}`
	if string(turn.Message) != want {
		t.Errorf("message\n got %s\nwant %s", turn.Message, want)
	}
	if got := up.Requests()[0].Status; got != http.StatusOK {
		t.Errorf("status %d", got)
	}
}
