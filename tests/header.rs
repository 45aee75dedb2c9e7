//! The checked-in C header is what cbindgen makes of the Rust sources: a change to the ABI in
//! Rust that is not reflected in include/ fails here. `UPDATE_HEADER=1 cargo test --test header`
//! rewrites it.

use std::path::Path;

#[test]
fn checked_in_header_matches_the_rust_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("read cbindgen.toml");
    // One header for every family: each capability's items under its macro.
    for capability in capabilities() {
        config.defines.insert(capability.to_owned(), format!("WSP_GGML_BACKEND_{}", capability.to_uppercase()));
    }
    let bindings =
        cbindgen::Builder::new().with_crate(root).with_config(config).generate().expect("cbindgen parses the crate");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let header = root.join("include/wsp_ggml_backend.h");
    if std::env::var_os("UPDATE_HEADER").is_some() {
        std::fs::write(&header, &generated).unwrap();
    }
    let checked_in = std::fs::read(&header).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/wsp_ggml_backend.h is out of date; run UPDATE_HEADER=1 cargo test --test header"
    );
}

/// Every capability some family of the release table has.
fn capabilities() -> std::collections::BTreeSet<&'static str> {
    include_str!("../releases.txt")
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split_whitespace().collect::<Vec<_>>().split_first().map(|(_, rest)| rest.to_vec()))
        .filter(|rest| rest.first() == Some(&"capabilities"))
        .flat_map(|rest| rest.into_iter().skip(1))
        .filter(|&capability| capability != "-")
        .collect()
}
