//! The scheduler's hot path allocates nothing once warm: benches/sched_allocs.c, linked with
//! this library built with the `count-allocations` feature, rebuilds the same graph shape for
//! every evaluation (as whisper.cpp does for every token) and counts the heap allocations the
//! library's Rust code makes across reset + alloc_graph + graph_compute. After the warm-up
//! evaluations the count must not move: CPU alone, CPU + the non-host TEST backend (a split
//! and a copy at every node), each with a serial and a parallel (4 copies) scheduler.
//! (scripts/bench.sh runs the same program on larger graphs and reports the counts.)

mod support;

use support::*;

fn defines_symbol(lib: &std::path::Path, nm_args: &[&str], name: &str) -> bool {
    let out = std::process::Command::new("nm").args(nm_args).arg(lib).output().expect("run nm");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).lines().any(|l| l.split_whitespace().last() == Some(name))
}

#[test]
fn counter_is_exported_only_by_the_count_allocations_build() {
    const NAME: &str = "wsp_rs_allocation_count";
    assert!(
        !defines_symbol(&rust_shared_lib(), &["-D", "--defined-only"], NAME),
        "the default shared library exports {NAME}"
    );
    assert!(
        !defines_symbol(&rust_static_lib(), &["--defined-only"], NAME),
        "the default static library defines {NAME}"
    );
    let dir = rust_alloc_count_lib_dir();
    assert!(defines_symbol(&dir.join("libwsp_ggml_backend.so"), &["-D", "--defined-only"], NAME));
    assert!(defines_symbol(&dir.join("libwsp_ggml_backend.a"), &["--defined-only"], NAME));
}

#[test]
fn scheduler_hot_path_does_not_allocate() {
    let mut sources = vec![root().join("benches/sched_allocs.c")];
    sources.extend(fixture_sources());
    let include = format!("-I{}", root().join("benches").display());
    let exe = build_program("sched_allocs", &sources, &[&include], Layer::RustStaticAllocCount);
    let mut failures = Vec::new();
    for mode in ["cpu", "split"] {
        for parallel in [false, true] {
            let mut args = vec![mode, "1000", "24"];
            if parallel {
                args.push("parallel");
            }
            let out = run(&exe, &args, &[]);
            let stdout = String::from_utf8_lossy(&out.stdout);
            println!("{}", stdout.trim_end());
            let first =
                stdout.split_whitespace().find_map(|f| f.strip_prefix("first=")).and_then(|v| v.parse::<u64>().ok());
            // The counter works: the first evaluation sets the scheduler's tables up.
            assert!(
                first.is_some_and(|n| n > 0),
                "{mode} parallel={parallel}: no allocation counted at all:\n{stdout}"
            );
            if !out.status.success() {
                failures.push(format!(
                    "{mode} parallel={parallel}: {}{}",
                    stdout.trim_end(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "allocations after warm-up:\n{}", failures.join("\n"));

    // The check can fail: with GGML_SCHED_DEBUG=1 (the package's name: WSP_GGML_SCHED_DEBUG) the
    // scheduler formats a log line for every evaluation, and those allocations must be seen.
    let sched_debug = RELEASE.ggml_macro("GGML_SCHED_DEBUG");
    let out = run(&exe, &["cpu", "1000", "24"], &[(sched_debug.as_str(), "1")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "debug logging allocates, yet none was counted:\n{stdout}");
}
