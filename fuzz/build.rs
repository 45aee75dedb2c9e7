//! Builds what the fuzz targets link besides the `wsp-ggml-backend` rlib: whisper.rn's ggml core
//! with its CPU backend (the sources of ctests/ggml-core-sources.txt, as the tests build them,
//! with WSP_GGML_USE_CPU) and the TEST backend fixture (ctests/fixtures/test_backend.c), from the
//! release the chosen family builds against (features `whisper-rn-0-5-5`, `whisper-rn-0-7`;
//! 0.4.3 without). Also:
//! - `ops.rs` in OUT_DIR: the op numbers the targets use, read from that release's ggml.h
//!   (they move between releases);
//! - for the `registry` target, whisper.rn's CPU backend as loadable modules
//!   (WSP_GGML_BACKEND_DL, with ctests/registry/modules/score.c), one copy per thread under its
//!   own file name and soname; linked with -Bsymbolic, so that the module's CPU backend is its
//!   own and not the executable's, and taking the core and the backend layer from the
//!   executable (which exports its symbols, --export-dynamic).
//!
//! When cargo-fuzz builds with AddressSanitizer (the default), the C and C++ code is compiled
//! with `-fsanitize=address` too, so that out-of-bounds accesses inside ggml or the fixture
//! (for example through a tensor the scheduler mis-allocated) are reported where they happen.
//! `WSP_FUZZ_SANITIZE_C=0` compiles it without (only the allocator and memcpy/memset
//! interceptors then check it).

use std::path::{Path, PathBuf};
use std::process::Command;

mod core_sources;

fn main() {
    let fuzz_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = fuzz_dir.parent().unwrap().to_path_buf();
    let release = if std::env::var_os("CARGO_FEATURE_WHISPER_RN_0_7").is_some() {
        "0.7.4"
    } else if std::env::var_os("CARGO_FEATURE_WHISPER_RN_0_5_5").is_some() {
        "0.5.5"
    } else {
        "0.4.3"
    };
    let folder = if release == "0.4.3" { "whisper.rn".to_owned() } else { format!("whisper.rn-{release}") };
    let cpp = root.join("third_party").join(folder).join("cpp");
    if !cpp.join("ggml.c").exists() {
        let status = Command::new("bash")
            .arg(root.join("scripts/fetch/fetch-reference.sh"))
            .arg(release)
            .status()
            .expect("run scripts/fetch/fetch-reference.sh");
        assert!(status.success(), "fetching whisper.rn {release} failed (npm must be reachable)");
    }

    let sources_list = root.join("ctests/ggml-core-sources.txt");
    let fixture = root.join("ctests/fixtures/test_backend.c");
    let reader = root.join("fuzz/core_sources.rs");
    // the fixture's headers: its own and the kit it shares with accel_fixture.c
    let headers = ["test_backend.h", "fixture_kit.h"].map(|h| root.join("ctests/fixtures").join(h));
    for path in [&sources_list, &reader, &fixture, &headers[0], &headers[1]] {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", cpp.join("ggml.h").display());
    println!("cargo:rerun-if-env-changed=WSP_FUZZ_SANITIZE_C");

    let sanitize = std::env::var("CARGO_CFG_SANITIZE").unwrap_or_default();
    let asan =
        sanitize.split(',').any(|s| s == "address") && std::env::var("WSP_FUZZ_SANITIZE_C").map_or(true, |v| v != "0");

    let target = std::env::var("TARGET").unwrap();
    let core = core_sources::read(&sources_list, target.split('-').next().unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // (The list is every family's: a source this package does not have is left out.)
    let in_cpp = |files: &[String]| files.iter().map(|s| cpp.join(s)).filter(|p| p.exists()).collect::<Vec<_>>();
    // C and C++ apart: ggml-cpu.c and ggml-cpu.cpp would otherwise share an object name.
    compile("wsp-fuzz-core-c", &in_cpp(&core.c), false, &cpp, &core.flags, asan);
    compile("wsp-fuzz-core-cxx", &in_cpp(&core.cxx), true, &cpp, &core.flags, asan);
    compile("wsp-fuzz-fixture", &[fixture], false, &cpp, &core.flags, asan);

    write_ops(&cpp.join("ggml.h"), &out.join("ops.rs"));
    cpu_modules(&in_cpp(&core.c), &in_cpp(&core.cxx), &root, &cpp, &core.flags, &out);

    println!("cargo:rustc-link-search=native={}", out.display());
    // The core and the backend layer (the rlib, which rustc links after these archives) call
    // each other: take the archives whole, so that everything the rlib needs is already there.
    for lib in ["wsp-fuzz-fixture", "wsp-fuzz-core-c", "wsp-fuzz-core-cxx"] {
        println!("cargo:rustc-link-lib=static:+whole-archive={lib}");
    }
    for lib in ["stdc++", "m", "pthread", "dl"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
    // The CPU modules take the core and the backend layer from the executable.
    println!("cargo:rustc-link-arg-bins=-Wl,--export-dynamic");
}

/// The op numbers the targets name, as `pub const OP_<NAME>: ggml_op` (the enum's order in
/// the release's ggml.h).
fn write_ops(ggml_h: &Path, out: &Path) {
    let header = std::fs::read_to_string(ggml_h).expect("read ggml.h");
    let body =
        header.split("enum wsp_ggml_op {").nth(1).and_then(|b| b.split("};").next()).expect("ggml.h: enum wsp_ggml_op");
    let names: Vec<&str> = body
        .lines()
        .map(|l| l.trim())
        .filter_map(|l| l.strip_prefix("WSP_GGML_OP_"))
        .map(|l| l.split(|c: char| c == ',' || c == ' ' || c == '=').next().unwrap())
        .collect();
    assert_eq!(names.first(), Some(&"NONE"), "ggml.h: the op enum starts with NONE = 0");
    let wanted = ["NONE", "ADD", "SUB", "MUL", "DIV", "SQR", "SCALE"];
    let mut text = String::from("// The op numbers of the release's ggml.h (generated by fuzz/build.rs).\n");
    for name in wanted {
        let n = names.iter().position(|&x| x == name).unwrap_or_else(|| panic!("ggml.h has no WSP_GGML_OP_{name}"));
        text += &format!("pub const OP_{name}: wsp_ggml_backend::abi::ggml_op = {n};\n");
    }
    std::fs::write(out, text).expect("write ops.rs");
}

/// How many threads the registry target runs at most, so how many module copies it needs.
const MODULE_COPIES: usize = 4;

/// whisper.rn's CPU backend as `MODULE_COPIES` loadable modules `libwsp-fuzz-cpu-<i>.so` in `out`
/// (unsanitized, -O1: only the loader's handling of them is under test).
fn cpu_modules(c: &[PathBuf], cxx: &[PathBuf], root: &Path, cpp: &Path, arch_flags: &[String], out: &Path) {
    let is_cpu = |p: &&PathBuf| p.strip_prefix(cpp).is_ok_and(|rel| rel.starts_with("ggml-cpu"));
    let dl = |cxx: bool| {
        let mut build = cc::Build::new();
        build
            .cargo_metadata(false)
            // not cargo-fuzz's sanitizer flags: gcc would link its own ASan runtime into the
            // module, which the executable's (Rust's) refuses
            .inherit_rustflags(false)
            .cpp(cxx)
            .std(if cxx { "c++17" } else { "c11" })
            .opt_level(1)
            .warnings(false)
            .pic(true)
            .define("_GNU_SOURCE", None)
            .define("WSP_GGML_USE_CPU_REPACK", None)
            .define("WSP_GGML_BACKEND_DL", None)
            .define("WSP_GGML_BACKEND_SHARED", None)
            .define("WSP_GGML_BACKEND_BUILD", None)
            .define("WSP_TEST_SCORE", "30")
            .include(cpp)
            .include(cpp.join("ggml-cpu"));
        // (cc adds the sanitizer of CARGO_CFG_SANITIZE all the same)
        build.flag("-fno-sanitize=all");
        if cxx {
            // g++ would make a libstdc++ template static STB_GNU_UNIQUE, and glibc never unmaps
            // a module with one: unloading could not be observed.
            build.flag("-fno-gnu-unique");
        }
        for flag in arch_flags {
            build.flag(flag);
        }
        build
    };
    let mut objects = dl(false)
        .out_dir(out.join("cpu-dl-c"))
        .files(c.iter().filter(is_cpu))
        .file(root.join("ctests/registry/modules/score.c"))
        .compile_intermediates();
    objects.extend(dl(true).out_dir(out.join("cpu-dl-cxx")).files(cxx.iter().filter(is_cpu)).compile_intermediates());
    for i in 0..MODULE_COPIES {
        let name = format!("libwsp-fuzz-cpu-{i}.so");
        let status = dl(true)
            .get_compiler()
            .to_command()
            .arg("-shared")
            .arg("-o")
            .arg(out.join(&name))
            .arg(format!("-Wl,-soname,{name}"))
            .arg("-Wl,-Bsymbolic")
            .args(&objects)
            .args(["-lstdc++", "-lm", "-lpthread"])
            .status()
            .expect("run the C++ compiler");
        assert!(status.success(), "linking {name} failed");
    }
    println!("cargo:rustc-env=WSP_FUZZ_MODULE_DIR={}", out.display());
    println!("cargo:rustc-env=WSP_FUZZ_MODULE_COPIES={MODULE_COPIES}");
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
