package integration

import (
	"encoding/json"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// tokens counts tokens by the type label of llm_thinking_tokens_total.
type tokens map[string]int64

// tokenTypes are the values of the type label.
var tokenTypes = []string{"input", "output", "cache_read", "cache_creation"}

// usageCounts is a usage object of either API, each count nil when absent.
type usageCounts struct {
	Input         *int64 `json:"input_tokens"`
	Output        *int64 `json:"output_tokens"`
	CacheRead     *int64 `json:"cache_read_input_tokens"`
	CacheCreation *int64 `json:"cache_creation_input_tokens"`
	Prompt        *int64 `json:"prompt_tokens"`
	Completion    *int64 `json:"completion_tokens"`
	PromptDetails struct {
		Cached int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// usagesOf returns the usage objects of an answer the mock wrote, a whole
// one or a stream's events, in order: a message's, a chunk's, or the
// message of a message_start.
func usagesOf(t *testing.T, answer []byte) []usageCounts {
	t.Helper()
	parts := [][]byte{answer}
	if events := claudecode.Events(answer); len(events) > 0 {
		parts = parts[:0]
		for _, ev := range events {
			parts = append(parts, ev.Data)
		}
	}
	var out []usageCounts
	for _, p := range parts {
		var v struct {
			Usage   *usageCounts `json:"usage"`
			Message struct {
				Usage *usageCounts `json:"usage"`
			} `json:"message"`
		}
		if string(p) == "[DONE]" {
			continue
		}
		if err := json.Unmarshal(p, &v); err != nil {
			t.Fatalf("an answer the mock wrote: %v: %s", err, p)
		}
		for _, u := range []*usageCounts{v.Message.Usage, v.Usage} {
			if u != nil {
				out = append(out, *u)
			}
		}
	}
	return out
}

// sent sums, with count, the usage objects of every answer the mock u
// gave (see usagesOf).
func sent(t *testing.T, u mockUpstream, count func(sum tokens, usages []usageCounts)) tokens {
	t.Helper()
	sum := tokens{}
	for _, r := range u.Requests() {
		if r.Status == 200 {
			count(sum, usagesOf(t, r.Response))
		}
	}
	return sum
}

// sentByAnthropic sums the usage of every answer an Anthropic mock gave.
func sentByAnthropic(t *testing.T, u *llmtest.Upstream) tokens {
	t.Helper()
	return sent(t, u, func(sum tokens, usages []usageCounts) {
		var last usageCounts
		for _, counts := range usages {
			last.merge(counts)
		}
		for typ, n := range map[string]*int64{"input": last.Input, "output": last.Output, "cache_read": last.CacheRead, "cache_creation": last.CacheCreation} {
			if n != nil {
				sum[typ] += *n
			}
		}
	})
}

// merge takes the Messages counts v has: in a stream, message_delta's
// replace message_start's, being cumulative (see
// docs/thinking-protocol.md).
func (u *usageCounts) merge(v usageCounts) {
	for _, c := range [...]struct {
		dst **int64
		src *int64
	}{{&u.Input, v.Input}, {&u.Output, v.Output},
		{&u.CacheRead, v.CacheRead}, {&u.CacheCreation, v.CacheCreation}} {
		if c.src != nil {
			*c.dst = c.src
		}
	}
}

// sentByChat sums the usage of every answer a chat-completions mock gave,
// as the Messages API counts it (transport openai): the prompt less what
// was read from the cache is input, that is cache_read.
func sentByChat(t *testing.T, u *llmtest.ChatUpstream) tokens {
	t.Helper()
	return sent(t, u, func(sum tokens, usages []usageCounts) {
		for _, c := range usages {
			if c.Prompt != nil && c.Completion != nil {
				sum["input"] += *c.Prompt - c.PromptDetails.Cached
				sum["cache_read"] += c.PromptDetails.Cached
				sum["output"] += *c.Completion
			}
		}
	})
}

// TestTokensCountWhatTheBackendsReported: after a conversation on
// Anthropic, streamed and not, with prompt caching, that fails over to a
// chat-completions server through transport openai and comes back,
// llm_thinking_tokens_total on /metrics and the backends of
// /llm_thinking/stats have grown, for each backend and type, by the sum
// of the usage the mocks sent.
func TestTokensCountWhatTheBackendsReported(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic",
		withFailover("anthropic", "chat"), withChat("chat", llmtest.DeepSeekStyle, "transport openai"))
	anthropic, chat := g.upstreams["anthropic"], g.chats["chat"]
	anthropic.CountCache(true)
	metricsBefore, backendsBefore := scrape(t), g.backends()
	c, ok := g.session("tokens")

	ok(c.Say("[tool] list the files"))
	c.Stream = false
	ok(c.ToolResult("a.go"))
	anthropic.FailNext(llmtest.Overloaded)
	c.Stream = true
	ok(c.Say("[tool] and now?"))
	c.Stream = false
	ok(c.ToolResult("b.go"))
	g.endHolds("chat")
	ok(c.Say("back on anthropic"))
	if len(chat.Requests()) != 2 || len(anthropic.Requests()) != 4 {
		t.Fatalf("chat got %d requests, anthropic %d: want 2 and 4", len(chat.Requests()), len(anthropic.Requests()))
	}

	metricsAfter, backendsAfter := scrape(t), g.backends()
	sent := map[string]tokens{"anthropic": sentByAnthropic(t, anthropic), "chat": sentByChat(t, chat)}
	// Chat completions have no count of what was written to the cache.
	for backend, types := range map[string][]string{"anthropic": tokenTypes, "chat": tokenTypes[:3]} {
		for _, typ := range types {
			if sent[backend][typ] == 0 {
				t.Fatalf("%s sent no %s tokens (%v): the test proves nothing of them", backend, typ, sent[backend])
			}
		}
	}
	for backend, sent := range sent {
		stats := backendsAfter[backend].Tokens
		statsBefore := backendsBefore[backend].Tokens
		counted := tokens{"input": stats.Input - statsBefore.Input, "output": stats.Output - statsBefore.Output,
			"cache_read": stats.CacheRead - statsBefore.CacheRead, "cache_creation": stats.CacheCreation - statsBefore.CacheCreation}
		for _, typ := range tokenTypes {
			labels := []string{"backend", backend, "model", "claude-sonnet-4-5", "type", typ}
			metric := metricsAfter.value(tokensTotal, labels...) - metricsBefore.value(tokensTotal, labels...)
			if metric != float64(sent[typ]) || counted[typ] != sent[typ] {
				t.Errorf("%s{backend=%q,type=%q} grew by %v, the stats by %d; the mock sent %d", tokensTotal, backend, typ, metric, counted[typ], sent[typ])
			}
		}
	}
}

// tokensTotal is the metric of the tokens the answers' usage counted.
const tokensTotal = "caddy_llm_thinking_tokens_total"
