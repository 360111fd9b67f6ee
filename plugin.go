package llmthinking

// The package xcaddy builds in (--with github.com/caddy-llm-thinking/
// caddy-llm-thinking) registers every module of the plugin: the handler,
// the app and the commands in this package, and the reverse_proxy
// transports openai and anthropic in theirs. The handler uses nothing of
// the transports: they only register here.
import _ "github.com/caddy-llm-thinking/caddy-llm-thinking/transport"
