#!/usr/bin/env bash
# rpc_case.sh CASE SERVER CLIENT [INPUTS...]
#
# One test of ggml's RPC backend through a backend layer. SERVER is examples/rpc's rpc-server,
# started on 127.0.0.1 at a free port and stopped by its pid; CLIENT is an example that takes
# --rpc HOST:PORT and INPUTS (cases transcript, tokens, closed-port, bad-endpoint:
# examples/transcribe with a model and a WAV, examples/generate with a model) or ctests/rpc's
# rpc_client (the others), linked with the same layer. Every client runs under `timeout`: a hang
# fails the case.
#
#   transcript    the transcript over RPC equals the local one (transcribe)
#   tokens        the tokens generated over RPC, and their logits' bits, equal the local ones
#                 (generate)
#   sched         a scheduler over [RPC, CPU] computes what the CPU alone computes
#   sequential    two clients one after the other each get their own correct result
#   concurrent    two clients at once: each gets its correct result or a clear refusal
#   killed        the server killed in the middle of a run: the client ends with a clear message
#   closed-port   nothing listens at the endpoint: a clear message
#   bad-endpoint  malformed endpoints (client and server): a clear message each
set -euo pipefail

case_name=$1
server=$2
client=$3
inputs=("${@:4}")
model=${4:-}
wav=${5:-}

# Bounds, in seconds: a whole transcription, one rpc_client run, the server's start.
TRANSCRIBE_LIMIT=240
CLIENT_LIMIT=120
START_LIMIT=30

# ggml's abort would otherwise run gdb for a backtrace (either package's name for it)
export WSP_GGML_NO_BACKTRACE=1 LM_GGML_NO_BACKTRACE=1

work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

fail() {
    echo "FAIL $case_name: $*" >&2
    for log in "$work"/*.out "$work"/*.err; do
        [ -s "$log" ] && { echo "--- $(basename "$log")" >&2; cat "$log" >&2; }
    done
    exit 1
}

# Starts SERVER on a free port: sets server_pid and endpoint. The server resolves -p 0 to a
# port the kernel just called free; should another process take it before ggml-rpc binds it,
# the server exits and another port is tried.
start_server() {
    local attempt port
    for attempt in 1 2 3 4 5; do
        # made here: the background shell may open them after the first look
        : > "$work/server.out"
        : > "$work/server.err"
        "$server" -p 0 -t 1 > "$work/server.out" 2> "$work/server.err" &
        server_pid=$!
        for _ in $(seq $((START_LIMIT * 10))); do
            port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$work/server.out")
            # connected: the server has bound the port (it then serves this empty connection)
            if [ -n "$port" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
                endpoint=127.0.0.1:$port
                return 0
            fi
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$server_pid" 2>/dev/null; then
            fail "the server did not start listening within ${START_LIMIT} s"
        fi
        wait "$server_pid" || true
        server_pid=""
        grep -q "Failed to create server socket" "$work/server.err" || fail "the server exited at start (attempt $attempt)"
    done
    fail "no free port after 5 attempts"
}

stop_server() {
    kill "$server_pid"
    { wait "$server_pid"; } 2>/dev/null || true
    server_pid=""
}

# run_bounded LIMIT NAME COMMAND...: runs COMMAND with stdout and stderr in $work/NAME.out and
# $work/NAME.err; sets rc. A timeout fails the case.
run_bounded() {
    local limit=$1 name=$2
    shift 2
    rc=0
    timeout "$limit" "$@" > "$work/$name.out" 2> "$work/$name.err" || rc=$?
    [ "$rc" -ne 124 ] || fail "$name did not finish within $limit s"
}

expect_pass() {
    local name=$1 seed=$2
    [ "$rc" -eq 0 ] || fail "$name exited with $rc"
    grep -q "^PASS seed $seed$" "$work/$name.out" || fail "$name did not pass"
    echo "$name: $(grep -c identical "$work/$name.out") rounds identical to the CPU alone"
}

# the line of stderr that says why a refused or failed client stopped
reason() {
    grep -m1 -E "Remote RPC server|Failed to connect|cannot reach|is not an endpoint|terminate called" "$work/$1.err" || true
}

case "$case_name" in
transcript)
    [ -f "$model" ] || fail "$model is missing: run scripts/setup.sh first"
    # a 5.12 s window (the samples are shorter) instead of whisper's 30 s: the same graphs over
    # the wire, a sixth of the encoding
    window=(--audio-ctx 256)
    run_bounded "$TRANSCRIBE_LIMIT" local "$client" -t 1 -q "${window[@]}" "$model" "$wav"
    [ "$rc" -eq 0 ] || fail "local transcription exited with $rc"
    start_server
    # without -q: whisper logs which backend it uses
    run_bounded "$TRANSCRIBE_LIMIT" remote "$client" -t 1 "${window[@]}" --rpc "$endpoint" "$model" "$wav"
    [ "$rc" -eq 0 ] || fail "transcription over RPC exited with $rc"
    # ggml-rpc names the device after the endpoint (protocol 4: "RPC[HOST:PORT]") or numbers it
    # ("RPC0", whose buffers carry the endpoint: "RPC0[HOST:PORT]")
    grep -qE "using RPC(\[$endpoint\]|[0-9]+) backend" "$work/remote.err" || fail "whisper did not use the RPC device"
    grep -qE "RPC[0-9]*\[$endpoint\]" "$work/remote.err" || fail "whisper put nothing on the RPC server"
    grep -q "^Accepted client connection" "$work/server.out" || fail "the server saw no client"
    [ -s "$work/local.out" ] || fail "empty transcript"
    cmp -s "$work/local.out" "$work/remote.out" || fail "transcripts differ"
    echo "transcript (local and over RPC): $(cat "$work/local.out")"
    echo "local:    $(grep '^load ' "$work/local.err")"
    echo "over RPC: $(grep '^load ' "$work/remote.err")"
    ;;
tokens)
    [ -f "$model" ] || fail "$model is missing: run scripts/setup.sh first"
    run_bounded "$TRANSCRIBE_LIMIT" local "$client" -t 1 "$model"
    [ "$rc" -eq 0 ] || fail "local generation exited with $rc"
    start_server
    run_bounded "$TRANSCRIBE_LIMIT" remote "$client" -t 1 --devices --rpc "$endpoint" "$model"
    [ "$rc" -eq 0 ] || fail "generation over RPC exited with $rc"
    grep -qE "^device [0-9]+: RPC[0-9]+ type=GPU .* reg=RPC$" "$work/remote.out" || fail "no RPC device listed"
    grep -q "^Accepted client connection" "$work/server.out" || fail "the server saw no client"
    grep -q "^token" "$work/local.out" || fail "no tokens"
    cmp -s "$work/local.out" <(grep -v '^device' "$work/remote.out") || fail "the tokens or their logits differ"
    echo "tokens (local and over RPC, $(grep -c '^token' "$work/local.out") with identical logits): $(awk '/^token/ { printf "%s ", $3 }' "$work/local.out")"
    ;;
sched)
    start_server
    run_bounded "$CLIENT_LIMIT" client "$client" "$endpoint" 1 3
    expect_pass client 1
    ;;
sequential)
    start_server
    run_bounded "$CLIENT_LIMIT" first "$client" "$endpoint" 1 3
    expect_pass first 1
    run_bounded "$CLIENT_LIMIT" second "$client" "$endpoint" 2 3
    expect_pass second 2
    ;;
concurrent)
    start_server
    for seed in 1 2; do
        timeout "$CLIENT_LIMIT" "$client" "$endpoint" "$seed" 5 > "$work/client$seed.out" 2> "$work/client$seed.err" &
        eval "client_pid$seed=$!"
    done
    for seed in 1 2; do
        rc=0
        { wait "$(eval echo "\$client_pid$seed")"; } 2>/dev/null || rc=$?
        [ "$rc" -ne 124 ] || fail "client $seed did not finish within $CLIENT_LIMIT s"
        ! grep -q MISMATCH "$work/client$seed.out" || fail "client $seed got wrong numbers"
        if [ "$rc" -eq 0 ]; then
            expect_pass "client$seed" "$seed"
        else
            [ -n "$(reason "client$seed")" ] || fail "client $seed failed ($rc) without a message"
            echo "client$seed: refused ($rc): $(reason "client$seed")"
        fi
    done
    ;;
killed)
    start_server
    : > "$work/client.out"
    timeout "$CLIENT_LIMIT" "$client" "$endpoint" 3 0 > "$work/client.out" 2> "$work/client.err" &
    client_pid=$!
    for _ in $(seq $((CLIENT_LIMIT * 10))); do
        grep -q "^round 2 identical" "$work/client.out" && break
        kill -0 "$client_pid" 2>/dev/null || fail "the client stopped before the server was killed"
        sleep 0.1
    done
    kill -KILL "$server_pid"
    { wait "$server_pid"; } 2>/dev/null || true
    server_pid=""
    killed_at=$SECONDS
    rc=0
    { wait "$client_pid"; } 2>/dev/null || rc=$?
    [ "$rc" -ne 124 ] || fail "the client hung after the server was killed"
    [ "$rc" -ne 0 ] || fail "the client succeeded without its server"
    ! grep -q MISMATCH "$work/client.out" || fail "the client got wrong numbers"
    grep -q "Remote RPC server crashed or returned malformed response" "$work/client.err" \
        || fail "the client ended ($rc) without saying the server went away"
    echo "client ended $((SECONDS - killed_at)) s after the kill, status $rc: $(reason client)"
    ;;
closed-port)
    # a port the server just had: nothing listens there any more
    start_server
    stop_server
    run_bounded "$CLIENT_LIMIT" client "$client" --rpc "$endpoint" "${inputs[@]}"
    [ "$rc" -eq 1 ] || fail "expected status 1, got $rc"
    grep -qF -- "--rpc: cannot reach an RPC server at $endpoint" "$work/client.err" || fail "no clear message"
    echo "closed port: $(tr '\n' '|' < "$work/client.err")"
    ;;
bad-endpoint)
    for bad in 127.0.0.1 127.0.0.1: :50052 127.0.0.1:port 127.0.0.1:70000 127.0.0.1:-1 a:b:1 ""; do
        run_bounded "$CLIENT_LIMIT" client "$client" --rpc "$bad" "${inputs[@]}"
        [ "$rc" -eq 1 ] || fail "--rpc '$bad': expected status 1, got $rc"
        grep -qF -- "--rpc: '$bad' is not an endpoint: expected HOST:PORT" "$work/client.err" || fail "--rpc '$bad': no clear message"
    done
    echo "client: $(cat "$work/client.err")"
    for bad in port 70000 -1; do
        run_bounded "$START_LIMIT" server "$server" -p "$bad"
        [ "$rc" -eq 2 ] || fail "server -p '$bad': expected status 2, got $rc"
        grep -qF "'$bad' is not a port" "$work/server.err" || fail "server -p '$bad': no clear message"
    done
    echo "server: $(cat "$work/server.err")"
    run_bounded "$START_LIMIT" server "$server" -H not-an-address -p 0
    [ "$rc" -eq 1 ] || fail "server -H not-an-address: expected status 1, got $rc"
    echo "server: $(cat "$work/server.err")"
    ;;
*)
    echo "rpc_case.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac
echo "PASS $case_name"
