package thinktags

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/observe"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// synthJSON is a thinking block as RewriteJSON writes it.
func synthJSON(text string) string {
	return `{"type":"thinking","thinking":` + lit(text) + `,"signature":` + lit(signature(text)) + `}`
}

func messageBody(content string) string {
	return `{"id":"msg_01","type":"message","role":"assistant","model":"glm-4.7","content":` + content + `,"stop_reason":"end_turn","usage":{"output_tokens":9}}`
}

func TestRewriteJSON(t *testing.T) {
	tool := `{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls <dir>"}}`
	tests := []struct {
		name       string
		assumeOpen bool
		body, want string
		blocks     []Block
	}{
		{
			name:   "seed 004",
			body:   messageBody(`[{"type":"text","text":"<think>用户用中文说\"你好\"。\n</think>\n\n你好！"}]`),
			want:   messageBody(`[` + synthJSON("用户用中文说\"你好\"。\n") + `,{"type":"text","text":"你好！"}]`),
			blocks: []Block{{0, synthKey("用户用中文说\"你好\"。\n")}},
		},
		{
			name:   "escaped tags, other members kept",
			body:   messageBody(`[{"type":"text","citations":null,"text":"\u003cthink\u003eplan\u003c/think\u003e answer \u003cb\u003e"}]`),
			want:   messageBody(`[` + synthJSON("plan") + `,{"type":"text","citations":null,"text":"answer <b>"}]`),
			blocks: []Block{{0, synthKey("plan")}},
		},
		{
			name:   "several sections renumber later blocks, separators kept",
			body:   messageBody(`[ {"type":"text","text":"a<think>b</think>c<think>d"} ,` + "\n" + tool + ` ]`),
			want:   messageBody(`[ {"type":"text","text":"a"},` + synthJSON("b") + `,{"type":"text","text":"c"},` + synthJSON("d") + ` ,` + "\n" + tool + ` ]`),
			blocks: []Block{{1, synthKey("b")}, {3, synthKey("d")}},
		},
		{
			name: "empty sections drop the block",
			body: messageBody(`[ {"type":"text","text":"<think>\n\n</think>\n\n"} , ` + tool + ` ]`),
			want: messageBody(`[ ` + tool + ` ]`),
		},
		{
			name: "the last block dropped",
			body: messageBody(`[` + tool + `, {"type":"text","text":"<think></think>"}]`),
			want: messageBody(`[` + tool + `]`),
		},
		{
			name:   "a block before a change is kept",
			body:   messageBody(`[` + tool + `, {"type":"text","text":"<think>x</think>y"}]`),
			want:   messageBody(`[` + tool + `, ` + synthJSON("x") + `,{"type":"text","text":"y"}]`),
			blocks: []Block{{1, synthKey("x")}},
		},
		{
			name:       "R1",
			assumeOpen: true,
			body:       messageBody(`[{"type":"text","text":"Okay.\n</think>\n\nHi"},{"type":"text","text":"a</think>b"}]`),
			want:       messageBody(`[` + synthJSON("Okay.\n") + `,{"type":"text","text":"Hi"},{"type":"text","text":"a</think>b"}]`),
			blocks:     []Block{{0, synthKey("Okay.\n")}},
		},
		{
			name:   "the last duplicate text wins",
			body:   messageBody(`[{"type":"text","text":"<think>no</think>","text":"<think>yes</think>ok"}]`),
			want:   messageBody(`[` + synthJSON("yes") + `,{"type":"text","text":"<think>no</think>","text":"ok"}]`),
			blocks: []Block{{0, synthKey("yes")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, blocks, err := RewriteJSON([]byte(tt.body), Options{AssumeOpen: tt.assumeOpen, Sign: testSign})
			if err != nil || string(got) != tt.want || !slices.Equal(blocks, tt.blocks) {
				t.Fatalf("got %s, %v, %v\nwant %s, %v", got, blocks, err, tt.want, tt.blocks)
			}
			if !json.Valid(got) {
				t.Fatal("output is not valid JSON")
			}
			checkJSONKeys(t, got, blocks)
		})
	}
}

// checkJSONKeys asserts that the response observer gives each synthesized
// block the key RewriteJSON reported.
func checkJSONKeys(t *testing.T, body []byte, synthesized []Block) {
	t.Helper()
	m, err := observe.ReadMessage(body)
	seen := m.Blocks
	if err != nil {
		t.Fatal(err)
	}
	var thinking []Block
	for _, b := range seen {
		if b.Kind == block.Thinking {
			thinking = append(thinking, Block{Index: b.Index, Key: b.Key})
		}
	}
	if !slices.Equal(thinking, synthesized) {
		t.Fatalf("observer sees %v, rewriter reported %v", thinking, synthesized)
	}
}

func TestRewriteJSONLeavesBodiesWithoutTags(t *testing.T) {
	for _, body := range []string{
		messageBody(`[{"type":"text","text":"a </think> <b> <thin"},{"type":"thinking","thinking":"<think>x</think>","signature":"s"}]`),
		messageBody(`[]`),
		messageBody(`[{"type":"text","text":""},{"type":"text"},{"type":"text","text":null},7,"<think>a</think>"]`),
		messageBody(`[{"type":"image","text":"<think>a</think>"}]`),
	} {
		got, blocks, err := RewriteJSON([]byte(body), opts)
		if err != nil || string(got) != body || blocks != nil {
			t.Errorf("%s: got %s, %v, %v", body, got, blocks, err)
		}
	}
	body := []byte(messageBody(`[{"type":"text","text":"plain"}]`))
	if got, _, _ := RewriteJSON(body, opts); &got[0] != &body[0] {
		t.Error("a body without tags was copied")
	}
}

func TestRewriteJSONRefusesWhatIsNotAMessage(t *testing.T) {
	for _, body := range []string{
		``,
		`{"type":"message","content":[{"type":"text","text":"<think>a</think>"}]`,
		`{"type":"error","error":{"type":"overloaded_error"}}`,
		`{"type":"message","content":"<think>a</think>"}`,
		`{"type":"message"}`,
		`[{"type":"text","text":"<think>a</think>"}]`,
	} {
		got, blocks, err := RewriteJSON([]byte(body), opts)
		if err == nil || string(got) != body || blocks != nil {
			t.Errorf("%s: got %s, %v, %v; want it back with an error", body, got, blocks, err)
		}
	}
}
