// Package observe observes Anthropic Messages API responses as they pass
// through the gateway and reports the thinking and redacted_thinking blocks
// they finished, each with the registry key that a later request replaying
// the block will have.
//
// It never modifies, delays or buffers the bytes the client gets: the caller
// writes every byte to the client itself and also shows it to an observer's
// Write, and an observer never retains a slice of the caller's buffer past a
// Write call.
//
// Keys are computed over decoded JSON string values, decoded by
// internal/jsonstr as the request side decodes them, so a block hashes the
// same whether it was streamed with escapes or replayed without them.
//
// An observer reports all the blocks of a response or none. It reports none
// when the response failed (an error event, or a field it must hash that the
// client's JSON parser rejects as well), when the client went away, or when
// the response exceeded one of the observer's memory bounds. The blocks of
// such a response stay unknown to the registry, like blocks that never passed
// the gateway; no key is ever reported that was not read exactly.
package observe
