//! The checked-in C header is what cbindgen makes of the Rust sources: a change to the ABI in
//! Rust that is not reflected in include/ fails here. `UPDATE_HEADER=1 cargo test --test header`
//! rewrites it.

use std::path::Path;

#[test]
fn checked_in_header_matches_the_rust_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("read cbindgen.toml");
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
