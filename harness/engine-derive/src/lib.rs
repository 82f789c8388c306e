//! `#[derive(Canonical)]` and `#[derive(FromCanonical)]` for
//! `crossdec-engine`; use them through its `derive` feature
//! (`crossdec_engine::Canonical`), whose documentation has the examples.
//!
//! The bytes are those `canonical_struct!` and `canonical_enum!` write for
//! the same declaration: a struct's fields in declaration order; an enum's
//! variant as one tag byte (its index from 0, or `#[canonical(tag = N)]`)
//! followed by its fields in declaration order.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{
    parse_macro_input, parse_quote, spanned::Spanned, Data, DeriveInput, Error, Fields, Generics, Ident, LitInt, Path,
};

/// Implement `crossdec_engine::Canonical`: see the crate documentation.
#[proc_macro_derive(Canonical, attributes(canonical))]
pub fn derive_canonical(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input, Trait::Canonical)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

/// Implement `crossdec_engine::FromCanonical`: see the crate documentation.
#[proc_macro_derive(FromCanonical, attributes(canonical))]
pub fn derive_from_canonical(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input, Trait::FromCanonical)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

#[derive(Clone, Copy)]
enum Trait {
    Canonical,
    FromCanonical,
}

/// What `#[canonical(...)]` on the type says: the path of the engine crate
/// (`crate = path`, for a crate that renames the dependency).
fn engine_path(input: &DeriveInput) -> syn::Result<Path> {
    let mut path: Path = parse_quote!(::crossdec_engine);
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("canonical")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                path = meta.value()?.parse()?;
                Ok(())
            } else {
                Err(meta.error("expected `crate = path` on the type"))
            }
        })?;
    }
    Ok(path)
}

/// The tag of a variant: `#[canonical(tag = N)]` or its index.
fn variant_tag(variant: &syn::Variant, index: usize) -> syn::Result<u8> {
    let mut tag = None;
    for attr in variant.attrs.iter().filter(|a| a.path().is_ident("canonical")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("tag") {
                let lit: LitInt = meta.value()?.parse()?;
                tag = Some(lit.base10_parse::<u8>()?);
                Ok(())
            } else {
                Err(meta.error("expected `tag = N` (0 to 255) on a variant"))
            }
        })?;
    }
    match tag {
        Some(tag) => Ok(tag),
        None => u8::try_from(index).map_err(|_| {
            Error::new(
                variant.span(),
                "a variant past the 256th needs `#[canonical(tag = N)]` (tags are one byte)",
            )
        }),
    }
}

/// `#[canonical(with = Marker)]` on a field: the marker type whose
/// `CanonicalWith<FieldType>` writes and reads it (a type the deriving
/// crate does not own).
fn field_with(field: &syn::Field) -> syn::Result<Option<syn::Type>> {
    let mut with = None;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("canonical")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("with") {
                with = Some(meta.value()?.parse()?);
                Ok(())
            } else {
                Err(meta.error("expected `with = Marker` on a field"))
            }
        })?;
    }
    Ok(with)
}

/// The statements writing `fields`, bound to `names`.
fn encodes(engine: &Path, fields: &Fields, names: &[Ident]) -> syn::Result<Vec<Tokens>> {
    fields
        .iter()
        .zip(names)
        .map(|(field, name)| {
            Ok(match field_with(field)? {
                Some(with) => quote!(<#with as #engine::CanonicalWith<_>>::encode(#name, out);),
                None => quote!(#engine::Canonical::encode(#name, out);),
            })
        })
        .collect()
}

/// The expressions reading each of `fields`.
fn reads(engine: &Path, fields: &Fields) -> syn::Result<Vec<Tokens>> {
    fields
        .iter()
        .map(|field| {
            let ty = &field.ty;
            Ok(match field_with(field)? {
                Some(with) => quote!(<#with as #engine::CanonicalWith<#ty>>::read(bytes)?),
                None => quote!(#engine::FromCanonical::read(bytes)?),
            })
        })
        .collect()
}

/// The type's generics with `bound` added to every type parameter.
fn bounded(generics: &Generics, bound: &Tokens) -> Generics {
    let mut generics = generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(parse_quote!(#bound));
    }
    generics
}

/// Names to bind a variant's or a struct's fields to: never a field's own
/// name, which could be `out`, the buffer the fields are written to.
fn binding_names(fields: &Fields) -> Vec<Ident> {
    (0..fields.len())
        .map(|i| format_ident!("__canonical_{}", i, span = Span::call_site()))
        .collect()
}

/// A pattern (or constructor) for `fields` binding (or taking) `names`.
fn shape(prefix: Tokens, fields: &Fields, values: &[Tokens]) -> Tokens {
    match fields {
        Fields::Named(named) => {
            let idents = named.named.iter().map(|f| f.ident.as_ref());
            quote!(#prefix { #(#idents: #values),* })
        }
        Fields::Unnamed(_) => quote!(#prefix ( #(#values),* )),
        Fields::Unit => prefix,
    }
}

fn expand(input: &DeriveInput, which: Trait) -> syn::Result<Tokens> {
    let engine = engine_path(input)?;
    let name = &input.ident;
    let bound = match which {
        Trait::Canonical => quote!(#engine::Canonical),
        Trait::FromCanonical => quote!(#engine::FromCanonical),
    };
    let generics = bounded(&input.generics, &bound);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let body = match (&input.data, which) {
        (Data::Struct(data), Trait::Canonical) => {
            let names = binding_names(&data.fields);
            let pattern = shape(
                quote!(Self),
                &data.fields,
                &names.iter().map(|n| quote!(#n)).collect::<Vec<_>>(),
            );
            let writes = encodes(&engine, &data.fields, &names)?;
            quote! {
                #[allow(unused_variables)]
                fn encode(&self, out: &mut ::std::vec::Vec<u8>) {
                    let #pattern = self;
                    #( #writes )*
                }
            }
        }
        (Data::Struct(data), Trait::FromCanonical) => {
            let value = shape(quote!(Self), &data.fields, &reads(&engine, &data.fields)?);
            quote! {
                #[allow(unused_variables)]
                fn read(bytes: &mut &[u8]) -> ::std::option::Option<Self> {
                    ::std::option::Option::Some(#value)
                }
            }
        }
        (Data::Enum(data), _) => {
            let mut tags = Vec::new();
            for (index, variant) in data.variants.iter().enumerate() {
                let tag = variant_tag(variant, index)?;
                if let Some((_, other)) = tags.iter().find(|(t, _)| *t == tag) {
                    return Err(Error::new(
                        variant.span(),
                        format!("tag {tag} is also `{other}`'s: every variant needs its own tag byte"),
                    ));
                }
                tags.push((tag, variant.ident.clone()));
            }
            match which {
                Trait::Canonical => {
                    let arms = data.variants.iter().zip(&tags).map(|(variant, (tag, _))| {
                        let names = binding_names(&variant.fields);
                        let v = &variant.ident;
                        let pattern = shape(
                            quote!(Self::#v),
                            &variant.fields,
                            &names.iter().map(|n| quote!(#n)).collect::<Vec<_>>(),
                        );
                        let writes = encodes(&engine, &variant.fields, &names)?;
                        Ok(quote! {
                            #pattern => {
                                out.push(#tag);
                                #( #writes )*
                            }
                        })
                    });
                    let arms = arms.collect::<syn::Result<Vec<_>>>()?;
                    // An enum without variants has no value to write; `match
                    // self {}` would not compile on a reference to one.
                    let scrutinee = if data.variants.is_empty() {
                        quote!(*self)
                    } else {
                        quote!(self)
                    };
                    quote! {
                        #[allow(unused_variables)]
                        fn encode(&self, out: &mut ::std::vec::Vec<u8>) {
                            match #scrutinee { #(#arms)* }
                        }
                    }
                }
                Trait::FromCanonical => {
                    let arms = data.variants.iter().zip(&tags).map(|(variant, (tag, _))| {
                        let v = &variant.ident;
                        let value = shape(quote!(Self::#v), &variant.fields, &reads(&engine, &variant.fields)?);
                        Ok(quote!(#tag => ::std::option::Option::Some(#value),))
                    });
                    let arms = arms.collect::<syn::Result<Vec<_>>>()?;
                    quote! {
                        fn read(bytes: &mut &[u8]) -> ::std::option::Option<Self> {
                            let tag: u8 = #engine::FromCanonical::read(bytes)?;
                            match tag {
                                #(#arms)*
                                _ => ::std::option::Option::None,
                            }
                        }
                    }
                }
            }
        }
        (Data::Union(data), _) => {
            return Err(Error::new(
                data.union_token.span(),
                "a union has no canonical form: which field is live is not in its bytes",
            ))
        }
    };
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #bound for #name #ty_generics #where_clause {
            #body
        }
    })
}
