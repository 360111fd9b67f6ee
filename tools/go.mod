module github.com/caddy-llm-thinking/caddy-llm-thinking/tools

go 1.26.8

tool github.com/caddyserver/xcaddy/cmd/xcaddy

require (
	github.com/caddyserver/xcaddy v0.4.5
	github.com/tidwall/gjson v1.20.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
)

require (
	github.com/Masterminds/semver/v3 v3.5.0 // indirect
	github.com/akavel/rsrc v0.10.2 // indirect
	github.com/caddy-llm-thinking/caddy-llm-thinking v0.0.0-00010101000000-000000000000
	github.com/google/shlex v0.0.0-20191202100458-e7afc7fbc510 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/josephspurrier/goversioninfo v1.5.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
)

replace github.com/caddy-llm-thinking/caddy-llm-thinking => ../
