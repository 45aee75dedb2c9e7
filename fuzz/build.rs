//! Builds what the fuzz targets link besides the `wsp-ggml-backend` rlib: whisper.rn's ggml core
//! with its CPU backend (the sources of ctests/ggml-core-sources.txt, as the tests build them,
//! with WSP_GGML_USE_CPU) and the TEST backend fixture (ctests/common/test_backend.c).
//!
//! When cargo-fuzz builds with AddressSanitizer (the default), the C and C++ code is compiled
//! with `-fsanitize=address` too, so that out-of-bounds accesses inside ggml or the fixture
//! (for example through a tensor the scheduler mis-allocated) are reported where they happen.
//! `WSP_FUZZ_SANITIZE_C=0` compiles it without (only the allocator and memcpy/memset
//! interceptors then check it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let fuzz_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = fuzz_dir.parent().unwrap().to_path_buf();
    let cpp = root.join("third_party/whisper.rn/cpp");
    if !cpp.join("ggml.c").exists() {
        let status = Command::new("bash")
            .arg(root.join("scripts/fetch-reference.sh"))
            .status()
            .expect("run scripts/fetch-reference.sh");
        assert!(status.success(), "fetching whisper.rn 0.4.3 failed (npm must be reachable)");
    }

    let sources_list = root.join("ctests/ggml-core-sources.txt");
    let fixture = root.join("ctests/common/test_backend.c");
    for path in [&sources_list, &fixture, &root.join("ctests/common/test_backend.h")] {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=WSP_FUZZ_SANITIZE_C");

    let sanitize = std::env::var("CARGO_CFG_SANITIZE").unwrap_or_default();
    let asan = sanitize.split(',').any(|s| s == "address")
        && std::env::var("WSP_FUZZ_SANITIZE_C").map_or(true, |v| v != "0");

    let (c, cxx) = core_sources(&sources_list);
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // C and C++ apart: ggml-cpu.c and ggml-cpu.cpp would otherwise share an object name.
    compile("wsp-fuzz-core-c", &c.iter().map(|s| cpp.join(s)).collect::<Vec<_>>(), false, &cpp, asan);
    compile("wsp-fuzz-core-cxx", &cxx.iter().map(|s| cpp.join(s)).collect::<Vec<_>>(), true, &cpp, asan);
    compile("wsp-fuzz-fixture", &[fixture], false, &cpp, asan);

    println!("cargo:rustc-link-search=native={}", out.display());
    // The core and the backend layer (the rlib, which rustc links after these archives) call
    // each other: take the archives whole, so that everything the rlib needs is already there.
    for lib in ["wsp-fuzz-fixture", "wsp-fuzz-core-c", "wsp-fuzz-core-cxx"] {
        println!("cargo:rustc-link-lib=static:+whole-archive={lib}");
    }
    for lib in ["stdc++", "m", "pthread", "dl"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
}

/// The C and C++ entries of ctests/ggml-core-sources.txt (paths relative to whisper.rn's cpp/).
fn core_sources(list: &Path) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(list).expect("read ctests/ggml-core-sources.txt");
    let (mut c, mut cxx) = (Vec::new(), Vec::new());
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let mut parts = line.split_whitespace();
        match (parts.next(), parts.next()) {
            (Some("c"), Some(file)) => c.push(file.to_owned()),
            (Some("cxx"), Some(file)) => cxx.push(file.to_owned()),
            _ => panic!("unexpected line in ggml-core-sources.txt: {line}"),
        }
    }
    (c, cxx)
}

/// Compiles `sources` into `lib<name>.a` with the flags the tests use for whisper.rn's objects
/// (CPU backend registered statically, repacking buffer type, AVX2-level code).
fn compile(name: &str, sources: &[PathBuf], cxx: bool, cpp: &Path, asan: bool) {
    let mut build = cc::Build::new();
    build
        .cargo_metadata(false)
        .cpp(cxx)
        .std(if cxx { "c++17" } else { "c11" })
        .opt_level(2)
        .debug(true)
        .warnings(false)
        .pic(true)
        .flag("-march=x86-64-v3")
        .define("_GNU_SOURCE", None)
        .define("WSP_GGML_USE_CPU", None)
        .define("WSP_GGML_USE_CPU_REPACK", None)
        .include(cpp)
        .include(cpp.join("ggml-cpu"));
    if asan {
        build.flag("-fsanitize=address").flag("-fno-omit-frame-pointer");
    }
    for source in sources {
        println!("cargo:rerun-if-changed={}", source.display());
        build.file(source);
    }
    build.compile(name);
}
