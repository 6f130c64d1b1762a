//! From random words to tensors: TensorFlow's distributions over a Philox
//! stream (uniform floats from mantissa bits, normals by Box–Muller,
//! truncated normals by rejection, integers by modulo) and the order in
//! which its CPU kernels consume the stream, so that every element matches
//! TensorFlow's bit for bit.

use super::philox::{Philox, Words};
use crate::runtime::device::Device;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::f16::F16;
use crate::runtime::shape::Shape;
use crate::runtime::storage::{try_vec, HostData};
use crate::runtime::tensor::Tensor;

/// What to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    /// Floats in `[0, 1)`.
    Uniform,
    /// Standard normal floats.
    Normal,
    /// Standard normal floats redrawn until they lie within two standard deviations.
    TruncatedNormal,
    /// Integers in `[lo, hi)` (requires `lo < hi`).
    UniformInt {
        /// Smallest value.
        lo: i64,
        /// One past the largest value.
        hi: i64,
    },
    /// Integers over the whole range of the dtype.
    FullInt,
}

/// How many elements a full group of `dist` in `dtype` yields: the number
/// one kernel step writes (TensorFlow's `kResultElementCount`).
pub fn group_size(dist: Distribution, dtype: DType) -> usize {
    let wide = matches!(dtype, DType::Float64 | DType::Int64);
    match (dist, wide) {
        (_, true) => 2,
        _ => 4,
    }
}

/// `[0, 1)` from the low 23 bits: a float in `[1, 2)` minus one.
fn unit_f32(x: u32) -> f32 {
    f32::from_bits(0x3F80_0000 | (x & 0x007F_FFFF)) - 1.0
}

/// `[0, 1)` from 52 bits (20 of `hi`, all of `lo`).
fn unit_f64(hi: u32, lo: u32) -> f64 {
    let mantissa = (((hi & 0x000F_FFFF) as u64) << 32) | lo as u64;
    f64::from_bits(0x3FF0_0000_0000_0000 | mantissa) - 1.0
}

/// `[0, 1)` from the low 10 bits, in half precision (exact, so computed via f32).
fn unit_f16(x: u32) -> F16 {
    F16::from_f32(((x & 0x3FF) as f32) / 1024.0)
}

/// Two standard normals from two words, in single precision as TensorFlow
/// computes them (the angle is formed in double precision, then rounded).
fn box_muller_f32(x0: u32, x1: u32) -> (f32, f32) {
    let u1 = unit_f32(x0).max(1.0e-7);
    let angle = (2.0 * std::f64::consts::PI * unit_f32(x1) as f64) as f32;
    let radius = (-2.0f32 * u1.ln()).sqrt();
    let (s, c) = angle.sin_cos();
    (s * radius, c * radius)
}

/// Two standard normals from four words, in double precision.
fn box_muller_f64(x0: u32, x1: u32, x2: u32, x3: u32) -> (f64, f64) {
    let u1 = unit_f64(x0, x1).max(1.0e-7);
    let angle = 2.0 * std::f64::consts::PI * unit_f64(x2, x3);
    let radius = (-2.0 * u1.ln()).sqrt();
    let (s, c) = angle.sin_cos();
    (s * radius, c * radius)
}

/// One group of outputs for a fixed-sample distribution, from one block.
fn fixed_group(dist: Distribution, dtype: DType, gen: &mut Philox, out: &mut HostData) {
    let b = gen.next_block();
    match (dist, out) {
        (Distribution::Uniform, HostData::F32(v)) => v.extend(b.iter().map(|&x| unit_f32(x))),
        (Distribution::Uniform, HostData::F16(v)) => v.extend(b.iter().map(|&x| unit_f16(x))),
        (Distribution::Uniform, HostData::F64(v)) => {
            v.extend([unit_f64(b[0], b[1]), unit_f64(b[2], b[3])])
        }
        (Distribution::Normal, HostData::F32(v)) => {
            for pair in b.chunks_exact(2) {
                let (p, q) = box_muller_f32(pair[0], pair[1]);
                v.extend([p, q]);
            }
        }
        (Distribution::Normal, HostData::F16(v)) => {
            for pair in b.chunks_exact(2) {
                let (p, q) = box_muller_f32(pair[0], pair[1]);
                v.extend([F16::from_f32(p), F16::from_f32(q)]);
            }
        }
        (Distribution::Normal, HostData::F64(v)) => {
            let (p, q) = box_muller_f64(b[0], b[1], b[2], b[3]);
            v.extend([p, q]);
        }
        (Distribution::UniformInt { lo, hi }, HostData::I32(v)) => {
            // the range is computed in unsigned arithmetic, so it cannot overflow
            let range = (hi as i32 as u32).wrapping_sub(lo as i32 as u32);
            v.extend(
                b.iter()
                    .map(|&x| (lo as i32).wrapping_add((x % range.max(1)) as i32)),
            );
        }
        (Distribution::UniformInt { lo, hi }, HostData::I64(v)) => {
            let range = (hi as u64).wrapping_sub(lo as u64);
            for pair in b.chunks_exact(2) {
                let bits = pair[0] as u64 | (pair[1] as u64) << 32;
                v.push(lo.wrapping_add((bits % range.max(1)) as i64));
            }
        }
        (Distribution::FullInt, HostData::I32(v)) => v.extend(b.iter().map(|&x| x as i32)),
        (Distribution::FullInt, HostData::I64(v)) => {
            for pair in b.chunks_exact(2) {
                v.push((pair[0] as u64 | (pair[1] as u64) << 32) as i64);
            }
        }
        _ => {
            // callers check the pair first (see `check`); an impossible pair yields nothing
            let _ = dtype;
        }
    }
}

/// Blocks reserved per truncated-normal output: each group starts at its
/// own fixed offset in the stream, however many draws earlier groups rejected.
const RESERVED_PER_OUTPUT: u64 = 256;

/// One group of truncated normals, starting at the group's reserved offset.
fn truncated_group(base: Philox, group: u64, dtype: DType, out: &mut HostData) {
    let size = group_size(Distribution::TruncatedNormal, dtype) as u64;
    let mut gen = base;
    gen.skip(group * size * RESERVED_PER_OUTPUT / 4);
    let mut words = Words::new(gen);
    let mut produced = 0;
    while produced < size {
        let (p, q) = if dtype == DType::Float64 {
            let (a, b, c, d) = (
                words.next_u32(),
                words.next_u32(),
                words.next_u32(),
                words.next_u32(),
            );
            box_muller_f64(a, b, c, d)
        } else {
            let (a, b) = (words.next_u32(), words.next_u32());
            let (p, q) = box_muller_f32(a, b);
            (p as f64, q as f64)
        };
        for x in [p, q] {
            if produced < size && x.abs() < 2.0 {
                produced += 1;
                match out {
                    HostData::F32(v) => v.push(x as f32),
                    HostData::F16(v) => v.push(F16::from_f32(x as f32)),
                    HostData::F64(v) => v.push(x),
                    _ => {}
                }
            }
        }
    }
}

/// The output buffer of `dtype`, with room for `n` elements.
fn buffer(dtype: DType, n: usize) -> Result<HostData> {
    Ok(match dtype {
        DType::Float16 => HostData::F16(try_vec(n)?),
        DType::Float32 => HostData::F32(try_vec(n)?),
        DType::Float64 => HostData::F64(try_vec(n)?),
        DType::Int32 => HostData::I32(try_vec(n)?),
        DType::Int64 => HostData::I64(try_vec(n)?),
        other => {
            return Err(Error::internal(format!(
                "random: no kernel for dtype {other}"
            )))
        }
    })
}

/// Whether TensorFlow has a kernel drawing `dist` in `dtype`.
pub fn supports(dist: Distribution, dtype: DType) -> bool {
    match dist {
        Distribution::Uniform | Distribution::Normal | Distribution::TruncatedNormal => {
            matches!(dtype, DType::Float16 | DType::Float32 | DType::Float64)
        }
        Distribution::UniformInt { .. } | Distribution::FullInt => {
            matches!(dtype, DType::Int32 | DType::Int64)
        }
    }
}

/// The element count of `dims`, or TensorFlow's out-of-memory text for a
/// tensor too large to allocate.
pub fn output_len(dims: &[usize], dtype: DType, device: &Device) -> Result<usize> {
    Shape::new(dims)
        .checked_numel()
        .map_err(|_| Error::new(ErrorKind::ResourceExhausted, oom_text(dims, dtype, device)))
}

/// TensorFlow's allocator text for a tensor it cannot allocate:
/// `OOM when allocating tensor with shape[1000000,1000000] and type float
/// on /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu`.
pub fn oom_text(dims: &[usize], dtype: DType, device: &Device) -> String {
    format!(
        "OOM when allocating tensor with shape{}{}",
        Shape::new(dims).bracket_text_compact(),
        allocator_text(dtype, device)
    )
}

/// The allocator's part of [`oom_text`]: ` and type float on
/// /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu`.
pub fn allocator_text(dtype: DType, device: &Device) -> String {
    let place = device.full_name();
    let allocator = if device.is_host() {
        "mklcpu".to_string()
    } else {
        format!("GPU_{}_bfc", device.index)
    };
    format!(
        " and type {} on {place} by allocator {allocator}",
        dtype.kernel_name()
    )
}

/// A tensor of `dims` drawn from `dist` in `dtype`, consuming `gen` from
/// its current position as TensorFlow's CPU kernels do, placed on `device`.
pub fn sample(
    gen: Philox,
    dist: Distribution,
    dtype: DType,
    dims: &[usize],
    device: Device,
) -> Result<Tensor> {
    if !supports(dist, dtype) {
        return Err(Error::internal(format!(
            "random: no {dist:?} kernel for dtype {dtype}"
        )));
    }
    if let Distribution::UniformInt { lo, hi } = dist {
        if lo >= hi {
            return Err(Error::internal("random: empty integer range"));
        }
    }
    let n = output_len(dims, dtype, &device)?;
    let size = group_size(dist, dtype);
    let groups = n.div_ceil(size);
    let mut out = buffer(dtype, groups * size)?;
    if dist == Distribution::TruncatedNormal {
        for g in 0..groups {
            truncated_group(gen, g as u64, dtype, &mut out);
        }
    } else {
        let mut gen = gen;
        while out.len() < n {
            fixed_group(dist, dtype, &mut gen, &mut out);
        }
    }
    out.truncate(n);
    Tensor::from_host(out, Shape::new(dims), device)
}

/// The row order of `tf.random.shuffle` for `n` rows: a Fisher–Yates
/// shuffle of `0..n` whose swap partners are words of `gen` modulo the
/// number of rows left (TensorFlow's `RandomShuffle` kernel).
pub fn permutation(gen: Philox, n: usize) -> Result<Vec<usize>> {
    let mut perm: Vec<usize> = try_vec(n)?;
    perm.extend(0..n);
    let mut words = Words::new(gen);
    for i in 0..n.saturating_sub(1) {
        let left = (n - i) as u64;
        // TensorFlow draws 32-bit words for up to 2**32 rows, two per pick above
        let r = if left > u32::MAX as u64 {
            (words.next_u32() as u64) << 32 | words.next_u32() as u64
        } else {
            words.next_u32() as u64
        };
        perm.swap(i, i + (r % left) as usize);
    }
    Ok(perm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_floats_cover_zero_to_one() {
        assert_eq!(unit_f32(0), 0.0);
        assert_eq!(unit_f32(u32::MAX), 1.0 - f32::EPSILON);
        assert_eq!(unit_f64(0, 0), 0.0);
        assert_eq!(unit_f64(u32::MAX, u32::MAX), 1.0 - f64::EPSILON);
    }

    #[test]
    fn integers_stay_in_range() {
        let t = sample(
            Philox::from_seeds(1, 2),
            Distribution::UniformInt { lo: -3, hi: 4 },
            DType::Int32,
            &[50],
            Device::CPU0,
        )
        .unwrap();
        assert!(t
            .as_slice::<i32>()
            .unwrap()
            .iter()
            .all(|&x| (-3..4).contains(&x)));
    }

    #[test]
    fn truncated_normals_stay_within_two() {
        let t = sample(
            Philox::from_seeds(3, 4),
            Distribution::TruncatedNormal,
            DType::Float64,
            &[101],
            Device::CPU0,
        )
        .unwrap();
        assert!(t.as_slice::<f64>().unwrap().iter().all(|x| x.abs() < 2.0));
    }
}
