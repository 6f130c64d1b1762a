//! Random numbers exactly as TensorFlow and numpy draw them: the
//! Philox4x32-10 generator ([`philox`]), its distributions and the order the
//! CPU kernels consume the stream in ([`sample`]), and the seeding rules and
//! per-kernel streams of the stateful ops ([`seed`]); the Mersenne Twister
//! shared by CPython's seeding rules and numpy's `RandomState`
//! ([`mt19937`]), numpy's PCG64 and `SeedSequence` ([`pcg64`]) and numpy's
//! distributions over them ([`numpy`]). The `tf.random` and `numpy.random`
//! modules in `modules` bind arguments and pick the op; everything numeric
//! is here.

pub mod mt19937;
pub mod numpy;
pub mod pcg64;
pub mod philox;
pub mod sample;
pub mod seed;
mod ziggurat;

pub use mt19937::Mt19937;
pub use philox::{Philox, Words};
pub use sample::{permutation, sample, Distribution};
pub use seed::{KernelKey, SeedState};
