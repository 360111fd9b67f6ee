// Command llm-thinking-floor is Caddy with the floor stand-in (package
// floor) in llm_thinking's place: the bench's ratios of this binary are the
// floor under those of Caddy with llm_thinking.
//
//	go -C tools build -trimpath -o /tmp/caddy-floor ./cmd/llm-thinking-floor
//	../shared/bench/ratios.sh /tmp/caddy-floor
//	MODULE_OPTS='floor copy' ../shared/bench/ratios.sh /tmp/caddy-floor
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/caddy-llm-thinking/caddy-llm-thinking/tools/floor"
)

func main() { caddycmd.Main() }
