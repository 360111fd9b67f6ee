package integration

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	llmthinking "github.com/caddy-llm-thinking/caddy-llm-thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/thinktags"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

var taggedAndAnthropic = map[string]llmtest.Flavor{"tagged": llmtest.Tagged, "anthropic": llmtest.Strict}

// taggedThinking is the thinking the gateway makes of the n-th answer of
// the Tagged backend "tagged", as a JSON string's content: the reasoning
// between the tags, less the whitespace after <think>, with the newline
// before </think>, which thinktags cannot drop without holding it.
func taggedThinking(n int) string {
	return fmt.Sprintf(`tagged thinks #%d: \"plan\" <b>é😀\nstep 2\n`, n)
}

// taggedElement is the text block the Tagged backend wrote for its n-th
// answer, as its JSON answer holds it; open is false for the R1 style.
func taggedElement(n int, open bool) string {
	tag := `<think>\n`
	if !open {
		tag = ""
	}
	return fmt.Sprintf(`{"type":"text","text":"%s%s</think>\n\ntagged answer %d."}`, tag, taggedThinking(n), n)
}

// synthesizedBlocks is the content the client gets for the n-th answer:
// the thinking block the gateway signed for backend, then the answer.
func synthesizedBlocks(t *testing.T, backend string, n int) string {
	t.Helper()
	var text string
	if err := json.Unmarshal([]byte(`"`+taggedThinking(n)+`"`), &text); err != nil {
		t.Fatal(err)
	}
	sig := thinktags.DefaultSign(backend)(sha256.Sum256([]byte(text)))
	if !strings.HasPrefix(sig, "llmthinking.v1.") {
		t.Fatalf("signature %q", sig)
	}
	return fmt.Sprintf(`{"type":"thinking","thinking":"%s","signature":"%s"},{"type":"text","text":"tagged answer %d."}`, taggedThinking(n), sig, n)
}

// thinkTagsCase is one configuration of the think tags scenario.
type thinkTagsCase struct {
	stream bool
	replay string // think_tags_replay; "" for the default (tags)
	open   bool   // think_tags open against a backend that omits <think>
}

func TestThinkTagsStreaming(t *testing.T) { testThinkTags(t, thinkTagsCase{stream: true}) }

func TestThinkTagsJSON(t *testing.T) { testThinkTags(t, thinkTagsCase{}) }

func TestThinkTagsReplayThinkingStreaming(t *testing.T) {
	testThinkTags(t, thinkTagsCase{stream: true, replay: "thinking"})
}

func TestThinkTagsReplayThinkingJSON(t *testing.T) {
	testThinkTags(t, thinkTagsCase{replay: "thinking"})
}

func TestThinkTagsOpenStreaming(t *testing.T) {
	testThinkTags(t, thinkTagsCase{stream: true, open: true})
}

func TestThinkTagsOpenJSON(t *testing.T) { testThinkTags(t, thinkTagsCase{open: true}) }

// testThinkTags runs a conversation on a backend that writes its reasoning
// between think tags: the client gets thinking blocks, the backend gets them
// back as it wants them, and Anthropic, after a switch, never sees them.
func testThinkTags(t *testing.T, tc thinkTagsCase) {
	lines := "think_tags on"
	if tc.open {
		lines = "think_tags open"
	}
	if tc.replay != "" {
		lines += "\nthink_tags_replay " + tc.replay
	}
	g := newGateway(t, taggedAndAnthropic, "tagged", withHandler(lines))
	tagged, anthropic := g.upstreams["tagged"], g.upstreams["anthropic"]
	tagged.OmitOpeningTag(tc.open)
	c, ok := g.session("think-tags")
	c.Stream = tc.stream

	for n := 1; n <= 2; n++ {
		turn := ok(c.Say(fmt.Sprintf("turn %d", n)))
		blocks := synthesizedBlocks(t, "tagged", n)
		if want := `{"role":"assistant","content":[` + blocks + `]}`; string(turn.Message) != want {
			t.Fatalf("answer %d reached the client as\n got %s\nwant %s", n, turn.Message, want)
		}
		assertTaggedAnswer(t, tc, turn, lastRequest(t, tagged).Response, n, blocks)
	}

	// The backend got its first answer back, as think_tags_replay says.
	own := `{"role":"assistant","content":[{"type":"text","text":"<think>` + taggedThinking(1) + `</think>"},{"type":"text","text":"tagged answer 1."}]}`
	if tc.replay == "thinking" {
		own = string(c.Messages[1])
	}
	assertMessages(t, lastRequest(t, tagged).Body, map[int]string{1: own})

	// Anthropic gets only the answers, and accepts them at once.
	g.use("anthropic")
	turn := ok(c.Say("now on anthropic"))
	if got := turn.Header.Values(llmthinking.WarningHeader); !slices.Equal(got, []string{"thinking_dropped"}) {
		t.Errorf("warning header = %q, want thinking_dropped", got)
	}
	reqs := answeredWith(t, anthropic, http.StatusOK)
	assertBlocks(t, thinkingBlocks(t, reqs[0].Body), nil)
	assertMessages(t, reqs[0].Body, map[int]string{
		1: `{"role":"assistant","content":[{"type":"text","text":"tagged answer 1."}]}`,
		3: `{"role":"assistant","content":[{"type":"text","text":"tagged answer 2."}]}`,
	})
	// Its answer holds no tags: it passes as it came, byte for byte.
	if !bytes.Equal(turn.Raw, reqs[0].Response) {
		t.Errorf("anthropic's answer changed on its way:\n got %q\nwant %q", turn.Raw, reqs[0].Response)
	}

	// Back on the tagged backend: its own reasoning again, Anthropic's out.
	g.use("tagged")
	ok(c.Say("back on tagged"))
	second := `{"role":"assistant","content":[{"type":"text","text":"<think>` + taggedThinking(2) + `</think>"},{"type":"text","text":"tagged answer 2."}]}`
	if tc.replay == "thinking" {
		second = string(c.Messages[3])
	}
	assertMessages(t, lastRequest(t, tagged).Body, map[int]string{
		1: own,
		3: second,
		5: `{"role":"assistant","content":[{"type":"text","text":"anthropic answer 1."}]}`,
	})
}

// assertTaggedAnswer checks the bytes of the n-th answer the client got
// against those the backend wrote: only its text block changed, into the
// thinking and text blocks of blocks.
func assertTaggedAnswer(t *testing.T, tc thinkTagsCase, turn *llmtest.Turn, wrote []byte, n int, blocks string) {
	t.Helper()
	if !tc.stream {
		element := []byte(taggedElement(n, !tc.open))
		if bytes.Count(wrote, element) != 1 {
			t.Fatalf("the backend did not write %s:\n%s", element, wrote)
		}
		want := bytes.Replace(wrote, element, []byte(blocks), 1)
		if !bytes.Equal(turn.Raw, want) {
			t.Errorf("answer %d\n got %s\nwant %s", n, turn.Raw, want)
		}
		if got := turn.Header.Get("Content-Length"); got != strconv.Itoa(len(want)) {
			t.Errorf("Content-Length %s, want %d", got, len(want))
		}
		return
	}
	want := []string{"message_start", "ping", "start 0 thinking", "delta 0 thinking_delta", "delta 0 signature_delta", "stop 0",
		"start 1 text", "delta 1 text_delta", "stop 1", "message_delta", "message_stop"}
	if got := streamShape(t, turn.Raw); !slices.Equal(got, want) {
		t.Errorf("answer %d events\n got %q\nwant %q", n, got, want)
	}
	if got, want := messageEvents(turn.Raw), messageEvents(wrote); !slices.Equal(got, want) {
		t.Errorf("answer %d: message events changed\n got %q\nwant %q", n, got, want)
	}
	// The backend cut its tags across deltas, which the gateway joined.
	if bytes.Contains(wrote, []byte("<think>")) || bytes.Contains(wrote, []byte("</think>")) {
		t.Errorf("answer %d: the backend wrote a whole tag in one delta; the test proves less than it says:\n%s", n, wrote)
	}
}

// TestThinkTagsLeaveOtherAnswersAlone sends answers without think sections
// through think_tags: each reaches the client exactly as its backend wrote
// it.
func TestThinkTagsLeaveOtherAnswersAlone(t *testing.T) {
	for _, tt := range []struct {
		name     string
		lines    string
		backend  string
		thinking string
		stream   bool
		omitOpen bool
	}{
		{"anthropic stream", "think_tags on", "anthropic", "enabled", true, false},
		{"anthropic JSON", "think_tags on", "anthropic", "enabled", false, false},
		{"anthropic stream, think_tags open", "think_tags open", "anthropic", "enabled", true, false},
		{"tagged without thinking", "think_tags on", "tagged", "disabled", true, false},
		{"R1 style without think_tags open", "think_tags on", "tagged", "enabled", true, true},
		{"R1 style JSON without think_tags open", "think_tags on", "tagged", "enabled", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newGateway(t, taggedAndAnthropic, tt.backend, withHandler(tt.lines))
			up := g.upstreams[tt.backend]
			up.OmitOpeningTag(tt.omitOpen)
			c, ok := g.session("untagged")
			c.Stream, c.Thinking, c.ShowThinking = tt.stream, tt.thinking, true
			for n := 1; n <= 2; n++ {
				turn := ok(c.Say(fmt.Sprintf("turn %d", n)))
				wrote := lastRequest(t, up).Response
				if !bytes.Equal(turn.Raw, wrote) {
					t.Errorf("answer %d changed on its way:\n got %q\nwant %q", n, turn.Raw, wrote)
				}
			}
			if tt.backend == "tagged" {
				// What the backend wrote is what it gets back.
				assertMessages(t, lastRequest(t, up).Body, map[int]string{1: string(c.Messages[1])})
				if tt.omitOpen && !strings.Contains(string(c.Messages[1]), `</think>`) {
					t.Errorf("the R1-style answer lost its tag: %s", c.Messages[1])
				}
			}
		})
	}
}
