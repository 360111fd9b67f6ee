package llmthinking

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/command"
)

// A Caddy built with the module has `caddy llm-thinking status` and
// `caddy llm-thinking switch`, which drive llm_thinking through the admin
// API (see package command).
func init() {
	caddycmd.RegisterCommand(command.New())
}
