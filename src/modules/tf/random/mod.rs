//! `tf.random`: the global seed (`set_seed`), the stateful ops (`uniform`,
//! `normal`, `truncated_normal`, `shuffle`: [`stateful`]), the stateless
//! ones (`stateless_uniform`, `stateless_normal`,
//! `stateless_truncated_normal`: [`stateless`]) and `tf.random.Generator`
//! ([`generator`]). Argument binding and TensorFlow's Python-side checks
//! live here, in the order TensorFlow runs them; the generator, the
//! distributions and the seeding rules are `runtime::random`.

mod gen_state;
mod generator;
mod op;
pub mod stateful;
pub(crate) use stateful::{skip_seed, uniform_unit};
pub(crate) use stateless::stateless_uniform;
mod stateless;

use std::rc::Rc;

use super::convert::{runtime_err, to_tensor};
use crate::modules::ModuleBuilder;
use crate::runtime::random::{self, SeedState};
use crate::runtime::{DType, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The interpreter's random state.
fn state(vm: &dyn Vm) -> Rc<SeedState> {
    vm.state().get::<SeedState>()
}

/// `repr(dtype)` as TensorFlow's `%r` shows it: `tf.int32`.
fn tf_name(d: DType) -> String {
    format!("tf.{}", d.name())
}

/// The dtypes `tf.random.uniform` accepts, in TensorFlow's words.
fn check_uniform_dtype(d: DType, stateless: bool) -> PyResult<()> {
    if matches!(
        d,
        DType::Float16 | DType::Float32 | DType::Float64 | DType::Int32 | DType::Int64
    ) {
        return Ok(());
    }
    let extra = if stateless {
        ", tf.uint32, tf.uint64"
    } else {
        ""
    };
    Err(PyErr::new(
        ExcType::ValueError,
        format!(
            "Argument `dtype` got invalid value <dtype: '{}'>. Accepted dtypes are (tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64{extra}).",
            d.name()
        ),
    ))
}

/// The `shape` argument as `tensor_util.shape_tensor` converts it: an
/// empty sequence is an int32 vector, a `TensorShape` its dims, anything
/// else goes through `convert_to_tensor`.
fn shape_tensor(vm: &dyn Vm, v: &Value) -> PyResult<Tensor> {
    let empty = || Tensor::from_vec(Vec::<i32>::new(), &[0]).map_err(runtime_err);
    match v {
        Value::List(l) if l.borrow().is_empty() => empty(),
        Value::Tuple(t) if t.is_empty() => empty(),
        Value::Native(n) => {
            if let Some(s) = n.as_any().downcast_ref::<super::shape::TensorShapeObj>() {
                let sdims = match &s.dims {
                    Some(d) if d.iter().all(Option::is_some) => d,
                    d => {
                        return Err(PyErr::new(
                            ExcType::ValueError,
                            format!(
                                "Cannot convert a partially known TensorShape {} to a Tensor.",
                                super::shape::shape_text(d.as_deref())
                            ),
                        ))
                    }
                };
                let dims: Vec<i64> = sdims.iter().map(|d| d.unwrap_or(0) as i64).collect();
                let fits = dims.iter().all(|&d| d <= i32::MAX as i64);
                let n = dims.len();
                return if fits {
                    Tensor::from_vec(dims.iter().map(|&d| d as i32).collect(), &[n])
                } else {
                    Tensor::from_vec(dims, &[n])
                }
                .map_err(runtime_err);
            }
            to_tensor(vm, v, None)
        }
        _ => to_tensor(vm, v, None),
    }
}

/// An op-level `seed=` argument: None or an int (a 0-d integer tensor
/// too). A float seed is reduced as TensorFlow's `_truncate_seed` reduces
/// it (Python's `%`), then the kernel attribute keeps its integer part.
fn seed_arg(vm: &dyn Vm, v: &Value) -> PyResult<Option<i64>> {
    match v {
        Value::None => Ok(None),
        Value::Float(f) if f.is_finite() => {
            let m = random::seed::MAXINT32 as f64;
            Ok(Some((f.rem_euclid(m)).trunc() as i64))
        }
        Value::Str(_) => Err(PyErr::new(
            ExcType::TypeError,
            "not all arguments converted during string formatting",
        )),
        v => match super::convert::int_scalar(vm, v)? {
            Some(i) => Ok(Some(i)),
            None => Err(PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "tf.random: a seed of type {} is not supported in dist; seeds are ints",
                    v.type_name()
                ),
            )),
        },
    }
}

/// `tf.random.set_seed`'s argument: None or an int.
fn global_seed_arg(vm: &dyn Vm, v: &Value) -> PyResult<Option<i64>> {
    match v {
        Value::None => Ok(None),
        v => match super::convert::int_scalar(vm, v)? {
            Some(i) => Ok(Some(i)),
            None => Err(PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "tf.random.set_seed: a seed of type {} is not supported in dist; seeds are ints",
                    v.type_name()
                ),
            )),
        },
    }
}

/// True for the Python int `x` (a bool counts, as `isinstance(True, int)`).
fn is_python_int(v: &Value, x: i64) -> bool {
    match v {
        Value::Int(i) => *i == x,
        Value::Bool(b) => *b as i64 == x,
        _ => false,
    }
}

/// The `alg` argument of the stateless ops: true for ThreeFry, which
/// TensorFlow's CPU kernels reject (Philox is what `auto_select` picks).
fn check_alg(vm: &dyn Vm, v: &Value) -> PyResult<bool> {
    let unsupported = |shown: String| {
        PyErr::new(
            ExcType::ValueError,
            format!("Argument `alg` got unsupported value {shown}. Supported values are philox for the Philox algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection."),
        )
    };
    let name = match v {
        Value::None => return Ok(false),
        Value::Str(s) => s.to_lowercase(),
        Value::Int(1) => "philox".to_string(),
        Value::Int(2) => "threefry".to_string(),
        Value::Int(3) => "auto_select".to_string(),
        Value::Int(i) => {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("Argument `alg` got unsupported value {i}. Supported values are 1 for the Philox algorithm, 2 for the ThreeFry algorithm, and 3 for auto-selection."),
            ))
        }
        other => {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "Can't convert argument `alg` (of value {} and type <class '{}'>) to int.",
                    vm.str(other)?,
                    other.type_name()
                ),
            ))
        }
    };
    match name.as_str() {
        "philox" | "auto_select" => Ok(false),
        "threefry" => Ok(true),
        _ => Err(unsupported(vm.str(v)?)),
    }
}

/// Registers `tf.random`.
pub fn register(m: &mut ModuleBuilder) {
    m.add(stateful::set_seed::DEF)
        .add(stateful::uniform::DEF)
        .add(stateful::normal::DEF)
        .add(stateful::truncated_normal::DEF)
        .add(stateful::shuffle::DEF)
        .add(stateless::stateless_uniform::DEF)
        .add(stateless::stateless_normal::DEF)
        .add(stateless::stateless_truncated_normal::DEF)
        .value("Generator", Value::Class(generator::GENERATOR.class()))
        .add(gen_state::get_global_generator::DEF)
        .add(gen_state::set_global_generator::DEF);
}
