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
use crate::base::os::{self, ListError};
use crate::base::report::{log_debug, log_error, log_info, log_warn};
use crate::base::sync::{StaticMutex, StaticMutexGuard};
use crate::base::text::Lossy;
use crate::handle::Reg;
use crate::registry::module::{Init, Module};
use crate::registry::{self, Unloaded};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::ffi::c_int;

/// A path for messages.
fn display(path: &[u8]) -> Lossy<'_> {
    Lossy(path)
}

/// Backend names probed by `load_all`, in the reference's order (the release table's `load_all`).
fn known_backends() -> impl Iterator<Item = &'static str> {
    env!("WSP_LOAD_ALL").split_ascii_whitespace()
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

impl core::fmt::Display for Rejection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
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
fn load_module(path: &[u8]) -> Result<Reg, Rejection> {
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
        log_info!("{PREFIX}ggml_backend_load: loaded {name} backend from {}\n", display(path));
    } else {
        log_info!("{PREFIX}ggml_backend_load: {name} backend from {} is already loaded\n", display(path));
    }
    Ok(reg)
}

fn load_logged(path: &[u8]) -> Option<Reg> {
    match load_module(path) {
        Ok(reg) => Some(reg),
        Err(why) => {
            log_error!("{PREFIX}ggml_backend_load: {} {why}\n", display(path));
            None
        }
    }
}

/// Loads one backend module; None (with a log line saying why) when it is not accepted.
pub fn load(path: &[u8]) -> Option<Reg> {
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
fn default_search_paths() -> Vec<Vec<u8>> {
    os::executable_dir().into_iter().chain(os::current_dir()).collect()
}

/// A search directory and its files, listed once per `load_all_from_path` call, so that a
/// missing or unreadable directory is reported once rather than once per backend name.
struct SearchDir {
    path: Vec<u8>,
    files: Vec<Vec<u8>>,
}

/// Lists a search directory. A directory that cannot be listed is logged with the cause and
/// searched as if empty (the reference lets std::filesystem throw, which aborts the process).
fn list_search_dir(caller: &str, path: Vec<u8>) -> SearchDir {
    let files = match os::list_dir(&path) {
        Ok(files) => files,
        Err(ListError::NotFound { dangling_to: Some(target) }) => {
            log_warn!("{caller}: search path {} is a dangling symlink (to {})\n", display(&path), display(&target));
            Vec::new()
        }
        Err(ListError::NotFound { dangling_to: None }) => {
            log_warn!("{caller}: search path {} does not exist\n", display(&path));
            Vec::new()
        }
        Err(ListError::Other(e)) => {
            log_error!("{caller}: cannot read search path {}: {e}\n", display(&path));
            Vec::new()
        }
    };
    SearchDir { path, files }
}

/// The variant modules `libggml-NAME-*.so` in `dir`, with their scores; files that cannot be
/// opened are logged and skipped.
fn scored_variants(dir: &SearchDir, name: &str, out: &mut Vec<(c_int, Vec<u8>)>) {
    let prefix = format!("libggml-{name}-");
    for path in &dir.files {
        let matches = os::file_name(path).starts_with(prefix.as_bytes()) && path.ends_with(b".so") && os::is_file(path);
        if !matches {
            continue;
        }
        match Module::open(path) {
            Err(why) => log_error!("{PREFIX}ggml_backend_load_best: {} {}\n", display(path), Rejection::Open(why)),
            Ok(module) => match module.score() {
                Some(score) => {
                    log_debug!("{PREFIX}ggml_backend_load_best: {} score: {score}\n", display(path));
                    if score > 0 {
                        out.push((score, path.clone()));
                    } else {
                        log_info!("{PREFIX}ggml_backend_load_best: {} {}\n", display(path), Rejection::Unsupported);
                    }
                }
                None => {
                    log_info!(
                        "{PREFIX}ggml_backend_load_best: {} does not export {PREFIX}ggml_backend_score\n",
                        display(path)
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
    // Highest score first; equal scores in discovery order (the first of the highest is taken
    // each time: a directory holds a handful of variants, and a sort would cost more code).
    while let Some(best) = (0..candidates.len()).rev().max_by_key(|&i| candidates[i].0) {
        let (_, path) = candidates.remove(best);
        if let Some(reg) = load_logged(&path) {
            return Some(reg);
        }
    }
    let base_name = format!("libggml-{name}.so");
    for dir in search_dirs {
        let path = os::join(&dir.path, base_name.as_bytes());
        if os::exists(&path) {
            return load_logged(&path);
        }
    }
    None
}

/// Loads the best module of every known backend from `dir` (or, for None, from the
/// executable's and the current directory), then the module named by GGML_BACKEND_PATH.
pub fn load_all_from_path(caller: &str, dir: Option<&[u8]>) {
    let search_paths = match dir {
        Some(dir) => vec![dir.to_vec()],
        None => default_search_paths(),
    };
    {
        let _serial = lock_loader();
        let search_dirs: Vec<SearchDir> = search_paths.into_iter().map(|p| list_search_dir(caller, p)).collect();
        for name in known_backends() {
            load_best(name, &search_dirs);
        }
    }
    if let Some(extra) = os::env(env_var!("GGML_BACKEND_PATH")) {
        log_debug!("{caller}: {MACRO_PREFIX}GGML_BACKEND_PATH={}\n", display(&extra));
        load(&extra);
    }
}
