#!/usr/bin/env python3
"""The two edits scripts/fetch/fetch-vulkan.sh makes to ggml-vulkan's generated and fetched sources.

  vulkan-sources.py guard FILE
      ggml-vulkan.cpp: the instance's validation-layer settings (vk::LayerSettingEXT) are
      compiled only where the Vulkan headers declare VK_EXT_layer_settings; elsewhere (Debian's
      headers, VK_HEADER_VERSION 239) the instance is created without them, as it is anyway
      when the layer is not installed.
  vulkan-sources.py embed ARRAYS_CPP SPV_DIR OUT_CPP OUT_S
      a shader file of ggml's generator: every `const unsigned char NAME_data[N] = { ... };`
      (the SPIR-V of SPV_DIR/NAME.spv as a C array) is dropped from the C++ (OUT_CPP keeps the
      rest: the lengths and the tables of pointers), and OUT_S defines NAME_data with the
      assembler's .incbin of that file, checked to be N bytes long."""
import os
import re
import sys

GUARD_START = "    VkBool32 enable_best_practice = layer_settings;\n"
GUARD_END = ("    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, "
             "extensions, &layer_setting_info);\n")
WITHOUT_SETTINGS = ("    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, "
                    "extensions);\n")


def guard(path):
    text = open(path).read()
    start, end = text.find(GUARD_START), text.find(GUARD_END)
    if start < 0 or end < start or text.count(GUARD_START) != 1:
        sys.exit(f"vulkan-sources.py: {path}: the layer-settings block is not where it was expected")
    end += len(GUARD_END)
    block = text[start:end]
    guarded = f"#ifdef VK_EXT_layer_settings\n{block}#else\n{WITHOUT_SETTINGS}#endif\n"
    open(path, "w").write(text[:start] + guarded + text[end:])


ARRAY = re.compile(r"const unsigned char (\w+)_data\[(\d+)\] = \{$")


def embed(arrays_cpp, spv_dir, out_cpp, out_s):
    kept, asm = [], []
    skipping = False
    with open(arrays_cpp) as lines:
        for line in lines:
            if skipping:
                skipping = not line.startswith("};")
                continue
            match = ARRAY.match(line.rstrip("\n"))
            if not match:
                kept.append(line)
                continue
            name, size = match.group(1), int(match.group(2))
            spv = os.path.abspath(os.path.join(spv_dir, name + ".spv"))
            if os.path.getsize(spv) != size:
                sys.exit(f"vulkan-sources.py: {spv} is {os.path.getsize(spv)} bytes, the array {size}")
            asm += [f'    .section .rodata.{name}_data,"a"', f"    .globl {name}_data",
                    f"    .type {name}_data, @object", f"    .size {name}_data, {size}", "    .balign 16",
                    f"{name}_data:", f'    .incbin "{spv}"']
            skipping = True
    open(out_cpp, "w").write("".join(kept))
    asm.append('    .section .note.GNU-stack,"",@progbits')
    open(out_s, "w").write("\n".join(asm) + "\n")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "guard":
        guard(sys.argv[2])
    elif len(sys.argv) == 6 and sys.argv[1] == "embed":
        embed(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
