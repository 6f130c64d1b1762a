//! `dist`: a Python-subset interpreter that reproduces TensorFlow's
//! `tf.distribute`. This branch holds the tensor runtime only.

pub mod runtime;
