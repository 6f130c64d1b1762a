//! The pest parser generated from `grammar/dist.pest`. Only `lower` uses it;
//! nothing else in the crate sees pest types.

use pest_derive::Parser;

/// The generated parser; its `Rule` enum names the grammar's rules.
#[derive(Parser)]
#[grammar = "grammar/dist.pest"]
pub struct DistParser;
