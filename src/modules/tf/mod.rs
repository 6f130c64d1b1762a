//! The `tensorflow` module. PLACEHOLDER until the tf glue lands.

pub mod convert;

use crate::modules::ModuleBuilder;
use crate::value::Value;

/// Builds the `tensorflow` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("tensorflow");
    crate::distribute::register_tf(&mut m);
    m.build()
}
