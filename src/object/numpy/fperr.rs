//! numpy's floating-point error handling (`np.seterr`, `np.geterr`, and
//! `np.errstate` in `stdlib/numpy_py.dist`): after a ufunc or an operator
//! on arrays, each condition its result shows (a division by zero, an
//! overflow, an invalid operation) is ignored, warned about (a
//! RuntimeWarning through the `warnings` module), raised
//! (FloatingPointError) or printed, as the error state says, in numpy's
//! order and with its messages (`divide by zero encountered in log`,
//! `... in scalar divide` for numpy scalars).
//!
//! numpy reads the FPU's flags; dist reads the result, which tells the
//! same for element-wise functions: an infinity made from finite inputs is
//! a division by zero where the function divides by a zero (or takes the
//! log of one: the `log`s, `reciprocal`, `arctanh`, `power` of a zero
//! base), else an overflow; a NaN made from inputs that are not NaN is an
//! invalid operation; an integer floor division or remainder by zero is a
//! division by zero. (Past a million elements the whole tensors are
//! summarised instead of compared element by element, so the check never
//! takes more than a few copies of a megabyte-sized result.) Underflow is
//! not detected: numpy ignores it by
//! default, and `np.seterr(under=...)` says once that dist does not act on
//! it (`modules/np/errstate.rs`, which names these in Python).

use std::cell::Cell;

use crate::runtime::{ops, DType, Tensor};
use crate::value::{Dict, ExcType, PyErr, PyResult, Value, Vm};

/// What numpy does on a condition.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Ignore,
    Warn,
    Raise,
    Call,
    Print,
    Log,
}

const MODES: [(&str, Mode); 6] = [
    ("ignore", Mode::Ignore),
    ("warn", Mode::Warn),
    ("raise", Mode::Raise),
    ("call", Mode::Call),
    ("print", Mode::Print),
    ("log", Mode::Log),
];

/// The conditions, in numpy's order.
const KEYS: [&str; 4] = ["divide", "over", "under", "invalid"];

/// The error state (interpreter state): a mode per condition.
pub struct ErrState(Cell<[Mode; 4]>);

impl Default for ErrState {
    fn default() -> ErrState {
        ErrState(Cell::new([
            Mode::Warn,
            Mode::Warn,
            Mode::Ignore,
            Mode::Warn,
        ]))
    }
}

fn mode_name(m: Mode) -> &'static str {
    MODES
        .iter()
        .find(|(_, x)| *x == m)
        .map_or("ignore", |(n, _)| n)
}

/// The error state as numpy's `geterr()` dict.
fn as_dict(modes: [Mode; 4]) -> Value {
    let mut d = Dict::new();
    for (k, m) in KEYS.iter().zip(modes) {
        let _ = d.insert_str(k, Value::str(mode_name(m)));
    }
    Value::dict(d)
}

/// How floating-point errors are handled now (`np.geterr()`).
pub fn geterr_dict(vm: &dyn Vm) -> Value {
    as_dict(vm.state().get::<ErrState>().0.get())
}

/// Sets how floating-point errors are handled (`np.seterr`): `all` for the
/// conditions not named. Returns the settings before and whether underflow
/// is now anything but ignored (which dist does not detect).
pub fn seterr_values(vm: &dyn Vm, all: &Value, each: [&Value; 4]) -> PyResult<(Value, bool)> {
    let parse = |v: &Value| -> PyResult<Option<Mode>> {
        match v {
            Value::None => Ok(None),
            Value::Str(s) => MODES
                .iter()
                .find(|(n, _)| **n == **s)
                .map(|(_, m)| Some(*m))
                .ok_or_else(|| {
                    PyErr::new(ExcType::ValueError, format!("invalid error mode '{s}'"))
                }),
            other => Err(PyErr::new(
                ExcType::ValueError,
                format!("invalid error mode {}", vm.repr(other)?),
            )),
        }
    };
    let all = parse(all)?;
    let state = vm.state().get::<ErrState>();
    let old = state.0.get();
    let mut modes = old;
    for (i, v) in each.into_iter().enumerate() {
        if let Some(m) = parse(v)?.or(all) {
            modes[i] = m;
        }
    }
    state.0.set(modes);
    Ok((as_dict(old), modes[2] != Mode::Ignore))
}

/// Whether a float tensor holds an infinity or a NaN.
fn any_nonfinite(t: &Tensor) -> bool {
    match t.dtype() {
        DType::Float64 => t
            .as_slice::<f64>()
            .is_some_and(|s| s.iter().any(|x| !x.is_finite())),
        DType::Float32 => t
            .as_slice::<f32>()
            .is_some_and(|s| s.iter().any(|x| !x.is_finite())),
        DType::Float16 => ops::cast(t, DType::Float32).is_ok_and(|c| any_nonfinite(&c)),
        _ => false,
    }
}

/// `t` broadcast to `dims`, as float64 values.
fn f64s(t: &Tensor, dims: &[usize]) -> Option<Vec<f64>> {
    let b = ops::broadcast_to(t, dims).ok()?;
    let c = ops::cast(&b, DType::Float64).ok()?;
    c.as_slice::<f64>().map(<[f64]>::to_vec)
}

/// The functions whose infinities from finite inputs are divisions by
/// zero, and which input's zero makes them (None: any infinity).
fn divides(name: &str) -> Option<Option<usize>> {
    Some(match name {
        "divide" | "true_divide" | "floor_divide" | "remainder" | "mod" | "fmod" | "divmod" => {
            Some(1)
        }
        "power" | "float_power" => Some(0),
        "log" | "log2" | "log10" | "log1p" | "reciprocal" | "arctanh" => None,
        _ => return None,
    })
}

/// (divide by zero, overflow, invalid value) in `r`, the result of `name`
/// on `inputs`.
fn conditions(name: &str, inputs: &[&Tensor], r: &Tensor) -> (bool, bool, bool) {
    if !r.dtype().is_floating() {
        // an integer floor division or remainder by zero; an integer
        // reciprocal of zero (numpy computes 1.0 / 0 and casts the
        // infinity: also invalid)
        let has_zero = |k: usize| {
            inputs.get(k).is_some_and(|d| {
                ops::cast(d, DType::Int64)
                    .ok()
                    .is_some_and(|c| c.as_slice::<i64>().is_some_and(|s| s.contains(&0)))
            })
        };
        return match name {
            "floor_divide" | "remainder" | "fmod" | "divmod" => (has_zero(1), false, false),
            "reciprocal" => {
                let zero = has_zero(0);
                (zero, false, zero)
            }
            _ => (false, false, false),
        };
    }
    if !any_nonfinite(r) {
        return (false, false, false);
    }
    if r.numel() > EXACT_LIMIT {
        return summary_conditions(name, inputs, r);
    }
    let dims = r.dims();
    let (Some(out), Some(ins)) = (
        f64s(r, dims),
        inputs
            .iter()
            .map(|t| f64s(t, dims))
            .collect::<Option<Vec<_>>>(),
    ) else {
        return (false, false, false);
    };
    let zero_maker = divides(name);
    let (mut divide, mut over, mut invalid) = (false, false, false);
    for (i, y) in out.iter().enumerate() {
        if y.is_nan() {
            invalid |= !ins.iter().any(|x| x[i].is_nan());
        } else if y.is_infinite() && ins.iter().all(|x| x[i].is_finite()) {
            match zero_maker {
                Some(None) => divide = true,
                Some(Some(k)) if ins.get(k).is_some_and(|x| x[i] == 0.0) => divide = true,
                _ => over = true,
            }
        }
    }
    (divide, over, invalid)
}

/// The most elements whose inputs are compared one by one (as float64
/// copies broadcast to the result: a few times its size); past it the
/// whole tensors are summarised instead.
const EXACT_LIMIT: usize = 1 << 20;

/// (has a NaN, has an infinity, has a zero) of a tensor, read in place.
fn summary(t: &Tensor) -> (bool, bool, bool) {
    fn floats<T: Copy>(s: &[T], f: impl Fn(T) -> f64) -> (bool, bool, bool) {
        s.iter().fold((false, false, false), |(n, i, z), &x| {
            let x = f(x);
            (n || x.is_nan(), i || x.is_infinite(), z || x == 0.0)
        })
    }
    macro_rules! ints {
        ($($d:ident $t:ty),*) => {
            match t.dtype() {
                DType::Float64 => t.as_slice::<f64>().map(|s| floats(s, |x| x)),
                DType::Float32 => t.as_slice::<f32>().map(|s| floats(s, f64::from)),
                DType::Float16 => t.as_slice::<crate::runtime::F16>().map(|s| floats(s, |x| x.to_f64())),
                DType::Bool => t.as_slice::<bool>().map(|s| (false, false, s.contains(&false))),
                $(DType::$d => t.as_slice::<$t>().map(|s| (false, false, s.contains(&0))),)*
                _ => None,
            }
        };
    }
    ints!(Int8 i8, UInt8 u8, Int16 i16, Int32 i32, Int64 i64).unwrap_or((false, false, false))
}

/// [`conditions`] for a large result, from summaries of the whole tensors:
/// a NaN when no input has one is invalid; an infinity when no input has
/// one is a division by zero if the dividing input has a zero, else an
/// overflow.
fn summary_conditions(name: &str, inputs: &[&Tensor], r: &Tensor) -> (bool, bool, bool) {
    let (r_nan, r_inf, _) = summary(r);
    let ins: Vec<_> = inputs.iter().map(|t| summary(t)).collect();
    let invalid = r_nan && !ins.iter().any(|s| s.0);
    let inf = r_inf && !ins.iter().any(|s| s.1);
    let divide = inf
        && match divides(name) {
            Some(None) => true,
            Some(Some(k)) => ins.get(k).is_some_and(|s| s.2),
            None => false,
        };
    (divide, inf && !divide, invalid)
}

/// Reports what ufunc `name` (an operator of numpy scalars: `scalar`)
/// flags in its result `r` of `inputs`, as the error state says.
pub fn check(
    vm: &dyn Vm,
    name: &str,
    scalar: bool,
    inputs: &[&Tensor],
    r: &Tensor,
) -> PyResult<()> {
    let modes = vm.state().get::<ErrState>().0.get();
    if modes[0] == Mode::Ignore && modes[1] == Mode::Ignore && modes[3] == Mode::Ignore {
        return Ok(());
    }
    // numpy's aliases are one ufunc, named by its own name
    let name = match name {
        "true_divide" => "divide",
        "mod" => "remainder",
        other => other,
    };
    let (divide, over, invalid) = conditions(name, inputs, r);
    let scalar = if scalar { "scalar " } else { "" };
    for (flag, mode, what) in [
        (divide, modes[0], "divide by zero"),
        (over, modes[1], "overflow"),
        (invalid, modes[3], "invalid value"),
    ] {
        if !flag {
            continue;
        }
        let msg = format!("{what} encountered in {scalar}{name}");
        match mode {
            Mode::Ignore => {}
            Mode::Warn => {
                let warnings = vm.import_module("warnings")?;
                let warn = vm.getattr(&warnings, "warn")?;
                let category = Value::Class(ExcType::RuntimeWarning.class());
                vm.call(&warn, vec![Value::str(msg), category], Vec::new())?;
            }
            Mode::Raise => return Err(PyErr::new(ExcType::FloatingPointError, msg)),
            Mode::Print => vm.write_stdout(&format!("Warning: {msg}\n")),
            Mode::Call | Mode::Log => {
                return Err(PyErr::new(
                    ExcType::NotImplementedError,
                    format!(
                        "np.seterr's '{}' mode is not supported in dist ({msg})",
                        mode_name(mode)
                    ),
                ))
            }
        }
    }
    Ok(())
}
