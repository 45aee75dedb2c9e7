//! The backends compiled into the application: with a cargo feature per backend (named after
//! whisper.rn's `GGML_USE_<NAME>` macro in lower case), the registry registers that
//! backend's `ggml_backend_<name>_reg()` at start-up, as the reference's registry does when
//! built with the macro. Each reference is a strong one: a static link pulls the backend's
//! objects in, and a program that lacks them fails to link, naming the function.
//!
//! `build.rs` refuses a feature that the chosen release's registry does not know.

use crate::abi::ggml_backend_reg_t;
use alloc::borrow::ToOwned;
use alloc::string::String;

/// One built-in backend: its name (the cargo feature), its reg function, and the environment
/// variable that keeps it out of the registry where the release has one.
pub struct Builtin {
    pub name: &'static str,
    pub reg: unsafe extern "C" fn() -> ggml_backend_reg_t,
    pub disabled_by: Option<&'static core::ffi::CStr>,
}

impl Builtin {
    /// Whether the environment keeps this backend out of the registry.
    pub fn is_disabled(&self) -> bool {
        self.disabled_by.is_some_and(|variable| crate::base::os::env(variable).is_some())
    }

    /// The name with a capital, as the reference's log lines spell it ("Vulkan").
    pub fn display_name(&self) -> String {
        let mut name = self.name.to_owned();
        if let Some(first) = name.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        name
    }
}

/// `builtins!(feature symbol [disabled_by VARIABLE], ...)`: the declarations of the enabled
/// backends' reg functions and [`BUILTINS`], in the order given.
macro_rules! builtins {
    (@switch $variable:literal) => { if cfg!(vulkan_env_switch) { Some($crate::abi::env_var!($variable)) } else { None } };
    (@switch) => { None };
    ($($feature:literal $symbol:ident $(disabled_by $variable:literal)?),* $(,)?) => {
        $(
            #[cfg(feature = $feature)]
            #[::wsp_ggml_backend_macros::prefixed]
            extern "C" {
                fn $symbol() -> ggml_backend_reg_t;
            }
        )*
        /// The enabled built-in backends, in registration order.
        pub const BUILTINS: &[Builtin] = &[$(
            #[cfg(feature = $feature)]
            Builtin { name: $feature, reg: $symbol, disabled_by: builtins!(@switch $($variable)?) },
        )*];
    };
}

// One order serves every release: each release's registry registers the backends it knows in
// this order (0.4 has KOMPUTE after RPC; 0.7 has VIRTGPU after ZDNN, OPENVINO and ET after RPC),
// the CPU always last.
builtins!(
    "cuda" ggml_backend_cuda_reg,
    "metal" ggml_backend_metal_reg,
    "sycl" ggml_backend_sycl_reg,
    "vulkan" ggml_backend_vk_reg disabled_by "GGML_DISABLE_VULKAN",
    "webgpu" ggml_backend_webgpu_reg,
    "zdnn" ggml_backend_zdnn_reg,
    "virtgpu_frontend" ggml_backend_virtgpu_reg,
    "opencl" ggml_backend_opencl_reg,
    "zendnn" ggml_backend_zendnn_reg,
    "hexagon" ggml_backend_hexagon_reg,
    "cann" ggml_backend_cann_reg,
    "blas" ggml_backend_blas_reg,
    "rpc" ggml_backend_rpc_reg,
    "kompute" ggml_backend_kompute_reg,
    "openvino" ggml_backend_openvino_reg,
    "et" ggml_backend_et_reg,
    "cpu" ggml_backend_cpu_reg,
);
