//! The one pattern by which everything Rust gives to C is named, in the binary and in its
//! messages. The sources name ggml's items without the package's prefix (`ggml_backend_free`);
//! these attributes add it, from `WSP_SYMBOL_PREFIX`, which build.rs takes from the release table
//! (`wsp_` for whisper.rn).
//!
//! - `#[named]` on an export (`#[no_mangle] #[named] pub unsafe extern "C" fn ggml_...`): the
//!   function is exported under the prefixed name instead of its Rust one (cbindgen reads the
//!   `#[no_mangle]` signature, and the header is prefixed after), and `const FN: &str` at the top
//!   of its body is that name ("wsp_ggml_backend_free: backend is NULL"), which `arg!` and the
//!   library's aborts use.
//! - `#[callback(EXPORT)]` on an interface entry that Rust implements (a CPU or meta buffer's,
//!   device's or backend's): `FN` names the export that reaches it and the callback itself,
//!   "EXPORT (module::path::callback)", so that a message tells the C caller which of its calls
//!   failed and the reader which code said so.
//! - `#[prefixed]` on an `extern "C"` block of ggml's functions: each is linked by its prefixed
//!   name.
//!
//! Token handling only (no syn): the name is the identifier after `fn`, the body the last brace
//! group.

use proc_macro::{Delimiter, Group, TokenStream, TokenTree};

/// `env!("WSP_SYMBOL_PREFIX")` followed by `name`, as a `concat!` expression's source.
fn prefixed_name(name: &str) -> String {
    format!("concat!(env!(\"WSP_SYMBOL_PREFIX\"), {name:?})")
}

#[proc_macro_attribute]
pub fn named(attr: TokenStream, item: TokenStream) -> TokenStream {
    assert!(attr.is_empty(), "#[named] takes no arguments");
    let name = function_name(&item, "#[named]");
    let exported = exported_under(item, &prefixed_name(&name));
    with_fn_const(exported, &prefixed_name(&name), "#[named]")
}

#[proc_macro_attribute]
pub fn callback(attr: TokenStream, item: TokenStream) -> TokenStream {
    let export = match attr.into_iter().collect::<Vec<_>>().as_slice() {
        [TokenTree::Ident(export)] => export.to_string(),
        _ => panic!("#[callback(EXPORT)] takes the name of the export that reaches the callback"),
    };
    let name = function_name(&item, "#[callback]");
    let value = format!(
        "concat!(env!(\"WSP_SYMBOL_PREFIX\"), {:?}, module_path!(), \"::\", {:?}, \")\")",
        format!("{export} ("),
        name
    );
    with_fn_const(item, &value, "#[callback]")
}

#[proc_macro_attribute]
pub fn prefixed(attr: TokenStream, item: TokenStream) -> TokenStream {
    assert!(attr.is_empty(), "#[prefixed] takes no arguments");
    let mut tokens: Vec<TokenTree> = item.into_iter().collect();
    let Some(TokenTree::Group(block)) = tokens.last_mut() else {
        panic!("#[prefixed] goes on an extern block");
    };
    assert!(block.delimiter() == Delimiter::Brace, "#[prefixed] goes on an extern block");
    let mut linked = TokenStream::new();
    let mut declaration: Vec<TokenTree> = Vec::new();
    for token in block.stream() {
        let ends = matches!(&token, TokenTree::Punct(p) if p.as_char() == ';');
        declaration.push(token);
        if ends {
            linked.extend(with_link_name(std::mem::take(&mut declaration)));
        }
    }
    linked.extend(declaration);
    let mut linked_block = Group::new(Delimiter::Brace, linked);
    linked_block.set_span(block.span());
    *block = linked_block;
    tokens.into_iter().collect()
}

/// A foreign function's declaration with `#[link_name = <prefixed name>]` before its visibility
/// (after its other attributes).
fn with_link_name(declaration: Vec<TokenTree>) -> Vec<TokenTree> {
    let name = function_name(&declaration.iter().cloned().collect(), "#[prefixed]");
    let at = declaration
        .iter()
        .position(
            |t| matches!(t, TokenTree::Ident(i) if matches!(i.to_string().as_str(), "pub" | "fn" | "unsafe" | "safe")),
        )
        .expect("a foreign function has `fn`");
    let attribute: TokenStream =
        format!("#[link_name = {}]", prefixed_name(&name)).parse().expect("an attribute parses");
    let mut out = declaration;
    out.splice(at..at, attribute);
    out
}

/// The item with its `#[no_mangle]` replaced by `#[export_name = <name>]`.
fn exported_under(item: TokenStream, name: &str) -> TokenStream {
    let tokens: Vec<TokenTree> = item.into_iter().collect();
    let at = tokens
        .windows(2)
        .position(|pair| match pair {
            [TokenTree::Punct(hash), TokenTree::Group(attr)] => {
                hash.as_char() == '#'
                    && attr.delimiter() == Delimiter::Bracket
                    && attr.stream().to_string() == "no_mangle"
            }
            _ => false,
        })
        .expect("#[named] goes on a #[no_mangle] export (the attribute before #[named])");
    let export: TokenStream = format!("export_name = {name}").parse().expect("an attribute parses");
    let mut out = tokens;
    out[at + 1] = TokenTree::Group(Group::new(Delimiter::Bracket, export));
    out.into_iter().collect()
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
