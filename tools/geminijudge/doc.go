// Package geminijudge lets clients nobody on this project wrote judge
// transport gemini: the official Anthropic Go SDK sends Claude-Code-shaped
// tool loops through the transport to the strict Gemini mock of package
// llmtest and accumulates what comes back as SDK-based clients do, and
// the official Gemini Go SDK (google.golang.org/genai) decodes every
// request that reached the mock, strictly, and reads the mock's answers,
// streamed and not, as a Gemini client does. It lives in the tools module
// so the SDKs never enter the plugin's dependencies. It holds tests only.
package geminijudge
