#!/usr/bin/env bash
# Instructions the scheduler spends per evaluation, without the backends' compute and
# ggml-alloc: callgrind collects only inside wsp_ggml_backend_sched_{reset,alloc_graph,
# graph_compute}, and stops collecting inside the work they delegate (backend graph_compute,
# ggml-alloc's reserve/alloc). Usage: callgrind.sh <bench-binary> <mode> <nodes> <iterations>
set -euo pipefail
bin=$1; shift
out=$(mktemp)
WSP_GGML_NO_BACKTRACE=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
    --instr-atstart=no --collect-atstart=no \
    --toggle-collect=wsp_ggml_backend_sched_reset \
    --toggle-collect=wsp_ggml_backend_sched_alloc_graph \
    --toggle-collect=wsp_ggml_backend_sched_graph_compute \
    --toggle-collect=wsp_ggml_gallocr_alloc_graph \
    --toggle-collect=wsp_ggml_gallocr_reserve_n \
    '--toggle-collect=*wsp_ggml_backend_cpu_graph_compute*' \
    --toggle-collect=tb_backend_graph_compute \
    "$bin" "$@" >/dev/null 2>&1
sed -n 's/^summary: //p; s/^totals: //p' "$out" | head -n 1
rm -f "$out"
