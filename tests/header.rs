//! The checked-in C headers are what cbindgen makes of the Rust sources, one per package of the
//! release table with its prefix on every ggml name (the sources name them without it):
//! include/wsp_ggml_backend.h for whisper.rn, include/lm_ggml_backend.h for llama.rn,
//! include/ggml_backend.h for plain ggml (llama-cpp-python's, no prefix). A change
//! to the ABI in Rust that is not reflected in include/ fails here.
//! `UPDATE_HEADER=1 cargo test --test header` rewrites them.

mod table;

use std::path::Path;
use table::{root, table};

#[test]
fn checked_in_headers_match_the_rust_sources() {
    let stale: Vec<String> =
        packages().into_iter().filter_map(|(package, prefix)| stale_header(&package, &prefix)).collect();
    assert!(stale.is_empty(), "out of date: {}; run UPDATE_HEADER=1 cargo test --test header", stale.join(", "));
}

/// The package's header, generated and compared with (or, with UPDATE_HEADER, written to) the
/// checked-in one: its path when they differ.
fn stale_header(package: &str, prefix: &str) -> Option<String> {
    let root = root();
    // cbindgen reads a copy of the sources and of its configuration with the prefix on every ggml
    // name, so that it lays out and wraps the lines the C compiler will read.
    let copy = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("prefixed-src-{package}"));
    let _ = std::fs::remove_dir_all(&copy);
    copy_prefixed(&root.join("src"), &copy.join("src"), prefix);
    let toml = std::fs::read_to_string(root.join("cbindgen.toml")).expect("read cbindgen.toml");
    std::fs::write(copy.join("cbindgen.toml"), with_prefix(&toml, prefix)).unwrap();
    let mut config = cbindgen::Config::from_file(copy.join("cbindgen.toml")).expect("read cbindgen.toml");
    // One header for every family: each capability's items under its macro.
    for capability in capabilities() {
        let define = with_prefix(&format!("GGML_BACKEND_{}", capability.to_uppercase()), prefix);
        config.defines.insert(capability.to_owned(), define);
    }
    let bindings = cbindgen::Builder::new()
        .with_src(copy.join("src/lib.rs"))
        .with_config(config)
        .generate()
        .expect("cbindgen parses the crate");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let name = format!("include/{prefix}ggml_backend.h");
    let header = root.join(&name);
    if std::env::var_os("UPDATE_HEADER").is_some() {
        std::fs::write(&header, &generated).unwrap();
    }
    (std::fs::read(&header).unwrap_or_default() != generated).then_some(name)
}

/// The packages of the release table and their prefixes (empty: upstream's own names).
fn packages() -> Vec<(String, String)> {
    table(&["packages"]).lines().map(|package| (package.to_owned(), table(&["package", package, "prefix"]))).collect()
}

/// The `.rs` files under `from`, prefixed, under `to`.
fn copy_prefixed(from: &Path, to: &Path, prefix: &str) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_prefixed(&path, &target, prefix);
        } else if path.extension().is_some_and(|e| e == "rs") {
            std::fs::write(target, with_prefix(&std::fs::read_to_string(&path).unwrap(), prefix)).unwrap();
        }
    }
}

/// Every capability some family of the release table has.
fn capabilities() -> Vec<String> {
    table(&["capabilities"]).lines().map(str::to_owned).collect()
}

/// `text` with `prefix` before every name that begins with `ggml_` (in upper case before `GGML_`).
fn with_prefix(text: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut previous: Option<char> = None;
    for (at, c) in text.char_indices() {
        let starts_name = !previous.is_some_and(|p| p.is_ascii_alphanumeric() || p == '_');
        if starts_name && text[at..].starts_with("ggml_") {
            out.push_str(prefix);
        } else if starts_name && text[at..].starts_with("GGML_") {
            out.push_str(&prefix.to_uppercase());
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

#[test]
fn the_prefix_goes_on_whole_names_only() {
    assert_eq!(
        with_prefix("struct ggml_tensor; #ifdef GGML_X\nmy_ggml_y aggml_z ggml.h", "lm_"),
        "struct lm_ggml_tensor; #ifdef LM_GGML_X\nmy_ggml_y aggml_z ggml.h"
    );
}
