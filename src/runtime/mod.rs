//! Placeholder until the tensor runtime lands (branch `runtime`).
pub mod tensor;
