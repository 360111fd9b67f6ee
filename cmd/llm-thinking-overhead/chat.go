package main

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/chatcompletions"
)

// The chat-completions load: the upstream answers a 2000-chunk
// chat-completions stream. Plain reverse_proxy relays it as it is;
// llm_thinking's gateway reaches the upstream through transport openai,
// which translates the request and every chunk, so its client receives
// the Messages stream. What transport openai costs is the difference.

// chatChunks is how many text chunks the chat-completions stream carries.
const chatChunks = 2000

// chatSlug names the chat load in paths; the gateway routes paths with it
// through transport openai.
const chatSlug = "chat-sse"

// lockstepChatPath is the route of the chat stream's lockstep check.
const lockstepChatPath = "/lockstep-" + chatSlug + "/v1/messages"

// chatLoad returns the load whose answer is a chat-completions stream,
// with what transport openai sends the upstream and gives the client.
func chatLoad() (*load, error) {
	tr, err := chatcompletions.TranslateRequest(streamRequest, chatcompletions.RequestOptions{})
	if err != nil {
		return nil, fmt.Errorf("translate the chat load's request: %w", err)
	}
	up := chatReply(chatChunks)
	return &load{
		name:        fmt.Sprintf("chat completions SSE, %d chunks", chatChunks),
		slug:        chatSlug,
		body:        streamRequest,
		reply:       up,
		chatRequest: tr.Body,
		translated:  translatedReply(up, tr),
	}, nil
}

// chatReply returns a chat-completions stream of chunks text chunks, the
// finish reason and the usage; it ends there, without [DONE], so that
// nothing follows what the translation ends on (see lockstep).
func chatReply(chunks int) *reply {
	chunk := func(delta, finish string) []byte {
		return fmt.Appendf(nil, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, finish)
	}
	events := [][]byte{chunk(`{"role":"assistant","content":""}`, "null")}
	text := chunk(`{"content":"Here is some more of the answer, "}`, "null")
	for range chunks {
		events = append(events, text)
	}
	events = append(events, chunk(`{}`, `"stop"`),
		fmt.Appendf(nil, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":%d}}`+"\n\n", chunks))
	body := slices.Concat(events...)
	return &reply{contentType: "text/event-stream", events: events, body: body, sum: sha256.Sum256(body)}
}

// translatedReply returns what transport openai gives the client for the
// upstream stream up: an event group per upstream chunk, as it flushes
// them, empty groups left out.
func translatedReply(up *reply, tr chatcompletions.Translated) *reply {
	s := chatcompletions.NewStream(chatcompletions.AnswerOptions{Model: tr.Model, InputTokens: tr.InputTokens, Sign: chatcompletions.DefaultSign("bench")})
	var groups [][]byte
	for _, ev := range up.events {
		data := strings.TrimSuffix(strings.TrimPrefix(string(ev), "data: "), "\n\n")
		groups = append(groups, s.Chunk(nil, []byte(data)))
	}
	body := slices.Concat(groups...)
	return &reply{contentType: "text/event-stream", events: groups, body: body, sum: sha256.Sum256(body)}
}

// answer returns what the client of gateway g must receive for the load.
func (l *load) answer(g gateway) *reply {
	if g.rewrites() && l.translated != nil {
		return l.translated
	}
	return l.reply
}

// upstreamPath returns the path the upstream gets for a request to path
// through g: transport openai asks for chat completions.
func (l *load) upstreamPath(g gateway, path string) string {
	if g.rewrites() && l.translated != nil {
		return strings.TrimSuffix(path, "messages") + "chat/completions"
	}
	return path
}

// upstreamBody returns the request body the upstream gets through g.
func (l *load) upstreamBody(g gateway) []byte {
	if g.rewrites() && l.chatRequest != nil {
		return l.chatRequest
	}
	return l.body
}
