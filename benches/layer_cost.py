#!/usr/bin/env python3
"""Instructions spent by the backend layer itself in a callgrind profile.

    layer_cost.py <callgrind.out> <layer-file-pattern>

A function belongs to the layer when its source file matches the pattern (the reference:
ggml-backend.cpp / ggml-backend-reg.cpp; this library: its src/ directory). The layer's cost
is the self cost of its functions plus everything they call that is neither ggml core nor a
backend: the C and C++ runtimes, Rust's standard library, header-only templates (malloc,
memcpy, snprintf, std::vector, hashing...). Calls into ggml core, ggml-alloc and the
backends are the work the layer delegates, the same for both implementations, and are left
out. Prints "layer_instructions N total_instructions M".
"""
import re
import sys
from collections import defaultdict


def parse(path):
    """Self cost per function, call edges (caller, callee) -> inclusive cost, and files."""
    names = {"fl": {}, "fn": {}, "ob": {}}
    self_cost = defaultdict(int)
    edges = defaultdict(int)
    file_of = {}
    object_of = {}
    total = 0
    cur_fn = cur_file = cur_ob = None
    call_target = None
    pending_call = False

    def resolve(kind, text):
        m = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if not m:
            return text
        key, value = m.group(1), m.group(2)
        if value is not None:
            names[kind][key] = value
        return names[kind].get(key, value)

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line[0] == "#":
                continue
            if line.startswith("summary:") or line.startswith("totals:"):
                total = max(total, int(line.split()[1]))
                continue
            key, _, rest = line.partition("=")
            if key in ("fl", "fi", "fe"):
                name = resolve("fl", rest)
                if key == "fl":
                    cur_file = name
                continue
            if key == "ob":
                cur_ob = resolve("ob", rest)
                continue
            if key == "fn":
                cur_fn = resolve("fn", rest)
                file_of.setdefault(cur_fn, cur_file)
                object_of.setdefault(cur_fn, cur_ob)
                continue
            if key in ("cfl", "cfi", "cob"):
                resolve("ob" if key == "cob" else "fl", rest)
                continue
            if key == "cfn":
                call_target = resolve("fn", rest)
                continue
            if key == "calls":
                pending_call = True
                continue
            if line[0] in "0123456789+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if pending_call:
                    edges[(cur_fn, call_target)] += cost
                    pending_call = False
                else:
                    self_cost[cur_fn] += cost
    return self_cost, edges, file_of, object_of, total


def main():
    path, layer_pattern = sys.argv[1], re.compile(sys.argv[2])
    self_cost, edges, file_of, object_of, total = parse(path)

    def in_layer(fn):
        return bool(layer_pattern.search(file_of.get(fn) or ""))

    def is_runtime(fn):
        # Code that runs on the layer's behalf: shared C/C++ runtimes, Rust's std, templates.
        file, obj = file_of.get(fn) or "", object_of.get(fn) or ""
        return (re.search(r"/lib[^/]*\.so", obj) is not None
                or file.startswith("/usr/include") or file.startswith("/rustc/") or "/.cargo/registry/" in file
                or file == "???" and not re.search(r"wsp_ggml|test_backend", fn or ""))

    layer = sum(cost for fn, cost in self_cost.items() if in_layer(fn))
    layer += sum(cost for (caller, callee), cost in edges.items()
                 if in_layer(caller) and not in_layer(callee) and is_runtime(callee))
    print(f"layer_instructions {layer} total_instructions {total}")


if __name__ == "__main__":
    main()
