package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// geminiKey is the key the Gemini upstreams of these tests want.
const geminiKey = "gk-test"

// withGemini adds a Gemini upstream named name, reached through
// reverse_proxy with transport gemini, which maps Claude's models to
// gemini-3-pro-preview.
func withGemini(name string) func(*gateway) {
	return withGeminiServing(name, "gemini-3-pro-preview", "")
}

// withGeminiServing adds a Gemini upstream named name that serves model,
// reached through transport gemini with the extra lines in its block.
func withGeminiServing(name, model, extra string) func(*gateway) {
	return func(g *gateway) {
		u := llmtest.NewGeminiUpstream(name)
		g.t.Cleanup(u.Close)
		u.RequireKey(geminiKey)
		u.ServeModel(model)
		if g.geminis == nil {
			g.geminis = make(map[string]*llmtest.GeminiUpstream)
		}
		g.geminis[name] = u
		g.Upstreams[name] = u.HostPort()
		block := "transport gemini {\n\t\t\tmodel claude-* " + model + "\n\t\t\tapi_key " + geminiKey
		if extra != "" {
			block += "\n\t\t\t" + extra
		}
		withBlock(name, block+"\n\t\t}")(g)
	}
}

// geminiRequest is a generateContent request as a test reads it.
type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             *string         `json:"text"`
			Thought          bool            `json:"thought"`
			ThoughtSignature string          `json:"thoughtSignature"`
			FunctionCall     json.RawMessage `json:"functionCall"`
			InlineData       *geminiBlob     `json:"inlineData"`
			FunctionResponse *struct {
				Name  string `json:"name"`
				Parts []struct {
					InlineData geminiBlob `json:"inlineData"`
				} `json:"parts"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
}

// geminiBlob is media inline in a Gemini request, its data in base64.
type geminiBlob struct{ MimeType, Data string }

// lastGeminiRequest returns the last request u got, read.
func lastGeminiRequest(t *testing.T, u *llmtest.GeminiUpstream) (llmtest.Received, geminiRequest) {
	t.Helper()
	reqs := u.Requests()
	if len(reqs) == 0 {
		t.Fatal("the Gemini upstream received nothing")
	}
	last := reqs[len(reqs)-1]
	var r geminiRequest
	if err := json.Unmarshal(last.Body, &r); err != nil {
		t.Fatalf("the Gemini upstream got no JSON: %v\n%s", err, last.Body)
	}
	return last, r
}

// callSignatures returns the signatures on the function calls of a
// request, in order.
func callSignatures(r geminiRequest) []string {
	var sigs []string
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				sigs = append(sigs, p.ThoughtSignature)
			}
		}
	}
	return sigs
}

// TestGeminiToolLoop runs Claude-Code-shaped tool loops on Gemini through
// llm_thinking and transport gemini, streamed and not, one call at a time
// and parallel: the client gets Gemini's thought as a thinking block and
// each call's signature in an empty thinking block before it, under the
// model it asked for; Gemini gets every signature back on the call it came
// on, and the documented check passes on every request.
func TestGeminiToolLoop(t *testing.T) {
	for _, stream := range []bool{true, false} {
		for _, parallel := range []bool{false, true} {
			t.Run(fmt.Sprintf("stream %v parallel %v", stream, parallel), func(t *testing.T) {
				g := newGateway(t, nil, "gemini", withGemini("gemini"))
				gem := g.geminis["gemini"]
				c, ok := g.session("gemini-loop")
				c.Stream = stream
				prompt := "[tool] list the files"
				calls := 1
				if parallel {
					prompt, calls = "[tool][parallel] list the files", 2
				}
				turn := ok(c.Say(prompt))
				blocks := blocksOf(t, turn.Message)
				if len(blocks) != 2+calls || blocks[0].Type != "thinking" || blocks[0].Thinking != gem.Thought(1) ||
					blocks[1].Type != "thinking" || blocks[1].Thinking != "" ||
					!strings.HasPrefix(blocks[1].Signature, "llmthinking.v1.reasoning.gemini.n") || blocks[2].Type != "tool_use" ||
					blocks[2].Name != "Bash" || string(blocks[2].Input) != `{"command":"echo gemini 0"}` {
					t.Fatalf("answer 1: %s", turn.Message)
				}
				if turn.Model != "claude-sonnet-4-5" || turn.StopReason != "tool_use" {
					t.Errorf("answer 1 names model %q, stop %q", turn.Model, turn.StopReason)
				}
				issued := gem.Signatures()

				turn = ok(c.ToolResult("file1 file2"))
				_, req := lastGeminiRequest(t, gem)
				sigs := callSignatures(req)
				if len(sigs) != calls || issued[sigs[0]] != "call Bash" || (parallel && sigs[1] != "") {
					t.Fatalf("the calls went back with the signatures %q", sigs)
				}
				// The answer ends with its text, which Claude Code shows: the
				// signature of its last part rides before the text when it
				// came with it, and a stream's, which comes after, stays.
				blocks = blocksOf(t, turn.Message)
				last := blocks[len(blocks)-1]
				want := 2
				if !stream {
					want = 3
					if b := blocks[1]; b.Type != "thinking" || b.Thinking != "" || !strings.HasPrefix(b.Signature, "llmthinking.v1.reasoning.gemini.n") {
						t.Errorf("answer 2 without the text's signature before it: %s", turn.Message)
					}
				}
				if len(blocks) != want || blocks[0].Thinking != gem.Thought(2) || last.Type != "text" || last.Text != "gemini answer 2." {
					t.Errorf("answer 2: %s", turn.Message)
				}

				// A new turn: the whole history goes back, each signature on
				// its part, and Gemini accepts it.
				ok(c.Say("[tool] and now?"))
				ok(c.ToolResult("done"))
				_, req = lastGeminiRequest(t, gem)
				sigs = callSignatures(req)
				if len(sigs) != calls+1 || issued[sigs[0]] != "call Bash" || gem.Signatures()[sigs[calls]] != "call Bash" {
					t.Errorf("the second loop's calls went back with %q", sigs)
				}
				assertAccepted(t, "Gemini", gem)
				if st := g.stats(); st.Retries != 0 || st.Blocks == 0 {
					t.Errorf("registry: %d blocks, %d retries; want Gemini's blocks known and no retry", st.Blocks, st.Retries)
				}
			})
		}
	}
}

// TestAnthropicAndGeminiBothWays switches one conversation between
// Anthropic and Gemini, inside tool loops: Gemini never sees Anthropic's
// thinking, and gives the call Anthropic made in its current turn the
// documented dummy; Anthropic gets its own blocks back byte for byte and
// never Gemini's; Gemini, on its second visit, gets its own signatures
// back on its own calls. No client error, no refusal.
func TestAnthropicAndGeminiBothWays(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream ", stream), func(t *testing.T) {
			g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic", withGemini("gemini"))
			anthropic, gem := g.upstreams["anthropic"], g.geminis["gemini"]
			c, ok := g.session("both-ways")
			c.Stream = stream

			ok(c.Say("[tool] list the files"))
			anthropicTurn := c.Messages[1]

			g.use("gemini") // inside Anthropic's tool loop
			ok(c.ToolResult("file1 file2"))
			got, req := lastGeminiRequest(t, gem)
			if sigs := callSignatures(req); len(sigs) != 1 || sigs[0] != llmtest.GeminiDummySignature {
				t.Fatalf("Anthropic's call reached Gemini with %q, want the dummy", sigs)
			}
			if strings.Contains(string(got.Body), "anthropic thinks") {
				t.Fatalf("Gemini saw Anthropic's thinking: %s", got.Body)
			}
			ok(c.Say("[tool] and on Gemini?"))
			issued := gem.Signatures()

			g.use("anthropic") // inside Gemini's tool loop
			ok(c.ToolResult("file3"))
			body := lastRequest(t, anthropic).Body
			assertMessages(t, body, map[int]string{1: string(anthropicTurn)})
			if strings.Contains(string(body), "llmthinking.v1.reasoning.gemini") || strings.Contains(string(body), "gemini thinks") {
				t.Fatalf("Anthropic got Gemini's thinking: %s", body)
			}

			g.use("gemini")
			ok(c.Say("[tool] back on Gemini"))
			_, req = lastGeminiRequest(t, gem)
			sigs := callSignatures(req)
			// Anthropic's call is no longer the current turn's: Gemini does
			// not check it, and it goes without a signature.
			if len(sigs) != 2 || sigs[0] != "" || issued[sigs[1]] != "call Bash" {
				t.Fatalf("Gemini got the calls back with %q: want none on Anthropic's, its own on its own", sigs)
			}
			assertAccepted(t, "Gemini", gem)
			for i, r := range anthropic.Requests() {
				if r.Status != http.StatusOK {
					t.Errorf("Anthropic refused request %d: %s", i+1, r.ErrorMessage)
				}
			}
			if st := g.stats(); st.Retries != 0 {
				t.Errorf("%d refusals replayed, want none", st.Retries)
			}
		})
	}
}

// TestGeminiRefusalAbsorbedOnce: Gemini refuses the signatures of a
// request (its key changed, say): the safety net replays it once without
// Gemini's blocks, the current-turn call gets the dummy, and the client
// never sees the 400.
func TestGeminiRefusalAbsorbedOnce(t *testing.T) {
	g := newGateway(t, nil, "gemini", withGemini("gemini"))
	gem := g.geminis["gemini"]
	toolResultAbsorbsRefusal(t, g, func() {
		gem.FailNext(http.StatusBadRequest, string(llmtest.GeminiError(400, "INVALID_ARGUMENT", "Corrupted thought signature.")))
	})
	_, req := lastGeminiRequest(t, gem)
	if sigs := callSignatures(req); len(sigs) != 1 || sigs[0] != llmtest.GeminiDummySignature {
		t.Fatalf("the replay went with %q, want the dummy", sigs)
	}
}

// TestGeminiErrorsMapped: Gemini's errors, in Google's envelope, reach the
// client as the Messages API's, with the same status, its type and
// Google's message.
func TestGeminiErrorsMapped(t *testing.T) {
	for _, tt := range []struct {
		google string
		mappedError
	}{
		{"INVALID_ARGUMENT", mappedError{400, "invalid_request_error", "API key not valid. Please pass a valid API key."}},
		{"UNAUTHENTICATED", mappedError{401, "authentication_error", "Request had invalid authentication credentials."}},
		{"PERMISSION_DENIED", mappedError{403, "permission_error", "Permission denied."}},
		{"NOT_FOUND", mappedError{404, "not_found_error", "models/x is not found for API version v1beta."}},
		{"RESOURCE_EXHAUSTED", mappedError{429, "rate_limit_error", "You exceeded your current quota, please check your plan."}},
		{"INTERNAL", mappedError{500, "api_error", "An internal error has occurred."}},
		{"UNAVAILABLE", mappedError{503, "overloaded_error", "The model is overloaded. Please try again later."}},
	} {
		testErrorMapped(t, tt.mappedError, func(t *testing.T) *gateway {
			g := newGateway(t, nil, "gemini", withGemini("gemini"))
			g.geminis["gemini"].FailNext(tt.status, string(llmtest.GeminiError(tt.status, tt.google, tt.message)))
			return g
		})
	}
}
