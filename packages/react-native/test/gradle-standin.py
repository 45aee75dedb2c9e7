#!/usr/bin/env python3
"""An app's settings.gradle as Debian's Gradle (4.4) can evaluate it offline, every line in its
place: the top-level statements that need what Gradle 4.4 lacks or what is not here are turned
into comments, the order of what is left being the file's own.

    gradle-standin.py SETTINGS_GRADLE > STANDIN

  pluginManagement { ... }  kept, emptied: its includeBuild of the React Native and Expo Gradle
                            plugins needs Gradle 7 and their builds the network
  plugins { ... }           commented out: Gradle 4.4 has no settings plugins
  rootProject.name, include kept
  wsp-ggml-backend's hook   kept, between its begin and end lines
  anything else             commented out (calls into those plugins: autolinking, version
                            catalogs, includeBuild of the plugin)

Gradle checks the order of the script's blocks before it runs any of it ("The pluginManagement {}
block must appear before any other statements in the script"), so a hook placed before
pluginManagement is refused here as it is by a current Gradle.
"""
import re
import sys

COMMENT = "// (stand-in) "


def depth_change(line):
    """The change of bracket depth over LINE, outside strings and // comments."""
    change, quote, i = 0, None, 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif line.startswith("//", i):
            break
        elif char in "{(":
            change += 1
        elif char in "})":
            change -= 1
        i += 1
    return change


def statements(lines):
    """The top-level statements: lists of consecutive line numbers."""
    current, depth = [], 0
    for number, line in enumerate(lines):
        if not current and (line.strip() == "" or line.strip().startswith("//")):
            yield [number]
            continue
        current.append(number)
        depth += depth_change(line)
        if depth <= 0:
            yield current
            current, depth = [], 0
    if current:
        yield current


def main(path):
    lines = open(path).read().split("\n")
    out = list(lines)
    hook = False
    for numbers in statements(lines):
        first = lines[numbers[0]].strip()
        if first.startswith("// wsp-ggml-backend begin"):
            hook = True
        if hook or first == "" or first.startswith("//"):
            if first.startswith("// wsp-ggml-backend end"):
                hook = False
            continue
        if first.startswith("pluginManagement"):
            out[numbers[0]] = "pluginManagement { }"
            for number in numbers[1:]:
                out[number] = COMMENT + lines[number]
        elif re.match(r"(rootProject\.name\b|include\b)", first):
            continue
        else:
            for number in numbers:
                out[number] = COMMENT + lines[number]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
