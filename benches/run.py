#!/usr/bin/env python3
"""Runs the benchmark suite (scripts/bench.sh builds the programs first): every case against
this library and against whisper.rn's reference backend layer in the same run, reported as
ratios ours/reference. Standard library only.

    run.py --build BUILD_DIR --model MODEL --samples DIR --out DIR [--quick] [--markdown FILE]

Writes DIR/results.json (every measurement and the summary) and DIR/summary.md (the table),
and, with --markdown, replaces the text between the results markers of FILE (BENCHMARKS.md).
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, WSP_GGML_NO_BACKTRACE="1")
BEGIN, END = "<!-- bench:results:begin -->", "<!-- bench:results:end -->"


def release_markers(release):
    """Where the results of another release's build go (--release)."""
    return f"<!-- bench:results-{release}:begin -->", f"<!-- bench:results-{release}:end -->"


def log(message):
    print(message, file=sys.stderr, flush=True)


def run(cmd, timeout=600):
    """Runs a command, returns (stdout, stderr, wall seconds); fails loudly."""
    t0 = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=ENV, timeout=timeout)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout, proc.stderr, wall


def fields(line):
    """key=value pairs of a line, numbers converted."""
    out = {}
    for key, value in re.findall(r"(\w+)=(\S+)", line):
        try:
            out[key] = int(value)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                out[key] = value
    return out


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def interleaved(rounds, ours, ref):
    """A/B: calls ours() and ref() once per round, alternating which goes first."""
    pairs = []
    for r in range(rounds):
        if r % 2 == 0:
            a = ours()
            b = ref()
        else:
            b = ref()
            a = ours()
        pairs.append((a, b))
    return pairs


# ---------------------------------------------------------------------------------------------
# the cases
# ---------------------------------------------------------------------------------------------

SCHED_CASES = [("cpu", 4000), ("cpu", 8000), ("split", 4000), ("split", 8000)]


def case_allocations(bins, model, samples, quick):
    """Rust heap allocations per evaluation after the first, counted (count-allocations); and
    between the first and the last token of whisper's real decoding."""
    results = []
    iterations = 12 if quick else 30
    for mode, nodes in [("cpu", 8000), ("split", 8000)]:
        for parallel in (False, True):
            cmd = [bins["sched_allocs"], mode, nodes, iterations] + (["parallel"] if parallel else [])
            proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=ENV)
            f = fields(proc.stdout)
            f["exit"] = proc.returncode
            f["parallel"] = parallel
            f["iterations"] = iterations
            results.append(f)
            log(f"  allocations {mode:5} {nodes} parallel={int(parallel)}: first={f.get('first')} "
                f"after warm-up={f.get('steady_allocs')} (steady from evaluation {f.get('steady_from')})")
    for wav in sorted(Path(samples).glob("sample*.wav"))[: 1 if quick else None]:
        _, err, _ = run([bins["transcribe.alloc_count"], "-q", "-t", "1", "--timings", model, wav])
        f = fields(next(l for l in err.splitlines() if l.startswith("timings:")))
        if "rs_allocs_between_tokens" not in f:
            raise SystemExit("transcribe-alloc-count reported no allocation count")
        results.append({"whisper": True, "sample": wav.stem, "steady_allocs": f["rs_allocs_between_tokens"],
                        "tokens": f["sampled_tokens"], "exit": 0 if f["rs_allocs_between_tokens"] == 0 else 1})
        log(f"  allocations whisper {wav.stem}: {f['rs_allocs_between_tokens']} between the first and the last of "
            f"{f['sampled_tokens']} sampled tokens")
    return results


def case_instructions(bins, quick):
    """callgrind: scheduler-only instructions per evaluation (and whole evaluation)."""
    iterations = 2 if quick else 3
    results = []
    for mode, nodes in SCHED_CASES:
        row = {"mode": mode, "nodes": nodes, "iterations": iterations}
        for flavour, extra in (("sched", []), ("whole", ["--whole"])):
            for lib in ("ours", "ref"):
                out, _, _ = run(["bash", ROOT / "benches/callgrind.sh", *extra, bins[f"sched_overhead.{lib}"], mode, nodes, iterations])
                row[f"{flavour}_{lib}"] = int(out.split()[0]) / iterations
            row[f"{flavour}_ratio"] = row[f"{flavour}_ours"] / row[f"{flavour}_ref"]
        results.append(row)
        log(f"  instructions {mode:5} {nodes}: scheduler {row['sched_ours']:.0f} vs {row['sched_ref']:.0f} "
            f"= {row['sched_ratio']:.3f}; whole evaluation {row['whole_ratio']:.3f}")
    return results


def case_sched_time(bins, quick):
    """Wall time per evaluation, A/B interleaved: the whole evaluation (reset + alloc_graph +
    graph_compute, plain runs) and the scheduler's own share (exclusive runs: the delegated
    backend compute and ggml-alloc timed and subtracted)."""
    rounds = 3 if quick else 9
    results = []
    for mode, nodes in SCHED_CASES:
        iterations = 30 if mode == "cpu" else 15

        def once(lib, *extra):
            out, _, _ = run([bins[f"sched_overhead.{lib}"], mode, nodes, iterations, *extra])
            return fields(out)

        plain = interleaved(rounds, lambda: once("ours"), lambda: once("ref"))
        exclusive = interleaved(rounds, lambda: once("ours", "exclusive"), lambda: once("ref", "exclusive"))
        for a, b in plain + exclusive:
            if any(a[k] != b[k] for k in ("splits", "copies", "result")):
                raise SystemExit(f"sched_overhead {mode} {nodes}: the libraries did different work: {a} vs {b}")
        row = {
            "mode": mode, "nodes": nodes, "splits": plain[0][0]["splits"], "rounds": rounds, "iterations": iterations,
            "ours_ns": spread([a["median_ns"] for a, _ in plain]),
            "ref_ns": spread([b["median_ns"] for _, b in plain]),
            "ratio": spread([a["median_ns"] / b["median_ns"] for a, b in plain]),
            "sched_ours_ns": spread([a["median_sched_ns"] for a, _ in exclusive]),
            "sched_ref_ns": spread([b["median_sched_ns"] for _, b in exclusive]),
            "sched_ratio": spread([a["median_sched_ns"] / b["median_sched_ns"] for a, b in exclusive]),
            "sched_ratio_of_minima": spread([a["min_sched_ns"] / b["min_sched_ns"] for a, b in exclusive]),
            "delegated_ours_ns": spread([a["median_delegated_ns"] for a, _ in exclusive]),
            "delegated_ref_ns": spread([b["median_delegated_ns"] for _, b in exclusive]),
        }
        results.append(row)
        log(f"  time {mode:5} {nodes}: whole {row['ours_ns']['median'] / 1e6:.3f} vs {row['ref_ns']['median'] / 1e6:.3f} ms, "
            f"ratio {row['ratio']['median']:.3f} [{row['ratio']['min']:.3f}..{row['ratio']['max']:.3f}]; scheduler only "
            f"{row['sched_ours_ns']['median'] / 1e6:.3f} vs {row['sched_ref_ns']['median'] / 1e6:.3f} ms, ratio "
            f"{row['sched_ratio']['median']:.3f} [{row['sched_ratio']['min']:.3f}..{row['sched_ratio']['max']:.3f}]")
    return results


# whisper's decoder token by token: the CPU alone, and the ACCEL fixture with three op sets (the
# argument whisper_decode takes); and each built-in GPU backend the build has (its whisper_decode-<gpu>
# with the argument "gpu"): whisper.rn's Metal C++ over the stand-in, ggml's Vulkan on lavapipe
DECODE_CONFIGS = ["cpu", "accel:few", "accel:default", "accel:almost-all"]
GPU_CONFIGS = ["metal", "vulkan"]


def decode_run(config):
    """(program, argument) of a configuration"""
    return (f"whisper_decode-{config}", "gpu") if config in GPU_CONFIGS else ("whisper_decode", config)


def case_whisper_decode(bins, model, out_dir, quick):
    """whisper_decode: scheduler instructions per token (callgrind), scheduler-only time per
    token (exclusive runs, A/B interleaved), splits per token; CPU alone and ACCEL+CPU."""
    rounds = 3 if quick else 7
    tokens = 8 if quick else 24
    cg_tokens = 4 if quick else 12
    results = []
    configs = DECODE_CONFIGS + [gpu for gpu in GPU_CONFIGS if f"whisper_decode-{gpu}.ours" in bins]
    for config in configs:
        program, argument = decode_run(config)
        row = {"config": config, "rounds": rounds, "tokens": tokens, "callgrind_tokens": cg_tokens}
        for lib in ("ours", "ref"):
            keep = out_dir / f"callgrind.whisper_decode.{config.replace(':', '-')}.{lib}.out"
            out, _, _ = run(["bash", ROOT / "benches/callgrind.sh", "--cache-sim", "--out", keep, bins[f"{program}.{lib}"],
                             model, argument, cg_tokens])
            instructions, ll_read, ll_write = (int(v) for v in out.split())
            row[f"instr_{lib}"] = instructions / cg_tokens
            row[f"ll_read_{lib}"] = ll_read / cg_tokens
            row[f"ll_write_{lib}"] = ll_write / cg_tokens
            row[f"callgrind_{lib}"] = keep.name  # in the build directory
        row["instr_ratio"] = row["instr_ours"] / row["instr_ref"]

        def once(lib):
            out, _, _ = run([bins[f"{program}.{lib}"], model, argument, tokens, "exclusive"])
            return fields(out)

        pairs = interleaved(rounds, lambda: once("ours"), lambda: once("ref"))
        # how often each layer asks the device may differ; the tokens and the splits may not
        for a, b in pairs:
            if any(a[k] != b[k] for k in ("token_hash", "splits_min", "splits_max")):
                raise SystemExit(f"whisper_decode {config}: the libraries did different work: {a} vs {b}")
        a0, b0 = pairs[0]
        row.update({
            "splits_min": a0["splits_min"], "splits_max": a0["splits_max"],
            "supports_op_per_token": {"ours": a0["supports_op_per_token"], "ref": b0["supports_op_per_token"]},
            "offload_op_per_token": {"ours": a0["offload_op_per_token"], "ref": b0["offload_op_per_token"]},
            "sched_ours_ns": spread([a["median_sched_ns"] for a, _ in pairs]),
            "sched_ref_ns": spread([b["median_sched_ns"] for _, b in pairs]),
            "sched_ratio": spread([a["median_sched_ns"] / b["median_sched_ns"] for a, b in pairs]),
            "sched_ratio_of_minima": spread([a["min_sched_ns"] / b["min_sched_ns"] for a, b in pairs]),
            "delegated_ours_ns": spread([a["median_delegated_ns"] for a, _ in pairs]),
            "delegated_ref_ns": spread([b["median_delegated_ns"] for _, b in pairs]),
            "decode_ours_ns": spread([a["median_decode_ns"] for a, _ in pairs]),
            "decode_ref_ns": spread([b["median_decode_ns"] for _, b in pairs]),
            "decode_ratio": spread([a["median_decode_ns"] / b["median_decode_ns"] for a, b in pairs]),
            # the scheduler's time in two parts: planning (sched_alloc_graph's own time) and running
            # the splits (the rest: copying inputs between backends, events, the calls around them)
            "plan_ours_ns": spread([a["median_alloc_own_ns"] for a, _ in pairs]),
            "plan_ref_ns": spread([b["median_alloc_own_ns"] for _, b in pairs]),
            "plan_ratio": spread([a["median_alloc_own_ns"] / b["median_alloc_own_ns"] for a, b in pairs]),
            "run_ratio": spread([(a["median_sched_ns"] - a["median_alloc_own_ns"]) / (b["median_sched_ns"] - b["median_alloc_own_ns"])
                                 for a, b in pairs]),
        })
        results.append(row)
        log(f"  whisper decode {config:16}: {row['splits_min']}..{row['splits_max']} splits/token, instructions "
            f"{row['instr_ours']:.0f} vs {row['instr_ref']:.0f} = {row['instr_ratio']:.3f}; last-level misses read/write "
            f"{row['ll_read_ours']:.0f}/{row['ll_write_ours']:.0f} vs {row['ll_read_ref']:.0f}/{row['ll_write_ref']:.0f}; scheduler time "
            f"{row['sched_ours_ns']['median'] / 1e3:.1f} vs {row['sched_ref_ns']['median'] / 1e3:.1f} us = "
            f"{row['sched_ratio']['median']:.3f} [{row['sched_ratio']['min']:.3f}..{row['sched_ratio']['max']:.3f}]; planning "
            f"{row['plan_ours_ns']['median'] / 1e3:.1f} vs {row['plan_ref_ns']['median'] / 1e3:.1f} us = {row['plan_ratio']['median']:.3f}, "
            f"running the splits {row['run_ratio']['median']:.3f}")
    return results


def case_tensor_io(bins, quick):
    """tensor_set/get/memset/copy against memcpy/memset, both libraries, interleaved."""
    rounds = 2 if quick else 3
    reps = 11 if quick else 25
    results = []
    for size in (16, 64):
        def once(lib):
            out, _, _ = run([bins[f"tensor_io.{lib}"], size, reps])
            return {f["op"]: f for f in map(fields, out.splitlines())}

        pairs = interleaved(rounds, lambda: once("ours"), lambda: once("ref"))
        for op in ("set", "get", "memset", "copy"):
            row = {
                "op": op, "size_mib": size, "rounds": rounds, "reps": reps,
                "ours_vs_baseline": spread([a[op]["ratio"] for a, _ in pairs]),
                "ref_vs_baseline": spread([b[op]["ratio"] for _, b in pairs]),
                "ours_gbps": spread([a[op]["layer_gbps"] for a, _ in pairs]),
                "ref_gbps": spread([b[op]["layer_gbps"] for _, b in pairs]),
                "baseline_gbps": spread([a[op]["baseline_gbps"] for a, _ in pairs] + [b[op]["baseline_gbps"] for _, b in pairs]),
                "ours_vs_ref": spread([a[op]["layer_gbps"] / b[op]["layer_gbps"] for a, b in pairs]),
            }
            results.append(row)
            log(f"  tensor {op:6} {size:2} MiB: ours/memcpy {row['ours_vs_baseline']['median']:.3f}, "
                f"ref/memcpy {row['ref_vs_baseline']['median']:.3f} ({row['ours_gbps']['median']:.1f} vs "
                f"{row['ref_gbps']['median']:.1f} GB/s)")
    return results


def case_whisper(bins, model, samples, quick):
    """examples/transcribe on the speech samples, 1 thread, A/B interleaved."""
    rounds = 1 if quick else 5
    wavs = sorted(Path(samples).glob("sample*.wav"))
    if not wavs:
        raise SystemExit(f"no samples in {samples}: run scripts/models/make-samples.sh")
    runs = []

    def once(lib, wav):
        out, err, wall = run([bins[f"transcribe.{lib}"], "-q", "-t", "1", "--timings", model, wav])
        line = next((l for l in err.splitlines() if l.startswith("timings:")), None)
        if line is None:
            raise SystemExit(f"no timings line from {bins[f'transcribe.{lib}']}:\n{err}")
        f = fields(line)
        f.update(wall_ms=wall * 1e3, text=out.strip(), sample=wav.stem)
        return f

    for r in range(rounds):
        for i, wav in enumerate(wavs):
            # alternate which goes first, across samples and rounds
            if (r + i) % 2 == 0:
                a = once("ours", wav)
                b = once("ref", wav)
            else:
                b = once("ref", wav)
                a = once("ours", wav)
            if a["text"] != b["text"]:
                raise SystemExit(f"{wav.name}: transcripts differ:\n  ours: {a['text']}\n  ref:  {b['text']}")
            if (a["n_decode"], a["n_batchd"], a["n_prompt"]) != (b["n_decode"], b["n_batchd"], b["n_prompt"]):
                raise SystemExit(f"{wav.name}: token counts differ: {a} vs {b}")
            runs.append((a, b))
            log(f"  whisper round {r + 1} {wav.stem}: decode {a['decode_ms'] / a['n_decode']:.2f} vs "
                f"{b['decode_ms'] / b['n_decode']:.2f} ms/token ({a['n_decode']} tokens), run {a['run_ms']:.0f} vs "
                f"{b['run_ms']:.0f} ms, wall {a['wall_ms']:.0f} vs {b['wall_ms']:.0f} ms")

    def decoder_ms(f):
        return f["decode_ms"] + f["batchd_ms"] + f["prompt_ms"]

    def decoder_tokens(f):
        return f["n_decode"] + f["n_batchd"] + f["n_prompt"]

    summary = {
        "rounds": rounds,
        "samples": [w.stem for w in wavs],
        "tokens_per_run": {a["sample"]: a["n_decode"] for a, _ in runs},
        "decode_ms_per_token": {
            "ours": spread([a["decode_ms"] / a["n_decode"] for a, _ in runs]),
            "ref": spread([b["decode_ms"] / b["n_decode"] for _, b in runs]),
            "ratio": spread([(a["decode_ms"] / a["n_decode"]) / (b["decode_ms"] / b["n_decode"]) for a, b in runs]),
        },
        "decoder_ms_per_run": {
            "ours": spread([decoder_ms(a) for a, _ in runs]),
            "ref": spread([decoder_ms(b) for _, b in runs]),
            "ratio": spread([decoder_ms(a) / decoder_ms(b) for a, b in runs]),
        },
        "decoder_ms_per_token_all_calls": {
            "ours": spread([decoder_ms(a) / decoder_tokens(a) for a, _ in runs]),
            "ref": spread([decoder_ms(b) / decoder_tokens(b) for _, b in runs]),
        },
        "encode_ms": {
            "ours": spread([a["encode_ms"] for a, _ in runs]),
            "ref": spread([b["encode_ms"] for _, b in runs]),
            "ratio": spread([a["encode_ms"] / b["encode_ms"] for a, b in runs]),
        },
        "run_ms": {
            "ours": spread([a["run_ms"] for a, _ in runs]),
            "ref": spread([b["run_ms"] for _, b in runs]),
            "ratio": spread([a["run_ms"] / b["run_ms"] for a, b in runs]),
        },
        "wall_ms": {
            "ours": spread([a["wall_ms"] for a, _ in runs]),
            "ref": spread([b["wall_ms"] for _, b in runs]),
            "ratio": spread([a["wall_ms"] / b["wall_ms"] for a, b in runs]),
        },
        "runs": [{"ours": a, "ref": b} for a, b in runs],
    }
    return summary


# ---------------------------------------------------------------------------------------------
# machine, report
# ---------------------------------------------------------------------------------------------

def machine():
    info = {"nproc": os.cpu_count(), "kernel": platform.release(), "loadavg_before": os.getloadavg()}
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        keep = ("Architecture", "Model name", "CPU(s)", "Thread(s) per core", "Core(s) per socket", "Hypervisor vendor",
                "L1d cache", "L2 cache", "L3 cache", "CPU max MHz", "BogoMIPS")
        info["lscpu"] = {k.strip(): v.strip() for k, _, v in (l.partition(":") for l in lscpu.splitlines()) if k.strip() in keep}
    except OSError:
        info["lscpu"] = {}
    try:
        mem_kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        info["memory_gib"] = round(mem_kb / 2**20, 1)
    except (OSError, AttributeError):
        info["memory_gib"] = None
    try:
        info["thp"] = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text().strip()
    except OSError:
        info["thp"] = "?"
    for cmd, key in ((["cc", "--version"], "cc"), (["rustc", "--version"], "rustc"), (["valgrind", "--version"], "valgrind")):
        try:
            info[key] = subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            info[key] = "?"
    return info


def verdict(ok):
    return "met" if ok else "**not met**"


def e2e_verdict(ratio):
    """≤ 1.00 within noise: the median is ≤ 1, or 1 lies within the pairs' spread."""
    if ratio["median"] <= 1.0:
        return "met"
    return "met (1.00 within the pairs' spread)" if ratio["min"] <= 1.0 else "**not met**"


def instruction_tables(res):
    """Sections 2 and 2b: scheduler instructions per evaluation and per whisper token."""
    lines = []
    add = lines.append
    instr = res["instructions"]
    dec = res["whisper_decode"]
    add("### 2. Scheduler overhead, instructions per evaluation (callgrind)")
    add("")
    add("| case | scheduler only: ours | reference | **ratio** | whole evaluation: ours | reference | ratio | scheduler share of the reference's evaluation |")
    add("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in instr:
        add(f"| {r['mode']} {r['nodes']} nodes | {r['sched_ours']:,.0f} | {r['sched_ref']:,.0f} | **{r['sched_ratio']:.3f}** | "
            f"{r['whole_ours']:,.0f} | {r['whole_ref']:,.0f} | {r['whole_ratio']:.3f} | {r['sched_ref'] / r['whole_ref']:.0%} |")
    add("")
    add("### 2b. whisper's decoder token by token, CPU alone, ACCEL + CPU, Metal stand-in + CPU and Vulkan (lavapipe) + CPU (benches/whisper_decode.cpp)")
    add("")
    add("| configuration | splits per token | supports_op / offload_op calls per token, all devices: ours | reference | "
        "scheduler instructions per token: ours | reference | **ratio** | last-level misses per token, read / write: "
        "ours | reference | scheduler time per token: ours (µs) | "
        "reference (µs) | **ratio** [min..max] | whisper_decode per token: ours (ms) | reference (ms) |")
    add("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    for r in dec:
        splits = str(r["splits_min"]) if r["splits_min"] == r["splits_max"] else f"{r['splits_min']}–{r['splits_max']}"
        calls = {lib: f"{r['supports_op_per_token'][lib]:.0f} / {r['offload_op_per_token'][lib]:.0f}" for lib in ("ours", "ref")}
        add(f"| {r['config']} | {splits} | {calls['ours']} | {calls['ref']} | {r['instr_ours']:,.0f} | {r['instr_ref']:,.0f} | "
            f"**{r['instr_ratio']:.3f}** | {r['ll_read_ours']:,.0f} / {r['ll_write_ours']:,.0f} | "
            f"{r['ll_read_ref']:,.0f} / {r['ll_write_ref']:,.0f} | "
            f"{r['sched_ours_ns']['median'] / 1e3:.1f} | {r['sched_ref_ns']['median'] / 1e3:.1f} | "
            f"**{r['sched_ratio']['median']:.3f}** [{r['sched_ratio']['min']:.3f}..{r['sched_ratio']['max']:.3f}] | "
            f"{r['decode_ours_ns']['median'] / 1e6:.2f} | {r['decode_ref_ns']['median'] / 1e6:.2f} |")
    add("")
    add("whisper tiny.en, 1 thread, greedy tokens after the start-of-transcript prompt and 2 warm-up tokens. "
        f"Instructions: one callgrind run per library over {dec[0]['callgrind_tokens']} tokens, counted as in case 2, with "
        f"the backends' supports_op and offload_op calls made by the scheduler counted as the scheduler's. Last-level "
        f"misses: the same runs with callgrind's cache simulation, the last level 32 MiB and 16-way, smaller than the "
        f"model as a phone's caches are (benches/callgrind.sh --cache-sim), counted in the scheduler's code; the compute between two tokens runs "
        f"through the simulated caches uncounted, so what it evicts is missed. Time: "
        f"{dec[0]['rounds']} interleaved rounds of {dec[0]['tokens']} tokens, median per token of the scheduler's three calls "
        f"minus the delegated work (backends' graph_compute and synchronize, ggml-alloc), ratio the median of the rounds' ratios. "
        f"Ratio of each process's fastest token: "
        + ", ".join(f"{r['config']} {r['sched_ratio_of_minima']['median']:.3f}" for r in dec) + ".")
    add("")
    add("The scheduler's time in two parts, ours / reference (median of the rounds' ratios): planning "
        "(`sched_alloc_graph`'s own time) and running the splits (the rest: copying inputs between backends, the "
        "events and the calls around each split). "
        + "; ".join(f"{r['config']}: planning {r['plan_ours_ns']['median'] / 1e3:.1f} / {r['plan_ref_ns']['median'] / 1e3:.1f} µs "
                    f"= **{r['plan_ratio']['median']:.3f}**, running {r['run_ratio']['median']:.3f}" for r in dec) + ".")
    add("")
    return lines


def markdown(res):
    m = res["machine"]
    lines = []
    add = lines.append
    cpu = m["lscpu"]
    add(f"Run {res['date']}, `scripts/bench.sh{' --quick' if res['quick'] else ''}`, {res['seconds']:.0f} s"
        f"{' (quick mode: fewer repetitions, not for the numbers)' if res['quick'] else ''}. Load average before the run "
        f"{', '.join(f'{x:.2f}' for x in m['loadavg_before'])}, after {', '.join(f'{x:.2f}' for x in res['loadavg_after'])}.")
    add("")
    add("| machine | |")
    add("| --- | --- |")
    for key in ("Model name", "Architecture", "CPU(s)", "Thread(s) per core", "Core(s) per socket", "Hypervisor vendor",
                "L1d cache", "L2 cache", "L3 cache", "BogoMIPS"):
        if key in cpu:
            add(f"| {key} (lscpu) | {cpu[key]} |")
    add(f"| nproc | {m['nproc']} |")
    add(f"| memory | {m.get('memory_gib')} GiB |")
    add(f"| kernel | Linux {m['kernel']}, transparent huge pages `{m.get('thp')}` |")
    add(f"| toolchains | {m['cc']}; {m['rustc']}; {m['valgrind']} |")
    add("")
    add("![ratio per case](benches/results/ratios.png)")
    add("")
    add("### Targets")
    add("")
    add("| target | result | |")
    add("| --- | --- | --- |")
    instr = res["instructions"]
    dec = res["whisper_decode"]
    all_instr = [r["sched_ratio"] for r in instr] + [r["instr_ratio"] for r in dec]
    add(f"| scheduler instructions ≤ 0.5× reference (every configuration, whisper's decoder included) | "
        f"{min(all_instr):.3f}–{max(all_instr):.3f}× | {verdict(max(all_instr) <= 0.5)} |")
    cpu_instr = [r["sched_ratio"] for r in instr if r["mode"] == "cpu"] + [r["instr_ratio"] for r in dec if r["config"] == "cpu"]
    add(f"| scheduler instructions ≤ 0.35× reference, CPU alone | {min(cpu_instr):.3f}–{max(cpu_instr):.3f}× "
        f"| {verdict(max(cpu_instr) <= 0.35)} |")
    times = res["sched_time"]
    all_times = [r["sched_ratio"]["median"] for r in times] + [r["sched_ratio"]["median"] for r in dec]
    add(f"| scheduler time ≤ 0.5× reference (scheduler's own time, whisper's decoder included) | "
        f"{min(all_times):.3f}–{max(all_times):.3f}× | {verdict(max(all_times) <= 0.5)} |")
    add(f"| (whole evaluation time, incl. backend compute and ggml-alloc) | "
        f"{min(r['ratio']['median'] for r in times):.3f}–{max(r['ratio']['median'] for r in times):.3f}× | |")
    io = res["tensor_io"]
    worst_io = min(r["ours_vs_baseline"]["median"] for r in io)
    add(f"| tensor I/O ≥ 0.95× memcpy/memset | {worst_io:.3f}–{max(r['ours_vs_baseline']['median'] for r in io):.3f}× "
        f"| {verdict(worst_io >= 0.95)} |")
    w = res["whisper"]
    add(f"| end to end ≤ 1.00× reference within noise | wall {w['wall_ms']['ratio']['median']:.3f}× "
        f"[{w['wall_ms']['ratio']['min']:.3f}..{w['wall_ms']['ratio']['max']:.3f}], whisper_full "
        f"{w['run_ms']['ratio']['median']:.3f}× | {e2e_verdict(w['wall_ms']['ratio'])} |")
    allocs = res["allocations"]
    ok_allocs = all(a.get("exit") == 0 and a.get("steady_allocs") == 0 for a in allocs)
    add(f"| zero allocations after the first evaluation | "
        f"{sum(a.get('steady_allocs', 0) for a in allocs)} allocations in {len(allocs)} configurations "
        f"(incl. whisper decoding) | {verdict(ok_allocs)} |")
    add("")
    add("### 1. Scheduler overhead, time per evaluation")
    add("")
    add("| case | splits | whole: ours (ms) | reference (ms) | ratio [min..max] | scheduler only: ours (ms) | reference (ms) | **ratio** [min..max] | delegated: ours (ms) | reference (ms) |")
    add("| --- | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: |")
    for r in times:
        add(f"| {r['mode']} {r['nodes']} nodes | {r['splits']} | {r['ours_ns']['median'] / 1e6:.3f} | "
            f"{r['ref_ns']['median'] / 1e6:.3f} | {r['ratio']['median']:.3f} [{r['ratio']['min']:.3f}..{r['ratio']['max']:.3f}] | "
            f"{r['sched_ours_ns']['median'] / 1e6:.3f} | {r['sched_ref_ns']['median'] / 1e6:.3f} | "
            f"**{r['sched_ratio']['median']:.3f}** [{r['sched_ratio']['min']:.3f}..{r['sched_ratio']['max']:.3f}] | "
            f"{r['delegated_ours_ns']['median'] / 1e6:.3f} | {r['delegated_ref_ns']['median'] / 1e6:.3f} |")
    add("")
    add(f"{times[0]['rounds']} interleaved rounds per column group; each round runs each program once and takes its median "
        f"over {times[0]['iterations']} (cpu) or {times[2]['iterations']} (split) evaluations after 2 warm-up ones; the "
        f"ratio is the median of the rounds' ratios. Times are medians over the rounds. Scheduler only, the ratio of each "
        f"process's fastest evaluation (less sensitive to interference, more to luck): "
        + ", ".join(f"{r['mode']} {r['nodes']} {r['sched_ratio_of_minima']['median']:.3f}" for r in times) + ".")
    add("")
    lines.extend(instruction_tables(res))
    add("### 3. whisper tiny.en, examples/transcribe, 1 thread")
    add("")
    add("| measure | ours | reference | ratio, median of pairs [min..max] |")
    add("| --- | ---: | ---: | --- |")
    for key, label, unit in (("decode_ms_per_token", "decode per token (single-token decoder calls)", "ms"),
                             ("decoder_ms_per_run", "all decoder calls per run (decode + batchd + prompt)", "ms"),
                             ("encode_ms", "encode per run", "ms"),
                             ("run_ms", "whisper_full per run", "ms"),
                             ("wall_ms", "process wall time per run (load included)", "ms")):
        v = w[key]
        add(f"| {label} | {v['ours']['median']:.2f} {unit} | {v['ref']['median']:.2f} {unit} | **{v['ratio']['median']:.3f}** "
            f"[{v['ratio']['min']:.3f}..{v['ratio']['max']:.3f}] |")
    add("")
    add(f"{w['rounds']} rounds × {len(w['samples'])} samples, each pair run back to back in alternating order; transcripts "
        f"identical. Tokens decoded one at a time per run: "
        + ", ".join(f"{k} {v}" for k, v in w["tokens_per_run"].items()) + ".")
    add("")
    add("### 4. Tensor data access on CPU buffers (throughput ratio, higher is better)")
    add("")
    add("| op | size | ours / memcpy | reference / memcpy | ours / reference | ours GB/s | reference GB/s | memcpy GB/s |")
    add("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in io:
        add(f"| {r['op']} | {r['size_mib']} MiB | **{r['ours_vs_baseline']['median']:.3f}** | {r['ref_vs_baseline']['median']:.3f} | "
            f"{r['ours_vs_ref']['median']:.3f} | {r['ours_gbps']['median']:.1f} | {r['ref_gbps']['median']:.1f} | "
            f"{r['baseline_gbps']['median']:.1f} |")
    add("")
    add("### 5. Heap allocations of the Rust code per evaluation (count-allocations build)")
    add("")
    add("| case | scheduler | first evaluation | evaluations 2.. | after warm-up | |")
    add("| --- | --- | ---: | --- | ---: | --- |")
    for a in allocs:
        if a.get("whisper"):
            add(f"| whisper tiny.en, {a['sample']} | serial (whisper.cpp's) | - | {a['tokens']} sampled tokens: "
                f"{a['steady_allocs']} allocations from the first to the last | {a['steady_allocs']} | "
                f"{verdict(a['steady_allocs'] == 0)} |")
            continue
        per = str(a.get("per_eval", "?")).split(",")
        later = "all 0" if all(x == "0" for x in per[1:]) else ",".join(per[1:])
        add(f"| {a.get('mode')} {a.get('nodes')} nodes | {'parallel, 4 copies' if a['parallel'] else 'serial'} | "
            f"{a.get('first')} | {later} | {a.get('steady_allocs')} | {verdict(a.get('exit') == 0 and a.get('steady_allocs') == 0)} |")
    return "\n".join(lines) + "\n"


def markdown_release(res):
    """The instruction tables of another release's build, against that release's reference."""
    lines = [f"Run {res['date']}, `scripts/bench.sh --release {res['release']}{' --quick' if res['quick'] else ''}`, "
             f"{res['seconds']:.0f} s{' (quick mode: fewer repetitions, not for the numbers)' if res['quick'] else ''}: "
             f"this library built for whisper.rn {res['release']} against that release's own backend layer, on the same "
             f"machine as above.", ""]
    lines.extend(instruction_tables(res))
    return "\n".join(lines) + "\n"


def write_section(path, begin, end, table):
    text = path.read_text()
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        path.write_text(f"{head}{begin}\n{table}{end}{tail}")
    else:
        log(f"{path}: no {begin} markers, left alone")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, type=Path)
    ap.add_argument("--model", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke test, not for the numbers)")
    ap.add_argument("--release", default="0.4.3",
                    help="the whisper.rn release the build serves; other than 0.4.3, only the instruction cases run")
    args = ap.parse_args()
    full = args.release == "0.4.3"

    b = args.build
    bins = {
        "sched_overhead.ours": b / "benches/sched_overhead",
        "sched_overhead.ref": b / "benches/sched_overhead-ref",
        "tensor_io.ours": b / "benches/tensor_io",
        "tensor_io.ref": b / "benches/tensor_io-ref",
        "sched_allocs": b / "benches/sched_allocs-alloc-count",
        "transcribe.ours": b / "examples/transcribe",
        "transcribe.ref": b / "examples/transcribe-ref",
        "transcribe.alloc_count": b / "benches/transcribe-alloc-count",
        "whisper_decode.ours": b / "examples/whisper_decode",
        "whisper_decode.ref": b / "benches/whisper_decode-ref",
    }
    if not full:
        bins = {k: v for k, v in bins.items() if k.startswith(("sched_overhead.", "whisper_decode."))}
        for gpu in GPU_CONFIGS:
            programs = {f"whisper_decode-{gpu}.ours": b / f"examples/whisper_decode-{gpu}",
                        f"whisper_decode-{gpu}.ref": b / f"benches/whisper_decode-ref-{gpu}"}
            if all(p.exists() for p in programs.values()):
                bins.update(programs)
    missing = [str(p) for p in bins.values() if not p.exists()]
    if missing:
        raise SystemExit(f"missing programs (run scripts/bench.sh): {missing}")

    started = time.time()
    res = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "quick": args.quick, "machine": machine()}
    if res["machine"]["loadavg_before"][0] > 0.5:
        log(f"warning: load average {res['machine']['loadavg_before'][0]:.2f}: the machine is not idle, timings will be noisy")
    res["release"] = args.release
    if full:
        log("5. allocations (count-allocations build)")
        res["allocations"] = case_allocations(bins, args.model, args.samples, args.quick)
    log("2. scheduler instructions (callgrind)")
    res["instructions"] = case_instructions(bins, args.quick)
    log("2b. whisper's decoder token by token (CPU, ACCEL+CPU, Metal stand-in+CPU, Vulkan+CPU)")
    res["whisper_decode"] = case_whisper_decode(bins, args.model, args.build, args.quick)
    if not full:
        res["seconds"] = time.time() - started
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "results.json").write_text(json.dumps(res, indent=1) + "\n")
        table = markdown_release(res)
        (args.out / "summary.md").write_text(table)
        if args.markdown:
            write_section(args.markdown, *release_markers(args.release), table)
        print(table)
        return
    log("1. scheduler time")
    res["sched_time"] = case_sched_time(bins, args.quick)
    log("4. tensor I/O")
    res["tensor_io"] = case_tensor_io(bins, args.quick)
    log("3. whisper")
    res["whisper"] = case_whisper(bins, args.model, args.samples, args.quick)
    res["loadavg_after"] = os.getloadavg()
    res["seconds"] = time.time() - started

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(res, indent=1) + "\n")
    table = markdown(res)
    (args.out / "summary.md").write_text(table)
    if args.markdown:
        write_section(args.markdown, BEGIN, END, table)
    print(table)
    failed = [a for a in res["allocations"] if a.get("exit") != 0]
    if failed:
        log("allocations after warm-up were counted (see the table)")


if __name__ == "__main__":
    main()
