// Give the shared library a proper soname so that programs record
// libwsp_ggml_backend.so.0 and a later compatible release can replace it (Android's loader
// reads DT_SONAME as well).
fn main() {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap();
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap();
    if target_os == "linux" || target_os == "android" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libwsp_ggml_backend.so.{major}");
    }
    // The C conformance tests build C with the cc crate at run time: they need the target, and
    // the host to tell a cross build (cross compiler, emulator) from a native one.
    println!("cargo:rustc-env=WSP_BUILD_TARGET={}", std::env::var("TARGET").unwrap());
    println!("cargo:rustc-env=WSP_BUILD_HOST={}", std::env::var("HOST").unwrap());
    println!("cargo:rerun-if-changed=build.rs");
}
