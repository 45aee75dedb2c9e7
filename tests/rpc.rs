//! ggml's RPC backend through this library and through whisper.rn's reference layer: an
//! rpc-server (examples/rpc) on 127.0.0.1, and clients linked with the same layer. Each case is
//! one run of ctests/rpc/rpc_case.sh (which ctest runs too): it starts the server at a free
//! port, stops it by its pid, and bounds every client with `timeout`.
//!
//! - the transcript over RPC equals the local one (transcribe --rpc);
//! - a scheduler over [RPC, CPU] computes what the CPU alone computes (ctests/rpc/rpc_client.c);
//! - two clients one after the other, and two at once, each get their own correct result (or,
//!   at once, a clear refusal);
//! - a server killed mid-run, a closed port and malformed endpoints end with a clear message;
//! - a client and a server linked with different layers work together.
//!
//! ggml-rpc fills the interface tables by position: each family builds the ggml-rpc whose tables
//! are its own (the release table's `rpc`: ggml a2253f34's up to 0.5.5, llama-cpp-python
//! 0.3.35's for 0.7), compiled against the headers of the release under test. A family without
//! one has no RPC tests.
#![cfg(ggml_rpc)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};
use support::*;

/// The whole case, server start and every client included, is bounded by this.
const CASE_LIMIT_SECONDS: &str = "600";

struct Programs {
    server: PathBuf,
    transcribe: PathBuf,
    client: PathBuf,
}

/// The three programs linked with `layer`, built once (one build at a time: both layers share
/// the programs' object archives).
fn programs(layer: Layer) -> &'static Programs {
    static LIBRARY: OnceLock<Programs> = OnceLock::new();
    static REFERENCE: OnceLock<Programs> = OnceLock::new();
    static BUILDING: Mutex<()> = Mutex::new(());
    let cell = if layer == Layer::Reference { &REFERENCE } else { &LIBRARY };
    cell.get_or_init(|| {
        let _one_at_a_time = BUILDING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        build_programs(layer)
    })
}

fn build_programs(layer: Layer) -> Programs {
    let rpc_flags = rpc_flags();
    Programs {
        server: build_rpc_example("rpc-server", &["examples/rpc/rpc-server.cpp"], &[], layer),
        transcribe: build_rpc_example(
            "transcribe",
            &["examples/transcribe/transcribe.cpp", &package_cpp_dir().join("whisper.cpp").display().to_string()],
            &["ctests/fixtures/accel_fixture.c"],
            layer,
        ),
        client: build_program(
            "rpc_client",
            &[suite_program("rpc").source],
            &rpc_flags.iter().map(String::as_str).collect::<Vec<_>>(),
            layer,
        ),
    }
}

/// The model and one short sample, where scripts/setup.sh puts them (same variables as
/// examples/CMakeLists.txt).
fn model_and_sample() -> (String, String) {
    let home = std::env::var("HOME").unwrap_or_default();
    let model_dir = std::env::var("WSP_MODEL_DIR").unwrap_or(format!("{home}/.cache/wsp-ggml-backend"));
    let sample_dir = std::env::var("WSP_SAMPLE_DIR").unwrap_or(format!("{home}/.cache/wsp-ggml-backend/samples"));
    let model = format!("{model_dir}/ggml-tiny.en.bin");
    assert!(std::path::Path::new(&model).exists(), "{model} is missing: run scripts/setup.sh first");
    (model, format!("{sample_dir}/sample1.wav"))
}

/// Runs one case of rpc_case.sh with the server and the client linked with `layer`.
fn rpc_case(case: &str, layer: Layer) {
    let p = programs(layer);
    let client = if ["transcript", "closed-port", "bad-endpoint"].contains(&case) { &p.transcribe } else { &p.client };
    run_case(case, &p.server, client, &format!("{layer:?}"));
}

/// Runs one case of rpc_case.sh.
fn run_case(case: &str, server: &Path, client: &Path, what: &str) {
    let (model, wav) = model_and_sample();
    let output = Command::new("timeout")
        .arg(CASE_LIMIT_SECONDS)
        .arg("bash")
        .arg(root().join("ctests/rpc/rpc_case.sh"))
        .arg(case)
        .arg(server)
        .arg(client)
        .args([&model, &wav])
        .output()
        .expect("run ctests/rpc/rpc_case.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{case} ({what}) failed ({}):\n{stdout}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(&format!("PASS {case}")), "{case} ({what}) did not pass:\n{stdout}");
    println!("{stdout}");
}

/// A client linked with one layer and a server linked with the other speak the same protocol
/// and compute the same bits.
#[test]
fn library_and_reference_interoperate() {
    let (library, reference) = (programs(Layer::RustStatic), programs(Layer::Reference));
    run_case("sched", &reference.server, &library.client, "library client, reference server");
    run_case("sched", &library.server, &reference.client, "reference client, library server");
}

macro_rules! rpc_cases {
    ($($test:ident: $case:literal,)*) => {
        mod through_the_library {
            $(#[test]
            fn $test() {
                super::rpc_case($case, super::Layer::RustStatic);
            })*
        }
        mod through_the_reference {
            $(#[test]
            fn $test() {
                super::rpc_case($case, super::Layer::Reference);
            })*
        }
    };
}

rpc_cases! {
    transcript_over_rpc_equals_the_local_one: "transcript",
    scheduler_over_rpc_and_cpu_equals_the_cpu_alone: "sched",
    two_clients_one_after_the_other_each_get_their_result: "sequential",
    two_clients_at_once_each_get_their_result_or_a_refusal: "concurrent",
    server_killed_mid_run_ends_the_client_with_a_message: "killed",
    closed_port_gives_a_clear_message: "closed-port",
    malformed_endpoints_give_a_clear_message: "bad-endpoint",
}
