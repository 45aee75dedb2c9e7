//! Runs bindgen over a whisper.rn release's headers for the target being checked, and writes
//! compile-time assertions that every struct, field and enum value the headers declare has the
//! same size, alignment, offset or value in the library's mirrors (`wsp_ggml_backend::abi`).
//!
//! WSP_RELEASE_HEADERS names the release's `cpp/` folder (default: the fetched 0.4.3 in
//! third_party/). For a cross target, the target's C headers come from the Debian cross
//! toolchain's folder (/usr/<gnu triple>/include) when it exists.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The structs of ggml-backend.h / ggml-backend-impl.h and the ggml core structs the backend
/// layer mirrors.
const STRUCTS: &[&str] = &[
    "wsp_ggml_tensor",
    "wsp_ggml_hash_set",
    "wsp_ggml_cgraph",
    "wsp_ggml_init_params",
    "wsp_ggml_backend_dev_caps",
    "wsp_ggml_backend_dev_props",
    "wsp_ggml_backend_feature",
    "wsp_ggml_backend_graph_copy",
    "wsp_ggml_backend_buffer_type_i",
    "wsp_ggml_backend_buffer_type",
    "wsp_ggml_backend_buffer_i",
    "wsp_ggml_backend_buffer",
    "wsp_ggml_backend_i",
    "wsp_ggml_backend",
    "wsp_ggml_backend_event",
    "wsp_ggml_backend_device_i",
    "wsp_ggml_backend_device",
    "wsp_ggml_backend_reg_i",
    "wsp_ggml_backend_reg",
];

/// The enums the mirrors declare as Rust enums: every value the header has must exist with the
/// same number.
const ENUMS: &[&str] = &["wsp_ggml_status", "wsp_ggml_backend_buffer_usage", "wsp_ggml_backend_dev_type"];

/// The ops whose numbers the backend layer uses.
const OPS: &[&str] = &["NONE", "RESHAPE", "VIEW", "PERMUTE", "TRANSPOSE", "ROPE"];
/// The ops whose numbers only the 0.7 build uses.
const OPS_0_7: &[&str] = &["FLASH_ATTN_EXT"];

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let headers = std::env::var_os("WSP_RELEASE_HEADERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../third_party/whisper.rn/cpp"));
    println!("cargo:rerun-if-env-changed=WSP_RELEASE_HEADERS");
    println!("cargo:rerun-if-changed={}", headers.display());
    assert!(
        headers.join("ggml-backend-impl.h").exists(),
        "no release headers in {} (run scripts/fetch-reference.sh, or set WSP_RELEASE_HEADERS)",
        headers.display()
    );

    let target = std::env::var("TARGET").unwrap();
    let mut builder = bindgen::Builder::default()
        .header_contents("release.h", "#include \"ggml-backend-impl.h\"\n#include \"ggml-impl.h\"\n")
        .clang_arg(format!("-I{}", headers.display()))
        .clang_arg(format!("--target={target}"))
        .prepend_enum_name(false)
        .layout_tests(false)
        .derive_debug(false)
        .derive_copy(false);
    if let Some(sysroot) = cross_headers(&target) {
        builder = builder.clang_arg(format!("-isystem{}", sysroot.display()));
    }
    for name in STRUCTS.iter().chain(ENUMS).chain(&["wsp_ggml_op"]) {
        builder = builder.allowlist_type(name);
    }
    let bindings = builder.generate().expect("bindgen reads the release's headers").to_string();

    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out.join("release.rs"), &bindings).unwrap();
    std::fs::write(out.join("checks.rs"), checks(&bindings)).unwrap();
}

/// The C headers of a Debian cross toolchain for `target`, if installed.
fn cross_headers(target: &str) -> Option<PathBuf> {
    let host = std::env::var("HOST").unwrap();
    if target == host {
        return None;
    }
    let gnu = match target {
        "aarch64-unknown-linux-gnu" => "aarch64-linux-gnu",
        "armv7-unknown-linux-gnueabihf" => "arm-linux-gnueabihf",
        "i686-unknown-linux-gnu" => "i686-linux-gnu",
        _ => return None,
    };
    let dir = Path::new("/usr").join(gnu).join("include");
    dir.exists().then_some(dir)
}

/// Rust's name for a C field (bindgen appends `_` to keywords; the mirrors use raw identifiers).
fn rust_field(name: &str) -> String {
    match name {
        "type_" => "r#type".into(),
        "async_" => "r#async".into(),
        other => other.into(),
    }
}

/// The assertions, one per struct size, alignment, field offset and enum value.
fn checks(bindings: &str) -> String {
    let mut out = String::new();
    for &name in STRUCTS {
        let fields = struct_fields(bindings, name).unwrap_or_else(|| panic!("the headers declare no struct {name}"));
        let pairs: Vec<String> = fields.iter().map(|f| format!("{} = {f}", rust_field(f))).collect();
        writeln!(out, "same_layout!({name} {{ {} }});", pairs.join(", ")).unwrap();
    }
    for &name in ENUMS {
        for variant in enum_values(bindings, name) {
            writeln!(out, "same_value!({name}, {variant});").unwrap();
        }
    }
    let ops_0_7 = if std::env::var_os("CARGO_FEATURE_WHISPER_RN_0_7").is_some() { OPS_0_7 } else { &[] };
    for op in OPS.iter().chain(ops_0_7) {
        writeln!(out, "same_op!(WSP_GGML_OP_{op});").unwrap();
    }
    out
}

/// The fields of `pub struct NAME { .. }` in bindgen's output, in order.
fn struct_fields(bindings: &str, name: &str) -> Option<Vec<String>> {
    let start = bindings.find(&format!("pub struct {name} {{"))?;
    let body = &bindings[start..];
    let body = &body[body.find('{')? + 1..body.find("\n}")?];
    Some(
        body.lines()
            .filter_map(|line| line.trim().strip_prefix("pub ")?.split(':').next().map(str::to_owned))
            .collect(),
    )
}

/// The values of an enum in bindgen's output (`pub const VALUE: NAME = ..;`).
fn enum_values(bindings: &str, name: &str) -> Vec<String> {
    let typed = format!(": {name} = ");
    bindings
        .lines()
        .filter(|line| line.contains(&typed))
        .filter_map(|line| line.trim().strip_prefix("pub const ")?.split(':').next().map(str::to_owned))
        .collect()
}
