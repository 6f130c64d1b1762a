//! `#[derive(Codec)]`: the binary form of the syntax tree that the build
//! script writes for every `stdlib/` module and the importer reads back
//! (`src/syntax/codec.rs` has the trait, the leaf types and the format).
//!
//! A struct is its fields in order; an enum is a tag byte (the variant's
//! index) and then the variant's fields. Nothing is named in the bytes, so
//! the reader must be the same build as the writer, which it is: the
//! build script compiles the same `src/syntax` the binary does.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields};

/// The `impl crate::syntax::codec::Codec` for a struct or enum.
pub fn expand(input: DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let (impl_g, ty_g, where_g) = input.generics.split_for_impl();
    let (encode, decode) = match &input.data {
        Data::Struct(s) => {
            let (binds, pat) = bindings(&s.fields, quote!(#name));
            let enc = binds.iter().map(|b| quote!(Codec::encode(#b, w);));
            let dec = build(&s.fields, quote!(#name));
            (quote! { let #pat = self; #(#enc)* }, dec)
        }
        Data::Enum(e) => {
            if e.variants.len() > 256 {
                return Err(syn::Error::new_spanned(
                    name,
                    "Codec: more than 256 variants",
                ));
            }
            let mut enc_arms = Vec::new();
            let mut dec_arms = Vec::new();
            for (i, v) in e.variants.iter().enumerate() {
                let tag = i as u8;
                let vname = &v.ident;
                let (binds, pat) = bindings(&v.fields, quote!(#name::#vname));
                enc_arms.push(quote! {
                    #pat => { w.push(#tag); #(Codec::encode(#binds, w);)* }
                });
                let dec = build(&v.fields, quote!(#name::#vname));
                dec_arms.push(quote!(#tag => #dec,));
            }
            (
                quote! { match self { #(#enc_arms)* } },
                quote! { match r.byte()? { #(#dec_arms)* _ => return None, } },
            )
        }
        Data::Union(_) => {
            return Err(syn::Error::new_spanned(
                name,
                "Codec: unions are not supported",
            ));
        }
    };
    Ok(quote! {
        impl #impl_g crate::syntax::codec::Codec for #name #ty_g #where_g {
            #[allow(unused_variables)]
            fn encode(&self, w: &mut Vec<u8>) {
                use crate::syntax::codec::Codec;
                #encode
            }
            fn decode(r: &mut crate::syntax::codec::Reader) -> Option<Self> {
                use crate::syntax::codec::Codec;
                Some(#decode)
            }
        }
    })
}

/// Names for the fields of a struct or variant, and the pattern binding them.
fn bindings(fields: &Fields, path: TokenStream) -> (Vec<syn::Ident>, TokenStream) {
    match fields {
        Fields::Named(f) => {
            let names: Vec<_> = f.named.iter().map(|f| f.ident.clone().unwrap()).collect();
            let pat = quote!(#path { #(#names),* });
            (names, pat)
        }
        Fields::Unnamed(f) => {
            let names: Vec<_> = (0..f.unnamed.len())
                .map(|i| format_ident!("f{i}"))
                .collect();
            let pat = quote!(#path ( #(#names),* ));
            (names, pat)
        }
        Fields::Unit => (Vec::new(), path),
    }
}

/// The expression decoding a struct or variant, field after field.
fn build(fields: &Fields, path: TokenStream) -> TokenStream {
    match fields {
        Fields::Named(f) => {
            let names = f.named.iter().map(|f| f.ident.clone().unwrap());
            quote!(#path { #(#names: Codec::decode(r)?),* })
        }
        Fields::Unnamed(f) => {
            let parts = (0..f.unnamed.len()).map(|_| quote!(Codec::decode(r)?));
            quote!(#path ( #(#parts),* ))
        }
        Fields::Unit => path,
    }
}
