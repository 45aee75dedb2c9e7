//! Runs bindgen over a whisper.rn release's headers for the target being checked, and writes
//! compile-time assertions that every struct, field and enum value the headers declare has the
//! same size, alignment, offset or value in the library's mirrors (`wsp_ggml_backend::abi`).
//! bindgen drops the package's prefix from the names (as the mirrors name them), and the library
//! must have been built with the prefix the headers have.
//!
//! WSP_RELEASE_HEADERS names the release's `cpp/` folder (default: the fetched 0.4.3 in
//! third_party/); what is compared follows from what its headers declare (the meta backend's
//! types and op numbers when ggml-backend.h has them). For a cross target, the target's C headers come from the Debian cross
//! toolchain's folder (/usr/<gnu triple>/include) when it exists.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The structs of ggml-backend.h / ggml-backend-impl.h and the ggml core structs the backend
/// layer mirrors.
const STRUCTS: &[&str] = &[
    "ggml_tensor",
    "ggml_hash_set",
    "ggml_cgraph",
    "ggml_init_params",
    "ggml_backend_dev_caps",
    "ggml_backend_dev_props",
    "ggml_backend_feature",
    "ggml_backend_graph_copy",
    "ggml_backend_buffer_type_i",
    "ggml_backend_buffer_type",
    "ggml_backend_buffer_i",
    "ggml_backend_buffer",
    "ggml_backend_i",
    "ggml_backend",
    "ggml_backend_event",
    "ggml_backend_device_i",
    "ggml_backend_device",
    "ggml_backend_reg_i",
    "ggml_backend_reg",
];

/// The enums the mirrors declare as Rust enums: every value the header has must exist with the
/// same number.
const ENUMS: &[&str] = &["ggml_status", "ggml_backend_buffer_usage", "ggml_backend_dev_type"];

/// What only the headers of a release with the meta backend (0.6, 0.7) declare: its split
/// state, and its split-axis enum (C name, then the mirror's: Rust holds the axis as an integer
/// and declares the enum for the header under another name).
const STRUCTS_META: &[&str] = &["ggml_backend_meta_split_state"];
const ENUMS_META: &[(&str, &str)] = &[("ggml_backend_meta_split_axis", "ggml_backend_meta_split_axis_decl")];

/// The ops whose numbers the backend layer uses.
const OPS: &[&str] = &["NONE", "RESHAPE", "VIEW", "PERMUTE", "TRANSPOSE", "ROPE"];
/// The meta backend's op numbers: every constant of the mirrors' `op` module (named as in
/// ggml.h without the `GGML_OP_` prefix and the package's), whatever its cfg.
fn meta_ops(root: &Path) -> Vec<String> {
    let mirrors = root.join("../src/abi/ggml.rs");
    println!("cargo:rerun-if-changed={}", mirrors.display());
    let text = std::fs::read_to_string(&mirrors).unwrap();
    let module = &text[text.find("pub mod op {").expect("the mirrors declare the op module")..];
    let module = &module[..module.find("\n}").unwrap()];
    module
        .lines()
        .filter_map(|line| line.trim().strip_prefix("pub const ")?.split(':').next().map(str::to_owned))
        .collect()
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let headers = std::env::var_os("WSP_RELEASE_HEADERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../third_party/whisper.rn/cpp"));
    println!("cargo:rerun-if-env-changed=WSP_RELEASE_HEADERS");
    println!("cargo:rerun-if-changed={}", headers.display());
    assert!(
        headers.join("ggml-backend-impl.h").exists(),
        "no release headers in {} (run scripts/fetch/fetch-reference.sh, or set WSP_RELEASE_HEADERS)",
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
    // The release has the meta backend when its ggml-backend.h declares the split state; the
    // library built for another family then lacks the mirror, which does not compile.
    let backend_h = std::fs::read_to_string(headers.join("ggml-backend.h")).expect("ggml-backend.h");
    let prefix = package_prefix(&backend_h);
    builder = builder.parse_callbacks(Box::new(Unprefixed(prefix.clone())));
    let has_meta = backend_h.contains(&format!("struct {prefix}ggml_backend_meta_split_state"));
    let mut structs = STRUCTS.to_vec();
    let mut enums: Vec<(&str, &str)> = ENUMS.iter().map(|&e| (e, e)).collect();
    if has_meta {
        structs.extend(STRUCTS_META);
        enums.extend(ENUMS_META);
    }
    for name in structs.iter().chain(enums.iter().map(|(c, _)| c)).chain(&["ggml_op"]) {
        builder = builder.allowlist_type(format!("{prefix}{name}"));
    }
    let bindings = builder.generate().expect("bindgen reads the release's headers").to_string();

    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out.join("release.rs"), &bindings).unwrap();
    let meta_ops = if has_meta { meta_ops(&root) } else { Vec::new() };
    let mut checks = checks(&bindings, &structs, &enums, &meta_ops);
    writeln!(checks, "same_prefix!({prefix:?});").unwrap();
    std::fs::write(out.join("checks.rs"), checks).unwrap();
}

/// The prefix the headers give ggml's names: the part before `ggml_backend_buffer_type_t` in its
/// typedef.
fn package_prefix(backend_h: &str) -> String {
    let end =
        backend_h.find("ggml_backend_buffer_type_t;").expect("ggml-backend.h declares ggml_backend_buffer_type_t");
    let start = backend_h[..end].rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |at| at + 1);
    backend_h[start..end].to_owned()
}

/// bindgen's names without the package's prefix: `ggml_tensor`, `GGML_OP_VIEW`.
#[derive(Debug)]
struct Unprefixed(String);

impl Unprefixed {
    fn strip(&self, name: &str) -> Option<String> {
        let upper = self.0.to_uppercase();
        let rest = name.strip_prefix(self.0.as_str()).filter(|rest| rest.starts_with("ggml"));
        rest.or_else(|| name.strip_prefix(upper.as_str()).filter(|rest| rest.starts_with("GGML"))).map(str::to_owned)
    }
}

impl bindgen::callbacks::ParseCallbacks for Unprefixed {
    fn item_name(&self, name: &str) -> Option<String> {
        self.strip(name)
    }

    fn enum_variant_name(
        &self,
        _enum_name: Option<&str>,
        variant: &str,
        _value: bindgen::callbacks::EnumVariantValue,
    ) -> Option<String> {
        self.strip(variant)
    }
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

/// The assertions, one per struct size, alignment, field offset and enum value; an op of the
/// mirrors' `op` module that the release's ggml.h lacks must be configured out of the build.
fn checks(bindings: &str, structs: &[&str], enums: &[(&str, &str)], meta_ops: &[String]) -> String {
    let mut out = String::new();
    for &name in structs {
        let fields = struct_fields(bindings, name).unwrap_or_else(|| panic!("the headers declare no struct {name}"));
        let pairs: Vec<String> = fields.iter().map(|f| format!("{} = {f}", rust_field(f))).collect();
        writeln!(out, "same_layout!({name} {{ {} }});", pairs.join(", ")).unwrap();
    }
    for &(name, mirror) in enums {
        for variant in enum_values(bindings, name) {
            writeln!(out, "same_value!({mirror}, {variant});").unwrap();
        }
    }
    for op in OPS {
        writeln!(out, "same_op!(GGML_OP_{op});").unwrap();
    }
    let declared = enum_values(bindings, "ggml_op");
    for op in meta_ops {
        if declared.iter().any(|v| *v == format!("GGML_OP_{op}")) {
            writeln!(out, "same_op!(op::{op} = GGML_OP_{op});").unwrap();
        } else {
            writeln!(out, "no_op!({op});").unwrap();
        }
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
