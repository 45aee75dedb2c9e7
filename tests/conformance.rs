//! The C conformance suite, driven from cargo: the same C programs built against whisper.rn's
//! reference backend layer and against this library must agree, for the family the tests are
//! built for (0.4, 0.5.1, 0.5.3, 0.5.5, 0.6 or 0.7, against its newest release).
//!
//! - ABI parity: sizes, alignments, field offsets and enum values of every struct the layer
//!   shares with C, from whisper.rn's headers, from our generated header, and from Rust;
//! - symbols: the built libraries define exactly the functions of the family's `symbols` list;
//! - differential behaviour: every program ctests/programs.txt judges `reference` prints the
//!   same stdout;
//! - bad input: each hostile call gives a clear message (and an abort or an error value).
//!
//! Which programs run, and how each is judged, is ctests/programs.txt's to say (ctest reads it
//! too).

mod support;

use ::wsp_ggml_backend::abi::*;
use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use support::*;

/// The functions the release's backend layer defines (the release table's `symbols`, as the
/// package names them).
fn spec_symbols() -> BTreeSet<String> {
    std::fs::read_to_string(root().join("ctests").join(RELEASE.symbols))
        .unwrap()
        .lines()
        .map(|l| RELEASE.named(l))
        .collect()
}

/// Names of the package's `wsp_ggml*` symbols a library defines (text symbols, global or weak).
fn defined_ggml_symbols(nm_args: &[&str], lib: &std::path::Path) -> BTreeSet<String> {
    let out = std::process::Command::new("nm").args(nm_args).arg(lib).output().expect("run nm");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace().rev();
            let name = parts.next()?;
            let kind = parts.next()?;
            (name.starts_with(&format!("{}ggml", RELEASE.symbol_prefix))
                && kind.chars().all(|c| "TtWwDdBbRr".contains(c))
                && kind.chars().next()?.is_uppercase())
            .then(|| name.to_owned())
        })
        .collect()
}

#[test]
fn libraries_define_exactly_the_spec_symbols() {
    let spec = spec_symbols();
    for (what, args, lib) in [
        ("shared", &["-D", "--defined-only"][..], rust_shared_lib()),
        ("static", &["--defined-only"][..], rust_static_lib()),
    ] {
        let defined = defined_ggml_symbols(args, &lib);
        let missing: Vec<_> = spec.difference(&defined).collect();
        let extra: Vec<_> = defined.difference(&spec).collect();
        assert!(missing.is_empty(), "{what} library lacks {missing:?}");
        assert!(extra.is_empty(), "{what} library defines symbols outside the spec: {extra:?}");
        println!("{what} library: {} of {} spec symbols, no others", defined.len(), spec.len());
    }
}

/// One `size`/`align`/`offset` line per Rust type and field, in abi_layout.c's format (which
/// names the C types as whisper.rn does, whatever the package: its names are string literals).
macro_rules! rust_layout {
    ($out:ident; $($t:ident { $($f:ident),* $(,)? })*) => {$(
        $out.push(format!("size wsp_{} {}", stringify!($t), std::mem::size_of::<$t>()));
        $out.push(format!("align wsp_{} {}", stringify!($t), std::mem::align_of::<$t>()));
        $(
            $out.push(format!("offset wsp_{}.{} {}", stringify!($t),
                stringify!($f).trim_start_matches("r#"), std::mem::offset_of!($t, $f)));
        )*
    )*};
}

fn rust_layout_lines() -> Vec<String> {
    let mut out = Vec::new();
    rust_layout!(out;
        ggml_backend_buffer_type_i { get_name, alloc_buffer, get_alignment, get_max_size, get_alloc_size, is_host }
        ggml_backend_buffer_type { iface, device, context }
        ggml_backend_buffer_i { free_buffer, get_base, init_tensor, memset_tensor, set_tensor, get_tensor, cpy_tensor, clear, reset }
        ggml_backend_buffer { iface, buft, context, size, usage }
        ggml_backend_i { get_name, free, set_tensor_async, get_tensor_async, cpy_tensor_async, synchronize,
            graph_plan_create, graph_plan_free, graph_plan_update, graph_plan_compute, graph_compute, event_record, event_wait }
        ggml_backend { guid, iface, device, context }
        ggml_backend_event { device, context }
        ggml_backend_device_i { get_name, get_description, get_memory, get_type, get_props, init_backend, get_buffer_type,
            get_host_buffer_type, buffer_from_host_ptr, supports_op, supports_buft, offload_op, event_new, event_free, event_synchronize }
        ggml_backend_device { iface, reg, context }
        ggml_backend_reg_i { get_name, get_device_count, get_device, get_proc_address }
        ggml_backend_reg { api_version, iface, context }
        ggml_backend_dev_caps { r#async, host_buffer, buffer_from_host_ptr, events }
        ggml_backend_dev_props { name, description, memory_free, memory_total, r#type, caps }
        ggml_backend_feature { name, value }
        ggml_backend_graph_copy { buffer, ctx_allocated, ctx_unallocated, graph }
        ggml_tensor { r#type, buffer, ne, nb, op, op_params, flags, src, view_src, view_offs, data, name, extra, padding }
        ggml_hash_set { size, used, keys }
        ggml_cgraph { size, n_nodes, n_leafs, nodes, grads, grad_accs, leafs, use_counts, visited_hash_set, order }
        ggml_init_params { mem_size, mem_buffer, no_alloc }
    );
    use ggml_backend_buffer_usage::*;
    use ggml_backend_dev_type::*;
    use ggml_status::*;
    for (name, value) in [
        ("WSP_GGML_BACKEND_BUFFER_USAGE_ANY", GGML_BACKEND_BUFFER_USAGE_ANY as i64),
        ("WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS", GGML_BACKEND_BUFFER_USAGE_WEIGHTS as i64),
        ("WSP_GGML_BACKEND_BUFFER_USAGE_COMPUTE", GGML_BACKEND_BUFFER_USAGE_COMPUTE as i64),
        ("WSP_GGML_BACKEND_DEVICE_TYPE_CPU", GGML_BACKEND_DEVICE_TYPE_CPU as i64),
        ("WSP_GGML_BACKEND_DEVICE_TYPE_GPU", GGML_BACKEND_DEVICE_TYPE_GPU as i64),
        ("WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL", GGML_BACKEND_DEVICE_TYPE_ACCEL as i64),
        ("WSP_GGML_STATUS_ALLOC_FAILED", GGML_STATUS_ALLOC_FAILED as i64),
        ("WSP_GGML_STATUS_FAILED", GGML_STATUS_FAILED as i64),
        ("WSP_GGML_STATUS_SUCCESS", GGML_STATUS_SUCCESS as i64),
        ("WSP_GGML_STATUS_ABORTED", GGML_STATUS_ABORTED as i64),
        ("WSP_GGML_OP_NONE", GGML_OP_NONE as i64),
        ("WSP_GGML_OP_RESHAPE", GGML_OP_RESHAPE as i64),
        ("WSP_GGML_OP_VIEW", GGML_OP_VIEW as i64),
        ("WSP_GGML_OP_PERMUTE", GGML_OP_PERMUTE as i64),
        ("WSP_GGML_OP_TRANSPOSE", GGML_OP_TRANSPOSE as i64),
        ("WSP_GGML_OP_ROPE", GGML_OP_ROPE as i64),
        ("WSP_GGML_TENSOR_FLAG_INPUT", GGML_TENSOR_FLAG_INPUT as i64),
        ("WSP_GGML_TENSOR_FLAG_OUTPUT", GGML_TENSOR_FLAG_OUTPUT as i64),
        ("WSP_GGML_LOG_LEVEL_DEBUG", GGML_LOG_LEVEL_DEBUG as i64),
        ("WSP_GGML_LOG_LEVEL_INFO", GGML_LOG_LEVEL_INFO as i64),
        ("WSP_GGML_LOG_LEVEL_WARN", GGML_LOG_LEVEL_WARN as i64),
        ("WSP_GGML_LOG_LEVEL_ERROR", GGML_LOG_LEVEL_ERROR as i64),
    ] {
        out.push(format!("enum {name} {value}"));
    }
    #[cfg(api_v2)]
    {
        let device_id = std::mem::offset_of!(ggml_backend_dev_props, device_id);
        out.push(format!("offset wsp_ggml_backend_dev_props.device_id {device_id}"));
        let graph_optimize = std::mem::offset_of!(ggml_backend_i, graph_optimize);
        out.push(format!("offset wsp_ggml_backend_i.graph_optimize {graph_optimize}"));
        out.push(format!("enum WSP_GGML_BACKEND_DEVICE_TYPE_IGPU {}", GGML_BACKEND_DEVICE_TYPE_IGPU as i64));
    }
    #[cfg(tensor_2d)]
    {
        for (field, offset) in [
            ("wsp_ggml_backend_buffer_i.set_tensor_2d", std::mem::offset_of!(ggml_backend_buffer_i, set_tensor_2d)),
            ("wsp_ggml_backend_buffer_i.get_tensor_2d", std::mem::offset_of!(ggml_backend_buffer_i, get_tensor_2d)),
            ("wsp_ggml_backend_i.set_tensor_2d_async", std::mem::offset_of!(ggml_backend_i, set_tensor_2d_async)),
            ("wsp_ggml_backend_i.get_tensor_2d_async", std::mem::offset_of!(ggml_backend_i, get_tensor_2d_async)),
            ("wsp_ggml_cgraph.uid", std::mem::offset_of!(ggml_cgraph, uid)),
        ] {
            out.push(format!("offset {field} {offset}"));
        }
        out.push(format!("enum WSP_GGML_BACKEND_DEVICE_TYPE_META {}", GGML_BACKEND_DEVICE_TYPE_META as i64));
        out.push(format!("enum WSP_GGML_OP_FLASH_ATTN_EXT {}", op::FLASH_ATTN_EXT));
        out.push(format!("enum WSP_GGML_TENSOR_FLAG_COMPUTE {GGML_TENSOR_FLAG_COMPUTE}"));
        rust_layout!(out; ggml_backend_meta_split_state { axis, ne, n_segments });
        for (name, value) in [
            ("WSP_GGML_BACKEND_SPLIT_AXIS_0", GGML_BACKEND_SPLIT_AXIS_0),
            ("WSP_GGML_BACKEND_SPLIT_AXIS_1", GGML_BACKEND_SPLIT_AXIS_1),
            ("WSP_GGML_BACKEND_SPLIT_AXIS_2", GGML_BACKEND_SPLIT_AXIS_2),
            ("WSP_GGML_BACKEND_SPLIT_AXIS_3", GGML_BACKEND_SPLIT_AXIS_3),
            ("WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED", GGML_BACKEND_SPLIT_AXIS_MIRRORED),
            ("WSP_GGML_BACKEND_SPLIT_AXIS_PARTIAL", GGML_BACKEND_SPLIT_AXIS_PARTIAL),
            ("WSP_GGML_BACKEND_SPLIT_AXIS_NONE", GGML_BACKEND_SPLIT_AXIS_NONE),
            ("WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN", GGML_BACKEND_SPLIT_AXIS_UNKNOWN),
        ] {
            out.push(format!("enum {name} {value}"));
        }
        out.push(format!("define WSP_GGML_BACKEND_META_MAX_DEVICES {GGML_BACKEND_META_MAX_DEVICES}"));
    }
    #[cfg(mmap_support)]
    out.push(format!(
        "offset wsp_ggml_backend_dev_caps.mmap_support {}",
        std::mem::offset_of!(ggml_backend_dev_caps, mmap_support)
    ));
    #[cfg(meta_nr)]
    out.push(format!(
        "offset wsp_ggml_backend_meta_split_state.nr {}",
        std::mem::offset_of!(ggml_backend_meta_split_state, nr)
    ));
    for (name, value) in [
        ("WSP_GGML_BACKEND_API_VERSION", GGML_BACKEND_API_VERSION as usize),
        ("WSP_GGML_MAX_DIMS", GGML_MAX_DIMS),
        ("WSP_GGML_MAX_SRC", GGML_MAX_SRC),
        ("WSP_GGML_MAX_NAME", GGML_MAX_NAME),
        ("WSP_GGML_MAX_OP_PARAMS", GGML_MAX_OP_PARAMS),
        ("TENSOR_ALIGNMENT", ::wsp_ggml_backend::buffer::cpu::TENSOR_ALIGNMENT),
    ] {
        out.push(format!("define {name} {value}"));
    }
    out
}

#[test]
fn abi_layout_matches_between_whisper_rn_headers_our_header_and_rust() {
    let source = vec![suite_program("header").source];
    let include = format!("-I{}", root().join("include").display());
    let from_whisper = build_program("abi_layout", &source, &[], Layer::Reference);
    let from_header =
        build_program("abi_layout_header", &source, &["-DABI_USE_LIBRARY_HEADER", &include], Layer::RustStatic);
    let whisper = String::from_utf8(run(&from_whisper, &[], &[]).stdout).unwrap();
    let header = String::from_utf8(run(&from_header, &[], &[]).stdout).unwrap();
    assert!(whisper.lines().count() > 100, "the layout program printed too little:\n{whisper}");
    if let Some(diff) = first_difference(&whisper, &header) {
        panic!("include/{}ggml_backend.h disagrees with the package's headers: {diff}", RELEASE.symbol_prefix);
    }
    let c_lines: BTreeSet<&str> = whisper.lines().collect();
    let rust = rust_layout_lines();
    let mismatched: Vec<&String> = rust.iter().filter(|l| !c_lines.contains(l.as_str())).collect();
    assert!(mismatched.is_empty(), "Rust layouts disagree with C: {mismatched:#?}");
    println!("{}", whisper.lines().last().unwrap_or_default());
    println!("Rust side: {} size/align/offset/enum/define facts equal to C's", rust.len());
}

/// Builds one differential program against both layers, runs both, and describes any
/// disagreement in exit status or stdout.
fn differential(source: &std::path::Path, layers: &[Layer]) -> Result<usize, String> {
    let name = source.file_stem().unwrap().to_string_lossy().into_owned();
    let mut sources = vec![source.to_path_buf()];
    sources.extend(fixture_sources());
    let reference = build_program(&name, &sources, &[], Layer::Reference);
    let expected = run(&reference, &[], &[]);
    if !expected.status.success() {
        return Err(format!("{name}: the reference build failed: {}", String::from_utf8_lossy(&expected.stderr)));
    }
    let expected_out = String::from_utf8_lossy(&expected.stdout).into_owned();
    for &layer in layers {
        let exe = build_program(&name, &sources, &[], layer);
        let actual = run(&exe, &[], &[]);
        if !actual.status.success() {
            return Err(format!(
                "{name} ({layer:?}) exited with {}: {}",
                actual.status,
                String::from_utf8_lossy(&actual.stderr)
            ));
        }
        if let Some(diff) = first_difference(&expected_out, &String::from_utf8_lossy(&actual.stdout)) {
            return Err(format!("{name} ({layer:?}): {diff}"));
        }
    }
    Ok(expected_out.lines().count())
}

#[test]
fn differential_programs_print_what_the_reference_prints() {
    let programs: Vec<_> = suite_programs("reference").into_iter().map(|p| p.source).collect();
    assert!(!programs.is_empty());
    // Each program is built three times and run three times (under qemu for the phones):
    // share them among the cores, as the other tests of this file end sooner.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(programs.len());
    let results: Vec<Result<usize, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(program) = programs.get(i) else { return done };
                        done.push(differential(program, &[Layer::RustStatic, Layer::RustShared]));
                    }
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a differential worker panicked")).collect()
    });
    let mut failures = Vec::new();
    let mut lines = 0;
    for result in results {
        match result {
            Ok(n) => lines += n,
            Err(e) => failures.push(e),
        }
    }
    println!(
        "{} of {} differential programs identical to the reference ({lines} lines in all; each linked statically and dynamically)",
        programs.len() - failures.len(),
        programs.len()
    );
    assert!(failures.is_empty(), "differences:\n{}", failures.join("\n"));
}

#[test]
fn hostile_calls_give_a_clear_message_and_an_abort_or_an_error_value() {
    let program = suite_program("hostile");
    let exe = build_program(&program.name(), &[program.source], &[], Layer::RustStatic);
    let list = run(&exe, &["--list"], &[]);
    assert!(list.status.success());
    let list = String::from_utf8(list.stdout).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in list.lines() {
        let mut fields = line.split('\t');
        let (name, outcome) = (fields.next().unwrap(), fields.next().unwrap());
        let expected = RELEASE.named(fields.next().unwrap_or(""));
        count += 1;
        let out = run(&exe, &[name], &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let aborted = out.status.signal() == Some(libc::SIGABRT);
        let verdict = match outcome {
            "abort" if !aborted => Some(format!("expected an abort, got {}", out.status)),
            "ok" | "error" if !out.status.success() => Some(format!("expected a clean return, got {}", out.status)),
            _ if !stderr.contains(&expected) => Some(format!("message lacks {expected:?}")),
            _ => None,
        };
        if let Some(why) = verdict {
            failures.push(format!("{name}: {why}; stderr: {}", stderr.lines().take(3).collect::<Vec<_>>().join(" | ")));
        }
    }
    println!("{} of {count} hostile calls handled as specified", count - failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn behaviour_beyond_the_reference_holds() {
    // Programs that check themselves: where the reference aborts or computes wrong results
    // (wide splits, pipelined re-evaluation, allocation failure; the meta backend's graphs
    // sharing a weight), this library must not.
    let programs: Vec<_> = suite_programs("self").into_iter().map(|p| p.source).collect();
    assert!(!programs.is_empty());
    let mut failures = Vec::new();
    for program in &programs {
        let name = program.file_stem().unwrap().to_string_lossy().into_owned();
        let mut sources = vec![program.clone()];
        sources.extend(fixture_sources());
        let exe = build_program(&name, &sources, &[], Layer::RustStatic);
        let out = run(&exe, &[], &[]);
        if !out.status.success() {
            failures.push(format!(
                "{name}: {}\n{}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    println!("{} of {} behaviour programs pass", programs.len() - failures.len(), programs.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_scheduler_shows_where_it_cut_the_graph() {
    // WSP_GGML_SCHED_DEBUG lists the splits (2: every node); WSP_GGML_SCHED_DOT draws them.
    let program = root().join("ctests/sched/sched_split.c");
    let mut sources = vec![program];
    sources.extend(fixture_sources());
    let exe = build_program("sched_split", &sources, &[], Layer::RustStatic);
    let dot = std::env::temp_dir().join(format!("wsp-sched-{}.dot", std::process::id()));
    let (debug, dot_variable) = (RELEASE.ggml_macro("GGML_SCHED_DEBUG"), RELEASE.ggml_macro("GGML_SCHED_DOT"));
    let out = run(&exe, &[], &[(&debug, "2"), (&dot_variable, dot.to_str().unwrap())]);
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("## SPLIT #0: "), "no split listing in the debug log");
    assert!(log.contains("node #"), "level 2 lists nodes");
    let graph = std::fs::read_to_string(&dot).expect("the DOT file was written");
    std::fs::remove_file(&dot).ok();
    assert!(graph.starts_with("digraph splits {") && graph.trim_end().ends_with('}'));
    assert!(graph.contains("subgraph cluster_1"), "several splits are drawn as clusters");
    assert!(graph.contains("style=dashed, color=red, label=\"copy TEST#"), "copies to the TEST backend are marked");
}
