package integration

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

func TestThinkTagsWithResponseModelStreaming(t *testing.T) { testThinkTagsWithResponseModel(t, true) }

func TestThinkTagsWithResponseModelJSON(t *testing.T) { testThinkTagsWithResponseModel(t, false) }

// testThinkTagsWithResponseModel has both rewriters work on one answer: a
// local model served under its own name that writes think tags.
func testThinkTagsWithResponseModel(t *testing.T, stream bool) {
	g := newGateway(t, map[string]llmtest.Flavor{"tagged": llmtest.Tagged}, "tagged",
		withHandler("think_tags on\nresponse_model requested"))
	tagged := g.upstreams["tagged"]
	tagged.AnswerAs("qwen3-32b")
	c, ok := g.session("tags-and-model")
	c.Stream, c.ModelBoundThinking = stream, true
	for n := 1; n <= 2; n++ {
		turn := ok(c.Say(fmt.Sprintf("turn %d", n)))
		blocks := synthesizedBlocks(t, "tagged", n)
		if want := `{"role":"assistant","content":[` + blocks + `]}`; string(turn.Message) != want {
			t.Fatalf("answer %d reached the client as\n got %s\nwant %s", n, turn.Message, want)
		}
		if turn.Model != "claude-sonnet-4-5" {
			t.Errorf("answer %d names %q", n, turn.Model)
		}
		wrote := bytes.Replace(lastRequest(t, tagged).Response, []byte(`"model":"qwen3-32b"`), []byte(`"model":"claude-sonnet-4-5"`), 1)
		if stream {
			if got, want := messageEvents(turn.Raw), messageEvents(wrote); !slices.Equal(got, want) {
				t.Errorf("answer %d: message events\n got %q\nwant %q", n, got, want)
			}
		} else if want := bytes.Replace(wrote, []byte(taggedElement(n, true)), []byte(blocks), 1); !bytes.Equal(turn.Raw, want) {
			t.Errorf("answer %d\n got %s\nwant %s", n, turn.Raw, want)
		}
	}
	// The client kept the first answer's thinking: the backend got it
	// back, as the tags it wrote.
	assertMessages(t, lastRequest(t, tagged).Body, map[int]string{
		1: `{"role":"assistant","content":[{"type":"text","text":"<think>` + taggedThinking(1) + `</think>"},{"type":"text","text":"tagged answer 1."}]}`,
	})
	events := g.logEvents("thinking.model_mismatch")
	if len(events) != 1 || events[0]["answered"] != "qwen3-32b" || events[0]["requested"] != "claude-sonnet-4-5" {
		t.Errorf("thinking.model_mismatch events: %v", events)
	}
	if strings.Contains(string(lastRequest(t, tagged).Body), "qwen3-32b") {
		t.Error("the client sent the backend's model name back")
	}
}
