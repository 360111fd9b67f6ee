// Package transport holds the reverse_proxy transports of the plugin, so
// that Claude Code (and llm_thinking in front of reverse_proxy) can reach
// servers that do not speak the Messages API, or not under the model names
// it asks for:
//
//   - http.reverse_proxy.transport.openai speaks the OpenAI chat-completions
//     API to the upstream (vLLM, SGLang, llama.cpp, LM Studio, Ollama,
//     DeepSeek, Kimi, OpenRouter) and the Messages API to the client;
//   - http.reverse_proxy.transport.gemini speaks Gemini's generateContent
//     API, each thought signature carried back in a thinking block;
//   - http.reverse_proxy.transport.responses speaks OpenAI's Responses API
//     (store false), each reasoning item's encrypted content carried back
//     in a thinking block;
//   - http.reverse_proxy.transport.anthropic speaks the Messages API on both
//     sides and only maps model names (Ollama's /v1/messages, say).
//
// Each embeds Caddy's HTTP transport, so every `transport http` option,
// load balancing and health checks work as with it. They change only POST
// requests to …/v1/messages and …/v1/messages/count_tokens; everything else
// passes untouched. Their answers name the model the client asked for,
// which Claude Code needs to keep replaying a backend's reasoning. What
// llm_thinking in front tells them of a request comes in its context (see
// package handoff).
//
// The package is thin glue: the translations live in packages
// chatcompletions, gemini and responses, the renaming of answers in package
// modelname. It never logs a header or a body.
package transport
