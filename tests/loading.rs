//! Dynamic backend loading and the registry's thread safety, driven from cargo.
//!
//! The program ctests/programs.txt judges `loading` (ctests/registry/loading.c) is linked against
//! this library built WITHOUT the static CPU backend (feature `cpu` off) and whisper.rn's ggml
//! core as a shared library without the CPU backend;
//! whisper.rn's CPU backend exists only as loadable modules (libggml-cpu-high.so, score 30, and
//! libggml-cpu-low.so, score 10), beside deliberately broken ones (ctests/registry/modules). See
//! tests/support/mod.rs for how they are built.
//!
//! Each scenario runs in its own process with a fresh work directory, checks itself (exit 0 and
//! "PASS <scenario>"), and prints every log line it captured; the tests here also check the
//! messages by substring, with the full paths they must name.
//!
//! With valgrind installed, the scenarios also run under memcheck (no errors, no definite
//! leaks) and the thread scenario under helgrind (no reports). Set WSP_SKIP_VALGRIND=1 to leave
//! those out. (DRD is not used: it intermittently reports our freshly malloc'd blocks as
//! conflicting with ld.so's string routines reading past the end of a freed string inside
//! dlopen, and its suppressions can only match the reporting stack, which is ours.)

mod support;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;
use support::*;

/// The bad modules' reg is of the other backend API: a v2 module in a whisper.rn 0.4 build, a v1
/// module in a 0.5 build.
const API_MISMATCH: &str = if cfg!(api_v2) { "(backend: 1, current: 2)" } else { "(backend: 2, current: 1)" };

struct Fixture {
    exe: PathBuf,
    modules: PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let modules = loading_modules_dir().canonicalize().unwrap();
        let exe = build_program("loading", &[suite_program("loading").source], &[], Layer::RustSharedNoCpu);
        Fixture { exe, modules }
    })
}

/// A fresh, empty work directory for one run.
fn work_dir(name: &str) -> PathBuf {
    let dir = root().join("target/ctest/loading/work").join(name);
    if dir.exists() {
        // a previous run may have left a chmod 000 directory behind
        let _ = Command::new("chmod").args(["-R", "u+rwx"]).arg(&dir).status();
        std::fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("remove {}: {e}", dir.display()));
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

struct Run {
    scenario: String,
    work: PathBuf,
    stdout: String,
    stderr: String,
    output: Output,
}

impl Run {
    fn describe(&self) -> String {
        format!(
            "{} exited with {}\n--- stdout\n{}--- stderr\n{}",
            self.scenario, self.output.status, self.stdout, self.stderr
        )
    }

    fn passed(&self) -> &Self {
        assert!(
            self.output.status.success() && self.stdout.lines().any(|l| l == format!("PASS {}", self.scenario)),
            "{}",
            self.describe()
        );
        self
    }

    /// `<work dir>/<relative>`, as the program names it.
    fn at(&self, relative: &str) -> String {
        self.work.join(relative).display().to_string()
    }

    /// Some captured log line at `level` contains every one of `parts` (which name ggml's
    /// functions as whisper.rn does; the package's names are looked for).
    fn logged(&self, level: &str, parts: &[&str]) -> &Self {
        let prefix = format!("log {level}: ");
        let parts: Vec<String> = parts.iter().map(|p| RELEASE.named(p)).collect();
        let found = self.stdout.lines().any(|l| l.starts_with(&prefix) && parts.iter().all(|p| l.contains(p.as_str())));
        assert!(found, "no '{level}' log line contains {parts:?}\n{}", self.describe());
        self
    }

    fn printed(&self, line: &str) -> &Self {
        assert!(self.stdout.lines().any(|l| l.contains(line)), "stdout lacks {line:?}\n{}", self.describe());
        self
    }

    fn no_errors_logged(&self) -> &Self {
        assert!(
            !self.stdout.lines().any(|l| l.starts_with("log error: ")),
            "error lines were logged\n{}",
            self.describe()
        );
        self
    }
}

fn module(name: &str) -> String {
    fixture().modules.join(name).display().to_string()
}

fn run_scenario_with(scenario: &str, wrapper: &[&str], extra: &[&str], tag: &str) -> Run {
    let fixture = fixture();
    let work = work_dir(&format!("{scenario}{tag}"));
    let mut cmd = match wrapper.split_first() {
        Some((tool, args)) => {
            let mut cmd = Command::new(tool);
            cmd.args(args).arg(&fixture.exe);
            cmd
        }
        None => Command::new(&fixture.exe),
    };
    cmd.arg(scenario).arg(&fixture.modules).arg(&work).args(extra);
    // The program finds its libraries by rpath: cargo's LD_LIBRARY_PATH (which lists
    // target/release, where the library with the CPU backend is) would take precedence.
    cmd.env(RELEASE.ggml_macro("GGML_NO_BACKTRACE"), "1")
        .env_remove(RELEASE.ggml_macro("GGML_BACKEND_PATH"))
        .env_remove("LD_LIBRARY_PATH");
    let output = cmd.output().unwrap_or_else(|e| panic!("run {}: {e}", fixture.exe.display()));
    Run {
        scenario: scenario.to_owned(),
        work,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        output,
    }
}

fn run_scenario(scenario: &str) -> Run {
    run_scenario_with(scenario, &[], &[], "")
}

// ---------------------------------------------------------------------------------------------
// loading the CPU module
// ---------------------------------------------------------------------------------------------

#[test]
fn load_all_from_path_finds_the_cpu_module_computes_with_it_and_unload_closes_it() {
    let run = run_scenario("load_all");
    let path = run.at("cpu/libggml-cpu-high.so");
    run.passed()
        .no_errors_logged()
        .printed("load_all_from_path: device CPU")
        .logged("info", &["wsp_ggml_backend_load: loaded CPU backend from ", &path])
        .printed("compute: mul_mat + scale on CPU, 6 values correct")
        .printed(&format!("unloaded: no devices, {path} closed"))
        .printed("load_all from the current directory: device CPU");
}

#[test]
fn the_environment_variable_names_a_module_outside_the_search_path() {
    let run = run_scenario("env_path");
    run.passed()
        .no_errors_logged()
        .logged("info", &["wsp_ggml_backend_load: loaded CPU backend from ", &module("libggml-cpu-high.so")])
        .printed("compute: mul_mat + scale on CPU, 6 values correct")
        .printed(&format!("unloaded: no devices, {} closed", module("libggml-cpu-high.so")));
}

#[test]
fn load_by_path_computes_and_unloads_and_a_null_path_is_refused() {
    let run = run_scenario("load_path");
    run.passed()
        .logged("info", &["wsp_ggml_backend_load: loaded CPU backend from ", &module("libggml-cpu-high.so")])
        .printed("compute: mul_mat + scale on CPU, 6 values correct")
        .printed(&format!("unloaded: no devices, {} closed", module("libggml-cpu-high.so")))
        .logged("error", &["wsp_ggml_backend_load: path is NULL"]);
}

#[test]
fn loading_a_module_twice_gives_the_same_reg_registered_once() {
    let run = run_scenario("load_twice");
    run.passed()
        .no_errors_logged()
        .logged(
            "info",
            &["wsp_ggml_backend_load: CPU backend from ", &module("libggml-cpu-high.so"), "is already loaded"],
        )
        .logged("info", &["is already loaded", &run.at("alias/libggml-cpu-alias.so")])
        .printed("loaded 4 times: one reg, one device")
        .printed("3 of 4 unloads: still registered and mapped")
        .printed(&format!("unloaded: no devices, {} closed", module("libggml-cpu-high.so")));
}

#[test]
fn a_module_loaded_twice_stays_loaded_until_it_is_unloaded_twice() {
    let run = run_scenario("load_count");
    run.passed()
        .no_errors_logged()
        .printed("1 of 2 unloads: still registered and mapped")
        .printed("compute: mul_mat + scale on CPU, 6 values correct")
        .printed(&format!("unloaded: no devices, {} closed", module("libggml-cpu-high.so")));
}

#[test]
fn of_two_variants_the_higher_score_is_loaded() {
    let run = run_scenario("best_variant");
    let (high, low) = (run.at("variants/libggml-cpu-high.so"), run.at("variants/libggml-cpu-low.so"));
    run.passed()
        .no_errors_logged()
        .logged("debug", &[&format!("wsp_ggml_backend_load_best: {high} score: 30")])
        .logged("debug", &[&format!("wsp_ggml_backend_load_best: {low} score: 10")])
        .logged("info", &[&format!("wsp_ggml_backend_load: loaded CPU backend from {high}")])
        .printed("loaded variant: high (score 30) over low (score 10)")
        .printed("compute: mul_mat + scale on CPU, 6 values correct");
}

#[test]
fn better_scored_variants_that_fail_fall_back_to_a_good_one() {
    let run = run_scenario("fallback");
    run.passed()
        .logged(
            "error",
            &[&format!(
                "wsp_ggml_backend_load: {} failed to initialize: wsp_ggml_backend_init returned NULL",
                run.at("fallback/libggml-cpu-broken.so")
            )],
        )
        .logged(
            "error",
            &[&format!(
                "wsp_ggml_backend_load: {} has an incompatible API version {API_MISMATCH}",
                run.at("fallback/libggml-cpu-future.so")
            )],
        )
        .logged(
            "error",
            &[&format!(
                "wsp_ggml_backend_load: {} does not export wsp_ggml_backend_init",
                run.at("fallback/libggml-cpu-noinit.so")
            )],
        )
        .logged(
            "info",
            &[&format!(
                "wsp_ggml_backend_load_best: {} is not supported on this system (wsp_ggml_backend_score returned 0)",
                run.at("fallback/libggml-cpu-zero.so")
            )],
        )
        .logged(
            "info",
            &[&format!("wsp_ggml_backend_load: loaded CPU backend from {}", run.at("fallback/libggml-cpu-low.so"))],
        )
        .printed("compute: mul_mat + scale on CPU, 6 values correct");
}

// ---------------------------------------------------------------------------------------------
// bad modules and paths: skipped with a message naming the file and the cause
// ---------------------------------------------------------------------------------------------

#[test]
fn a_file_that_is_not_a_shared_object_is_skipped_with_the_dynamic_loaders_message() {
    let run = run_scenario("junk");
    let junk = run.at("junk/libggml-cpu-junk.so");
    run.passed()
        .logged("error", &[&format!("wsp_ggml_backend_load_best: {junk} cannot be loaded: "), "invalid ELF header"])
        .logged("error", &[&format!("wsp_ggml_backend_load: {junk} cannot be loaded: "), "invalid ELF header"])
        .printed("registry usable: registered, loaded and unloaded");
}

#[test]
fn a_module_without_init_is_refused() {
    let path = module("bad-noinit.so");
    run_scenario("no_init")
        .passed()
        .logged("error", &[&format!("wsp_ggml_backend_load: {path} does not export wsp_ggml_backend_init")])
        .printed("registry usable: registered, loaded and unloaded");
}

#[test]
fn a_module_scoring_zero_is_refused_without_being_initialised() {
    let path = module("bad-score0.so");
    run_scenario("score_zero")
        .passed()
        .logged(
            "error",
            &[&format!(
                "wsp_ggml_backend_load: {path} is not supported on this system (wsp_ggml_backend_score returned 0)"
            )],
        )
        .printed("registry usable: registered, loaded and unloaded");
}

#[test]
fn a_module_whose_init_returns_null_is_refused() {
    let path = module("bad-initnull.so");
    run_scenario("init_null")
        .passed()
        .logged(
            "error",
            &[&format!("wsp_ggml_backend_load: {path} failed to initialize: wsp_ggml_backend_init returned NULL")],
        )
        .printed("registry usable: registered, loaded and unloaded");
}

#[test]
fn a_module_of_another_api_version_is_refused() {
    let path = module("bad-api2.so");
    run_scenario("api_version")
        .passed()
        .logged("error", &[&format!("wsp_ggml_backend_load: {path} has an incompatible API version {API_MISMATCH}")])
        .printed("registry usable: registered, loaded and unloaded");
}

#[test]
fn a_missing_search_path_is_reported_once_and_skipped() {
    let run = run_scenario("missing_dir");
    let dir = run.at("does-not-exist");
    run.passed()
        .logged("warn", &[&format!("wsp_ggml_backend_load_all_from_path: search path {dir} does not exist")])
        .logged(
            "error",
            &[
                &format!("wsp_ggml_backend_load: {dir}/libggml-cpu-x.so cannot be loaded: "),
                "No such file or directory",
            ],
        )
        .printed("registry usable: registered, loaded and unloaded");
    let mentions = run.stdout.lines().filter(|l| l.contains("search path") && l.contains(&dir)).count();
    assert_eq!(mentions, 1, "the missing directory should be reported once, not per backend name\n{}", run.describe());
}

#[test]
fn a_dangling_symlink_as_search_path_is_reported_and_skipped() {
    let run = run_scenario("dangling_symlink");
    let link = run.at("dangling");
    run.passed()
        .logged(
            "warn",
            &[
                &format!("wsp_ggml_backend_load_all_from_path: search path {link} is a dangling symlink"),
                &run.at("gone"),
            ],
        )
        .printed("registry usable: registered, loaded and unloaded");
}

#[test]
fn an_unreadable_search_path_is_reported_and_skipped() {
    let run = run_scenario("unreadable_dir");
    assert!(run.output.status.success(), "{}", run.describe());
    if let Some(skipped) = run.stdout.lines().find(|l| l.starts_with("SKIP unreadable_dir")) {
        println!("{skipped}");
        return;
    }
    let dir = run.at("locked");
    run.passed()
        .logged(
            "error",
            &[&format!("wsp_ggml_backend_load_all_from_path: cannot read search path {dir}: "), "Permission denied"],
        )
        .printed("registry usable");
    let mentions = run.stdout.lines().filter(|l| l.contains("cannot read search path")).count();
    assert_eq!(mentions, 1, "the unreadable directory should be reported once\n{}", run.describe());
}

// ---------------------------------------------------------------------------------------------
// threads
// ---------------------------------------------------------------------------------------------

#[test]
fn eight_threads_of_mixed_registry_operations_do_not_crash() {
    let run = run_scenario_with("threads", &[], &["2000"], "");
    run.passed().printed("threads: 16000 operations");
    for line in run.stdout.lines().filter(|l| l.starts_with("threads:")) {
        println!("{line}");
    }
}

// ---------------------------------------------------------------------------------------------
// valgrind
// ---------------------------------------------------------------------------------------------

fn valgrind() -> Option<&'static str> {
    if std::env::var_os("WSP_SKIP_VALGRIND").is_some() {
        println!("WSP_SKIP_VALGRIND is set: skipped");
        return None;
    }
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => Some("valgrind"),
        _ => {
            println!("valgrind is not installed: skipped");
            None
        }
    }
}

/// memcheck with the suite's suppressions (ctests/valgrind.supp; the one the CPU module needs
/// matches frames of an unloaded module, hence --keep-debuginfo).
fn memcheck_args(valgrind: &str) -> Vec<String> {
    vec![
        valgrind.into(),
        "--tool=memcheck".into(),
        "--error-exitcode=99".into(),
        "--leak-check=full".into(),
        "--errors-for-leak-kinds=definite".into(),
        "--keep-debuginfo=yes".into(),
        format!("--suppressions={}", root().join("ctests/valgrind.supp").display()),
    ]
}

#[test]
fn every_scenario_is_memcheck_clean() {
    let Some(valgrind) = valgrind() else { return };
    let list = Command::new(&fixture().exe).arg("--list").output().unwrap();
    let scenarios: Vec<String> = String::from_utf8(list.stdout).unwrap().lines().map(str::to_owned).collect();
    let args = memcheck_args(valgrind);
    let memcheck: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut failures = Vec::new();
    let mut count = 0;
    for scenario in scenarios.iter().filter(|s| s.as_str() != "threads") {
        count += 1;
        let run = run_scenario_with(scenario, &memcheck, &[], ".memcheck");
        let clean = run.output.status.success() && run.stderr.contains("ERROR SUMMARY: 0 errors");
        if !clean {
            failures.push(run.describe());
        }
    }
    // the thread scenario too, with a few operations
    count += 1;
    let run = run_scenario_with("threads", &memcheck, &["100"], ".memcheck");
    if !(run.output.status.success() && run.stderr.contains("ERROR SUMMARY: 0 errors")) {
        failures.push(run.describe());
    }
    println!("{} of {count} scenarios memcheck-clean", count - failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// helgrind with valgrind's default suppressions only: they cover races inside glibc (the
/// implementation of pthread_mutex_lock/unlock and dlopen); nothing in this library or the
/// test is suppressed.
#[test]
fn the_thread_scenario_is_helgrind_clean() {
    let Some(valgrind) = valgrind() else { return };
    let args = [valgrind, "--tool=helgrind", "--error-exitcode=99"];
    let run = run_scenario_with("threads", &args, &["150"], ".helgrind");
    run.passed();
    assert!(run.stderr.contains("ERROR SUMMARY: 0 errors"), "helgrind reported errors\n{}", run.describe());
    println!(
        "helgrind: {} {}",
        run.stdout.lines().find(|l| l.contains("operations,")).unwrap_or_default(),
        run.stderr.lines().find(|l| l.contains("ERROR SUMMARY")).unwrap_or_default()
    );
}
