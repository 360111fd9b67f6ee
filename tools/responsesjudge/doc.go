// Package responsesjudge lets a client nobody on this project wrote judge
// the mock of OpenAI's Responses API in package llmtest: the official
// OpenAI Go SDK (github.com/openai/openai-go/v3) talks to the mock as a
// client of the API, streamed and not, decodes every answer, event and
// refusal, and goes round a tool loop by sending the output items back as
// the SDK turns them into input items; and it reads every request the mock
// received with its own types, refusing any member they do not have, for
// the tests of the transport that will speak to the mock. It lives in the
// tools module so the SDK never enters the plugin's dependencies. It holds
// tests only.
package responsesjudge
