# shellcheck shell=bash
# What the bench scripts (bench-builds, bench-counters, instructions)
# share: builds named on the command line, the Caddyfile that puts one of
# them before the bench's upstream, the bench's loads, and waiting for a
# port to open. Sourced, not run; the messages name $out, the script's
# scratch directory.

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

# load_shape load: sets load_args to the bench's load (a, b or c) as its
# compare runs it (../shared/bench/cmd/compare), without the clients, and
# load_clients to how many it runs at once; ends the script on another
# name. Set, not printed, so that a bad name ends the script itself.
load_shape() {
	case $1 in
	a) load_args=(--gen-body-kb 256) load_clients=4 ;;
	b) load_args=(--gen-body-kb 1024) load_clients=2 ;;
	c) load_args=(--gen-body-kb 64 --stream --events 2000 --delay-ms 0) load_clients=4 ;;
	*) echo "no load $1 (a, b or c)" >&2; exit 2 ;;
	esac
}
