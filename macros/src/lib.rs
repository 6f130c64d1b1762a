//! `#[native]`: the one way dist defines a function that Python code calls.
//!
//! ```ignore
//! /// The value of an environment variable, or `default`.
//! #[native("getenv(key, default=None)")]
//! fn getenv(vm: &dyn Vm, key: &str, default: Value) -> PyResult<Value> { ... }
//! ```
//!
//! The Python signature in the attribute is what users see (names, defaults,
//! `/`, `*`, the name error messages use); the Rust parameters say what each
//! argument converts to. The macro checks at compile time that the two agree
//! (same parameters, same names, in order), and generates, beside the
//! function, a module of the same name holding `DEF`: a
//! `crate::object::NativeDef` with the signature, the `///` doc (the text of
//! `help()` and `__doc__`) and a wrapper that binds nothing itself (the one
//! binder, `Signature::bind`, runs before it) but converts each bound
//! argument with `crate::object::FromArg` and the result with
//! `crate::object::IntoResult`. Registration takes `getenv::DEF`.
//!
//! A leading parameter of type `&dyn Vm` receives the interpreter and has no
//! Python counterpart. A Python `self` may be named `this` in Rust; leading
//! and trailing underscores are ignored when names are compared (`fn_` is
//! `fn`, `_unused` is `unused`).
//!
//! Options after the signature: `c` (a builtin CPython writes in C: its
//! argument-count errors), `c_ctor` (a builtin type's constructor).

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{FnArg, Ident, ItemFn, LitStr, Pat, Token, Type};

/// The attribute's arguments: the signature, then optional style flags.
struct Attr {
    sig: LitStr,
    style: Option<Ident>,
}

impl Parse for Attr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let sig: LitStr = input.parse()?;
        let mut style = None;
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            if !input.is_empty() {
                let id: Ident = input.parse()?;
                match id.to_string().as_str() {
                    "c" | "c_ctor" => style = Some(id),
                    other => {
                        return Err(syn::Error::new(
                            id.span(),
                            format!(
                                "unknown #[native] option `{other}` (expected `c` or `c_ctor`)"
                            ),
                        ))
                    }
                }
                if input.peek(Token![,]) {
                    input.parse::<Token![,]>()?;
                }
            }
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens in #[native(...)]"));
        }
        Ok(Attr { sig, style })
    }
}

/// One Python parameter as the signature string declares it.
struct PyParam {
    name: String,
}

/// Splits `name(params)` into the name and its parameters (markers `/` and
/// `*` dropped), as `Signature::parse` reads it at run time.
fn parse_sig(sig: &str) -> Result<(String, Vec<PyParam>), String> {
    let open = sig.find('(').ok_or("the signature has no '('")?;
    if !sig.ends_with(')') {
        return Err("the signature must end with ')'".into());
    }
    let name = sig[..open].trim().to_string();
    let inner = &sig[open + 1..sig.len() - 1];
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0usize);
    let mut escaped = false;
    for (i, ch) in inner.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == q {
                quote = None;
            }
            continue;
        }
        match ch {
            '\'' | '"' => quote = Some(ch),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    let mut params = Vec::new();
    for p in parts {
        let p = p.trim();
        if p.is_empty() || p == "/" || p == "*" {
            continue;
        }
        let p = p.trim_start_matches('*');
        let name = p.split('=').next().unwrap_or(p).trim();
        let name = name.split(':').next().unwrap_or(name).trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(format!("cannot read parameter `{p}`"));
        }
        params.push(PyParam {
            name: name.to_string(),
        });
    }
    Ok((name, params))
}

/// A name as compared between Python and Rust.
fn norm(name: &str) -> String {
    let n = name.strip_prefix("r#").unwrap_or(name);
    let n = n.trim_matches('_');
    match n {
        "this" => "self".to_string(),
        _ => n.to_string(),
    }
}

/// Whether a Rust parameter type is `&dyn Vm` (the interpreter).
fn is_vm(ty: &Type) -> bool {
    if let Type::Reference(r) = ty {
        if let Type::TraitObject(t) = &*r.elem {
            return t.bounds.iter().any(|b| match b {
                syn::TypeParamBound::Trait(tb) => {
                    tb.path.segments.last().is_some_and(|s| s.ident == "Vm")
                }
                _ => false,
            });
        }
    }
    false
}

/// The `///` text of the function: lines joined by spaces, a blank line a
/// line break (so a long paragraph can wrap in the source).
fn doc_text(f: &ItemFn) -> String {
    let mut lines = Vec::new();
    for a in &f.attrs {
        if !a.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &a.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                let v = s.value();
                lines.push(v.strip_prefix(' ').unwrap_or(&v).trim_end().to_string());
            }
        }
    }
    let mut out = String::new();
    let mut blank = false;
    for l in lines {
        if l.is_empty() {
            blank = true;
            continue;
        }
        if !out.is_empty() {
            out.push(if blank { '\n' } else { ' ' });
        }
        blank = false;
        out.push_str(&l);
    }
    out
}

mod codec;

/// `#[derive(Codec)]`: see `codec.rs`.
#[proc_macro_derive(Codec)]
pub fn derive_codec(item: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(item as syn::DeriveInput);
    match codec::expand(input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// See the crate documentation.
#[proc_macro_attribute]
pub fn native(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attr = syn::parse_macro_input!(attr as Attr);
    let func = syn::parse_macro_input!(item as ItemFn);
    match expand(attr, func) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(attr: Attr, func: ItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let sig_text = attr.sig.value();
    let (py_name, py_params) =
        parse_sig(&sig_text).map_err(|m| syn::Error::new(attr.sig.span(), m))?;
    let ident = &func.sig.ident;
    let vis = &func.vis;
    let mut rust: Vec<(&Ident, &Type)> = Vec::new();
    let mut takes_vm = false;
    for (i, a) in func.sig.inputs.iter().enumerate() {
        let FnArg::Typed(pt) = a else {
            return Err(syn::Error::new_spanned(
                a,
                "a #[native] function takes no `self`",
            ));
        };
        let Pat::Ident(pi) = &*pt.pat else {
            return Err(syn::Error::new_spanned(
                &pt.pat,
                "parameters must be plain names",
            ));
        };
        if i == 0 && is_vm(&pt.ty) {
            takes_vm = true;
            continue;
        }
        rust.push((&pi.ident, &pt.ty));
    }
    if rust.len() != py_params.len() {
        return Err(syn::Error::new(
            attr.sig.span(),
            format!(
                "`{sig_text}` declares {} parameter(s) but `{ident}` takes {} (besides `&dyn Vm`)",
                py_params.len(),
                rust.len()
            ),
        ));
    }
    for ((rid, _), p) in rust.iter().zip(&py_params) {
        if norm(&rid.to_string()) != norm(&p.name) {
            return Err(syn::Error::new(
                rid.span(),
                format!(
                    "parameter `{rid}` does not match `{}` of the signature `{sig_text}`",
                    p.name
                ),
            ));
        }
    }
    let doc = doc_text(&func);
    let style = match attr.style.as_ref().map(|s| s.to_string()) {
        None => quote!(crate::object::SigStyle::Python),
        Some(s) if s == "c" => quote!(crate::object::SigStyle::Builtin),
        Some(_) => quote!(crate::object::SigStyle::BuiltinCtor),
    };
    let py_names: Vec<&str> = py_params.iter().map(|p| p.name.as_str()).collect();
    let mut convs = Vec::new();
    let mut names = Vec::new();
    for (i, ((_, ty), p)) in rust.iter().zip(&py_params).enumerate() {
        let local = Ident::new(&format!("__p{i}"), Span::call_site());
        let pname = &p.name;
        convs.push(quote! {
            let #local = <#ty as crate::object::FromArg>::from_arg(
                __vm, __args, #i, &crate::object::ArgCtx { func: #py_name, param: #pname },
            )?;
        });
        names.push(local);
    }
    let vm_arg = if takes_vm { quote!(__vm,) } else { quote!() };
    Ok(quote! {
        #func

        #[doc(hidden)]
        #[allow(non_snake_case, clippy::all)]
        #vis mod #ident {
            #[allow(unused_imports)]
            use super::*;

            /// The registration record of the native of the same name.
            pub const DEF: crate::object::NativeDef = crate::object::NativeDef {
                sig: #sig_text,
                params: &[#(#py_names),*],
                func: __wrap,
                doc: #doc,
                style: #style,
            };

            fn __wrap(
                __vm: &dyn crate::value::Vm,
                __args: &crate::value::Args,
            ) -> crate::value::PyResult<crate::value::Value> {
                let _ = &__vm;
                #(#convs)*
                crate::object::IntoResult::into_result(super::#ident(#vm_arg #(#names),*))
            }
        }
    })
}
