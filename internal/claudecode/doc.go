// Package claudecode builds test data shaped like Claude Code's: long
// sessions grown from a captured request (GrowHistory), random Messages
// requests for fuzz seeds (RandomRequest), and the message the client
// assembles from a stream (Assemble), serialised the way its JavaScript
// writes JSON (AppendString, Stringify).
//
// Only tests use it: the benchmarks and fuzz targets of the plugin's
// packages, and the mocks and client of the test kit (tools/llmtest).
// It holds no server, no client and no program. Like the mocks built on
// it, it is an oracle the product is tested against, so it uses nothing
// but the standard library and never imports the project's other packages.
package claudecode
