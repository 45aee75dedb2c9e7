//! Dynamic backend loading (WSP_GGML_BACKEND_DL): backends built as shared libraries export
//! `wsp_ggml_backend_init` (and optionally `wsp_ggml_backend_score`); this module finds, scores,
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
use crate::ggml::{c_str_lossy, log_debug, log_error, log_info, log_warn};
use crate::registry::{reg_name_lossy, register_backend, registry, wait_for_backend_calls, RegHandle};
use crate::sync::{StaticMutex, StaticMutexGuard};
use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use std::ffi::{c_char, c_int, CStr, OsStr};
use std::io::ErrorKind;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// An open backend library; closing it (drop) unloads the code.
pub type Module = Library;

/// Backend names probed by `load_all`, in the reference's order.
const KNOWN_BACKENDS: [&str; 12] =
    ["blas", "cann", "cuda", "hip", "kompute", "metal", "rpc", "sycl", "vulkan", "opencl", "musa", "cpu"];

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
            Rejection::Unsupported => write!(f, "is not supported on this system (wsp_ggml_backend_score returned 0)"),
            Rejection::NoInit => write!(f, "does not export wsp_ggml_backend_init"),
            Rejection::InitReturnedNull => write!(f, "failed to initialize: wsp_ggml_backend_init returned NULL"),
            Rejection::ApiVersion(v) => write!(
                f,
                "has an incompatible API version (backend: {v}, current: {WSP_GGML_BACKEND_API_VERSION})"
            ),
        }
    }
}

fn open(path: &Path) -> Result<Library, Rejection> {
    // SAFETY: opening a library runs its initialisers; loading backends is what the caller asked for.
    unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.map_err(|e| Rejection::Open(e.to_string()))
}

/// The module's `wsp_ggml_backend_score`, if it has one.
fn score_of(module: &Library) -> Option<c_int> {
    // SAFETY: the symbol, when present, has the wsp_ggml_backend_score_t signature by contract.
    unsafe {
        let score = module.get::<unsafe extern "C" fn() -> c_int>(b"wsp_ggml_backend_score\0").ok()?;
        Some(score())
    }
}

/// Opens a module, checks it and registers its reg.
fn load_module(path: &Path) -> Result<RegHandle, Rejection> {
    let module = open(path)?;
    if score_of(&module) == Some(0) {
        return Err(Rejection::Unsupported);
    }
    // SAFETY: by contract wsp_ggml_backend_init has the wsp_ggml_backend_init_t signature.
    let reg = unsafe {
        let init = module
            .get::<unsafe extern "C" fn() -> wsp_ggml_backend_reg_t>(b"wsp_ggml_backend_init\0")
            .map_err(|_| Rejection::NoInit)?;
        init()
    };
    // SAFETY: a non-NULL reg returned by init is a live reg.
    let api_version = match unsafe { reg.as_ref() } {
        None => return Err(Rejection::InitReturnedNull),
        Some(r) => r.api_version,
    };
    if api_version != WSP_GGML_BACKEND_API_VERSION {
        return Err(Rejection::ApiVersion(api_version));
    }
    let reg = RegHandle(reg);
    // SAFETY: the reg is live while its module stays open, which registration guarantees.
    unsafe {
        let name = reg_name_lossy(reg);
        if register_backend(reg, Some(module)) {
            log_info!("wsp_ggml_backend_load: loaded {name} backend from {}\n", path.display());
        } else {
            log_info!("wsp_ggml_backend_load: {name} backend from {} is already loaded\n", path.display());
        }
    }
    Ok(reg)
}

fn load_logged(path: &Path) -> wsp_ggml_backend_reg_t {
    match load_module(path) {
        Ok(reg) => reg.0,
        Err(why) => {
            log_error!("wsp_ggml_backend_load: {} {why}\n", path.display());
            std::ptr::null_mut()
        }
    }
}

/// Loads one backend module; NULL (with a log line saying why) when it is not accepted.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_load(path: *const c_char) -> wsp_ggml_backend_reg_t {
    const FN: &str = "wsp_ggml_backend_load";
    if path.is_null() {
        log_error!("{FN}: path is NULL\n");
        return std::ptr::null_mut();
    }
    let path = Path::new(OsStr::from_bytes(CStr::from_ptr(path).to_bytes()));
    let _serial = lock_loader();
    load_logged(path)
}

/// Unregisters a reg and its devices and closes its module when it has one. Unknown regs
/// (and NULL) are ignored, as in the reference.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_unload(reg: wsp_ggml_backend_reg_t) {
    const FN: &str = "wsp_ggml_backend_unload";
    let _serial = lock_loader();
    let removed = registry().remove_backend(RegHandle(reg));
    if let Some(entry) = removed {
        // Lookups on other threads may have listed the reg before it left the registry and be
        // calling into it now: wait for them, then close the module (on drop, outside the lock).
        wait_for_backend_calls();
        log_debug!("{FN}: unloaded a backend{}\n", if entry.module.is_some() { " and closed its module" } else { "" });
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
fn list_search_dir(path: PathBuf) -> SearchDir {
    const FN: &str = "wsp_ggml_backend_load_all_from_path";
    let files = match std::fs::read_dir(&path) {
        Ok(entries) => entries.flatten().map(|entry| entry.path()).collect(),
        Err(e) => {
            match std::fs::read_link(&path) {
                Ok(target) if e.kind() == ErrorKind::NotFound => {
                    log_warn!("{FN}: search path {} is a dangling symlink (to {})\n", path.display(), target.display())
                }
                _ if e.kind() == ErrorKind::NotFound => log_warn!("{FN}: search path {} does not exist\n", path.display()),
                _ => log_error!("{FN}: cannot read search path {}: {e}\n", path.display()),
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
        match open(&path) {
            Err(why) => log_error!("wsp_ggml_backend_load_best: {} {why}\n", path.display()),
            Ok(module) => match score_of(&module) {
                Some(score) => {
                    log_debug!("wsp_ggml_backend_load_best: {} score: {score}\n", path.display());
                    if score > 0 {
                        out.push((score, path));
                    } else {
                        log_info!("wsp_ggml_backend_load_best: {} {}\n", path.display(), Rejection::Unsupported);
                    }
                }
                None => log_info!("wsp_ggml_backend_load_best: {} does not export wsp_ggml_backend_score\n", path.display()),
            },
        }
    }
}

/// Loads the best variant of backend `name` found in the search paths, falling back to the
/// next best when one fails, and to the plain `libggml-NAME.so` when no variant is usable.
fn load_best(name: &str, search_dirs: &[SearchDir]) -> wsp_ggml_backend_reg_t {
    let mut candidates = Vec::new();
    for dir in search_dirs {
        scored_variants(dir, name, &mut candidates);
    }
    // Highest score first; equal scores keep discovery order.
    candidates.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
    for (_, path) in &candidates {
        let reg = load_logged(path);
        if !reg.is_null() {
            return reg;
        }
    }
    let base_name = format!("libggml-{name}.so");
    for dir in search_dirs {
        let path = dir.path.join(&base_name);
        if path.exists() {
            return load_logged(&path);
        }
    }
    std::ptr::null_mut()
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_load_all() {
    wsp_ggml_backend_load_all_from_path(std::ptr::null());
}

/// Loads the best module of every known backend from `dir_path` (or, for NULL, from the
/// executable's and the current directory), then the module named by WSP_GGML_BACKEND_PATH.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_load_all_from_path(dir_path: *const c_char) {
    const FN: &str = "wsp_ggml_backend_load_all_from_path";
    let search_paths = if dir_path.is_null() {
        default_search_paths()
    } else {
        vec![PathBuf::from(OsStr::from_bytes(CStr::from_ptr(dir_path).to_bytes()))]
    };
    {
        let _serial = lock_loader();
        let search_dirs: Vec<SearchDir> = search_paths.into_iter().map(list_search_dir).collect();
        for name in KNOWN_BACKENDS {
            load_best(name, &search_dirs);
        }
    }
    if let Some(extra) = std::env::var_os("WSP_GGML_BACKEND_PATH") {
        let extra = std::ffi::CString::new(extra.as_bytes()).unwrap_or_default();
        log_debug!("{FN}: WSP_GGML_BACKEND_PATH={}\n", c_str_lossy(extra.as_ptr()));
        wsp_ggml_backend_load(extra.as_ptr());
    }
}
