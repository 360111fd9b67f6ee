// Package policy is the rule at the heart of llm_thinking: which thinking
// block is whose, and what becomes of it on its way to a backend.
//
// Given a parsed Messages request, the backend it goes to and the registry
// of block origins, Plan decides each block's fate (kept, stripped or
// converted, and why) and returns the body to send. Given the blocks a
// backend produced, Register records them. Everything else (reading bodies,
// wrapping response writers, configuration, logging) belongs to the caller.
//
// A block goes to a backend unchanged exactly when that backend produced it.
// A block the registry does not know (the gateway never saw it, or forgot
// it) is kept while its conversation has been served by this backend alone,
// and treated as foreign once another backend has served the conversation.
//
// The package imports nothing of Caddy: it is plain Go over the thinking,
// observe and registry packages, tested without HTTP servers.
package policy
