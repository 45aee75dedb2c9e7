//! Dynamic backend loading (GGML_BACKEND_DL): backends built as shared libraries export
//! `ggml_backend_init` (and optionally `ggml_backend_score`); this module finds, scores,
//! opens and registers them.
//!
//! Differences from the reference, each a fix: every rejected file is logged with its cause
//! (including the dynamic loader's own message); a best-scored module that fails to load falls
//! back to the next best; filesystem errors (missing, dangling or unreadable search paths) are
//! logged and skipped instead of aborting, once per directory; loading a module that is already
//! registered returns its reg instead of registering it twice; load and unload are serialised,
//! the registry is locked, and a module is closed only once no lookup can still be running its
//! code, so they are safe from any thread.

use crate::abi::*;
use crate::base::report::{log_debug, log_error, log_info, log_warn};
use crate::base::sync::{StaticMutex, StaticMutexGuard};
use crate::handle::Reg;
use crate::registry::module::{Init, Module};
use crate::registry::{self, Unloaded};
use std::ffi::{c_int, OsStr};
use std::io::ErrorKind;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Backend names probed by `load_all`, in the reference's order (the release table's `load_all`).
fn known_backends() -> impl Iterator<Item = &'static str> {
    env!("WSP_LOAD_ALL").split(' ')
}

/// Serialises load and unload, so that two threads loading the same module register it once.
static LOADER: StaticMutex<()> = StaticMutex::new(());

fn lock_loader() -> StaticMutexGuard<()> {
    LOADER.lock()
}

/// Why a file was not accepted as a backend module.
#[derive(Debug)]
enum Rejection {
    Open(String),
    Unsupported,
    NoInit,
    InitReturnedNull,
    ApiVersion(c_int),
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejection::Open(why) => write!(f, "cannot be loaded: {why}"),
            Rejection::Unsupported => {
                write!(f, "is not supported on this system ({PREFIX}ggml_backend_score returned 0)")
            }
            Rejection::NoInit => write!(f, "does not export {PREFIX}ggml_backend_init"),
            Rejection::InitReturnedNull => write!(f, "failed to initialize: {PREFIX}ggml_backend_init returned NULL"),
            Rejection::ApiVersion(v) => {
                write!(f, "has an incompatible API version (backend: {v}, current: {GGML_BACKEND_API_VERSION})")
            }
        }
    }
}

/// Opens a module, checks it and registers its reg.
fn load_module(path: &Path) -> Result<Reg, Rejection> {
    let module = Module::open(path).map_err(Rejection::Open)?;
    if module.score() == Some(0) {
        return Err(Rejection::Unsupported);
    }
    let reg = match module.init() {
        Init::Missing => return Err(Rejection::NoInit),
        Init::Null => return Err(Rejection::InitReturnedNull),
        Init::Reg(reg) => reg,
    };
    if reg.api_version() != GGML_BACKEND_API_VERSION {
        return Err(Rejection::ApiVersion(reg.api_version()));
    }
    let name = reg.name_lossy(symbol!("ggml_backend_load"));
    if registry::register_loaded(reg, module) {
        log_info!("{PREFIX}ggml_backend_load: loaded {name} backend from {}\n", path.display());
    } else {
        log_info!("{PREFIX}ggml_backend_load: {name} backend from {} is already loaded\n", path.display());
    }
    Ok(reg)
}

fn load_logged(path: &Path) -> Option<Reg> {
    match load_module(path) {
        Ok(reg) => Some(reg),
        Err(why) => {
            log_error!("{PREFIX}ggml_backend_load: {} {why}\n", path.display());
            None
        }
    }
}

/// Loads one backend module; None (with a log line saying why) when it is not accepted.
pub fn load(path: &Path) -> Option<Reg> {
    let _serial = lock_loader();
    load_logged(path)
}

/// Unregisters a reg and its devices once, and closes its module when that was its last load.
/// Unknown regs are ignored, as in the reference.
pub fn unload(caller: &str, reg: Reg) {
    let _serial = lock_loader();
    match registry::unload(reg) {
        Unloaded::NotRegistered => {}
        Unloaded::StillLoaded(loads) => log_debug!("{caller}: the backend stays loaded ({loads} more loads)\n"),
        Unloaded::Removed => log_debug!("{caller}: unloaded a backend\n"),
    }
}

/// Directories searched when no path is given: the executable's directory, then the current one.
fn default_search_paths() -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(dir) = std::env::current_exe().ok().and_then(|exe| exe.parent().map(Path::to_path_buf)) {
        paths.push(dir);
    }
    if let Ok(cwd) = std::env::current_dir() {
        paths.push(cwd);
    }
    paths
}

/// A search directory and its files, listed once per `load_all_from_path` call, so that a
/// missing or unreadable directory is reported once rather than once per backend name.
struct SearchDir {
    path: PathBuf,
    files: Vec<PathBuf>,
}

/// Lists a search directory. A directory that cannot be listed is logged with the cause and
/// searched as if empty (the reference lets std::filesystem throw, which aborts the process).
fn list_search_dir(caller: &str, path: PathBuf) -> SearchDir {
    let files = match std::fs::read_dir(&path) {
        Ok(entries) => entries.flatten().map(|entry| entry.path()).collect(),
        Err(e) => {
            match std::fs::read_link(&path) {
                Ok(target) if e.kind() == ErrorKind::NotFound => {
                    log_warn!(
                        "{caller}: search path {} is a dangling symlink (to {})\n",
                        path.display(),
                        target.display()
                    )
                }
                _ if e.kind() == ErrorKind::NotFound => {
                    log_warn!("{caller}: search path {} does not exist\n", path.display())
                }
                _ => log_error!("{caller}: cannot read search path {}: {e}\n", path.display()),
            }
            Vec::new()
        }
    };
    SearchDir { path, files }
}

/// The variant modules `libggml-NAME-*.so` in `dir`, with their scores; files that cannot be
/// opened are logged and skipped.
fn scored_variants(dir: &SearchDir, name: &str, out: &mut Vec<(c_int, PathBuf)>) {
    let prefix = format!("libggml-{name}-");
    for path in &dir.files {
        let matches = path.file_name().is_some_and(|f| f.as_bytes().starts_with(prefix.as_bytes()))
            && path.extension() == Some(OsStr::new("so"))
            && std::fs::metadata(path).is_ok_and(|m| m.is_file());
        if !matches {
            continue;
        }
        let path = path.clone();
        match Module::open(&path) {
            Err(why) => log_error!("{PREFIX}ggml_backend_load_best: {} {}\n", path.display(), Rejection::Open(why)),
            Ok(module) => match module.score() {
                Some(score) => {
                    log_debug!("{PREFIX}ggml_backend_load_best: {} score: {score}\n", path.display());
                    if score > 0 {
                        out.push((score, path));
                    } else {
                        log_info!("{PREFIX}ggml_backend_load_best: {} {}\n", path.display(), Rejection::Unsupported);
                    }
                }
                None => {
                    log_info!(
                        "{PREFIX}ggml_backend_load_best: {} does not export {PREFIX}ggml_backend_score\n",
                        path.display()
                    )
                }
            },
        }
    }
}

/// Loads the best variant of backend `name` found in the search paths, falling back to the
/// next best when one fails, and to the plain `libggml-NAME.so` when no variant is usable.
fn load_best(name: &str, search_dirs: &[SearchDir]) -> Option<Reg> {
    let mut candidates = Vec::new();
    for dir in search_dirs {
        scored_variants(dir, name, &mut candidates);
    }
    // Highest score first; equal scores keep discovery order.
    candidates.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
    for (_, path) in &candidates {
        if let Some(reg) = load_logged(path) {
            return Some(reg);
        }
    }
    let base_name = format!("libggml-{name}.so");
    for dir in search_dirs {
        let path = dir.path.join(&base_name);
        if path.exists() {
            return load_logged(&path);
        }
    }
    None
}

/// Loads the best module of every known backend from `dir` (or, for None, from the
/// executable's and the current directory), then the module named by GGML_BACKEND_PATH.
pub fn load_all_from_path(caller: &str, dir: Option<&Path>) {
    let search_paths = match dir {
        Some(dir) => vec![dir.to_path_buf()],
        None => default_search_paths(),
    };
    {
        let _serial = lock_loader();
        let search_dirs: Vec<SearchDir> = search_paths.into_iter().map(|p| list_search_dir(caller, p)).collect();
        for name in known_backends() {
            load_best(name, &search_dirs);
        }
    }
    if let Some(extra) = std::env::var_os(env_var!("GGML_BACKEND_PATH")) {
        log_debug!("{caller}: {MACRO_PREFIX}GGML_BACKEND_PATH={}\n", Path::new(&extra).display());
        load(Path::new(&extra));
    }
}
