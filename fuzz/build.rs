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

#[path = "../tests/support/core_sources.rs"]
mod core_sources;

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
    let reader = root.join("tests/support/core_sources.rs");
    for path in [&sources_list, &reader, &fixture, &root.join("ctests/common/test_backend.h")] {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=WSP_FUZZ_SANITIZE_C");

    let sanitize = std::env::var("CARGO_CFG_SANITIZE").unwrap_or_default();
    let asan = sanitize.split(',').any(|s| s == "address")
        && std::env::var("WSP_FUZZ_SANITIZE_C").map_or(true, |v| v != "0");

    let target = std::env::var("TARGET").unwrap();
    let core = core_sources::read(&sources_list, target.split('-').next().unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let in_cpp = |files: &[String]| files.iter().map(|s| cpp.join(s)).collect::<Vec<_>>();
    // C and C++ apart: ggml-cpu.c and ggml-cpu.cpp would otherwise share an object name.
    compile("wsp-fuzz-core-c", &in_cpp(&core.c), false, &cpp, &core.flags, asan);
    compile("wsp-fuzz-core-cxx", &in_cpp(&core.cxx), true, &cpp, &core.flags, asan);
    compile("wsp-fuzz-fixture", &[fixture], false, &cpp, &core.flags, asan);

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

/// Compiles `sources` into `lib<name>.a` with the flags the tests use for whisper.rn's objects
/// (CPU backend registered statically, repacking buffer type, the architecture's flags).
fn compile(name: &str, sources: &[PathBuf], cxx: bool, cpp: &Path, arch_flags: &[String], asan: bool) {
    let mut build = cc::Build::new();
    build
        .cargo_metadata(false)
        .cpp(cxx)
        .std(if cxx { "c++17" } else { "c11" })
        .opt_level(2)
        .debug(true)
        .warnings(false)
        .pic(true)
        .define("_GNU_SOURCE", None)
        .define("WSP_GGML_USE_CPU", None)
        .define("WSP_GGML_USE_CPU_REPACK", None)
        .include(cpp)
        .include(cpp.join("ggml-cpu"));
    for flag in arch_flags {
        build.flag(flag);
    }
    if asan {
        build.flag("-fsanitize=address").flag("-fno-omit-frame-pointer");
    }
    for source in sources {
        println!("cargo:rerun-if-changed={}", source.display());
        build.file(source);
    }
    build.compile(name);
}
