//! Building and running the C side of the conformance suite from cargo tests.
//!
//! - whisper.rn 0.4.3 is fetched (and its integrity checked) by scripts/fetch-reference.sh;
//! - its ggml core + CPU backend and, separately, its reference backend layer are compiled
//!   with the `cc` crate into target/ctest (cached between runs by a stamp of the inputs);
//! - this library is built with `cargo build --release` (static and shared), as users link it;
//! - C programs from ctests/ are compiled and linked against either backend layer.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn out_dir() -> PathBuf {
    let dir = root().join("target").join("ctest");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// whisper.rn's cpp/ folder, fetched on first use.
pub fn whisper_cpp_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let status = Command::new("bash")
            .arg(root().join("scripts/fetch-reference.sh"))
            .status()
            .expect("run scripts/fetch-reference.sh");
        assert!(status.success(), "fetching whisper.rn 0.4.3 failed (npm must be reachable)");
        root().join("third_party/whisper.rn/cpp")
    })
}

/// Sources of whisper.rn's ggml core with the CPU backend, from ctests/ggml-core-sources.txt
/// (shared with CMakeLists.txt), split by compiler.
fn core_sources(language: &str) -> Vec<String> {
    std::fs::read_to_string(root().join("ctests/ggml-core-sources.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            (parts.next()? == language).then(|| parts.next().unwrap().to_owned())
        })
        .collect()
}

const REFERENCE: &[&str] = &["ggml-backend.cpp", "ggml-backend-reg.cpp"];

/// Flags for whisper.rn's objects: the CPU backend statically registered, with its repacking
/// buffer type; AVX2-level code, which valgrind can run.
fn ggml_build(cxx: bool, defines: &[&str]) -> cc::Build {
    let dir = whisper_cpp_dir();
    let mut build = cc::Build::new();
    build
        .cargo_metadata(false)
        .target(env!("WSP_BUILD_TARGET"))
        .host(env!("WSP_BUILD_TARGET"))
        .opt_level(2)
        .debug(true)
        .warnings(false)
        .pic(true)
        .cpp(cxx)
        .std(if cxx { "c++17" } else { "c11" })
        .flag("-march=x86-64-v3")
        .define("_GNU_SOURCE", None)
        .define("WSP_GGML_USE_CPU_REPACK", None)
        .include(dir)
        .include(dir.join("ggml-cpu"));
    for d in defines {
        build.define(d, None);
    }
    build
}

/// Compiles `sources` into `lib<name>.a` under target/ctest/<name>, unless an archive built
/// from the same inputs is already there.
fn archive<S: AsRef<str> + std::fmt::Debug>(name: &str, sources: &[S], cxx: bool, defines: &[&str]) -> PathBuf {
    let dir = out_dir().join(name);
    let lib = dir.join(format!("lib{name}.a"));
    let stamp = dir.join("stamp");
    let key = format!("{sources:?} {cxx} {defines:?} v1");
    if lib.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(&key) {
        return lib;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let mut build = ggml_build(cxx, defines);
    build.out_dir(&dir);
    for s in sources {
        build.file(whisper_cpp_dir().join(s.as_ref()));
    }
    build.compile(name);
    std::fs::write(&stamp, key).unwrap();
    lib
}

/// Archives that make up whisper.rn's ggml core with the static CPU backend (C and C++ objects
/// apart: ggml-cpu.c and ggml-cpu.cpp would otherwise share an object name).
pub fn core_libs() -> &'static [PathBuf] {
    static LIBS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    LIBS.get_or_init(|| {
        vec![
            archive("ggml-core-c", &core_sources("c"), false, &["WSP_GGML_USE_CPU"]),
            archive("ggml-core-cxx", &core_sources("cxx"), true, &["WSP_GGML_USE_CPU"]),
        ]
    })
}

/// The reference backend layer (whisper.rn's ggml-backend.cpp + ggml-backend-reg.cpp).
pub fn reference_lib() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| archive("ggml-backend-ref", REFERENCE, true, &["WSP_GGML_USE_CPU"]))
}

/// This library, built as users link it (release profile).
pub fn rust_lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "--lib", "--quiet"])
            .current_dir(root())
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build --release failed");
        let dir = root().join("target/release");
        // Programs record the soname; the build leaves only the unversioned file.
        let soname = dir.join("libwsp_ggml_backend.so.0");
        if !soname.exists() {
            std::os::unix::fs::symlink("libwsp_ggml_backend.so", &soname).unwrap();
        }
        dir
    })
}

pub fn rust_static_lib() -> PathBuf {
    rust_lib_dir().join("libwsp_ggml_backend.a")
}

pub fn rust_shared_lib() -> PathBuf {
    rust_lib_dir().join("libwsp_ggml_backend.so")
}

/// Which backend layer a test program is linked with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    Reference,
    RustStatic,
    RustShared,
}

impl Layer {
    pub fn tag(self) -> &'static str {
        match self {
            Layer::Reference => "ref",
            Layer::RustStatic => "rs",
            Layer::RustShared => "rs-so",
        }
    }
}

/// Compiles and links a C program from ctests/ (plus the shared test fixture).
pub fn build_program(name: &str, sources: &[PathBuf], extra_flags: &[&str], layer: Layer) -> PathBuf {
    let bin_dir = out_dir().join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let exe = bin_dir.join(format!("{name}.{}", layer.tag()));
    let mut cmd = cc::Build::new()
        .cargo_metadata(false)
        .target(env!("WSP_BUILD_TARGET"))
        .host(env!("WSP_BUILD_TARGET"))
        .opt_level(1)
        .get_compiler()
        .to_command();
    cmd.args(["-std=c11", "-g", "-Wall", "-Wextra", "-Werror"]);
    cmd.arg("-I").arg(whisper_cpp_dir());
    cmd.arg("-I").arg(root().join("ctests/common"));
    cmd.args(extra_flags);
    cmd.args(sources);
    cmd.arg("-o").arg(&exe);
    cmd.arg("-Wl,--start-group");
    match layer {
        Layer::Reference => {
            cmd.arg(reference_lib());
        }
        Layer::RustStatic => {
            cmd.arg(rust_static_lib());
        }
        Layer::RustShared => {
            cmd.arg(rust_shared_lib());
            cmd.arg(format!("-Wl,-rpath,{}", rust_lib_dir().display()));
        }
    }
    cmd.args(core_libs());
    cmd.arg("-Wl,--end-group");
    cmd.args(["-lstdc++", "-lm", "-lpthread", "-ldl"]);
    let output = cmd.output().expect("run the C compiler");
    assert!(
        output.status.success(),
        "building {name} against {layer:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

/// The test fixture's sources (the non-host TEST backend).
pub fn fixture_sources() -> Vec<PathBuf> {
    vec![root().join("ctests/common/test_backend.c")]
}

/// C files directly in ctests/<dir>, sorted.
pub fn ctest_sources(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("ctests").join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    files
}

/// Runs a test program without backtraces (ggml would otherwise start gdb on abort).
pub fn run(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args).env("WSP_GGML_NO_BACKTRACE", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap_or_else(|e| panic!("run {}: {e}", exe.display()))
}

/// Compares two outputs line by line, describing the first difference.
pub fn first_difference(a: &str, b: &str) -> Option<String> {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    for i in 0..la.len().max(lb.len()) {
        let (x, y) = (la.get(i), lb.get(i));
        if x != y {
            return Some(format!("line {}: reference {:?} vs library {:?}", i + 1, x, y));
        }
    }
    None
}
