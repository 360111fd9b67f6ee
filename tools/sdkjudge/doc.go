// Package sdkjudge lets a client nobody on this project wrote judge what
// transport openai gives its clients: the official Anthropic Go SDK sends
// Messages requests through the transport to mock chat-completions
// servers, decodes and accumulates every stream and answer as SDK-based
// clients do, and sends the accumulated message back in the next turn. It
// lives in the tools module so the SDK never enters the plugin's
// dependencies. It holds tests only.
package sdkjudge
