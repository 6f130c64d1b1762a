//! `tf.random.Generator`: a Philox state of its own, drawn from by its
//! `normal`, `truncated_normal` and `uniform` methods. A generator made in
//! a strategy's scope has one state per replica (TensorFlow's state is a
//! mirrored variable) and, inside `strategy.run`, each replica draws from
//! its own stream: the key hashed with the replica id, as TensorFlow's
//! `Generator._preprocess_key` does. One made outside any scope is one
//! stream that replicas draw from in turn.

use std::rc::Rc;

use super::op::{
    affine, check_float_dist, int_range, OpDef, RANDOM_NORMAL, RANDOM_UNIFORM,
    STATELESS_UNIFORM_INT, TRUNCATED_NORMAL,
};
use super::{check_alg, check_uniform_dtype, gen_state, shape_tensor};
use crate::distribute::classes::native_class;
use crate::distribute::strategy::StrategyObj;
use crate::distribute::variables::{self, VarCell};
use crate::modules::tf::convert::{placed, runtime_err, to_tensor};
use crate::object::tensor::placement::current_device;
use crate::object::{native, ClassSpec, Member};
use crate::runtime::random::{self, Distribution, Philox};
use crate::runtime::{ops, DType, Tensor};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// `tf.random.Generator`: a Philox state of its own (a 128-bit counter and
/// a 64-bit key, TensorFlow's `[counter_lo, counter_hi, key]`). Each draw
/// reads the stream at the counter, then moves the counter on by 256
/// blocks per output element, as TensorFlow's stateful kernels reserve.
pub struct GeneratorObj {
    /// The state variables (int64 `[counter_lo, counter_hi, key]`), one per
    /// replica of the strategy it was made under (one when none).
    pub(super) states: Vec<Rc<VarCell>>,
    /// `state`: the variable of an unscoped generator (a scoped one's is
    /// TensorFlow's mirrored variable, which dist does not build for it).
    pub(super) var: Option<Value>,
    /// Made in a strategy's scope: replicas hash the key with their id.
    pub(super) scoped: bool,
}

/// A state variable's words.
pub(super) fn read_state(cell: &VarCell) -> [u64; 3] {
    let t = cell.value.borrow().clone();
    let w: Vec<u64> = t
        .to_scalars()
        .iter()
        .map(|x| match x {
            crate::runtime::Scalar::Int(i) => *i as u64,
            other => other.as_f64() as u64,
        })
        .collect();
    [
        w.first().copied().unwrap_or(0),
        w.get(1).copied().unwrap_or(0),
        w.get(2).copied().unwrap_or(0),
    ]
}

/// The int64 tensor of a state on `device`.
pub(super) fn state_tensor(state: [u64; 3], device: crate::runtime::Device) -> PyResult<Tensor> {
    let t = Tensor::from_vec(state.iter().map(|&w| w as i64).collect::<Vec<i64>>(), &[3])
        .map_err(runtime_err)?;
    t.to_device(device).map_err(runtime_err)
}

fn write_state(cell: &VarCell, state: [u64; 3]) -> PyResult<()> {
    *cell.value.borrow_mut() = state_tensor(state, cell.device)?;
    Ok(())
}

impl GeneratorObj {
    /// A generator with `state`, one copy per replica when made in a
    /// strategy's scope.
    pub(super) fn make(vm: &dyn Vm, state: [u64; 3]) -> PyResult<Value> {
        let scoped = crate::distribute::context::state(vm)
            .scopes
            .borrow()
            .last()
            .and_then(|s| s.downcast::<StrategyObj>().map(|s| s.devices.clone()));
        let name = crate::distribute::name_scope::scoped(vm, "StateVar");
        let devices = scoped.clone().unwrap_or_else(|| vec![current_device(vm)]);
        let mut states = Vec::new();
        let mut var = None;
        for d in devices {
            let (v, cell) = variables::new_plain(&name, state_tensor(state, d)?, false);
            var.get_or_insert(v);
            states.push(cell);
        }
        Ok(Value::native(GeneratorObj {
            states,
            var: var.filter(|_| scoped.is_none()),
            scoped: scoped.is_some(),
        }))
    }

    /// Every replica's state set to `state`.
    pub(super) fn set_all(&self, state: [u64; 3]) -> PyResult<()> {
        self.states.iter().try_for_each(|c| write_state(c, state))
    }
}

/// TensorFlow's `hash(key, replica_id)`: the first uint64 that
/// `stateless_random_uniform_full_int_v2` draws with that key at counter
/// `[replica_id, 0]`.
fn replica_key(key: u64, replica: u64) -> u64 {
    let mut gen = Philox::from_parts(
        [replica as u32, (replica >> 32) as u32, 0, 0],
        [key as u32, (key >> 32) as u32],
    );
    let b = gen.next_block();
    b[0] as u64 | (b[1] as u64) << 32
}

/// The class of `tf.random.Generator` objects.
pub static GENERATOR: ClassSpec = ClassSpec {
    name: "Generator",
    module: "tensorflow.python.ops.stateful_random_ops",
    bases: &[],
    members: &[
        Member::New(gen_state::generator_new::DEF),
        Member::StaticMethod(from_seed::DEF),
        Member::StaticMethod(from_non_deterministic_state::DEF),
        Member::StaticMethod(gen_state::from_state::DEF),
        Member::StaticMethod(gen_state::from_key_counter::DEF),
        Member::Method(reset_from_seed::DEF),
        Member::Method(gen_state::reset::DEF),
        Member::Method(gen_state::reset_from_key_counter::DEF),
        Member::Method(gen_state::skip::DEF),
        Member::Method(gen_state::split::DEF),
        Member::Method(gen_state::make_seeds::DEF),
        Member::Method(gen_state::uniform_full_int::DEF),
        Member::Getter(gen_state::state::DEF),
        Member::Getter(gen_state::key::DEF),
        Member::Method(normal::DEF),
        Member::Method(truncated_normal::DEF),
        Member::Method(uniform::DEF),
        Member::Getter(algorithm::DEF),
    ],
};

native_class!(GeneratorObj: GENERATOR);

impl NativeObject for GeneratorObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&GENERATOR)
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        match name {
            // what TensorFlow's Generator has and dist's lacks
            "binomial" => {
                Err(PyErr::new(
                    ExcType::NotImplementedError,
                    format!("tf.random.Generator.{name} is part of TensorFlow 2.21 but not implemented in dist"),
                ))
            }
            _ => Ok(None),
        }
    }
}

/// The algorithm: Philox, `tf.random.Algorithm.PHILOX` (1).
#[native("Generator.algorithm(self)")]
fn algorithm(_this: &GeneratorObj) -> i64 {
    1
}

/// A generator whose state comes from the int `seed`: `tf.random.Generator.from_seed(1234)`.
// The state `[seed, 0, 0]`.
#[native("from_seed(seed, alg=None)")]
fn from_seed(vm: &dyn Vm, seed: &Value, alg: &Value) -> PyResult<Value> {
    philox_alg(vm, alg)?;
    let seed = generator_seed(seed)?;
    GeneratorObj::make(vm, [seed, 0, 0])
}

/// A generator whose state comes from the operating system's entropy.
#[native("from_non_deterministic_state(alg=None)")]
fn from_non_deterministic_state(vm: &dyn Vm, alg: &Value) -> PyResult<Value> {
    philox_alg(vm, alg)?;
    let e = random::seed::entropy;
    GeneratorObj::make(vm, [e(), e(), e()])
}

/// Resets the state as `from_seed(seed)` makes it.
#[native("Generator.reset_from_seed(self, seed)")]
fn reset_from_seed(this: &GeneratorObj, seed: &Value) -> PyResult<()> {
    let seed = generator_seed(seed)?;
    this.set_all([seed, 0, 0])
}

/// The Philox algorithm named by `alg` (None: the default), or an error.
pub(super) fn philox_alg(vm: &dyn Vm, alg: &Value) -> PyResult<()> {
    if alg.is_none() {
        return Ok(());
    }
    check_alg(vm, alg)?;
    let is_philox = matches!(alg.as_builtin(), Value::Int(1))
        || matches!(alg.as_builtin(), Value::Str(s) if s.as_str() == "philox");
    if !is_philox {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.random.Generator supports only the Philox algorithm in dist",
        ));
    }
    Ok(())
}

/// A generator's int seed (the first word of its state).
pub(super) fn generator_seed(v: &Value) -> PyResult<u64> {
    match v.as_builtin() {
        Value::Int(s) if *s >= 0 => Ok(*s as u64),
        _ => Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.random.Generator takes a non-negative int seed in dist",
        )),
    }
}

/// Draws `dist` from the generator's stream and moves its counter on.
pub(super) fn generator_draw(
    vm: &dyn Vm,
    g: &GeneratorObj,
    op: &OpDef,
    shape: &Value,
    dist: Distribution,
    dtype: DType,
) -> PyResult<Tensor> {
    let device = current_device(vm);
    let shape = shape_tensor(vm, shape)?;
    let (dims, _) = op.dims(&shape, device)?;
    let n = op.output_len(&dims, dtype, device)?;
    // a scoped generator in a replica: that replica's state and key; in
    // cross-replica context, every replica's state moves on
    let replica = vm.current_replica().filter(|_| g.scoped);
    let idx = replica.unwrap_or(0).min(g.states.len() - 1);
    let [lo, hi, key] = read_state(&g.states[idx]);
    let drawn_key = match replica {
        Some(r) => replica_key(key, r as u64),
        None => key,
    };
    let gen = Philox::from_parts(
        [lo as u32, (lo >> 32) as u32, hi as u32, (hi >> 32) as u32],
        [drawn_key as u32, (drawn_key >> 32) as u32],
    );
    let t = op.draw(gen, dist, dtype, &dims, device)?;
    skip_states(g, replica.map(|_| idx), n as u128)?;
    Ok(t)
}

/// Moves the counter of replica `only`'s state (None: every replica's) on
/// by `n` draws, 256 Philox blocks each, as TensorFlow's `RngReadAndSkip`.
pub(super) fn skip_states(g: &GeneratorObj, only: Option<usize>, n: u128) -> PyResult<()> {
    for (i, cell) in g.states.iter().enumerate() {
        if only.is_some_and(|o| o != i) {
            continue;
        }
        let s = read_state(cell);
        let wide = ((s[1] as u128) << 64 | s[0] as u128).wrapping_add(256u128.wrapping_mul(n));
        write_state(cell, [wide as u64, (wide >> 64) as u64, s[2]])?;
    }
    Ok(())
}

/// `normal` and `truncated_normal`: the raw op, then `rnd * stddev + mean`.
fn normal_like(
    vm: &dyn Vm,
    g: &GeneratorObj,
    (shape, mean, stddev, dtype): (&Value, &Value, &Value, Option<DType>),
    dist: Distribution,
) -> PyResult<Tensor> {
    let dtype = dtype.unwrap_or(DType::Float32);
    let op = if dist == Distribution::Normal {
        &RANDOM_NORMAL
    } else {
        &TRUNCATED_NORMAL
    };
    // TensorFlow converts the mean and stddev first (an int dtype fails there).
    let mean = to_tensor(vm, mean, Some(dtype))?;
    let stddev = to_tensor(vm, stddev, Some(dtype))?;
    check_float_dist(op, dist, dtype)?;
    let rnd = generator_draw(vm, g, op, shape, dist, dtype)?;
    placed(vm, Ok(affine(rnd, &stddev, &mean)?))
}

/// Normally distributed numbers from this generator's stream.
#[native("Generator.normal(self, shape, mean=0.0, stddev=1.0, dtype=None, name=None)")]
fn normal(
    vm: &dyn Vm,
    this: &GeneratorObj,
    shape: &Value,
    mean: &Value,
    stddev: &Value,
    dtype: Option<DType>,
    _name: &Value,
) -> PyResult<Tensor> {
    let args = (shape, mean, stddev, dtype);
    normal_like(vm, this, args, Distribution::Normal)
}

/// Normal numbers within two standard deviations, from this generator's stream.
#[native("Generator.truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=None, name=None)")]
fn truncated_normal(
    vm: &dyn Vm,
    this: &GeneratorObj,
    shape: &Value,
    mean: &Value,
    stddev: &Value,
    dtype: Option<DType>,
    _name: &Value,
) -> PyResult<Tensor> {
    let args = (shape, mean, stddev, dtype);
    normal_like(vm, this, args, Distribution::TruncatedNormal)
}

/// Uniform numbers in `[minval, maxval)` from this generator's stream.
#[native("Generator.uniform(self, shape, minval=0, maxval=None, dtype=None, name=None)")]
fn uniform(
    vm: &dyn Vm,
    this: &GeneratorObj,
    shape: &Value,
    minval: &Value,
    maxval: &Value,
    dtype: Option<DType>,
    _name: &Value,
) -> PyResult<Tensor> {
    let dtype = dtype.unwrap_or(DType::Float32);
    check_uniform_dtype(dtype, false)?;
    if dtype.is_integer() {
        if minval.is_none() != maxval.is_none() {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!(
                    "For integer dtype <dtype: '{}'>, minval and maxval must be both `None` or both non-`None`; got minval={} and maxval={}.",
                    dtype.name(),
                    vm.str(minval)?,
                    vm.str(maxval)?
                ),
            ));
        }
        if maxval.is_none() {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                "Generator.uniform of an integer dtype without minval and maxval (uniform_full_int) is not implemented in dist",
            ));
        }
        // TensorFlow draws a generator's ints with the stateless kernel
        // from the generator's key and counter (its errors name that op).
        let op = &STATELESS_UNIFORM_INT;
        let lo = to_tensor(vm, minval, Some(dtype))?;
        let hi = to_tensor(vm, maxval, Some(dtype))?;
        let device = current_device(vm);
        let (lo, hi) = int_range(op, &lo, &hi, device)?;
        let dist = Distribution::UniformInt { lo, hi };
        let t = generator_draw(vm, this, op, shape, dist, dtype)?;
        return placed(vm, Ok(t));
    }
    let one = Value::Int(1);
    let maxval = if maxval.is_none() { &one } else { maxval };
    let lo = to_tensor(vm, minval, Some(dtype))?;
    let hi = to_tensor(vm, maxval, Some(dtype))?;
    let rnd = generator_draw(
        vm,
        this,
        &RANDOM_UNIFORM,
        shape,
        Distribution::Uniform,
        dtype,
    )?;
    let width = ops::sub(&hi, &lo).map_err(runtime_err)?;
    placed(vm, Ok(affine(rnd, &width, &lo)?))
}
