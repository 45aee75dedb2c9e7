#!/usr/bin/env python3
"""Plots the ratio per case from benches/run.py's results.json (matplotlib).

    plot.py results.json ratios.png

Left: costs, ours / reference (lower is better; targets dashed). Right: tensor data access
throughput relative to memcpy/memset, ours and the reference (higher is better).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    res = json.load(open(sys.argv[1]))
    out = sys.argv[2]

    # (label, median, min, max, target)
    costs = []
    # instructions: ≤ 0.5 in every configuration, ≤ 0.35 on the CPU alone
    for r in res["instructions"]:
        costs.append((f"sched instructions, {r['mode']} {r['nodes']}", r["sched_ratio"], r["sched_ratio"], r["sched_ratio"],
                      0.35 if r["mode"] == "cpu" else 0.5))
    for r in res.get("whisper_decode", []):
        costs.append((f"sched instructions, whisper decode {r['config']}", r["instr_ratio"], r["instr_ratio"],
                      r["instr_ratio"], 0.35 if r["config"] == "cpu" else 0.5))
    for r in res["sched_time"]:
        q = r["sched_ratio"]
        costs.append((f"sched time, {r['mode']} {r['nodes']}", q["median"], q["min"], q["max"], 0.5))
    for r in res.get("whisper_decode", []):
        q = r["sched_ratio"]
        costs.append((f"sched time, whisper decode {r['config']}", q["median"], q["min"], q["max"], 0.5))
    for r in res["sched_time"]:
        q = r["ratio"]
        costs.append((f"whole evaluation time, {r['mode']} {r['nodes']}", q["median"], q["min"], q["max"], None))
    w = res["whisper"]
    for key, label in (("decode_ms_per_token", "whisper decode / token"), ("decoder_ms_per_run", "whisper decoder / run"),
                       ("run_ms", "whisper_full time"), ("wall_ms", "end to end wall time")):
        q = w[key]["ratio"]
        costs.append((label, q["median"], q["min"], q["max"], 1.0))

    io = []
    for r in res["tensor_io"]:
        io.append((f"{r['op']} {r['size_mib']} MiB", r["ours_vs_baseline"], r["ref_vs_baseline"]))

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 9), gridspec_kw={"width_ratios": [3, 2]})

    ys = list(range(len(costs)))[::-1]
    def met(c):
        # the end-to-end target is "≤ 1.00 within noise": met when 1.00 is within the spread
        return c[1] <= c[4] or (c[4] == 1.0 and c[2] <= c[4])

    colors = ["#999999" if c[4] is None else "#4c72b0" if met(c) else "#c44e52" for c in costs]
    ax1.barh(ys, [c[1] for c in costs], color=colors, alpha=0.85)
    ax1.errorbar([c[1] for c in costs], ys, xerr=[[c[1] - c[2] for c in costs], [c[3] - c[1] for c in costs]],
                 fmt="none", ecolor="black", capsize=3, linewidth=1)
    for y, c in zip(ys, costs):
        ax1.text(c[3] + 0.02, y, f"{c[1]:.3f}", va="center", fontsize=8)
        if c[4] is not None:
            ax1.plot([c[4], c[4]], [y - 0.45, y + 0.45], color="black", linestyle="--", linewidth=1)
    ax1.axvline(1.0, color="grey", linewidth=0.8)
    ax1.set_yticks(ys)
    ax1.set_yticklabels([c[0] for c in costs], fontsize=9)
    ax1.set_xlim(0, max(1.3, max(c[3] for c in costs) + 0.15))
    ax1.set_xlabel("ours / reference (lower is better); bar: median, whiskers: min..max; dashed: target")
    from matplotlib.patches import Patch
    ax1.legend(handles=[Patch(color="#4c72b0", label="target met"), Patch(color="#c44e52", label="target not met"),
                        Patch(color="#999999", label="no target (context)")], loc="upper right", fontsize=8)
    ax1.set_title("Cost ratio, wsp-ggml-backend / whisper.rn reference")

    ys2 = list(range(len(io)))[::-1]
    h = 0.38
    ax2.barh([y + h / 2 for y in ys2], [i[1]["median"] for i in io], height=h, label="ours / memcpy", color="#4c72b0")
    ax2.barh([y - h / 2 for y in ys2], [i[2]["median"] for i in io], height=h, label="reference / memcpy", color="#999999")
    for y, i in zip(ys2, io):
        ax2.text(i[1]["median"] + 0.01, y + h / 2, f"{i[1]['median']:.3f}", va="center", fontsize=8)
        ax2.text(i[2]["median"] + 0.01, y - h / 2, f"{i[2]['median']:.3f}", va="center", fontsize=8)
    ax2.axvline(0.95, color="black", linestyle="--", linewidth=1, label="target 0.95")
    ax2.axvline(1.0, color="grey", linewidth=0.8)
    ax2.set_yticks(ys2)
    ax2.set_yticklabels([i[0] for i in io], fontsize=9)
    ax2.set_xlim(0.6, 1.2)
    ax2.set_xlabel("throughput relative to memcpy/memset (higher is better)")
    ax2.set_title("Tensor data access, CPU buffers")
    ax2.legend(loc="lower left", fontsize=8)

    m = res["machine"]
    fig.suptitle(f"{res['date']} — {m['lscpu'].get('Model name', '?')}, {m['nproc']} CPUs", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
