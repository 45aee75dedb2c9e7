//! Reads the release table (`releases.txt`). The family the build serves is the one whose cargo
//! feature is on (none: the default family); its capabilities become cfgs that the sources
//! test (`#[cfg(tensor_2d)]`), never release numbers, and its other facts environment variables
//! for `env!`. A built-in backend (src/registry/builtin.rs) that the family's registry does not know is
//! refused. Also gives the shared library its soname.

use std::collections::{BTreeMap, BTreeSet};

/// One family's facts: key -> values, in the table's order (a key may span several lines).
type Family<'a> = BTreeMap<&'a str, Vec<&'a str>>;

fn families(table: &str) -> BTreeMap<&str, Family<'_>> {
    let mut families: BTreeMap<&str, Family> = BTreeMap::new();
    for line in table.lines().filter(|line| !line.trim().is_empty() && !line.starts_with('#')) {
        let mut words = line.split_whitespace();
        let (Some(family), Some(key)) = (words.next(), words.next()) else {
            panic!("releases.txt: '<family> <key> <values...>' expected, found '{line}'");
        };
        let values = families.entry(family).or_default().entry(key).or_default();
        values.extend(words.filter(|&word| word != "-"));
    }
    families
}

/// A family's values for `key` (none when it has no such line).
fn facts<'a>(family: &Family<'a>, key: &str) -> Vec<&'a str> {
    family.get(key).cloned().unwrap_or_default()
}

fn feature_enabled(feature: &str) -> bool {
    let variable = format!("CARGO_FEATURE_{}", feature.to_uppercase().replace('-', "_"));
    std::env::var_os(variable).is_some()
}

fn main() {
    let table = std::fs::read_to_string("releases.txt").expect("releases.txt");
    let families = families(&table);

    let chosen: Vec<(&str, &Family)> = families
        .iter()
        .filter(|(_, family)| facts(family, "feature").iter().any(|feature| feature_enabled(feature)))
        .map(|(name, family)| (*name, family))
        .collect();
    let (name, family) = match chosen.as_slice() {
        [] => families
            .iter()
            .find(|(_, family)| family.contains_key("releases") && facts(family, "feature").is_empty())
            .map(|(name, family)| (*name, family))
            .expect("releases.txt: one family has no feature"),
        [one] => *one,
        more => panic!(
            "one family per build: the features of {} are all on",
            more.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ")
        ),
    };

    let every = |key: &str| -> BTreeSet<&str> { families.values().flat_map(|family| facts(family, key)).collect() };
    for capability in every("capabilities") {
        println!("cargo::rustc-check-cfg=cfg({capability})");
    }
    let capabilities = facts(family, "capabilities");
    for capability in &capabilities {
        println!("cargo::rustc-cfg={capability}");
    }

    let builtins = facts(family, "builtins");
    let refused: Vec<&str> =
        every("builtins").into_iter().filter(|b| !builtins.contains(b) && feature_enabled(b)).collect();
    if !refused.is_empty() {
        panic!(
            "{} {}'s registry has no built-in backend {} (it knows: {})",
            facts(family, "package").join(""),
            facts(family, "releases").join("/"),
            refused.join(", "),
            builtins.join(", ")
        );
    }

    // The prefix of ggml's names (src/abi/prefix.rs): symbols and types in lower case, macros
    // and environment variables in upper case; empty ("-") for upstream's own names. The
    // family's own where it has one, else its package's.
    let package = facts(family, "package").join("");
    let prefix = [Some(family), families.get(package.as_str())]
        .into_iter()
        .flatten()
        .find(|subject| subject.contains_key("prefix"))
        .map(|subject| facts(subject, "prefix").join(""))
        .unwrap_or_else(|| panic!("releases.txt: family {name} serves package '{package}', which has no prefix line"));
    println!("cargo:rustc-env=WSP_SYMBOL_PREFIX={prefix}");
    println!("cargo:rustc-env=WSP_MACRO_PREFIX={}", prefix.to_uppercase());

    // The names load_all looks for.
    println!("cargo:rustc-env=WSP_LOAD_ALL={}", facts(family, "load_all").join(" "));

    // Give the shared library a proper soname so that programs record
    // libwsp_ggml_backend.so.0 and a later compatible release can replace it (Android's loader
    // reads DT_SONAME as well).
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap();
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap();
    if target_os == "linux" || target_os == "android" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libwsp_ggml_backend.so.{major}");
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=releases.txt");
}
