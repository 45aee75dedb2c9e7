//! An open backend module: a shared library built with GGML_BACKEND_DL, which exports
//! `ggml_backend_init` (and optionally `ggml_backend_score`). Dropping a module closes
//! the library. The registry keeps the modules of loaded regs; the loader opens them.

use crate::abi::*;
use crate::handle::Reg;
use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use std::ffi::c_int;
use std::path::Path;

pub struct Module(Library);

/// What a module's `ggml_backend_init` gave.
pub enum Init {
    Missing,
    Null,
    Reg(Reg),
}

impl Module {
    /// Opens a library; the error is the dynamic loader's message.
    pub fn open(path: &Path) -> Result<Module, String> {
        // SAFETY: opening a library runs its initialisers; loading backends is what the caller
        // asked for.
        unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.map(Module).map_err(|e| e.to_string())
    }

    /// The module's `ggml_backend_score`, if it has one.
    pub fn score(&self) -> Option<c_int> {
        // SAFETY: the symbol, when present, has the ggml_backend_score_t signature (the
        // module contract); the library stays open during the call.
        unsafe {
            let score =
                self.0.get::<unsafe extern "C" fn() -> c_int>(symbol!("ggml_backend_score\0").as_bytes()).ok()?;
            Some(score())
        }
    }

    /// Calls the module's `ggml_backend_init`. The reg it returns lives as long as the
    /// module stays open.
    pub fn init(&self) -> Init {
        // SAFETY: the symbol, when present, has the ggml_backend_init_t signature (the
        // module's contract with the loader).
        let reg = unsafe {
            match self.0.get::<unsafe extern "C" fn() -> ggml_backend_reg_t>(symbol!("ggml_backend_init\0").as_bytes())
            {
                Ok(init) => init(),
                Err(_) => return Init::Missing,
            }
        };
        // SAFETY: a module's init returns NULL or its live reg.
        match unsafe { Reg::from_raw(reg) } {
            Some(reg) => Init::Reg(reg),
            None => Init::Null,
        }
    }
}
