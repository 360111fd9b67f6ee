package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

func TestResponseModelRequestedStreaming(t *testing.T) { testResponseModel(t, true, true) }

func TestResponseModelRequestedJSON(t *testing.T) { testResponseModel(t, false, true) }

func TestResponseModelUpstreamStreaming(t *testing.T) { testResponseModel(t, true, false) }

func TestResponseModelUpstreamJSON(t *testing.T) { testResponseModel(t, false, false) }

// testResponseModel runs two Claude Code conversations on a GLM backend
// that answers as glm-4.6 to requests for claude-sonnet-4-5. With
// response_model requested the client records its answers under the model
// it asked for and so replays their thinking; with the default, it records
// glm-4.6 and drops that thinking from every later request, as Claude Code
// does. Either way each conversation's mismatch is logged once.
func testResponseModel(t *testing.T, stream, requested bool) {
	var options []func(*gateway)
	if requested {
		options = append(options, withHandler("response_model requested"))
	}
	g := newGateway(t, map[string]llmtest.Flavor{"glm": llmtest.Lenient}, "glm", options...)
	ok := okTurns(t)
	glm := g.upstreams["glm"]
	glm.AnswerAs("glm-4.6")
	const asked = `"model":"claude-sonnet-4-5"`
	answered := "glm-4.6"
	if requested {
		answered = "claude-sonnet-4-5"
	}

	conversations := []*llmtest.Conversation{g.conversation("model-a"), g.conversation("model-b")}
	for _, c := range conversations {
		c.Stream, c.ModelBoundThinking = stream, true
	}
	for n := 1; n <= 3; n++ {
		for _, c := range conversations {
			earlier := historyBlocks(c)
			turn := ok(c.Say(fmt.Sprintf("turn %d", n)))
			got := lastRequest(t, glm)
			if !bytes.HasPrefix(got.Body, []byte(`{`+asked+`,`)) {
				t.Errorf("%s turn %d: the upstream was not asked for claude-sonnet-4-5: %.80s", c.SessionID, n, got.Body)
			}

			// Only the model changed on the answer's way, if anything.
			wrote := got.Response
			if bytes.Count(wrote, []byte(`"model":"glm-4.6"`)) != 1 {
				t.Fatalf("the upstream did not answer as glm-4.6 once:\n%s", wrote)
			}
			want := wrote
			if requested {
				want = bytes.Replace(wrote, []byte(`"model":"glm-4.6"`), []byte(asked), 1)
			}
			if !bytes.Equal(turn.Raw, want) {
				t.Errorf("%s turn %d: answer\n got %q\nwant %q", c.SessionID, n, turn.Raw, want)
			}
			if cl := turn.Header.Get("Content-Length"); !stream && cl != strconv.Itoa(len(want)) {
				t.Errorf("%s turn %d: Content-Length %s, want %d", c.SessionID, n, cl, len(want))
			}
			last := len(c.Messages) - 1
			if turn.Model != answered || c.RecordedModel(last) != answered {
				t.Errorf("%s turn %d: the client recorded %q (answer %q), want %q", c.SessionID, n, c.RecordedModel(last), turn.Model, answered)
			}

			// The backend's reasoning comes back only when the client
			// recorded it under the model it asks for.
			var back []json.RawMessage
			if requested {
				back = earlier
			}
			assertBlocks(t, thinkingBlocks(t, got.Body), back)
			if len(historyBlocks(c)) != n {
				t.Fatalf("%s: %d thinking blocks in the history after %d turns", c.SessionID, len(historyBlocks(c)), n)
			}
		}
	}

	// The backend's first mismatch of the pair is a warning; the other
	// conversation's first, a debug line; each names the conversation by
	// its hash, never the session id.
	events := g.logEvents("thinking.model_mismatch")
	var convs, levels []string
	for _, e := range events {
		conv, _ := e["conversation"].(string)
		level, _ := e["level"].(string)
		convs, levels = append(convs, conv), append(levels, level)
		if e["requested"] != "claude-sonnet-4-5" || e["answered"] != "glm-4.6" || e["backend"] != "glm" {
			t.Errorf("thinking.model_mismatch = %v", e)
		}
	}
	slices.Sort(convs)
	want := []string{hashedSession("model-a"), hashedSession("model-b")}
	slices.Sort(want)
	if !slices.Equal(convs, want) || !slices.Equal(levels, []string{"warn", "debug"}) {
		t.Errorf("thinking.model_mismatch logged for conversations %q at %q, want once for each, warn then debug: %v", convs, levels, events)
	}
}

// TestResponseModelRequestedLeavesMatchingAnswersAlone: an answer under the
// model asked for passes byte for byte, and no mismatch is logged.
func TestResponseModelRequestedLeavesMatchingAnswersAlone(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			g := newGateway(t, map[string]llmtest.Flavor{"glm": llmtest.Lenient}, "glm", withHandler("response_model requested"))
			glm := g.upstreams["glm"]
			c, ok := g.session("same-model")
			c.Stream = stream
			for n := 1; n <= 2; n++ {
				turn := ok(c.Say(fmt.Sprintf("turn %d", n)))
				if wrote := lastRequest(t, glm).Response; !bytes.Equal(turn.Raw, wrote) {
					t.Errorf("answer %d changed on its way:\n got %q\nwant %q", n, turn.Raw, wrote)
				}
			}
			if events := g.logEvents("thinking.model_mismatch"); len(events) != 0 {
				t.Errorf("thinking.model_mismatch logged: %v", events)
			}
		})
	}
}
