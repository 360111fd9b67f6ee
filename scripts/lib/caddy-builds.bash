# shellcheck shell=bash
# What scripts/bench-builds and scripts/instructions share: builds named on
# the command line, the Caddyfile that puts one of them before the bench's
# upstream, and waiting for a port to open. Sourced, not run; the messages
# name $out, the script's scratch directory.

# parse_build name=binary[:'llm_thinking subdirectives']: sets build_name,
# build_binary and build_opts.
parse_build() {
	build_name=${1%%=*}
	local spec=${1#*=}
	build_binary=${spec%%:*} build_opts=""
	[[ $spec != *:* ]] || build_opts=${spec#*:}
}

# write_caddyfile file port upstream [subdirectives]: a Caddyfile serving
# 127.0.0.1:port before reverse_proxy to 127.0.0.1:upstream, flushing every
# write as the bench's does. With a fourth argument, even an empty one,
# llm_thinking (backend anthropic, then the subdirectives) comes first;
# without one, the Caddy is plain.
write_caddyfile() {
	local handler=""
	[ $# -lt 4 ] || handler=$(printf '\tllm_thinking {\n\t\tbackend anthropic\n\t\t%s\n\t}' "$4")
	cat >"$1" <<CADDYFILE
{
	admin off
	auto_https off
}
http://127.0.0.1:$2 {
$handler
	reverse_proxy 127.0.0.1:$3 {
		flush_interval -1
	}
}
CADDYFILE
}

# wait_port port [tries]: waits until 127.0.0.1:port accepts, a tenth of a
# second a try (100 tries unless told), and ends the script otherwise.
wait_port() {
	for _ in $(seq "${2:-100}"); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.1
	done
	echo "port $1 did not open (see $out)" >&2
	exit 1
}
