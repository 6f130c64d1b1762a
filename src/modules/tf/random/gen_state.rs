//! A `tf.random.Generator`'s state as TensorFlow exposes it: the `state`
//! variable (`StateVar`, int64 `[counter_lo, counter_hi, key]`) and `key`,
//! the constructors from a state or a key and counter, `reset`, `skip`,
//! `split` and `make_seeds` (new keys drawn by `uniform_full_int` in int64,
//! as TensorFlow's `_make_int64_keys` draws them), and the global generator
//! (`get_global_generator`, `set_global_generator`).

use std::cell::RefCell;

use super::generator::{
    generator_draw, philox_alg, read_state, skip_states, state_tensor, GeneratorObj,
};
use super::op::STATELESS_FULL_INT;
use crate::modules::tf::convert::{placed, runtime_err, to_tensor};
use crate::object::native;
use crate::runtime::random::Distribution;
use crate::runtime::{ops, DType, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// One int64 word of a state, exactly.
fn word(s: &crate::runtime::Scalar) -> u64 {
    match s {
        crate::runtime::Scalar::Int(i) => *i as u64,
        other => other.as_f64() as i64 as u64,
    }
}

/// A state argument: three int64 words (a list, tuple or tensor).
fn state_arg(vm: &dyn Vm, v: &Value) -> PyResult<[u64; 3]> {
    if crate::distribute::variables::is_variable(v) {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.random.Generator over an existing variable (state=tf.Variable) is not supported in dist",
        ));
    }
    let t = to_tensor(vm, v, Some(DType::Int64))?;
    let words: Vec<u64> = t.to_scalars().iter().map(word).collect();
    match words[..] {
        [a, b, c] if t.rank() == 1 => Ok([a, b, c]),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "Shapes {} and (3,) are incompatible",
                t.shape().tuple_text()
            ),
        )),
    }
}

/// A generator from a full state: `tf.random.Generator(state=[1, 2, 3], alg="philox")`.
#[native("Generator.__init__(copy_from=None, state=None, alg=None)")]
pub(super) fn generator_new(
    vm: &dyn Vm,
    copy_from: &Value,
    state: &Value,
    alg: &Value,
) -> PyResult<Value> {
    if let Some(g) = copy_from.downcast::<GeneratorObj>() {
        if !(alg.is_none() && state.is_none()) {
            return Err(PyErr::new(ExcType::AssertionError, ""));
        }
        return GeneratorObj::make(vm, read_state(&g.states[0]));
    }
    if alg.is_none() || state.is_none() {
        return Err(PyErr::new(ExcType::AssertionError, ""));
    }
    philox_alg(vm, alg)?;
    GeneratorObj::make(vm, state_arg(vm, state)?)
}

/// A generator from a full state.
#[native("from_state(state, alg)")]
pub(super) fn from_state(vm: &dyn Vm, state: &Value, alg: &Value) -> PyResult<Value> {
    philox_alg(vm, alg)?;
    GeneratorObj::make(vm, state_arg(vm, state)?)
}

/// The state of a key and a two-word counter.
fn key_counter(vm: &dyn Vm, key: &Value, counter: &Value) -> PyResult<[u64; 3]> {
    let key = to_tensor(vm, key, Some(DType::Int64))?;
    let counter = to_tensor(vm, counter, Some(DType::Int64))?;
    let c: Vec<u64> = counter.to_scalars().iter().map(word).collect();
    let k = key.get(0).map_or(0, |s| word(&s));
    match c[..] {
        [lo, hi] if counter.rank() == 1 && key.rank() == 0 => Ok([lo, hi, k]),
        _ => Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "Shapes {} and (2,) are incompatible",
                counter.shape().tuple_text()
            ),
        )),
    }
}

/// A generator from a key and a counter (Philox: two words).
#[native("from_key_counter(key, counter, alg)")]
pub(super) fn from_key_counter(
    vm: &dyn Vm,
    key: &Value,
    counter: &Value,
    alg: &Value,
) -> PyResult<Value> {
    philox_alg(vm, alg)?;
    GeneratorObj::make(vm, key_counter(vm, key, counter)?)
}

/// Sets the state.
#[native("Generator.reset(self, state)")]
pub(super) fn reset(vm: &dyn Vm, this: &GeneratorObj, state: &Value) -> PyResult<()> {
    this.set_all(state_arg(vm, state)?)
}

/// Sets the state from a key and a counter.
#[native("Generator.reset_from_key_counter(self, key, counter)")]
pub(super) fn reset_from_key_counter(
    vm: &dyn Vm,
    this: &GeneratorObj,
    key: &Value,
    counter: &Value,
) -> PyResult<()> {
    this.set_all(key_counter(vm, key, counter)?)
}

/// The state variable (`StateVar`), int64 `[counter_lo, counter_hi, key]`.
#[native("Generator.state(self)")]
pub(super) fn state(this: &GeneratorObj) -> PyResult<Value> {
    this.var.clone().ok_or_else(|| {
        PyErr::new(
            ExcType::NotImplementedError,
            "the state of a tf.random.Generator made in a strategy's scope (a mirrored variable in TensorFlow) is not supported in dist",
        )
    })
}

/// The key part of the state, an int64 scalar.
#[native("Generator.key(self)")]
pub(super) fn key(this: &GeneratorObj) -> PyResult<Tensor> {
    let k = read_state(&this.states[0])[2];
    Tensor::from_vec(vec![k as i64], &[]).map_err(runtime_err)
}

/// Moves the stream on as `delta` draws would; the state before.
#[native("Generator.skip(self, delta)")]
pub(super) fn skip(vm: &dyn Vm, this: &GeneratorObj, delta: &Value) -> PyResult<Tensor> {
    let old = read_state(&this.states[0]);
    let d = to_tensor(vm, delta, Some(DType::Int64))?;
    let n = d.get(0).map_or(0, |s| word(&s));
    let replica = vm.current_replica().filter(|_| this.scoped);
    skip_states(this, replica, n as u128)?;
    state_tensor(old, this.states[0].device)
}

/// Integers over the whole range of `dtype` (int32 or int64 in dist).
#[native("Generator.uniform_full_int(self, shape, dtype=None, name=None)")]
pub(super) fn uniform_full_int(
    vm: &dyn Vm,
    this: &GeneratorObj,
    shape: &Value,
    dtype: Option<DType>,
    _name: &Value,
) -> PyResult<Tensor> {
    let dtype = match dtype {
        Some(d @ (DType::Int32 | DType::Int64)) => d,
        None => {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                "Generator.uniform_full_int's default dtype uint64 is not supported in dist; pass dtype=tf.int64 or tf.int32",
            ))
        }
        Some(d) => {
            return Err(STATELESS_FULL_INT.attr_error(
                "dtype",
                d,
                "int32, int64, uint32, uint64",
            ))
        }
    };
    let t = generator_draw(
        vm,
        this,
        &STATELESS_FULL_INT,
        shape,
        Distribution::FullInt,
        dtype,
    )?;
    placed(vm, Ok(t))
}

/// `count` new int64 keys (`_make_int64_keys`).
fn int64_keys(vm: &dyn Vm, g: &GeneratorObj, count: i64) -> PyResult<Tensor> {
    let shape = Value::list(vec![Value::Int(count)]);
    generator_draw(
        vm,
        g,
        &STATELESS_FULL_INT,
        &shape,
        Distribution::FullInt,
        DType::Int64,
    )
}

/// `count` new generators with keys drawn from this one.
#[native("Generator.split(self, count=1)")]
pub(super) fn split(vm: &dyn Vm, this: &GeneratorObj, count: i64) -> PyResult<Value> {
    let keys = int64_keys(vm, this, count)?;
    let gens = keys
        .to_scalars()
        .iter()
        .map(|k| GeneratorObj::make(vm, [0, 0, word(k)]))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Value::list(gens))
}

/// `count` seeds for the stateless ops: a `[2, count]` int64 tensor (new
/// keys over zeros).
#[native("Generator.make_seeds(self, count=1)")]
pub(super) fn make_seeds(vm: &dyn Vm, this: &GeneratorObj, count: i64) -> PyResult<Tensor> {
    let keys = int64_keys(vm, this, count)?;
    let zeros = Tensor::zeros(DType::Int64, keys.dims(), keys.device()).map_err(runtime_err)?;
    ops::stack(&[keys, zeros], 0).map_err(runtime_err)
}

/// The interpreter's global generator (made on first use).
#[derive(Default)]
struct Global(RefCell<Option<Value>>);

/// The global generator: one from non-deterministic state until
/// `set_global_generator` replaces it.
#[native("get_global_generator()")]
pub(super) fn get_global_generator(vm: &dyn Vm) -> PyResult<Value> {
    let g = vm.state().get::<Global>();
    if let Some(v) = g.0.borrow().as_ref() {
        return Ok(v.clone());
    }
    let e = crate::runtime::random::seed::entropy;
    let v = GeneratorObj::make(vm, [e(), e(), e()])?;
    *g.0.borrow_mut() = Some(v.clone());
    Ok(v)
}

/// Replaces the global generator.
#[native("set_global_generator(generator)")]
pub(super) fn set_global_generator(vm: &dyn Vm, generator: &Value) -> PyResult<()> {
    if generator.downcast::<GeneratorObj>().is_none() {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "set_global_generator expects a tf.random.Generator, got {}",
                vm.repr(&vm.type_of(generator))?
            ),
        ));
    }
    *vm.state().get::<Global>().0.borrow_mut() = Some(generator.clone());
    Ok(())
}
