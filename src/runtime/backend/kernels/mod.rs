//! CUDA C sources of the device kernels, generated per (op, dtype) from the
//! op markers in [`crate::runtime::op`], so kernel names derive from the same
//! names the CPU backend and the error texts use (`AddV2_float32`).
//!
//! This is plain string generation (no CUDA needed): the CUDA backend
//! compiles a source with NVRTC on first use and caches the module per
//! (kernel, device); the tests compile every source whenever libnvrtc loads.
//! Which (op, dtype) pairs exist here is the backend's decision of what runs
//! on the device; everything else takes the explicit, counted host fallback.
//!
//! Semantics mirror `backend/cpu` bit for bit where IEEE allows: floats
//! compute in their own precision (f16 through f32, as the CPU does), f32
//! transcendental functions evaluate in double and round once (the CPU
//! reproduces TensorFlow's CPU kernels instead, `cpu/eigen_math.rs`, which
//! agree within a few ulps), and the sources are compiled with
//! `--fmad=false` so `a * b + c` is never fused.
//!
//! This module holds what every kernel shares (the prelude, the C types,
//! loads and stores) and the list of all sources; the kernels themselves
//! are in `elementwise.rs` and `reduction.rs`.

mod elementwise;
mod reduction;

use crate::runtime::dtype::{DType, ALL_DTYPES};
use crate::runtime::op::{BinaryOp, ReduceOp, UnaryOp};
pub use elementwise::{
    binary, binary_name, cast, cast_name, copy_name, gather, gather_name, select, select_name,
    strided_copy, unary, unary_name,
};
pub use reduction::{
    reduce, reduce_name, reduce_pairwise, reduce_pairwise_name, reduce_rows, reduce_rows_name,
    reduce_serial, reduce_serial_name, reduce_supported,
};

/// The largest rank a strided kernel handles (TensorFlow's GPU kernels stop at 8 too).
pub const MAX_RANK: usize = 8;

/// Threads per block for every kernel.
pub const BLOCK: u32 = 256;

/// One kernel: the module's source and the entry point's name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelSource {
    /// The `extern "C" __global__` function name, also the cache key.
    pub name: String,
    /// The complete CUDA C translation unit.
    pub source: String,
}

/// The C type that holds a dtype's elements in device memory (`None` for strings).
pub fn c_type(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::Bool | DType::UInt8 => "unsigned char",
        DType::Int8 => "signed char",
        DType::Int16 => "short",
        DType::Int32 => "int",
        DType::Int64 => "long long",
        DType::Float16 => "unsigned short",
        DType::Float32 => "float",
        DType::Float64 => "double",
        DType::String | DType::Complex64 | DType::Complex128 => return None,
    })
}

/// The type arithmetic happens in (f16 computes in f32, as the CPU backend does).
fn compute_type(d: DType) -> &'static str {
    match d {
        DType::Float16 => "float",
        other => c_type(other).unwrap_or("int"),
    }
}

/// The unsigned type of an integer's width (wrapping arithmetic without C's
/// signed-overflow undefined behaviour).
fn unsigned_of(d: DType) -> &'static str {
    match d {
        DType::Int8 | DType::UInt8 | DType::Bool => "unsigned char",
        DType::Int16 => "unsigned short",
        DType::Int32 => "unsigned int",
        _ => "unsigned long long",
    }
}

/// Shared helpers: f16 conversion through PTX `cvt` (no headers needed, so
/// NVRTC compiles the sources with nothing but libnvrtc) and the strided
/// offset of a flat output index.
const PRELUDE: &str = r#"
typedef unsigned long long u64;
__device__ __forceinline__ float h2f(unsigned short h) {
    float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
__device__ __forceinline__ unsigned short f2h(float f) {
    unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
__device__ __forceinline__ unsigned short d2h(double f) {
    unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(f)); return h;
}
__device__ __forceinline__ int h_isnan(unsigned short h) {
    return (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
}
// info = [rank, dims[rank], strides of operand 0[rank], strides of operand 1[rank], ...]
__device__ __forceinline__ u64 strided(u64 i, const u64* info, int operand) {
    int rank = (int)info[0];
    const u64* dims = info + 1;
    const u64* st = info + 1 + rank * (1 + operand);
    u64 off = 0;
    for (int d = rank - 1; d >= 0; --d) {
        u64 q = i / dims[d];
        off += (i - q * dims[d]) * st[d];
        i = q;
    }
    return off;
}
"#;

/// A kernel `name(params)` whose threads stride over `var` in `0..bound` (a
/// grid-stride loop), each running `body` for its `var`.
fn grid_stride(
    name: String,
    params: &str,
    (var, bound): (&str, &str),
    body: &str,
) -> Option<KernelSource> {
    Some(KernelSource {
        source: format!(
            "{PRELUDE}\nextern \"C\" __global__ void {name}({params}) {{\n  \
             for (u64 {var} = blockIdx.x * (u64)blockDim.x + threadIdx.x; {var} < {bound}; {var} += (u64)blockDim.x * gridDim.x) {{\n    \
             {body}\n  }}\n}}\n"
        ),
        name,
    })
}

fn load(d: DType, expr: &str) -> String {
    match d {
        DType::Float16 => format!("h2f({expr})"),
        _ => expr.to_string(),
    }
}

fn store(d: DType, expr: &str) -> String {
    match d {
        DType::Float16 => format!("f2h({expr})"),
        _ => format!("({})({expr})", c_type(d).unwrap_or("int")),
    }
}

/// Every dtype a device buffer can hold: all but strings.
pub const DEVICE_DTYPES: &[DType] = ALL_DTYPES.split_at(ALL_DTYPES.len() - 1).0;

/// Every kernel source the backend can ask for (for the NVRTC test and warm-up).
pub fn all() -> Vec<KernelSource> {
    let mut out = Vec::new();
    for &d in DEVICE_DTYPES {
        out.extend(UnaryOp::ALL.iter().filter_map(|&op| unary(op, d)));
        out.extend(BinaryOp::ALL.iter().filter_map(|&op| binary(op, d)));
        out.extend(ReduceOp::ALL.iter().filter_map(|&op| reduce(op, d)));
        out.extend(ReduceOp::ALL.iter().filter_map(|&op| reduce_rows(op, d)));
        out.extend(
            ReduceOp::ALL
                .iter()
                .filter_map(|&op| reduce_pairwise(op, d)),
        );
        out.extend(ReduceOp::ALL.iter().filter_map(|&op| reduce_serial(op, d)));
        out.extend(DEVICE_DTYPES.iter().filter_map(|&to| cast(d, to)));
        out.extend(select(d));
        out.extend(strided_copy(d));
        out.extend(gather(d));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_derive_from_op_markers() {
        let k = binary(BinaryOp::Add, DType::Float32).map(|k| k.name);
        assert_eq!(k.as_deref(), Some("AddV2_float32"));
        assert_eq!(unary_name(UnaryOp::Exp, DType::Float16), "Exp_float16");
        assert_eq!(
            cast_name(DType::Int32, DType::Float32),
            "Cast_int32_float32"
        );
        // integer division keeps its host semantics (division-by-zero error)
        assert!(binary(BinaryOp::FloorDiv, DType::Int32).is_none());
        assert!(unary(UnaryOp::Exp, DType::Int32).is_none());
        assert!(binary(BinaryOp::Add, DType::String).is_none());
    }

    /// The pairwise kernels' plan (leaves chosen by the top `depth` bits of
    /// a thread index, then adjacent parts paired one level per launch),
    /// replayed on the host: it must add in exactly numpy's order.
    #[test]
    fn pairwise_plan_adds_in_numpys_order() {
        use crate::runtime::backend::cpu::reduce::pairwise;
        let mut seed = 7u64;
        for n in [0usize, 5, 127, 2048, 5000, 100_003, (1 << 20) + 13] {
            let a: Vec<f32> = (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    ((seed >> 40) as f32 / 16777216.0) - 0.37
                })
                .collect();
            // the backend's choice of depth
            let depth = if n >= 2048 {
                (n / 1024).ilog2().min(20)
            } else {
                0
            };
            let per = 1usize << depth;
            let mut parts = vec![f32::NAN; per];
            for (t, part) in parts.iter_mut().enumerate() {
                let (mut lo, mut len) = (0usize, n);
                let mut owner = true;
                for l in (0..depth).rev() {
                    if len <= 128 {
                        owner = t & ((2 << l) - 1) == 0;
                        break;
                    }
                    let n2 = len / 2 - (len / 2) % 8;
                    if (t >> l) & 1 == 1 {
                        lo += n2;
                        len -= n2;
                    } else {
                        len = n2;
                    }
                }
                if owner {
                    *part = pairwise(&a[lo..lo + len]);
                }
            }
            while parts.len() > 1 {
                parts = parts.chunks(2).map(|p| p[0] + p[1]).collect();
            }
            assert_eq!(
                parts[0].to_bits(),
                pairwise(&a).to_bits(),
                "n = {n}, depth {depth}"
            );
        }
    }

    #[test]
    fn every_source_defines_its_entry_point() {
        let all = all();
        assert!(all.len() > 300, "{} kernels", all.len());
        let mut names = std::collections::HashSet::new();
        for k in &all {
            assert!(names.insert(k.name.clone()), "duplicate kernel {}", k.name);
            assert!(
                k.source.contains(&format!("void {}(", k.name)),
                "{} missing from its source",
                k.name
            );
        }
    }
}
