//! The release table as the tests read it: through scripts/release/release-table.sh, its reader
//! for scripts and tests (releases.txt names its readers).

use std::path::Path;
use std::process::Command;

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// An answer of scripts/release/release-table.sh.
pub fn table(query: &[&str]) -> String {
    let out = Command::new("bash")
        .arg(root().join("scripts/release/release-table.sh"))
        .args(query)
        .output()
        .expect("run scripts/release/release-table.sh");
    assert!(out.status.success(), "release-table.sh {query:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("the table is text").trim().to_owned()
}
