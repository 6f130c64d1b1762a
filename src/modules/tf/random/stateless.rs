//! `tf.random`'s stateless ops: `stateless_uniform`, `stateless_normal`
//! and `stateless_truncated_normal`, whose numbers depend only on their
//! `seed` argument (a pair of ints), drawn from the Philox stream
//! `StatelessRandomGetKeyCounter` derives from it.

use super::op::{
    affine, check_float_dist, int_range, OpDef, GET_KEY_COUNTER_REGISTRATION, STATELESS_FULL_INT,
    STATELESS_NORMAL, STATELESS_TRUNCATED, STATELESS_UNIFORM, STATELESS_UNIFORM_INT,
};
use super::{check_alg, check_uniform_dtype, shape_tensor};
use crate::modules::tf::convert::{placed, runtime_err, to_tensor};
use crate::object::native;
use crate::object::tensor::placement::current_device;
use crate::runtime::random::{Distribution, Philox};
use crate::runtime::{ops, DType, Error, ErrorKind, Scalar, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The Philox stream of a stateless op for the `seed` argument: a shape
/// [2] int32 or int64 tensor (`StatelessRandomGetKeyCounter`'s checks).
fn stateless_gen(vm: &dyn Vm, seed: &Value) -> PyResult<Philox> {
    let t = to_tensor(vm, seed, None)?;
    // TensorFlow names the op in these errors only when the seed was not a Python sequence
    let name = if matches!(seed, Value::List(_) | Value::Tuple(_)) {
        ""
    } else {
        " name: "
    };
    let op = "StatelessRandomGetKeyCounter";
    if !matches!(t.dtype(), DType::Int32 | DType::Int64) {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "Value for attr 'Tseed' of {} is not in the list of allowed values: int32, int64\n\t; NodeDef: {{{{node {op}}}}}; {GET_KEY_COUNTER_REGISTRATION} [Op:{op}]{name}",
                t.dtype().kernel_name()
            ),
        ));
    }
    if t.dims() != [2] {
        let device = current_device(vm);
        return Err(runtime_err(Error::kernel(
            ErrorKind::InvalidArgument,
            op,
            &device,
            &format!(
                "seed must have shape [2], not {}",
                t.shape().bracket_text_compact()
            ),
            op,
            name,
        )));
    }
    let word = |i: usize| match t.get(i) {
        // int32 seeds widen with their sign, as the kernel's cast does
        Some(Scalar::Int(v)) => v as u64,
        _ => 0,
    };
    Ok(Philox::stateless(word(0), word(1)))
}

/// Runs a stateless op on its checked shape; `gen` is None for the
/// ThreeFry algorithm, whose one-word counter the CPU kernels refuse.
fn stateless_draw(
    vm: &dyn Vm,
    op: &OpDef,
    shape: &Tensor,
    gen: Option<Philox>,
    dist: Distribution,
    dtype: DType,
    range: Option<(&Tensor, &Tensor)>,
) -> PyResult<Tensor> {
    let device = current_device(vm);
    let Some(gen) = gen else {
        return Err(op.kernel_error(
            ErrorKind::InvalidArgument,
            device,
            "counter must be a vector with length at least 2; got shape: [1]. (Note that batched counters are not supported yet.)",
        ));
    };
    let (dims, _) = op.dims(shape, device)?;
    let dist = match range {
        Some((lo, hi)) => {
            let (lo, hi) = int_range(op, lo, hi, device)?;
            Distribution::UniformInt { lo, hi }
        }
        None => dist,
    };
    op.output_len(&dims, dtype, device)?;
    op.draw(gen, dist, dtype, &dims, device)
}
/// Uniform numbers that depend only on `seed` (a pair of ints):
/// `tf.random.stateless_uniform([2], seed=[1, 2])`.
#[native("stateless_uniform(shape, seed, minval=0, maxval=None, dtype=None, name=None, alg='auto_select')")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's parameters")]
pub fn stateless_uniform(
    vm: &dyn Vm,
    shape: &Value,
    seed: &Value,
    minval: Value,
    mut maxval: Value,
    dtype: Option<DType>,
    _name: &Value,
    alg: &Value,
) -> PyResult<Tensor> {
    let dtype = dtype.unwrap_or(DType::Float32);
    check_uniform_dtype(dtype, true)?;
    if dtype.is_integer() {
        if minval.is_none() != maxval.is_none() {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!(
                    "For integer `dtype` argument <dtype: '{}'>, argument `minval` and `maxval` must be both None or not None. Got `minval`={} and `maxval`={}.",
                    dtype.name(),
                    vm.str(&minval)?,
                    vm.str(&maxval)?
                ),
            ));
        }
    } else if maxval.is_none() {
        maxval = Value::Int(1);
    }
    let shape = shape_tensor(vm, shape)?;
    if dtype.is_integer() && minval.is_none() {
        let threefry = check_alg(vm, alg)?;
        let gen = Some(stateless_gen(vm, seed)?).filter(|_| !threefry);
        let op = &STATELESS_FULL_INT;
        let t = stateless_draw(vm, op, &shape, gen, Distribution::FullInt, dtype, None)?;
        return placed(vm, Ok(t));
    }
    let lo = to_tensor(vm, &minval, Some(dtype))?;
    let hi = to_tensor(vm, &maxval, Some(dtype))?;
    let threefry = check_alg(vm, alg)?;
    let gen = Some(stateless_gen(vm, seed)?).filter(|_| !threefry);
    if dtype.is_integer() {
        let op = &STATELESS_UNIFORM_INT;
        let dist = Distribution::FullInt;
        let t = stateless_draw(vm, op, &shape, gen, dist, dtype, Some((&lo, &hi)))?;
        return placed(vm, Ok(t));
    }
    let op = &STATELESS_UNIFORM;
    let rnd = stateless_draw(vm, op, &shape, gen, Distribution::Uniform, dtype, None)?;
    let width = ops::sub(&hi, &lo).map_err(runtime_err)?;
    placed(vm, Ok(affine(rnd, &width, &lo)?))
}

/// `tf.random.stateless_normal` and `stateless_truncated_normal`: the raw
/// op, then `rnd * stddev + mean`.
fn stateless_normal_like(
    vm: &dyn Vm,
    (shape, seed, mean, stddev, dtype, alg): (
        &Value,
        &Value,
        &Value,
        &Value,
        Option<DType>,
        &Value,
    ),
    op: &OpDef,
    dist: Distribution,
) -> PyResult<Tensor> {
    let dtype = dtype.unwrap_or(DType::Float32);
    let shape = shape_tensor(vm, shape)?;
    let mean = to_tensor(vm, mean, Some(dtype))?;
    let stddev = to_tensor(vm, stddev, Some(dtype))?;
    let threefry = check_alg(vm, alg)?;
    let gen = Some(stateless_gen(vm, seed)?).filter(|_| !threefry);
    check_float_dist(op, dist, dtype)?;
    let rnd = stateless_draw(vm, op, &shape, gen, dist, dtype, None)?;
    placed(vm, Ok(affine(rnd, &stddev, &mean)?))
}

/// Normal numbers that depend only on `seed`.
#[native(
    "stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=None, name=None, alg='auto_select')"
)]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's parameters")]
pub fn stateless_normal(
    vm: &dyn Vm,
    shape: &Value,
    seed: &Value,
    mean: &Value,
    stddev: &Value,
    dtype: Option<DType>,
    _name: &Value,
    alg: &Value,
) -> PyResult<Tensor> {
    let args = (shape, seed, mean, stddev, dtype, alg);
    stateless_normal_like(vm, args, &STATELESS_NORMAL, Distribution::Normal)
}

/// Truncated normal numbers that depend only on `seed`.
#[native("stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=None, name=None, alg='auto_select')")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's parameters")]
pub fn stateless_truncated_normal(
    vm: &dyn Vm,
    shape: &Value,
    seed: &Value,
    mean: &Value,
    stddev: &Value,
    dtype: Option<DType>,
    _name: &Value,
    alg: &Value,
) -> PyResult<Tensor> {
    let args = (shape, seed, mean, stddev, dtype, alg);
    stateless_normal_like(
        vm,
        args,
        &STATELESS_TRUNCATED,
        Distribution::TruncatedNormal,
    )
}
