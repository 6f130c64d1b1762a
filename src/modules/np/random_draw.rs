//! What `RandomState` and `Generator` share: the random state they own
//! ([`NpRng`]), the `size=` argument, numpy's `cont` machinery (a Python
//! float without `size`, else a float64 array; array parameters broadcast
//! element by element) and bounded integers in every dtype numpy draws
//! them in. The numbers come from `runtime::random::numpy`.

use std::cell::RefCell;

use num_traits::ToPrimitive;

use super::array::{wrap, wrap_array};
use super::{to_np_tensor, NdArray};
use crate::modules::tf::convert::runtime_err;
use crate::object::types::{int_arg, type_error, value_error};
use crate::runtime::random::numpy::{bounded, BitGen, Buffer, Width};
use crate::runtime::storage::try_vec;
use crate::runtime::{ops, DType, Scalar, Shape, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Which of numpy's two APIs draws: they differ in algorithms and messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `RandomState` and the `np.random.*` functions.
    Legacy,
    /// `Generator` (`default_rng`).
    Generator,
}

/// A random state: the bit generator and, for `RandomState`, the cached
/// second Gaussian of the polar method.
pub struct NpRng {
    /// The bit generator.
    pub bits: BitGen,
    /// The Gaussian kept for the next legacy normal draw.
    pub gauss: Option<f64>,
}

/// The random state of a `RandomState` or `Generator` object.
pub type Cell = RefCell<NpRng>;

/// `size=`: None, an int or a sequence of ints.
pub fn size_arg(vm: &dyn Vm, size: &Value) -> PyResult<Option<Vec<usize>>> {
    let dims: Vec<i64> = match size {
        Value::None => return Ok(None),
        Value::List(_) | Value::Tuple(_) => vm
            .collect(size)?
            .iter()
            .map(|d| int_arg(d, vm))
            .collect::<PyResult<_>>()?,
        Value::Native(n) if n.as_any().is::<NdArray>() => {
            let t = to_np_tensor(vm, size, None)?;
            if t.rank() == 0 {
                vec![int_arg(size, vm)?]
            } else {
                vm.collect(size)?
                    .iter()
                    .map(|d| int_arg(d, vm))
                    .collect::<PyResult<_>>()?
            }
        }
        other => vec![int_arg(other, vm)?],
    };
    dims.into_iter()
        .map(|d| usize::try_from(d).map_err(|_| value_error("negative dimensions are not allowed")))
        .collect::<PyResult<Vec<_>>>()
        .map(Some)
}

/// The number of elements of `dims`, or numpy's MemoryError-like failure.
pub fn count(dims: &[usize]) -> PyResult<usize> {
    Shape::new(dims).checked_numel().map_err(runtime_err)
}

/// `n` values of `draw`, allocated fallibly.
pub fn draw_n<T: Send + 'static>(n: usize, mut draw: impl FnMut() -> T) -> PyResult<Vec<T>> {
    let mut v = try_vec(n).map_err(runtime_err)?;
    for _ in 0..n {
        v.push(draw());
    }
    Ok(v)
}

/// Floats drawn by `draw`: a Python float without `size`, else an array.
pub fn floats(
    cell: &Cell,
    size: Option<Vec<usize>>,
    draw: fn(&mut NpRng) -> f64,
) -> PyResult<Value> {
    let mut rng = cell.borrow_mut();
    match size {
        None => Ok(Value::Float(draw(&mut rng))),
        Some(dims) => {
            let v = draw_n(count(&dims)?, || draw(&mut rng))?;
            Ok(wrap_array(Tensor::from_vec(v, &dims).map_err(runtime_err)?))
        }
    }
}

/// A float parameter as a float64 array (numpy's `PyArray_FROM_OTF(x, NPY_DOUBLE)`).
fn float_param(vm: &dyn Vm, v: &Value) -> PyResult<Tensor> {
    to_np_tensor(vm, v, Some(DType::Float64))
}

/// A check on a parameter's values (numpy's `check_constraint`): its message.
pub type Constraint = fn(f64) -> bool;

/// `x < 0` as numpy's `CONS_NON_NEGATIVE` sees it (-0.0 too).
pub fn negative(x: f64) -> bool {
    !x.is_nan() && x.is_sign_negative()
}

/// numpy's `cont` with two parameters: `f(rng, a, b)` per element. Both
/// scalar: a Python float without `size`; otherwise an array of `size` or
/// of the parameters' broadcast shape, each element with its parameters.
/// `b_check` names `b` and the values it rejects (`scale < 0`).
pub fn cont2(
    vm: &dyn Vm,
    cell: &Cell,
    a: &Value,
    b: &Value,
    size: &Value,
    b_check: Option<(&str, Constraint)>,
    f: fn(&mut NpRng, f64, f64) -> f64,
) -> PyResult<Value> {
    let (ta, tb) = (float_param(vm, a)?, float_param(vm, b)?);
    let size = size_arg(vm, size)?;
    let check = |vals: &[f64]| -> PyResult<()> {
        if let Some((name, bad)) = b_check {
            if vals.iter().any(|&x| bad(x)) {
                return Err(value_error(format!("{name} < 0")));
            }
        }
        Ok(())
    };
    if ta.rank() == 0 && tb.rank() == 0 {
        let (x, y) = (scalar_f64(&ta), scalar_f64(&tb));
        check(&[y])?;
        let mut rng = cell.borrow_mut();
        return match size {
            None => Ok(Value::Float(f(&mut rng, x, y))),
            Some(dims) => {
                let v = draw_n(count(&dims)?, || f(&mut rng, x, y))?;
                Ok(wrap_array(Tensor::from_vec(v, &dims).map_err(runtime_err)?))
            }
        };
    }
    let bvals = f64s(&tb);
    check(&bvals)?;
    let dims = out_dims(size, &[ta.dims(), tb.dims()])?;
    let av = f64s(&ops::broadcast_to(&ta, &dims).map_err(runtime_err)?);
    let bv = f64s(&ops::broadcast_to(&tb, &dims).map_err(runtime_err)?);
    let mut rng = cell.borrow_mut();
    let mut i = 0;
    let v = draw_n(av.len(), || {
        let r = f(&mut rng, av[i], bv[i]);
        i += 1;
        r
    })?;
    Ok(wrap_array(Tensor::from_vec(v, &dims).map_err(runtime_err)?))
}

/// numpy's `cont` with one parameter: `f(rng, a)` per element, `a`
/// checked by `check` (its name and the values it rejects).
pub fn cont1(
    vm: &dyn Vm,
    cell: &Cell,
    a: &Value,
    size: &Value,
    check: (&str, Constraint),
    f: fn(&mut NpRng, f64) -> f64,
) -> PyResult<Value> {
    let ta = float_param(vm, a)?;
    let size = size_arg(vm, size)?;
    let av = f64s(&ta);
    if av.iter().any(|&x| (check.1)(x)) {
        return Err(value_error(format!("{} < 0", check.0)));
    }
    per_param(cell, &ta, size, f64::NAN, Value::Float, f)
}

/// One draw per element of the parameter `t` (numpy's `cont`/`disc` with
/// one parameter): a Python scalar (`scalar`) for a 0-d parameter without
/// `size` (`empty` when it holds nothing), else an array of the
/// parameter broadcast to `size`.
fn per_param<T: crate::runtime::storage::Elem>(
    cell: &Cell,
    t: &Tensor,
    size: Option<Vec<usize>>,
    empty: f64,
    scalar: fn(T) -> Value,
    f: impl Fn(&mut NpRng, f64) -> T,
) -> PyResult<Value> {
    let dims = match (t.rank(), size) {
        (0, None) => {
            let x = f64s(t).first().copied().unwrap_or(empty);
            return Ok(scalar(f(&mut cell.borrow_mut(), x)));
        }
        (0, Some(d)) => d,
        (_, size) => out_dims(size, &[t.dims()])?,
    };
    let values = f64s(&ops::broadcast_to(t, &dims).map_err(runtime_err)?);
    let mut rng = cell.borrow_mut();
    let mut i = 0;
    let v = draw_n(values.len(), || {
        let r = f(&mut rng, values[i]);
        i += 1;
        r
    })?;
    Ok(wrap_array(Tensor::from_vec(v, &dims).map_err(runtime_err)?))
}

/// The largest `lam` numpy's Poisson sampler takes (`POISSON_LAM_MAX`).
const POISSON_LAM_MAX: f64 = 9.223372006484771e18;

/// `poisson(lam, size)`: numpy's `disc` with one parameter, an int (a
/// Python int without `size`) or an int64 array, `lam` checked as
/// numpy's `CONS_POISSON` checks it.
pub fn poisson(vm: &dyn Vm, cell: &Cell, lam: &Value, size: &Value) -> PyResult<Value> {
    let t = float_param(vm, lam)?;
    let size = size_arg(vm, size)?;
    let lv = f64s(&t);
    // numpy's comparisons, where NaN fails both
    let nonnegative = |x: f64| x >= 0.0;
    let in_range = |x: f64| x <= POISSON_LAM_MAX;
    if t.rank() == 0 {
        let x = lv.first().copied().unwrap_or(f64::NAN);
        if !nonnegative(x) {
            return Err(value_error("lam < 0 or lam is NaN"));
        }
        if !in_range(x) {
            return Err(value_error("lam value too large"));
        }
    } else if !lv.iter().all(|&x| in_range(x)) {
        return Err(value_error("lam value too large"));
    } else if !lv.iter().all(|&x| nonnegative(x)) {
        return Err(value_error("lam < 0 or lam contains NaNs"));
    }
    per_param(cell, &t, size, 0.0, Value::Int, |r: &mut NpRng, x: f64| {
        crate::runtime::random::numpy::poisson(&mut r.bits, x)
    })
}

/// `bytes(length)`: the little-endian bytes of 32-bit draws, cut to `length`.
pub fn random_bytes(cell: &Cell, length: i64) -> PyResult<Value> {
    let n =
        usize::try_from(length).map_err(|_| value_error("negative dimensions are not allowed"))?;
    let mut rng = cell.borrow_mut();
    // numpy counts `(length - 1) // 4 + 1` words in C division: one for 0
    let words = draw_n(n.div_ceil(4).max(1), || rng.bits.next_u32())?;
    let mut out: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    out.truncate(n);
    Ok(Value::Bytes(std::rc::Rc::new(out)))
}

/// numpy's broadcast of several shapes (`PyArray_Broadcast`), with its
/// message naming the argument that set a dimension and the one that
/// disagrees.
pub fn broadcast_all(shapes: &[&[usize]]) -> PyResult<Vec<usize>> {
    let nd = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; nd];
    for (i, o) in out.iter_mut().enumerate() {
        let mut src = 0;
        for (j, s) in shapes.iter().enumerate() {
            let Some(k) = (i + s.len()).checked_sub(nd) else {
                continue;
            };
            let d = s[k];
            if d == 1 {
                continue;
            }
            if *o == 1 {
                *o = d;
                src = j;
            } else if *o != d {
                return Err(value_error(format!(
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg {src} with shape {} and arg {j} with shape {}.",
                    py_tuple(shapes[src]),
                    py_tuple(s)
                )));
            }
        }
    }
    Ok(out)
}

/// The output shape of a draw with array parameters: `size` (which the
/// parameters must broadcast to) or their broadcast shape.
pub fn out_dims(size: Option<Vec<usize>>, params: &[&[usize]]) -> PyResult<Vec<usize>> {
    let Some(size) = size else {
        return broadcast_all(params);
    };
    let mut all: Vec<&[usize]> = vec![&size];
    all.extend_from_slice(params);
    let joint = broadcast_all(&all)?;
    if joint != size {
        return Err(value_error(format!(
            "Output size {} is not compatible with broadcast dimensions of inputs {}.",
            py_tuple(&size),
            py_tuple(&joint)
        )));
    }
    Ok(size)
}

/// A shape as Python prints a tuple: `(2,)`, `(2, 3)`, `()`.
pub fn py_tuple(d: &[usize]) -> String {
    match d {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            d.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn scalar_f64(t: &Tensor) -> f64 {
    t.get(0).map_or(f64::NAN, |s| s.as_f64())
}

/// The elements of `t` as doubles.
pub fn f64s(t: &Tensor) -> Vec<f64> {
    t.to_scalars().iter().map(|s| s.as_f64()).collect()
}

/// The dtype `randint`/`integers` draws in, and whether a scalar result is
/// a Python int or bool (`dtype=int`, `dtype=bool`) rather than a numpy scalar.
/// Without `dtype`: int64, a Python int for the legacy API (`dtype=int`).
pub fn int_dtype(vm: &dyn Vm, dtype: Option<&Value>, api: Api) -> PyResult<(DType, bool)> {
    let Some(dtype) = dtype else {
        return Ok((DType::Int64, api == Api::Legacy));
    };
    let python = matches!(dtype, Value::Class(c) if &*c.module == "builtins" && matches!(&*c.name, "int" | "bool"));
    let d = super::dtype::np_dtype_arg(vm, dtype)?;
    match d {
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 | DType::UInt8 | DType::Bool => {
            Ok((d, python))
        }
        other => Err(type_error(format!(
            "Unsupported dtype dtype('{}') for {}",
            other.numpy_name(),
            if api == Api::Legacy {
                "randint"
            } else {
                "integers"
            }
        ))),
    }
}

/// The closed range of values of an integer dtype and how numpy draws it.
fn bounds(d: DType) -> (i128, i128, Width) {
    match d {
        DType::Bool => (0, 1, Width::Bool),
        DType::Int8 => (-128, 127, Width::W8),
        DType::UInt8 => (0, 255, Width::W8),
        DType::Int16 => (-32768, 32767, Width::W16),
        DType::Int32 => (i32::MIN as i128, i32::MAX as i128, Width::W32),
        _ => (i64::MIN as i128, i64::MAX as i128, Width::W64),
    }
}

/// An integer bound as numpy's `int(np.asarray(x))` reads it.
fn int_bound(vm: &dyn Vm, v: &Value) -> PyResult<i128> {
    match v {
        Value::Int(i) => Ok(*i as i128),
        Value::Bool(b) => Ok(*b as i128),
        Value::Long(b) => b
            .to_i128()
            .ok_or_else(|| value_error("high is out of bounds for int64")),
        Value::Float(f) if f.is_finite() => Ok(f.trunc() as i128),
        Value::Float(f) if f.is_nan() => Err(value_error("cannot convert float NaN to integer")),
        Value::Float(_) => Err(PyErr::new(
            ExcType::OverflowError,
            "cannot convert float infinity to integer",
        )),
        other => {
            let t = to_np_tensor(vm, other, None)?;
            match t.get(0) {
                Some(Scalar::Float(f)) => int_bound(vm, &Value::Float(f)),
                Some(Scalar::Int(i)) => Ok(i as i128),
                Some(Scalar::Bool(b)) => Ok(b as i128),
                _ => Err(type_error("an integer is required")),
            }
        }
    }
}

/// numpy's message for an empty range (`format_bounds_error`).
fn bounds_error(closed: bool, low_all_zero: bool) -> PyErr {
    value_error(match (low_all_zero, closed) {
        (true, false) => "high <= 0",
        (true, true) => "high < 0",
        (false, false) => "low >= high",
        (false, true) => "low > high",
    })
}

/// Integers in `[low, high)` (`[low, high]` when `closed`) in `dtype`:
/// numpy's `_rand_<dtype>`, masked rejection for the legacy API, Lemire's
/// for the Generator.
#[allow(clippy::too_many_arguments)]
pub fn integers(
    vm: &dyn Vm,
    cell: &Cell,
    low: &Value,
    high: &Value,
    size: &Value,
    dtype: Option<&Value>,
    closed: bool,
    api: Api,
) -> PyResult<Value> {
    let (low, high) = match high {
        Value::None => (&Value::Int(0), low),
        h => (low, h),
    };
    let (d, python) = int_dtype(vm, dtype, api)?;
    let size = size_arg(vm, size)?;
    let masked = api == Api::Legacy;
    let name = d.numpy_name();
    let (lb, ub, width) = bounds(d);
    if let Some(dims) = &size {
        if count(dims)? == 0 {
            return Ok(wrap_array(
                Tensor::zeros(d, dims, crate::runtime::Device::CPU0).map_err(runtime_err)?,
            ));
        }
    }
    let is_array = |v: &Value| {
        v.downcast::<NdArray>()
            .is_some_and(|n| n.tensor().rank() > 0)
            || matches!(v, Value::List(_) | Value::Tuple(_) | Value::Tensor(_))
    };
    if is_array(low) || is_array(high) {
        return integers_broadcast(vm, cell, low, high, size, d, closed, masked);
    }
    let lo = int_bound(vm, low)?;
    let hi = int_bound(vm, high)? - !closed as i128;
    if lo < lb {
        return Err(value_error(format!("low is out of bounds for {name}")));
    }
    if hi > ub {
        return Err(value_error(format!("high is out of bounds for {name}")));
    }
    if lo > hi {
        return Err(bounds_error(closed, lo == 0));
    }
    let rng = (hi - lo) as u64;
    let mut state = cell.borrow_mut();
    let mut buf = Buffer::default();
    let mut one = || (lo + bounded(&mut state.bits, rng, width, masked, &mut buf) as i128) as i64;
    match size {
        None => {
            let v = one();
            if python {
                return Ok(if d == DType::Bool {
                    Value::Bool(v != 0)
                } else {
                    Value::Int(v)
                });
            }
            let t = Tensor::from_vec(vec![v], &[]).map_err(runtime_err)?;
            Ok(wrap(ops::cast(&t, d).map_err(runtime_err)?))
        }
        Some(dims) => {
            let v = draw_n(count(&dims)?, one)?;
            let t = Tensor::from_vec(v, &dims).map_err(runtime_err)?;
            Ok(wrap_array(ops::cast(&t, d).map_err(runtime_err)?))
        }
    }
}

/// `integers` with array bounds: each element drawn with its own bounds,
/// the small-width buffer shared along the way as numpy's loop shares it.
#[allow(clippy::too_many_arguments)]
fn integers_broadcast(
    vm: &dyn Vm,
    cell: &Cell,
    low: &Value,
    high: &Value,
    size: Option<Vec<usize>>,
    d: DType,
    closed: bool,
    masked: bool,
) -> PyResult<Value> {
    let name = d.numpy_name();
    let (lb, ub, width) = bounds(d);
    let as_ints = |v: &Value| -> PyResult<(Tensor, Vec<i128>)> {
        let t = to_np_tensor(vm, v, None)?;
        let vals = t
            .to_scalars()
            .iter()
            .map(|s| match s {
                Scalar::Int(i) => Ok(*i as i128),
                Scalar::Bool(b) => Ok(*b as i128),
                Scalar::Float(f) if f.is_finite() => Ok(f.trunc() as i128),
                _ => Err(value_error("cannot convert float NaN to integer")),
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok((t, vals))
    };
    let (tl, lv) = as_ints(low)?;
    let (th, hv) = as_ints(high)?;
    if lv.iter().any(|&x| x < lb) {
        return Err(value_error(format!("low is out of bounds for {name}")));
    }
    if hv.iter().any(|&x| x - !closed as i128 > ub) {
        return Err(value_error(format!("high is out of bounds for {name}")));
    }
    if tl.shape().broadcast(th.shape()).is_none() {
        return Err(value_error(format!(
            "operands could not be broadcast together with shapes {} {} ",
            py_tuple(tl.dims()),
            py_tuple(th.dims())
        )));
    }
    let dims = match size {
        Some(size) => {
            broadcast_all(&[tl.dims(), th.dims(), &size])?;
            out_dims(Some(size), &[tl.dims(), th.dims()])?
        }
        None => broadcast_all(&[tl.dims(), th.dims()])?,
    };
    let index = |t: &Tensor| -> PyResult<Vec<usize>> {
        let n = t.numel();
        let ids: Vec<i64> = (0..n as i64).collect();
        let it = Tensor::from_vec(ids, t.dims()).map_err(runtime_err)?;
        let b = ops::broadcast_to(&it, &dims).map_err(runtime_err)?;
        Ok(b.to_scalars().iter().map(|s| s.as_f64() as usize).collect())
    };
    let (li, hi) = (index(&tl)?, index(&th)?);
    let pairs: Vec<(i128, i128)> = li
        .iter()
        .zip(&hi)
        .map(|(&a, &b)| (lv[a], hv[b] - !closed as i128))
        .collect();
    if pairs.iter().any(|&(a, b)| a > b) {
        return Err(bounds_error(closed, lv.iter().all(|&x| x == 0)));
    }
    let mut state = cell.borrow_mut();
    let mut buf = Buffer::default();
    let mut k = 0;
    let v = draw_n(pairs.len(), || {
        let (lo, hi) = pairs[k];
        k += 1;
        (lo + bounded(&mut state.bits, (hi - lo) as u64, width, masked, &mut buf) as i128) as i64
    })?;
    let t = Tensor::from_vec(v, &dims).map_err(runtime_err)?;
    Ok(wrap_array(ops::cast(&t, d).map_err(runtime_err)?))
}

/// The methods numpy's `Generator` has (numpy 2.4), for the error on those dist lacks.
pub const GENERATOR_METHODS: &[&str] = &[
    "beta",
    "binomial",
    "bit_generator",
    "bytes",
    "chisquare",
    "choice",
    "dirichlet",
    "exponential",
    "f",
    "gamma",
    "geometric",
    "gumbel",
    "hypergeometric",
    "integers",
    "laplace",
    "logistic",
    "lognormal",
    "logseries",
    "multinomial",
    "multivariate_hypergeometric",
    "multivariate_normal",
    "negative_binomial",
    "noncentral_chisquare",
    "noncentral_f",
    "normal",
    "pareto",
    "permutation",
    "permuted",
    "poisson",
    "power",
    "random",
    "rayleigh",
    "shuffle",
    "spawn",
    "standard_cauchy",
    "standard_exponential",
    "standard_gamma",
    "standard_normal",
    "standard_t",
    "triangular",
    "uniform",
    "vonmises",
    "wald",
    "weibull",
    "zipf",
];

/// The methods numpy's `RandomState` has (numpy 2.4).
pub const RANDOM_STATE_METHODS: &[&str] = &[
    "beta",
    "binomial",
    "bytes",
    "chisquare",
    "choice",
    "dirichlet",
    "exponential",
    "f",
    "gamma",
    "geometric",
    "get_state",
    "gumbel",
    "hypergeometric",
    "laplace",
    "logistic",
    "lognormal",
    "logseries",
    "multinomial",
    "multivariate_normal",
    "negative_binomial",
    "noncentral_chisquare",
    "noncentral_f",
    "normal",
    "pareto",
    "permutation",
    "poisson",
    "power",
    "rand",
    "randint",
    "randn",
    "random",
    "random_integers",
    "random_sample",
    "rayleigh",
    "seed",
    "set_state",
    "shuffle",
    "standard_cauchy",
    "standard_exponential",
    "standard_gamma",
    "standard_normal",
    "standard_t",
    "tomaxint",
    "triangular",
    "uniform",
    "vonmises",
    "wald",
    "weibull",
    "zipf",
];

/// `NotImplementedError` for a method of `class` that numpy has and dist
/// lacks; None for a name numpy does not have either.
pub fn missing_method(class: &str, name: &str, numpy_names: &[&str]) -> Option<PyErr> {
    numpy_names.contains(&name).then(|| {
        PyErr::new(
            ExcType::NotImplementedError,
            format!("numpy.random.{class}.{name} is part of numpy but not implemented in dist"),
        )
    })
}
