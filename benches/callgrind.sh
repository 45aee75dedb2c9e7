#!/usr/bin/env bash
# Instructions the scheduler spends, without the backends' compute and ggml-alloc: callgrind
# collects only inside wsp_ggml_backend_sched_{reset,alloc_graph,graph_compute}, and stops
# collecting inside the work they delegate (backend graph_compute, ggml-alloc's reserve/alloc).
# With --whole it collects everything those three functions do, delegated work included.
# Prints the instructions collected over all timed iterations of the program (sched_overhead
# starts instrumenting after its warm-up evaluations): divide by <iterations>.
#   callgrind.sh [--whole] <bench-binary> <mode> <nodes> <iterations>
set -euo pipefail
exclude=(--toggle-collect=wsp_ggml_gallocr_alloc_graph
         --toggle-collect=wsp_ggml_gallocr_reserve_n
         '--toggle-collect=*wsp_ggml_backend_cpu_graph_compute*'
         --toggle-collect=tb_backend_graph_compute)
if [ "${1:-}" = "--whole" ]; then
    exclude=()
    shift
fi
bin=$1; shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
WSP_GGML_NO_BACKTRACE=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
    --instr-atstart=no --collect-atstart=no \
    --toggle-collect=wsp_ggml_backend_sched_reset \
    --toggle-collect=wsp_ggml_backend_sched_alloc_graph \
    --toggle-collect=wsp_ggml_backend_sched_graph_compute \
    "${exclude[@]}" \
    "$bin" "$@" >/dev/null 2>&1
sed -n 's/^summary: //p; s/^totals: //p' "$out" | head -n 1
