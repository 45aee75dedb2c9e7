//! Reads the release table (`releases.txt`): the family the build serves is the one whose cargo
//! feature is on (none: 0.4), and its capabilities become cfgs that the sources test
//! (`#[cfg(vulkan_env_switch)]`), never release numbers. A built-in backend (src/builtin.rs)
//! that the family's registry does not know is refused. Also gives the shared library a soname.

use std::collections::BTreeSet;

/// One row of the table.
struct Row<'a> {
    release: &'a str,
    feature: Option<&'a str>,
    capabilities: Vec<&'a str>,
    builtins: Vec<&'a str>,
}

fn rows(table: &str) -> Vec<Row<'_>> {
    table
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert!(fields.len() == 6, "releases.txt: six fields expected in '{line}'");
            Row {
                release: fields[0],
                feature: Some(fields[2]).filter(|&f| f != "-"),
                capabilities: items(fields[4]),
                builtins: items(fields[5]),
            }
        })
        .collect()
}

/// A comma-separated list, or `-` for none.
fn items(text: &str) -> Vec<&str> {
    if text == "-" {
        Vec::new()
    } else {
        text.split(',').collect()
    }
}

fn feature_enabled(feature: &str) -> bool {
    let variable = format!("CARGO_FEATURE_{}", feature.to_uppercase().replace('-', "_"));
    std::env::var_os(variable).is_some()
}

fn main() {
    let table = std::fs::read_to_string("releases.txt").expect("releases.txt");
    let rows = rows(&table);
    // The last family whose feature is on (whisper-rn-0-7 brings whisper-rn-0-5), or 0.4's.
    let chosen: Vec<&Row> = {
        let feature = rows.iter().rev().find_map(|row| row.feature.filter(|f| feature_enabled(f)));
        rows.iter().filter(|row| row.feature == feature).collect()
    };
    let family = chosen[0];

    let every_capability: BTreeSet<&str> = rows.iter().flat_map(|row| row.capabilities.iter().copied()).collect();
    for capability in &every_capability {
        println!("cargo::rustc-check-cfg=cfg({capability})");
    }
    for capability in &family.capabilities {
        println!("cargo::rustc-cfg={capability}");
    }

    let every_builtin: BTreeSet<&str> = rows.iter().flat_map(|row| row.builtins.iter().copied()).collect();
    let refused: Vec<&str> =
        every_builtin.into_iter().filter(|name| !family.builtins.contains(name) && feature_enabled(name)).collect();
    if !refused.is_empty() {
        let releases: Vec<&str> = chosen.iter().map(|row| row.release).collect();
        panic!(
            "whisper.rn {}'s registry has no built-in backend {} (it knows: {})",
            releases.join("/"),
            refused.join(", "),
            family.builtins.join(", ")
        );
    }

    // Give the shared library a proper soname so that programs record
    // libwsp_ggml_backend.so.0 and a later compatible release can replace it (Android's loader
    // reads DT_SONAME as well).
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap();
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap();
    if target_os == "linux" || target_os == "android" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libwsp_ggml_backend.so.{major}");
    }
    // The C conformance tests build C with the cc crate at run time: they need the target, and
    // the host to tell a cross build (cross compiler, emulator) from a native one.
    println!("cargo:rustc-env=WSP_BUILD_TARGET={}", std::env::var("TARGET").unwrap());
    println!("cargo:rustc-env=WSP_BUILD_HOST={}", std::env::var("HOST").unwrap());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=releases.txt");
}
