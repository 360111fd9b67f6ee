// Package thinking reads and rewrites the thinking blocks of Anthropic
// Messages request bodies, at the byte level.
//
// Parse walks a body's structure without decoding what it skips and finds
// every thinking and redacted_thinking block of the assistant messages, with
// its key. Rewrite applies one Action per block (keep, strip, convert) and
// repairs what the API would refuse after the change: empty messages,
// messages ending in thinking, and a tool loop that lost its leading
// thinking. Only the content arrays it changes are rewritten; every other
// byte, above all a kept signed block, reaches the upstream as the client
// sent it, and a body that is not valid JSON is never edited.
//
// The package decides nothing about whose block is whose (package policy
// does) and knows nothing of HTTP or Caddy.
package thinking
