//! Interpreter state (kept in `vm.state()`) that more than one layer above
//! reads or sets: `print` (modules) and `tf.function` (distribute).

use std::cell::Cell;

/// While above zero, `print` writes nothing: a `tf.function` runs its Python
/// code again for a call it has already traced, where TensorFlow would run
/// the graph and Python's side effects would not repeat.
#[derive(Default)]
pub struct PrintMute {
    /// Nesting depth of muted calls.
    pub depth: Cell<usize>,
}
