// Package chatcompletions translates between the Anthropic Messages API,
// which Claude Code and llm_thinking speak, and the OpenAI chat-completions
// API that vLLM, SGLang, llama.cpp, LM Studio, Ollama, DeepSeek, Kimi and
// OpenRouter serve.
//
// It owns the request translation (TranslateRequest: a Messages body to a
// chat-completions body), the answer translation (TranslateAnswer for a JSON
// answer, Stream and Reader for an event stream), the error envelope
// (ErrorBody, ErrorEvent) and the token estimate that stands in for
// count_tokens (messagesapi.Estimate). Reasoning a server answers with, in
// reasoning_content, reasoning, reasoning_details or <think> tags, becomes
// one thinking block signed with block.ReasoningPrefix, or, for the parts of
// reasoning_details, sealed in an envelope (see details.go); on the way back
// such a block becomes the field the server reads (see Reasoning).
//
// It never forwards a field or block the other side does not define, never
// sends an event sequence the Messages API could not (starts and stops
// balanced, indices increasing from 0, no empty text block, no delta of
// another block's kind), never holds reasoning or tool arguments back beyond
// a tag that may still be completing, and never buffers more than its fixed
// bounds. Malformed input of any kind gives an Anthropic error, never a
// panic. It knows nothing of HTTP or Caddy.
package chatcompletions
