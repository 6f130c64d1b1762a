//! Diagnostics: one model (`diagnostic.rs`), rendered with ariadne (`render.rs`).

pub mod diagnostic;
pub mod group;
pub mod render;

pub use diagnostic::{
    from_exception, from_source_error, from_syntax_error, Diagnostic, Frame, Location,
};
pub use render::render;
