// Package commandtest tests `caddy llm-thinking status|switch|forget`
// (package command of the plugin) as a user runs it: against the admin API
// of a real Caddy running in process, with llm_thinking before
// reverse_proxy and the mock backends of package llmtest. It lives in the
// tools module with the rest of the test kit, so that the plugin's
// package tree builds none of it. It holds tests only.
package commandtest
