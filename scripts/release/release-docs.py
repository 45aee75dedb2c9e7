#!/usr/bin/env python3
"""The docs' facts, printed from the release table (releases.txt) and the tree, so that no count
in the docs is written by hand.

  scripts/release/release-docs.py           prints the README's tables of the release table: the
                                    families, what each serves and builds with; the
                                    capabilities per family; the built-in backends per family
  scripts/release/release-docs.py --check   fails, naming each stale place, when a generated part of the
                                    docs differs from what this prints (scripts/test.sh runs it)
  scripts/release/release-docs.py --write   rewrites those parts

The generated parts of README.md and integrations/react-native/README.md are the tables, each
between `<!-- generated:NAME -->` and `<!-- /generated -->`, and every inline count, written as
`<!-- count:NAME -->value<!-- /count -->`; `--names` lists the names (and the counts' values). Counting
the hostile calls preprocesses ctests/hostile/bad_input.c with each family's headers
(scripts/fetch/fetch-reference.sh --all fetches them)."""
import collections
import pathlib
import re
import subprocess
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parents[2]
DOCS = [root / "README.md", root / "integrations/react-native/README.md"]


def release_table(*query):
    """An answer of scripts/release/release-table.sh, the release table's reader for scripts and tests."""
    return subprocess.run(["bash", str(root / "scripts/release/release-table.sh"), *query], check=True,
                          capture_output=True, text=True).stdout


def read_table():
    """The families in the table's order, each a dict of key -> values (with the prefix of its
    names under "prefix": its own, else its package's); the capabilities' texts."""
    families = collections.OrderedDict()
    for name in release_table("families").split():
        facts = {key: release_table("of", name, key).split()
                 for key in ("releases", "package", "preview", "feature", "symbols", "builtins", "capabilities")}
        # none ("-") for plain ggml's names
        newest = f"{facts['package'][0]}@{facts['releases'][-1]}"
        facts["prefix"] = release_table("prefix", newest).split() or [""]
        families[name] = facts
    what = collections.OrderedDict(line.split("\t", 1) for line in release_table("capability-texts").splitlines())
    return families, what


def functions(facts):
    return len((root / "ctests" / facts["symbols"][0]).read_text().split())


def tables(families, what):
    """The README's three tables of the release table, by name."""
    def row(cells):
        return "| " + " | ".join(cells) + " |"

    table = [row(["family", "serves", "cargo feature", "CMake `-DGGMLRS_RELEASE=`", "functions"]),
             row(["---"] * 5)]
    for name, facts in families.items():
        feature = f"`{facts['feature'][0]}`" if facts["feature"] else "none (default)"
        package = facts["package"][0]
        cmake = " or ".join(f"`{package}@{r}`" for r in facts["releases"])
        preview = " (preview: pre-releases, not yet built into apps)" if facts["preview"] == ["yes"] else ""
        table.append(row([name, f"{package} " + ", ".join(f"**{r}**" for r in facts["releases"]) + preview, feature, cmake,
                          f"{functions(facts)} (`ctests/{facts['symbols'][0]}`)"]))
    capabilities = [row(["capability", "what"] + list(families)), row(["---"] * (2 + len(families)))]
    for capability, text in what.items():
        capabilities.append(row([f"`{capability}`", text]
                                + ["✓" if capability in f["capabilities"] else "" for f in families.values()]))
    builtins = [row(["family", "built-in backends, in registration order"]), row(["---"] * 2)]
    for name, facts in families.items():
        builtins.append(row([name, ", ".join(facts["builtins"])]))
    return {"families": "\n".join(table), "capabilities": "\n".join(capabilities), "builtins": "\n".join(builtins),
            "bad-input": bad_input(families)}


def suite_programs(capabilities):
    """(source, judged) of ctests/programs.txt that a family with these capabilities runs."""
    programs = []
    for line in (root / "ctests/programs.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        source, needs, judged = line.split()[:3]
        if needs == "-" or needs in capabilities:
            programs.append((source, judged))
    return programs


def hostile_cases(facts):
    """(case, outcome, export) of every case bad_input --list names in the family's build: its
    case table, preprocessed with the family's headers and capability macros (another package's
    through the prefix map), exports named as whisper.rn names them."""
    package, newest = facts["package"][0], facts["releases"][-1]
    folder = "whisper.rn" if package == "whisper.rn" and not facts["feature"] else f"{package}-{newest}"
    cpp = root / "third_party" / folder / "cpp"
    if not cpp.is_dir():
        sys.exit(f"release-docs.py: {cpp} is missing: run scripts/fetch/fetch-reference.sh --all first")
    macros = [f"-DWSP_GGML_BACKEND_{c.upper()}" for c in facts["capabilities"]]
    with tempfile.NamedTemporaryFile("w", suffix=".h") as prefix_map:
        prefix = facts["prefix"][0]
        if prefix != "wsp_":
            prefix_map.write(subprocess.run([root / "scripts/release/prefix-map.sh", prefix, prefix.upper()],
                                            check=True, capture_output=True, text=True).stdout)
            prefix_map.flush()
            macros += ["-include", prefix_map.name]
        out = subprocess.run(["cc", "-E", "-P", f"-I{cpp}", f"-I{root / 'ctests/fixtures'}", *macros,
                              str(root / "ctests/hostile/bad_input.c")],
                             check=True, capture_output=True, text=True).stdout
    table = out[out.index("cases[] = {"):]
    return re.findall(r'\{\s*"([a-z0-9_]+)"\s*,\s*"(abort|error|ok)"\s*,\s*"wsp_(ggml_[a-z0-9_]+)"', table)


# Exports whose arguments a caller cannot get wrong: none (reg_count, ...), or any value is
# valid (buffer_init takes any buffer type, NULL too, and the backend's own interface).
NO_BAD_INPUT = {"ggml_backend_cpu_buffer_type", "ggml_backend_reg_count", "ggml_backend_dev_count",
                "ggml_backend_init_best", "ggml_backend_buffer_init"}


def error_channel_exports(facts):
    """The family's exports that return something (and so can refuse bad input), as whisper.rn
    names them without the prefix; the return types are the library's header's."""
    header = re.sub(r"\s+", " ", (root / "include/wsp_ggml_backend.h").read_text())
    returns = {name: kind.strip() for kind, name in re.findall(r"([A-Za-z_][\w *]*?)\bwsp_(ggml_\w+) ?\(", header)}
    exports = [name.removeprefix("wsp_") for name in (root / "ctests" / facts["symbols"][0]).read_text().split()]
    return [name for name in exports if returns.get(name, "void") != "void"]


def bad_input(families):
    """The README's table of what bad input gets, per family: the hostile cases, what the
    reference does with them (ctests/hostile/reference/<family>.txt, which the hostile test
    checks against the reference) and what this library does; exits when an export with an
    error channel has no case."""
    def row(cells):
        return "| " + " | ".join(cells) + " |"

    kinds = ["abort", "segfault", "hangs", "silent", "same"]
    lines = [row(["family", "exports", "with an error channel", "hostile calls",
                  "reference: " + " / ".join(kinds), "library: error value / abort / ok"]),
             row(["---"] * 6)]
    for name, facts in families.items():
        cases = hostile_cases(facts)
        channel = error_channel_exports(facts)
        covered = {export for _, outcome, export in cases if outcome in ("error", "ok")}
        missing = [e for e in channel if e not in covered and e not in NO_BAD_INPUT]
        if missing:
            sys.exit(f"release-docs.py: family {name}: no hostile case for " + ", ".join(missing))
        record = root / "ctests/hostile/reference" / f"{name}.txt"
        if not record.is_file():
            sys.exit(f"release-docs.py: {record.relative_to(root)} is missing: run the family's hostile test")
        reference = dict(line.split() for line in record.read_text().splitlines())
        if set(reference) != {case for case, _, _ in cases}:
            sys.exit(f"release-docs.py: {record.relative_to(root)} does not list the family's cases: "
                     "run the family's hostile test")
        seen = collections.Counter(reference.values())
        library = collections.Counter(outcome for _, outcome, _ in cases)
        lines.append(row([name, str(functions(facts)), str(len(channel)), str(len(cases)),
                          " / ".join(str(seen[k]) for k in kinds),
                          f"{library['error']} / {library['abort']} / {library['ok']}"]))
    return "\n".join(lines)


def counts(families):
    """Every name an inline count may use, and its value: whisper.rn's families (the C suite and
    its counts build against whisper.rn's headers only, so far)."""
    families = {name: facts for name, facts in families.items() if facts["package"] == ["whisper.rn"]}
    served = [r for facts in families.values() for r in facts["releases"]]
    values = {
        "served": ", ".join(served),
        "served-count": str(len(served)),
        "families": str(len(families)),
        "programs": str(sum(1 for line in (root / "ctests/programs.txt").read_text().splitlines()
                            if line.strip() and not line.startswith("#"))),
    }
    for name, facts in families.items():
        programs = suite_programs(facts["capabilities"])
        values[f"functions:{name}"] = str(functions(facts))
        values[f"hostile:{name}"] = str(len(hostile_cases(facts)))
        for judged in ("reference", "self"):
            values[f"programs:{name}:{judged}"] = str(sum(1 for _, j in programs if j == judged))
        values[f"programs:{name}:sched-reference"] = str(
            sum(1 for s, j in programs if j == "reference" and s.startswith("sched/")))
    return values


def generate(text, tables_by_name, values, where):
    """The text with its generated parts made anew; unknown names are errors."""
    def known(kind, name, names):
        if name not in names:
            sys.exit(f"release-docs.py: {where}: unknown {kind} '{name}' (see --names)")
        return name

    def block(match):
        name = known("table", match.group(1), tables_by_name)
        return f"<!-- generated:{name} -->\n{tables_by_name[name]}\n<!-- /generated -->"

    def count(match):
        name = known("count", match.group(1), values)
        return f"<!-- count:{name} -->{values[name]}<!-- /count -->"

    text = re.sub(r"<!-- generated:([^ ]+) -->\n.*?<!-- /generated -->", block, text, flags=re.S)
    return re.sub(r"<!-- count:([^ ]+) -->.*?<!-- /count -->", count, text, flags=re.S)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("", "--check", "--write", "--names"):
        sys.exit("usage: scripts/release/release-docs.py [--check | --write | --names]")
    families, what = read_table()
    if mode == "":
        print("\n\n".join(tables(families, what).values()))
        return
    values = counts(families)
    if mode == "--names":
        for name in tables(families, what):
            print(f"table {name}")
        for name, value in values.items():
            print(f"count {name}\t{value}")
        return
    tables_by_name = tables(families, what)
    stale = []
    for doc in DOCS:
        text = doc.read_text()
        new = generate(text, tables_by_name, values, doc.relative_to(root))
        if new == text:
            continue
        if mode == "--write":
            doc.write_text(new)
            print(f"release-docs.py: rewrote {doc.relative_to(root)}")
            continue
        old_lines, new_lines = text.splitlines(), new.splitlines()
        for number, (old, fresh) in enumerate(zip(old_lines, new_lines), 1):
            if old != fresh:
                stale.append(f"{doc.relative_to(root)}:{number}: says\n    {old}\n  the tree says\n    {fresh}")
    if stale:
        print("release-docs.py: the docs differ from the tree and the release table "
              "(scripts/release/release-docs.py --write):", file=sys.stderr)
        print("\n".join(stale), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
