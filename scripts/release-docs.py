#!/usr/bin/env python3
"""Prints the README's tables of the release table (releases.txt): the families, what each
serves and builds with; the capabilities per family; the built-in backends per family."""
import collections
import pathlib

root = pathlib.Path(__file__).resolve().parent.parent
families = collections.OrderedDict()
what = collections.OrderedDict()
continues = False  # whether an indented comment line continues a capability's text
for line in (root / "releases.txt").read_text().splitlines():
    if line.startswith("#     ") and not line.startswith("#      "):
        name, _, text = line[6:].partition(" ")
        what[name] = text.strip()
        continues = True
    elif line.startswith("#      ") and continues:
        what[next(reversed(what))] += " " + line[1:].strip()
    elif line.startswith("#   ") and not line.startswith("#    "):
        continues = False
    if line.startswith("#") or not line.strip():
        continue
    family, key, *values = line.split()
    families.setdefault(family, collections.defaultdict(list))[key] += [v for v in values if v != "-"]


def row(cells):
    print("| " + " | ".join(cells) + " |")


row(["family", "serves", "cargo feature", "CMake `-DWSP_WHISPER_RN_RELEASE=`", "functions"])
row(["---"] * 5)
for name, facts in families.items():
    symbols = facts["symbols"][0]
    count = len((root / "ctests" / symbols).read_text().split())
    feature = f"`{facts['feature'][0]}`" if facts["feature"] else "none (default)"
    row([name, "whisper.rn " + ", ".join(f"**{r}**" for r in facts["releases"]), feature,
         " or ".join(f"`{r}`" for r in facts["releases"]), f"{count} (`ctests/{symbols}`)"])
print()
row(["capability", "what"] + list(families))
row(["---"] * (2 + len(families)))
for capability, text in what.items():
    row([f"`{capability}`", text] + ["✓" if capability in f["capabilities"] else "" for f in families.values()])
print()
row(["family", "built-in backends, in registration order"])
row(["---"] * 2)
for name, facts in families.items():
    row([name, ", ".join(facts["builtins"])])
