//! Reads ctests/ggml-core-sources.txt (CMake reads it too) for the fuzz crate's build script:
//! whisper.rn's ggml core sources, with the per-arch kernel folder and compiler flags of one
//! target architecture.

use std::path::Path;

pub struct CoreSources {
    /// C sources, relative to whisper.rn's cpp/ folder.
    pub c: Vec<String>,
    /// C++ sources, relative to whisper.rn's cpp/ folder.
    pub cxx: Vec<String>,
    /// Compiler flags for the architecture (e.g. `-march=...`).
    pub flags: Vec<String>,
}

/// The sources and flags for `arch`, the first part of a Rust target triple (x86_64, aarch64,
/// armv7, i686).
pub fn read(list: &Path, arch: &str) -> CoreSources {
    let text = std::fs::read_to_string(list).unwrap_or_else(|e| panic!("read {}: {e}", list.display()));
    let mut arch_line = None;
    let (mut c, mut cxx) = (Vec::new(), Vec::new());
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields[..] {
            ["arch", name, ref rest @ ..] if name == arch => arch_line = Some(rest.to_vec()),
            ["arch", ..] => {}
            ["c", file] => c.push(file.to_owned()),
            ["cxx", file] => cxx.push(file.to_owned()),
            _ => panic!("unexpected line in {}: {line}", list.display()),
        }
    }
    let arch_line =
        arch_line.unwrap_or_else(|| panic!("{} has no whisper.rn flags for the architecture {arch:?}", list.display()));
    let (folder, flags) = arch_line.split_first().expect("an arch line names the kernel folder");
    let in_folder =
        |files: Vec<String>| files.into_iter().map(|f| f.replace("/arch/ARCH/", &format!("/arch/{folder}/"))).collect();
    CoreSources { c: in_folder(c), cxx: in_folder(cxx), flags: flags.iter().map(|f| f.to_string()).collect() }
}
