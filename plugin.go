package llmthinking

// The package xcaddy builds in (--with github.com/caddy-llm-thinking/
// caddy-llm-thinking) registers every module of the plugin: the handler,
// the app and the admin API in this package, the reverse_proxy transports
// openai, anthropic, gemini and responses in theirs, and the `caddy
// llm-thinking` command. The handler uses nothing of the transports nor
// of the command: they only register here.
import (
	_ "github.com/caddy-llm-thinking/caddy-llm-thinking/command"
	_ "github.com/caddy-llm-thinking/caddy-llm-thinking/transport"
)
