//! `#[named]`: puts `const FN: &str = "<the function's name>";` at the top of a function's body.
//!
//! Every export of wsp-ggml-backend names itself in its messages ("wsp_ggml_backend_free:
//! backend is NULL"); with the attribute the name is written once, in the signature, where
//! cbindgen also reads it. Token handling only (no syn): the name is the identifier after `fn`,
//! the body the last brace group.

use proc_macro::{Delimiter, Group, TokenStream, TokenTree};

#[proc_macro_attribute]
pub fn named(attr: TokenStream, item: TokenStream) -> TokenStream {
    assert!(attr.is_empty(), "#[named] takes no arguments");
    let mut tokens: Vec<TokenTree> = item.into_iter().collect();
    let name = tokens
        .windows(2)
        .find_map(|pair| match pair {
            [TokenTree::Ident(keyword), TokenTree::Ident(name)] if keyword.to_string() == "fn" => {
                Some(name.to_string())
            }
            _ => None,
        })
        .expect("#[named] goes on a function");
    let Some(TokenTree::Group(body)) = tokens.last_mut() else {
        panic!("#[named] needs a function with a body");
    };
    assert!(body.delimiter() == Delimiter::Brace, "#[named] needs a function with a body");
    // Unused where the function has no message to give.
    let mut stream: TokenStream =
        format!("#[allow(dead_code)] const FN: &str = {name:?};").parse().expect("a constant item parses");
    stream.extend(body.stream());
    let mut named_body = Group::new(Delimiter::Brace, stream);
    named_body.set_span(body.span());
    *body = named_body;
    tokens.into_iter().collect()
}
