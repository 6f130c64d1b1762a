//! `tf.random`'s stateful ops: `set_seed`, `uniform`, `normal`,
//! `truncated_normal` and `shuffle`. Each op's stream is the interpreter's
//! [`SeedState`](crate::runtime::random::SeedState), keyed by the op's
//! kernel and seeds.

use super::op::{
    affine, check_float_dist, int_range, OpDef, RANDOM_NORMAL, RANDOM_UNIFORM, RANDOM_UNIFORM_INT,
    TRUNCATED_NORMAL,
};
use super::{
    check_uniform_dtype, global_seed_arg, is_python_int, seed_arg, shape_tensor, state, tf_name,
};
use crate::modules::tf::convert::{placed, runtime_err, to_tensor};
use crate::object::native;
use crate::object::tensor::placement::current_device;
use crate::runtime::random::{self, Distribution, KernelKey};
use crate::runtime::{ops, DType, Device, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Sets the global seed: `tf.random.set_seed(42)`. Ops without `seed=`
/// then draw reproducible numbers, and every op's stream starts over.
#[native("set_seed(seed)")]
pub fn set_seed(vm: &dyn Vm, seed: &Value) -> PyResult<()> {
    let seed = global_seed_arg(vm, seed)?;
    state(vm).set_global_seed(seed);
    Ok(())
}

/// Runs a stateful op: reserves its kernel's stream and draws.
fn stateful(
    vm: &dyn Vm,
    op: &OpDef,
    shape: &Tensor,
    dist: Distribution,
    dtype: DType,
    seeds: (i64, i64),
) -> PyResult<Tensor> {
    let device = current_device(vm);
    let (dims, shape_dtype) = op.dims(shape, device)?;
    stateful_dims(vm, op, &dims, shape_dtype, dist, dtype, seeds, device)
}

#[expect(clippy::too_many_arguments, reason = "one call site per op kind")]
fn stateful_dims(
    vm: &dyn Vm,
    op: &OpDef,
    dims: &[usize],
    shape_dtype: DType,
    dist: Distribution,
    dtype: DType,
    seeds: (i64, i64),
    device: Device,
) -> PyResult<Tensor> {
    let n = op.output_len(dims, dtype, device)?;
    let key = KernelKey {
        op: op.name,
        dtype,
        shape_dtype,
        seeds,
        device,
    };
    let gen = state(vm).reserve(key, n as u64);
    op.draw(gen, dist, dtype, dims, device)
}

/// Uniform numbers in `[minval, maxval)`: `tf.random.uniform([2, 3], seed=1)`.
#[native("uniform(shape, minval=0, maxval=None, dtype=None, seed=None, name=None)")]
pub fn uniform(
    vm: &dyn Vm,
    shape: &Value,
    minval: Value,
    mut maxval: Value,
    dtype: Option<DType>,
    seed: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let dtype = dtype.unwrap_or(DType::Float32);
    check_uniform_dtype(dtype, false)?;
    let is_int = dtype.is_integer();
    if maxval.is_none() {
        if is_int {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("Must specify maxval for integer dtype {}", tf_name(dtype)),
            ));
        }
        maxval = Value::Int(1);
    }
    let shape = shape_tensor(vm, shape)?;
    let min_zero = is_python_int(&minval, 0);
    let max_one = is_python_int(&maxval, 1);
    let bounds = if !min_zero || !max_one || is_int {
        Some((
            to_tensor(vm, &minval, Some(dtype))?,
            to_tensor(vm, &maxval, Some(dtype))?,
        ))
    } else {
        None
    };
    let op_seed = seed_arg(vm, seed)?;
    crate::distribute::runtime_config::check_seeded(vm, op_seed)?;
    let seeds = state(vm).op_seeds(op_seed);
    let device = current_device(vm);
    match bounds {
        Some((lo, hi)) if is_int => {
            let op = &RANDOM_UNIFORM_INT;
            let (dims, sd) = op.dims(&shape, device)?;
            let (lo, hi) = int_range(op, &lo, &hi, device)?;
            let dist = Distribution::UniformInt { lo, hi };
            let t = stateful_dims(vm, op, &dims, sd, dist, dtype, seeds, device)?;
            placed(vm, Ok(t))
        }
        bounds => {
            let rnd = stateful(
                vm,
                &RANDOM_UNIFORM,
                &shape,
                Distribution::Uniform,
                dtype,
                seeds,
            )?;
            let out = match bounds {
                None => rnd,
                Some((_, hi)) if min_zero => ops::mul(&rnd, &hi).map_err(runtime_err)?,
                Some((lo, hi)) => {
                    let width = ops::sub(&hi, &lo).map_err(runtime_err)?;
                    affine(rnd, &width, &lo)?
                }
            };
            placed(vm, Ok(out))
        }
    }
}

/// `tf.random.normal` and `tf.random.truncated_normal`: the raw op, then
/// `rnd * stddev + mean`.
fn normal_like(
    vm: &dyn Vm,
    (shape, mean, stddev, dtype, seed): (&Value, &Value, &Value, Option<DType>, &Value),
    op: &OpDef,
    dist: Distribution,
) -> PyResult<Tensor> {
    let dtype = dtype.unwrap_or(DType::Float32);
    let shape = shape_tensor(vm, shape)?;
    let mean = to_tensor(vm, mean, Some(dtype))?;
    let stddev = to_tensor(vm, stddev, Some(dtype))?;
    let op_seed = seed_arg(vm, seed)?;
    crate::distribute::runtime_config::check_seeded(vm, op_seed)?;
    let seeds = state(vm).op_seeds(op_seed);
    check_float_dist(op, dist, dtype)?;
    let rnd = stateful(vm, op, &shape, dist, dtype, seeds)?;
    placed(vm, Ok(affine(rnd, &stddev, &mean)?))
}

/// Normally distributed numbers: `tf.random.normal([3], seed=1)`.
#[native("normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None)")]
pub fn normal(
    vm: &dyn Vm,
    shape: &Value,
    mean: &Value,
    stddev: &Value,
    dtype: Option<DType>,
    seed: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let args = (shape, mean, stddev, dtype, seed);
    normal_like(vm, args, &RANDOM_NORMAL, Distribution::Normal)
}

/// Normal numbers within two standard deviations of the mean.
#[native("truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None)")]
pub fn truncated_normal(
    vm: &dyn Vm,
    shape: &Value,
    mean: &Value,
    stddev: &Value,
    dtype: Option<DType>,
    seed: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let args = (shape, mean, stddev, dtype, seed);
    normal_like(vm, args, &TRUNCATED_NORMAL, Distribution::TruncatedNormal)
}

/// The rows of `value` in a random order: `tf.random.shuffle(tf.range(5), seed=1)`.
#[native("shuffle(value, seed=None, name=None)")]
pub fn shuffle(vm: &dyn Vm, value: &Value, seed: &Value, _name: &Value) -> PyResult<Tensor> {
    let op_seed = seed_arg(vm, seed)?;
    crate::distribute::runtime_config::check_seeded(vm, op_seed)?;
    let seeds = state(vm).op_seeds(op_seed);
    let value = to_tensor(vm, value, None)?;
    let device = current_device(vm);
    let rows = value.dims().first().copied().unwrap_or(0);
    if value.numel() <= 1 || rows <= 1 {
        return placed(vm, Ok(value));
    }
    let key = KernelKey {
        op: "RandomShuffle",
        dtype: value.dtype(),
        shape_dtype: value.dtype(),
        seeds,
        device,
    };
    // the kernel reserves one word per pick, in whole blocks (256 per word is
    // the output ops' reservation; this one is exact)
    let picks = (rows - 1) as u64;
    let gen = state(vm).reserve_blocks(key, picks.div_ceil(4));
    let _trace = crate::runtime::trace::op("RandomShuffle", device);
    let perm = random::permutation(gen, rows).map_err(runtime_err)?;
    let idx: Vec<i64> = perm.iter().map(|&i| i as i64).collect();
    let idx = Tensor::from_vec(idx, &[rows]).map_err(runtime_err)?;
    placed(vm, ops::gather(&value, &idx, 0))
}

/// `_dist_random.graph_shuffle(value)`: `tf.random.shuffle(value)` as a
/// dataset function traced it runs, each time the dataset is iterated: a
/// kernel made anew, seeded as TensorFlow seeds an op traced first in its
/// graph (Keras's array adapter draws each epoch's order this way, so with a
/// global seed every epoch gets the same order, as in TensorFlow).
#[native("graph_shuffle(value)")]
pub fn graph_shuffle(vm: &dyn Vm, value: &Value) -> PyResult<Tensor> {
    let value = to_tensor(vm, value, None)?;
    let rows = value.dims().first().copied().unwrap_or(0);
    if value.numel() <= 1 || rows <= 1 {
        return Ok(value);
    }
    let seeds = state(vm).graph_op_seeds(0);
    let gen = random::SeedState::fresh(seeds);
    let perm = random::permutation(gen, rows).map_err(runtime_err)?;
    let idx: Vec<i64> = perm.iter().map(|&i| i as i64).collect();
    let idx = Tensor::from_vec(idx, &[rows]).map_err(runtime_err)?;
    ops::gather(&value, &idx, 0).map_err(runtime_err)
}

/// The `_dist_random` module: what the standard library's Keras asks of
/// TensorFlow's random kernels beyond `tf.random`.
pub fn module() -> Value {
    let mut m = crate::object::module::ModuleBuilder::new("_dist_random");
    m.add(graph_shuffle::DEF);
    m.build()
}

/// `random_ops.random_uniform(shape, seed=seed, dtype=dtype)` with the
/// default bounds: the raw `RandomUniform` draw in `[0, 1)` (the sampler of
/// `tf.nn.dropout`). `shape` is a 1-D integer tensor.
pub(crate) fn uniform_unit(
    vm: &dyn Vm,
    shape: &Tensor,
    dtype: DType,
    seed: &Value,
) -> PyResult<Tensor> {
    check_uniform_dtype(dtype, false)?;
    let op_seed = seed_arg(vm, seed)?;
    crate::distribute::runtime_config::check_seeded(vm, op_seed)?;
    let seeds = state(vm).op_seeds(op_seed);
    stateful(
        vm,
        &RANDOM_UNIFORM,
        shape,
        Distribution::Uniform,
        dtype,
        seeds,
    )
}

/// `random_seed.get_seed(seed)` for its effect: the op-seed counter moves
/// on as if an op had drawn (`tf.nn.dropout`'s fast path for `rate=0`).
pub(crate) fn skip_seed(vm: &dyn Vm, seed: &Value) -> PyResult<()> {
    let op_seed = seed_arg(vm, seed)?;
    state(vm).op_seeds(op_seed);
    Ok(())
}
