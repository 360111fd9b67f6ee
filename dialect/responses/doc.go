// Package responses translates between the Anthropic Messages API and
// OpenAI's Responses API (POST /v1/responses, with store false): a
// Messages request into a Responses request (TranslateRequest), and the
// answer back, streamed (Stream) or whole (TranslateAnswer).
//
// A reasoning model keeps its chain of thought between requests only
// through the reasoning items of its answers, sent back as input items
// with their encrypted_content; the content is bound to the organization
// that produced it. Each reasoning item becomes a thinking block: its
// summary is the block's text, and its id and encrypted_content ride in the
// block's signature, in the gateway's envelope (package envelope), so
// Claude Code's history brings them back byte for byte and the request's
// translation puts the item back in its place, before the call or the text
// it led to. No server state is needed; an envelope of another upstream,
// another gateway or a forged one does not open, and the item goes
// nowhere.
package responses
