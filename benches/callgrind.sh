#!/usr/bin/env bash
# Instructions the scheduler spends, without the backends' compute and ggml-alloc: callgrind
# collects only inside wsp_ggml_backend_sched_{reset,alloc_graph,graph_compute}, and stops
# collecting inside the work they delegate (backend graph_compute, Metal's and Vulkan's
# graph_optimize, which reorder a split's nodes for the GPU, Vulkan's synchronize, which waits for
# the work its graph_compute queued, and ggml-alloc's reserve/alloc).
# With --whole it collects everything those three functions do, delegated work included.
# Prints the instructions collected over all timed iterations of the program (sched_overhead
# and whisper_decode start instrumenting after their warm-up): divide by the iterations.
# What the backends answer the scheduler (supports_op, offload_op, supports_buft) is scheduler
# work and collected; the ACCEL fixture's graph_compute is collected up to its call of the CPU
# backend's (a toggle there would turn collection back on inside the CPU's).
# With --out FILE the callgrind output is kept in FILE (for callgrind_annotate).
# With --cache-sim it also simulates the caches, with a last level of 32 MiB, 16-way, and prints
# after the instructions the last-level read and write misses of the collected code (the work it
# does not collect still runs through the simulated caches: whisper's compute evicts them
# between two tokens). The last level is fixed, not this machine's: it must be smaller than the
# model, as a phone's caches are (so the compute evicts the scheduler's state), valgrind
# simulates only power-of-two set counts (a 480 MiB L3 has none), and its own guess from cpuid
# can be far off in a VM. 32 MiB is the L3 of the machine the first results were recorded on.
#   callgrind.sh [--whole] [--cache-sim] [--out FILE] <bench-binary> <program arguments...>
set -euo pipefail
exclude=(--toggle-collect=wsp_ggml_gallocr_alloc_graph
         --toggle-collect=wsp_ggml_gallocr_reserve_n
         '--toggle-collect=*wsp_ggml_backend_cpu_graph_compute*'
         --toggle-collect=tb_backend_graph_compute
         '--toggle-collect=*wsp_ggml_backend_metal_graph_optimize*'
         '--toggle-collect=*wsp_ggml_backend_vk_graph_compute*'
         '--toggle-collect=*wsp_ggml_backend_vk_synchronize*'
         '--toggle-collect=*wsp_ggml_vk_graph_optimize*')
out=""
cache_sim=()
while [ $# -gt 0 ]; do
    case "$1" in
        --whole) exclude=(); shift ;;
        --cache-sim)
            cache_sim=(--cache-sim=yes --LL=33554432,16,64)  # size, ways, line
            shift ;;
        --out) out=$2; shift 2 ;;
        *) break ;;
    esac
done
bin=$1; shift
if [ -z "$out" ]; then
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
fi
WSP_GGML_NO_BACKTRACE=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
    --instr-atstart=no --collect-atstart=no \
    --toggle-collect=wsp_ggml_backend_sched_reset \
    --toggle-collect=wsp_ggml_backend_sched_alloc_graph \
    --toggle-collect=wsp_ggml_backend_sched_graph_compute \
    "${exclude[@]}" "${cache_sim[@]}" \
    "$bin" "$@" >/dev/null 2>&1
# the events line names the columns: Ir first, with --cache-sim also DLmr and DLmw
awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
     /^(summary|totals):/ && !done { split($0, v, " "); done = 1
         printf "%s", v[col["Ir"] + 1]
         if ("DLmr" in col) printf " %s %s", v[col["DLmr"] + 1], v[col["DLmw"] + 1]
         print "" }' "$out"
