//! Random numbers exactly as TensorFlow draws them: the Philox4x32-10
//! generator ([`philox`]), its distributions and the order the CPU kernels
//! consume the stream in ([`sample`]), and the seeding rules and per-kernel
//! streams of the stateful ops ([`seed`]). The `tf.random` module in
//! `modules` binds arguments and picks the op; everything numeric is here.

pub mod philox;
pub mod sample;
pub mod seed;

pub use philox::{Philox, Words};
pub use sample::{permutation, sample, Distribution};
pub use seed::{KernelKey, SeedState};
