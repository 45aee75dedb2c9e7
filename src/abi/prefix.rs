//! The prefix the package's C++ gives every ggml name, a fact of the release table
//! (`releases.txt`: a family serves a package, the package has a prefix; build.rs passes it on).
//! whisper.rn's is `wsp_`: its ggml exports `wsp_ggml_backend_free` and reads
//! `WSP_GGML_SCHED_DEBUG`. The Rust sources name ggml's items without it (`ggml_backend_free`);
//! the exports and imports get it from `#[named]` and `#[prefixed]`, strings from here.

/// The prefix of symbols and types (`wsp_`).
pub const PREFIX: &str = env!("WSP_SYMBOL_PREFIX");
/// The prefix of macros and environment variables (`WSP_`).
pub const MACRO_PREFIX: &str = env!("WSP_MACRO_PREFIX");

/// `symbol!("ggml_backend_init")`: the package's name of a ggml symbol, as a literal (also a
/// format string).
macro_rules! symbol {
    ($name:literal) => {
        concat!(env!("WSP_SYMBOL_PREFIX"), $name)
    };
}

/// `symbol_c!("ggml_backend_init")`: the same as a C string, for symbol lookups.
macro_rules! symbol_c {
    ($name:literal) => {
        const {
            match ::core::ffi::CStr::from_bytes_with_nul(concat!(env!("WSP_SYMBOL_PREFIX"), $name, "\0").as_bytes()) {
                Ok(name) => name,
                Err(_) => panic!("a symbol name has no NUL inside"),
            }
        }
    };
}

/// `env_var!("GGML_SCHED_DEBUG")`: the package's name of an environment variable ggml reads, as
/// a C string (`crate::base::os::env` reads it; `.to_str()` gives it for messages).
macro_rules! env_var {
    ($name:literal) => {
        const {
            match ::core::ffi::CStr::from_bytes_with_nul(concat!(env!("WSP_MACRO_PREFIX"), $name, "\0").as_bytes()) {
                Ok(name) => name,
                Err(_) => panic!("a variable name has no NUL inside"),
            }
        }
    };
}

pub(crate) use {env_var, symbol, symbol_c};
