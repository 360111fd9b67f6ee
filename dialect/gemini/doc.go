// Package gemini translates between the Anthropic Messages API, which
// Claude Code and llm_thinking speak, and the Gemini API
// (models/{model}:generateContent and :streamGenerateContent?alt=sse):
// requests one way, answers (streamed or not) and errors the other.
//
// Gemini's reasoning is bound to Gemini as Anthropic's is to Anthropic:
// every function call it makes carries a thought signature that the next
// request must give back on that call, or Gemini 3 refuses it. Each
// signature rides back to the client in the signature of a thinking block,
// in an envelope the gateway seals (package envelope): a block just before
// the tool_use or the text of the part it came on (Next), or the block of
// the thought it came on (This). Claude Code replays its history as it got it, and the request
// translation opens each envelope and puts the signature back on the part
// it came on. A thinking block whose envelope does not open (another
// backend's, a forged one) never reaches Gemini; a function call of the
// current turn that Gemini did not make gets the dummy signature Google
// documents for such calls.
//
// The package knows nothing of Caddy: transport gemini drives it.
package gemini
