// Package llmtest is test infrastructure: mock Anthropic-compatible backends
// and a client that talks to them the way Claude Code does.
//
// The gateway's integration tests and the offline demo run a real Caddy with
// llm_thinking in front of one or more Upstream instances and drive a
// Conversation through it. An Upstream plays one kind of backend (see
// Flavor): the Strict one signs its thinking blocks and answers the exact
// 400s of the Anthropic API, so a test that switches backends mid-conversation
// fails the same way a user would. The Conversation keeps its history the way
// the real client does and replays it byte for byte.
//
// The package is the oracle the product is tested against, so it must never
// import the product's packages: besides the standard library it uses only
// internal/claudecode, the test data shaped like Claude Code's (which is
// held to the same rule). It imports no testing package, so programs can
// use it too. Every listener is bound to 127.0.0.1.
package llmtest
