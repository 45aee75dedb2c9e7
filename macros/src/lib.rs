//! The one pattern by which everything Rust gives to C names itself in its messages: a
//! `const FN: &str` at the top of the function's body, which `arg!` and the library's aborts use.
//!
//! - `#[named]` on an export: `FN` is the function's own name ("wsp_ggml_backend_free: backend is
//!   NULL"), written once, in the signature, where cbindgen also reads it.
//! - `#[callback(EXPORT)]` on an interface entry that Rust implements (a CPU or meta buffer's,
//!   device's or backend's): `FN` names the export that reaches it and the callback itself,
//!   "EXPORT (module::path::callback)", so that a message tells the C caller which of its calls
//!   failed and the reader which code said so.
//!
//! Token handling only (no syn): the name is the identifier after `fn`, the body the last brace
//! group.

use proc_macro::{Delimiter, Group, TokenStream, TokenTree};

#[proc_macro_attribute]
pub fn named(attr: TokenStream, item: TokenStream) -> TokenStream {
    assert!(attr.is_empty(), "#[named] takes no arguments");
    let name = function_name(&item, "#[named]");
    with_fn_const(item, &format!("{name:?}"), "#[named]")
}

#[proc_macro_attribute]
pub fn callback(attr: TokenStream, item: TokenStream) -> TokenStream {
    let export = match attr.into_iter().collect::<Vec<_>>().as_slice() {
        [TokenTree::Ident(export)] => export.to_string(),
        _ => panic!("#[callback(EXPORT)] takes the name of the export that reaches the callback"),
    };
    let name = function_name(&item, "#[callback]");
    let value = format!("concat!({:?}, module_path!(), \"::\", {:?}, \")\")", format!("{export} ("), name);
    with_fn_const(item, &value, "#[callback]")
}

/// The identifier after `fn`.
fn function_name(item: &TokenStream, attribute: &str) -> String {
    let tokens: Vec<TokenTree> = item.clone().into_iter().collect();
    tokens
        .windows(2)
        .find_map(|pair| match pair {
            [TokenTree::Ident(keyword), TokenTree::Ident(name)] if keyword.to_string() == "fn" => {
                Some(name.to_string())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("{attribute} goes on a function"))
}

/// The function with `const FN: &str = <value>;` put at the top of its body.
fn with_fn_const(item: TokenStream, value: &str, attribute: &str) -> TokenStream {
    let mut tokens: Vec<TokenTree> = item.into_iter().collect();
    let Some(TokenTree::Group(body)) = tokens.last_mut() else {
        panic!("{attribute} needs a function with a body");
    };
    assert!(body.delimiter() == Delimiter::Brace, "{attribute} needs a function with a body");
    // Unused where the function has no message to give.
    let mut stream: TokenStream =
        format!("#[allow(dead_code)] const FN: &str = {value};").parse().expect("a constant item parses");
    stream.extend(body.stream());
    let mut named_body = Group::new(Delimiter::Brace, stream);
    named_body.set_span(body.span());
    *body = named_body;
    tokens.into_iter().collect()
}
