//! An open backend module: a shared library built with GGML_BACKEND_DL, which exports
//! `ggml_backend_init` (and optionally `ggml_backend_score`). Dropping a module closes
//! the library. The registry keeps the modules of loaded regs; the loader opens them.

use crate::abi::*;
use crate::base::os::Library;
use crate::handle::Reg;
use alloc::string::String;
use core::ffi::c_int;

pub struct Module(Library);

/// What a module's `ggml_backend_init` gave.
pub enum Init {
    Missing,
    Null,
    Reg(Reg),
}

impl Module {
    /// Opens a library; the error is the dynamic loader's message.
    pub fn open(path: &[u8]) -> Result<Module, String> {
        // SAFETY: opening a library runs its initialisers; loading backends is what the caller
        // asked for.
        unsafe { Library::open(path) }.map(Module)
    }

    /// The module's `ggml_backend_score`, if it has one.
    pub fn score(&self) -> Option<c_int> {
        let score = self.0.symbol(symbol_c!("ggml_backend_score"))?;
        // SAFETY: the symbol has the ggml_backend_score_t signature (the module contract); the
        // library stays open during the call.
        Some(unsafe { core::mem::transmute::<*mut core::ffi::c_void, unsafe extern "C" fn() -> c_int>(score)() })
    }

    /// Calls the module's `ggml_backend_init`. The reg it returns lives as long as the
    /// module stays open.
    pub fn init(&self) -> Init {
        let Some(init) = self.0.symbol(symbol_c!("ggml_backend_init")) else {
            return Init::Missing;
        };
        // SAFETY: the symbol has the ggml_backend_init_t signature (the module's contract with
        // the loader).
        let reg = unsafe {
            core::mem::transmute::<*mut core::ffi::c_void, unsafe extern "C" fn() -> ggml_backend_reg_t>(init)()
        };
        // SAFETY: a module's init returns NULL or its live reg.
        match unsafe { Reg::from_raw(reg) } {
            Some(reg) => Init::Reg(reg),
            None => Init::Null,
        }
    }
}
