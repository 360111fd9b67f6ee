package main

import (
	"fmt"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/chatcompletions"
)

// The chat-completions load (see translation.go): the upstream answers a
// chat-completions stream, which transport openai translates.

// chatAPI is the chat-completions API, through transport openai, which
// asks for …/v1/chat/completions where the client asked for
// …/v1/messages.
var chatAPI = &api{
	name:      "chat completions",
	slug:      "chat-sse",
	transport: "transport openai",
	upstreamPath: func(path string) string {
		return strings.TrimSuffix(path, "messages") + "chat/completions"
	},
	translate: translateChat,
}

// translateChat returns what transport openai sends the upstream for
// streamRequest, the upstream's chat-completions stream, and what the
// transport gives the client.
func translateChat() (request []byte, native, translated *reply, err error) {
	tr, err := chatcompletions.TranslateRequest(streamRequest, chatcompletions.RequestOptions{})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("translate the request: %w", err)
	}
	native = chatReply(translatedChunks)
	s := chatcompletions.NewStream(chatcompletions.AnswerOptions{Model: tr.Model, InputTokens: tr.InputTokens, Sign: chatcompletions.DefaultSign("bench")})
	return tr.Body, native, translatedReply(native, s), nil
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
	return eventStream(events)
}
