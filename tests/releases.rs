//! Which published whisper.rn releases the library's header serves. For every stable release on
//! npm with this backend layer, fetched (scripts/fetch/fetch-reference.sh, checked against npm's
//! integrity), the header compiled as each family of the release table (releases.txt) builds it
//! (the macros WSP_GGML_BACKEND_<CAPABILITY> of the family's capabilities) is compared with the
//! release's own ggml-backend.h and ggml-backend-impl.h:
//!
//! - the functions declared: the same names;
//! - their types, as a C++ compiler sees them after typedefs (ctests/abi/abi_prototypes.cpp);
//! - every struct size, alignment and field offset, enum value and constant
//!   (ctests/abi/abi_layout.c).
//!
//! A release must agree on all three with the family that serves it, and disagree somewhere with
//! every other family, which shows the comparison tells families apart; a release no family
//! serves disagrees with all.
//!
//! Only the host compilers are used and nothing is linked, so this runs in every build.

mod table;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use table::{root, table};

/// The one program ctests/programs.txt judges so.
fn program_judged(judged: &str) -> PathBuf {
    let list = std::fs::read_to_string(root().join("ctests/programs.txt")).expect("read ctests/programs.txt");
    let found: Vec<PathBuf> = list
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.get(2) == Some(&judged)).then(|| root().join("ctests").join(fields[0]))
        })
        .collect();
    assert_eq!(found.len(), 1, "ctests/programs.txt should list one program judged {judged}");
    found[0].clone()
}

/// The first line where two outputs differ.
fn first_difference(release: &str, header: &str) -> Option<String> {
    let (a, b): (Vec<&str>, Vec<&str>) = (release.lines().collect(), header.lines().collect());
    (0..a.len().max(b.len()))
        .find(|&i| a.get(i) != b.get(i))
        .map(|i| format!("line {}: the release {:?}, the header {:?}", i + 1, a.get(i), b.get(i)))
}

/// Every stable whisper.rn release on npm with this backend layer.
const NPM_RELEASES: &[&str] = &["0.4.3", "0.5.1", "0.5.2", "0.5.3", "0.5.4", "0.5.5", "0.6.0", "0.7.3", "0.7.4"];

/// A family of the release table, by the macros its build compiles the header with.
struct Build {
    name: String,
    releases: Vec<String>,
    macros: Vec<String>,
}

/// whisper.rn's families (llama.rn's are compared with their releases by the layout check and
/// the exported functions only, scripts/test.sh --all, until the C programs here build against
/// its headers), each known by its newest release.
fn builds() -> Vec<Build> {
    table(&["newest"])
        .lines()
        .map(|newest| Build {
            name: table(&["family", newest]),
            releases: table(&["fact", newest, "releases"]).split_whitespace().map(str::to_owned).collect(),
            macros: table(&["fact", newest, "capabilities"])
                .split_whitespace()
                .map(|c| format!("WSP_GGML_BACKEND_{}", c.to_uppercase()))
                .collect(),
        })
        .collect()
}

/// The one known difference: the 0.4 build declares whisper.rn 0.4.0's five-argument
/// compare_graph_backend (the spec); 0.4.3 added a trailing `test_node`, which the library
/// ignores (a sixth argument is harmless in the C calling convention).
const KNOWN_0_4_3: &str = "wsp_ggml_backend_compare_graph_backend";

/// The release's cpp/ folder, fetched on first use.
fn release_dir(release: &str) -> PathBuf {
    let status = Command::new("bash")
        .arg(root().join("scripts/fetch/fetch-reference.sh"))
        .arg(release)
        .status()
        .expect("run scripts/fetch/fetch-reference.sh");
    assert!(status.success(), "fetching whisper.rn {release} failed (npm must be reachable)");
    let folder = if release == "0.4.3" { "whisper.rn".to_owned() } else { format!("whisper.rn-{release}") };
    root().join("third_party").join(folder).join("cpp")
}

fn out_dir(release: &str, build: &Build) -> PathBuf {
    let dir = root().join("target/releases").join(format!("{release}-build-{}", build.name));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The command's stdout, or why it failed (a header that does not compile is a difference too).
fn checked_output(mut cmd: Command, what: &str) -> Result<String, String> {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!("{what} failed: {}", stderr.lines().find(|l| l.contains("error")).unwrap_or(&stderr)));
    }
    Ok(String::from_utf8(out.stdout).unwrap())
}

/// The `wsp_ggml_backend_*` functions a preprocessed header declares: names followed by a
/// parenthesis, without the handle typedefs (`..._t`, met in function-pointer parameters), struct
/// and enum tags (met as function-pointer return types) and the module entry points
/// `wsp_ggml_backend_init`/`_score`, which a backend module defines, not the backend layer.
fn declared_functions(preprocessed: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (i, _) in preprocessed.match_indices("wsp_ggml_backend_") {
        let rest = &preprocessed[i..];
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let (name, after) = rest.split_at(end);
        let tag = ["struct ", "enum "].iter().any(|t| preprocessed[..i].ends_with(t));
        if after.trim_start().starts_with('(')
            && !tag
            && !name.ends_with("_t")
            && name != "wsp_ggml_backend_init"
            && name != "wsp_ggml_backend_score"
        {
            names.insert(name.to_owned());
        }
    }
    names
}

/// What one side (the release's headers, or the library's header as `build` compiles it) says.
struct View {
    functions: BTreeSet<String>,
    prototypes: String,
    layout: String,
}

fn view(release: &str, cpp: &Path, build: &Build, library_header: bool) -> Result<View, String> {
    let dir = out_dir(release, build);
    let side = if library_header { "library" } else { "release" };
    let mut defines: Vec<String> = build.macros.iter().map(|m| format!("-D{m}")).collect();
    if library_header {
        defines.push("-DABI_USE_LIBRARY_HEADER".into());
    }
    let includes = [format!("-I{}", root().join("include").display()), format!("-I{}", cpp.display())];
    let header = if library_header {
        root().join("include/wsp_ggml_backend.h")
    } else {
        let both = dir.join("release_headers.h");
        std::fs::write(&both, "#include \"ggml-backend.h\"\n#include \"ggml-backend-impl.h\"\n").unwrap();
        both
    };

    let mut cpp_cmd = Command::new("cpp");
    cpp_cmd.args(["-P"]).args(&defines).args(&includes).arg(&header);
    let functions = declared_functions(&checked_output(cpp_cmd, "preprocessing the headers")?);

    let list = dir.join(format!("functions-{side}.inc"));
    std::fs::write(&list, functions.iter().map(|f| format!("F({f})\n")).collect::<String>()).unwrap();
    let prototypes_exe = dir.join(format!("abi_prototypes-{side}"));
    let mut cxx = Command::new("c++");
    cxx.args(["-std=c++17", "-Wall", "-Werror"])
        .arg(format!("-DABI_FUNCTIONS=\"{}\"", list.display()))
        .args(&defines)
        .args(&includes)
        .arg(program_judged("prototypes"))
        .arg("-o")
        .arg(&prototypes_exe);
    checked_output(cxx, "building abi_prototypes")?;
    let prototypes = checked_output(Command::new(&prototypes_exe), "running abi_prototypes")?;

    let layout_exe = dir.join(format!("abi_layout-{side}"));
    let mut cc = Command::new("cc");
    // -O1 drops the unused static helpers of ggml-impl.h, which would need ggml core to link.
    cc.args(["-std=c11", "-O1", "-Wall", "-Werror"])
        .args(&defines)
        .args(&includes)
        .arg(program_judged("header"))
        .arg("-o")
        .arg(&layout_exe);
    checked_output(cc, "building abi_layout")?;
    let layout = checked_output(Command::new(&layout_exe), "running abi_layout")?;
    Ok(View { functions, prototypes, layout })
}

/// The differences between the release's view and the library header's, one line each.
fn differences(release: &str, build: &Build) -> Vec<String> {
    let cpp = release_dir(release);
    let (theirs, ours) = match (view(release, &cpp, build, false), view(release, &cpp, build, true)) {
        (Ok(theirs), Ok(ours)) => (theirs, ours),
        (Err(why), _) => return vec![format!("whisper.rn {release}'s headers: {why}")],
        (_, Err(why)) => return vec![format!("the header with whisper.rn {release}: {why}")],
    };
    let mut found = Vec::new();
    for f in theirs.functions.difference(&ours.functions) {
        found.push(format!("{f}: declared by whisper.rn {release}, not by the header"));
    }
    for f in ours.functions.difference(&theirs.functions) {
        found.push(format!("{f}: declared by the header, not by whisper.rn {release}"));
    }
    let their_types: BTreeSet<&str> = theirs.prototypes.lines().collect();
    for line in ours.prototypes.lines().filter(|l| !their_types.contains(l)) {
        found.push(format!("type differs: {line}"));
    }
    if let Some(diff) = first_difference(&theirs.layout, &ours.layout) {
        found.push(format!("layout: {diff}"));
    }
    found.extend(op_differences(&theirs.layout, build));
    found
}

/// The op numbers the family's build uses for the ops the layer tells apart (ggml.h's, which
/// both sides include, cannot differ between them): 0.4's, one higher for each of ADD_ID
/// (op_add_id) and CUMSUM (op_cumsum) that ggml.h inserts before them, as src/abi/ggml.rs
/// counts them; with the meta backend also FLASH_ATTN_EXT, 0.6's, one higher for COL2IM_1D
/// (op_col2im_1d).
fn op_differences(release_layout: &str, build: &Build) -> Vec<String> {
    let has = |capability: &str| build.macros.iter().any(|m| m.ends_with(capability));
    let shift = ["OP_ADD_ID", "OP_CUMSUM"].iter().filter(|c| has(c)).count();
    let mut expected =
        vec![("WSP_GGML_OP_RESHAPE", 34 + shift), ("WSP_GGML_OP_VIEW", 35 + shift), ("WSP_GGML_OP_ROPE", 46 + shift)];
    if has("_META") {
        expected.push(("WSP_GGML_OP_FLASH_ATTN_EXT", 73 + usize::from(has("OP_COL2IM_1D"))));
    }
    expected
        .iter()
        .filter_map(|&(op, number)| {
            let line = format!("enum {op} {number}");
            (!release_layout.lines().any(|l| l == line)).then(|| format!("op number: the build has {line}"))
        })
        .collect()
}

/// Whether the differences are none, or only the one known for 0.4.3.
fn agrees(release: &str, found: &[String]) -> bool {
    found.is_empty()
        || (release == "0.4.3" && found.len() == 1 && found[0].starts_with(&format!("type differs: {KNOWN_0_4_3} ")))
}

#[test]
fn every_npm_release_agrees_with_the_family_that_serves_it_and_no_other() {
    let builds = builds();
    let mut failures = Vec::new();
    for &release in NPM_RELEASES {
        let server = builds.iter().find(|b| b.releases.iter().any(|r| r == release));
        for build in &builds {
            let found = differences(release, build);
            let serves = server.is_some_and(|s| s.name == build.name);
            match (serves, agrees(release, &found)) {
                (true, true) => println!("{release}: served by family {}", build.name),
                (false, false) => {
                    println!("{release}, family {}: {} differences, first: {}", build.name, found.len(), found[0])
                }
                (true, false) => {
                    failures.push(format!("{release} is served by family {}, but: {found:#?}", build.name))
                }
                (false, true) => {
                    failures.push(format!("{release} agrees with family {}, which does not serve it", build.name))
                }
            }
        }
        if server.is_none() {
            println!("{release}: served by no family");
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
