//! `dist`: a Python-subset language and REPL that reproduces TensorFlow's
//! `tf.distribute` without TensorFlow. See ARCHITECTURE.md for the data flow:
//! syntax → resolve → eval → modules → distribute → runtime.

pub mod modules;
pub mod runtime;
pub mod syntax;
pub mod value;
