//! `numpy.random.default_rng` and `Generator`: numpy's new API over PCG64
//! seeded through `SeedSequence`, with its own algorithms (the ziggurat
//! normal, Lemire's bounded integers, Floyd's sampling without
//! replacement) and messages.

use std::cell::RefCell;
use std::rc::Rc;

use num_traits::ToPrimitive;

use super::random::{entropy_words, uniform_range};
use super::random_draw::{self as draw, cont1, cont2, floats, size_arg, Api, Cell, NpRng};
use super::random_seq;
use crate::modules::ModuleBuilder;
use crate::object::native::Given;
use crate::object::types::{type_error, value_error};
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::runtime::random::numpy::{ziggurat_exponential, ziggurat_normal, BitGen};
use crate::runtime::random::pcg64::{int_words, Pcg64, SeedSequence};
use crate::runtime::{DType, Tensor};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// `numpy.random.Generator` over PCG64.
pub struct Generator {
    rng: Rc<Cell>,
}

/// `numpy.random.Generator`.
pub static GENERATOR: ClassSpec = ClassSpec {
    name: "Generator",
    module: "numpy.random._generator",
    bases: &[],
    members: &[
        Member::Method(random::DEF),
        Member::Method(integers::DEF),
        Member::Method(standard_normal::DEF),
        Member::Method(normal::DEF),
        Member::Method(lognormal::DEF),
        Member::Method(poisson::DEF),
        Member::Method(bytes::DEF),
        Member::Method(exponential::DEF),
        Member::Method(standard_exponential::DEF),
        Member::Method(uniform::DEF),
        Member::Method(choice::DEF),
        Member::Method(shuffle::DEF),
        Member::Method(permutation::DEF),
    ],
};

impl NativeClass for Generator {
    const SPEC: &'static ClassSpec = &GENERATOR;
}

impl NativeObject for Generator {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&GENERATOR)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("Generator(PCG64) at 0x{:X}", this.id()))
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok("Generator(PCG64)".into())
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        match draw::missing_method("Generator", name, draw::GENERATOR_METHODS) {
            Some(e) => Err(e),
            None => Ok(None),
        }
    }
}

/// The entropy of a `default_rng` seed as `SeedSequence` reads it: a
/// non-negative int or a sequence of them.
fn seed_words(vm: &dyn Vm, seed: &Value) -> PyResult<Vec<u32>> {
    let one = |v: &Value| -> PyResult<Vec<u32>> {
        let n = match v {
            Value::Int(i) => Some(*i as i128),
            Value::Bool(b) => Some(*b as i128),
            // any size: its 32-bit words, least significant first
            Value::Long(b) if b.sign() != num_bigint::Sign::Minus => {
                return Ok(b.to_u32_digits().1);
            }
            Value::Long(b) => b.to_i128(),
            Value::Float(_) => return Err(type_error("seed must be integer")),
            other => {
                let t = super::to_np_tensor(vm, other, None)?;
                match (t.rank(), t.get(0)) {
                    (0, Some(crate::runtime::Scalar::Int(i))) => Some(i as i128),
                    _ => return Err(type_error("seed must be integer")),
                }
            }
        };
        match n {
            Some(n) if n < 0 => Err(value_error("expected non-negative integer")),
            Some(n) => Ok(int_words(n as u128)),
            None => Err(value_error("expected non-negative integer")),
        }
    };
    match seed {
        Value::Float(f) => Err(type_error(format!(
            "SeedSequence expects int or sequence of ints for entropy not {}",
            crate::value::format::float_repr(*f)
        ))),
        Value::List(_) | Value::Tuple(_) => {
            let mut words = Vec::new();
            for v in vm.collect(seed)? {
                words.extend(one(&v)?);
            }
            Ok(words)
        }
        v => one(v),
    }
}

/// A `Generator` over PCG64, seeded as numpy seeds it.
///
/// ```python
/// import numpy as np
/// rng = np.random.default_rng(0)
/// print(rng.random())  # 0.6369616873214543
/// ```
#[native("default_rng(seed=None)")]
fn default_rng(vm: &dyn Vm, seed: &Value) -> PyResult<Value> {
    if seed.downcast::<Generator>().is_some() {
        return Ok(seed.clone());
    }
    if seed.downcast::<super::random::RandomState>().is_some() {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "default_rng(RandomState) is not supported in dist",
        ));
    }
    let words = match seed {
        Value::None => entropy_words(),
        s => seed_words(vm, s)?,
    };
    let pcg = Pcg64::from_seed_sequence(&SeedSequence::new(&words));
    Ok(Value::native(Generator {
        rng: Rc::new(RefCell::new(NpRng {
            bits: BitGen::Pcg(pcg),
            gauss: None,
        })),
    }))
}

fn uniform_double(r: &mut NpRng) -> f64 {
    r.bits.next_double()
}

fn normal01(r: &mut NpRng) -> f64 {
    ziggurat_normal(&mut r.bits)
}

fn normal_at(r: &mut NpRng, loc: f64, scale: f64) -> f64 {
    loc + scale * ziggurat_normal(&mut r.bits)
}

fn exponential01(r: &mut NpRng) -> f64 {
    ziggurat_exponential(&mut r.bits)
}

/// `method='inv'`: `-log1p(-U)`.
fn exponential_inv(r: &mut NpRng) -> f64 {
    -(-r.bits.next_double()).ln_1p()
}

fn exponential_at(r: &mut NpRng, scale: f64) -> f64 {
    scale * ziggurat_exponential(&mut r.bits)
}

fn lognormal_at(r: &mut NpRng, mean: f64, sigma: f64) -> f64 {
    normal_at(r, mean, sigma).exp()
}

fn uniform_at(r: &mut NpRng, low: f64, range: f64) -> f64 {
    low + range * r.bits.next_double()
}

/// `out=` is numpy's; dist always returns a new array.
fn no_out(out: &Value) -> PyResult<()> {
    match out {
        Value::None => Ok(()),
        _ => Err(PyErr::new(
            ExcType::NotImplementedError,
            "Generator methods' out= is not supported in dist",
        )),
    }
}

/// A float dtype of `random`/`standard_normal`: float64 or float32.
fn float_dtype(vm: &dyn Vm, dtype: &Value, what: &str) -> PyResult<DType> {
    let d = super::dtype::np_dtype_arg(vm, dtype)?;
    match d {
        DType::Float64 | DType::Float32 => Ok(d),
        other => Err(type_error(format!(
            "Unsupported dtype dtype('{}') for {what}",
            other.numpy_name()
        ))),
    }
}

/// Floats in `[0, 1)` (float64, or float32 from 24 bits of a 32-bit draw).
#[native("Generator.random(self, size=None, dtype=np.float64, out=None)")]
fn random(
    vm: &dyn Vm,
    this: &Generator,
    size: &Value,
    dtype: Given<&Value>,
    out: &Value,
) -> PyResult<Value> {
    no_out(out)?;
    let d = match dtype.0 {
        Some(d) => float_dtype(vm, d, "random")?,
        None => DType::Float64,
    };
    let size = size_arg(vm, size)?;
    if d == DType::Float64 {
        return floats(&this.rng, size, uniform_double);
    }
    let mut rng = this.rng.borrow_mut();
    let rt = crate::modules::tf::convert::runtime_err;
    match size {
        // numpy hands the C float back as a Python float
        None => Ok(Value::Float(rng.bits.next_float() as f64)),
        Some(dims) => {
            let v = draw::draw_n(draw::count(&dims)?, || rng.bits.next_float())?;
            Ok(super::array::wrap_array(
                Tensor::from_vec(v, &dims).map_err(rt)?,
            ))
        }
    }
}

/// Integers in `[low, high)` (`[low, high]` with `endpoint=True`), drawn
/// by Lemire's method.
///
/// ```python
/// import numpy as np
/// rng = np.random.default_rng(0)
/// print(rng.integers(10, size=3))  # [8 6 5]
/// ```
#[native("Generator.integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False)")]
fn integers(
    vm: &dyn Vm,
    this: &Generator,
    low: &Value,
    high: &Value,
    size: &Value,
    dtype: Given<&Value>,
    endpoint: &Value,
) -> PyResult<Value> {
    let closed = vm.truthy(endpoint)?;
    draw::integers(
        vm,
        &this.rng,
        low,
        high,
        size,
        dtype.0,
        closed,
        Api::Generator,
    )
}

/// The float64 draws of `method`: a float32 `dtype` (numpy's float32
/// ziggurat) is not built.
fn float64_only(vm: &dyn Vm, dtype: Given<&Value>, method: &str) -> PyResult<()> {
    if let Some(d) = dtype.0 {
        if float_dtype(vm, d, method)? == DType::Float32 {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                format!("Generator.{method}(dtype=np.float32) is not supported in dist"),
            ));
        }
    }
    Ok(())
}

/// Standard normal floats (numpy's ziggurat).
#[native("Generator.standard_normal(self, size=None, dtype=np.float64, out=None)")]
fn standard_normal(
    vm: &dyn Vm,
    this: &Generator,
    size: &Value,
    dtype: Given<&Value>,
    out: &Value,
) -> PyResult<Value> {
    no_out(out)?;
    float64_only(vm, dtype, "standard_normal")?;
    floats(&this.rng, size_arg(vm, size)?, normal01)
}

/// Normal floats with mean `loc` and standard deviation `scale`.
#[native("Generator.normal(self, loc=0.0, scale=1.0, size=None)")]
fn normal(
    vm: &dyn Vm,
    this: &Generator,
    loc: &Value,
    scale: &Value,
    size: &Value,
) -> PyResult<Value> {
    cont2(
        vm,
        &this.rng,
        loc,
        scale,
        size,
        Some(("scale", draw::negative)),
        normal_at,
    )
}

/// Exponentially distributed floats with mean `scale` (numpy's ziggurat).
#[native("Generator.exponential(self, scale=1.0, size=None)")]
fn exponential(vm: &dyn Vm, this: &Generator, scale: &Value, size: &Value) -> PyResult<Value> {
    cont1(
        vm,
        &this.rng,
        scale,
        size,
        ("scale", draw::negative),
        exponential_at,
    )
}

/// Exponentially distributed floats with mean 1: the ziggurat
/// (`method='zig'`) or the inverse of the distribution (`method='inv'`).
#[native(
    "Generator.standard_exponential(self, size=None, dtype=np.float64, method='zig', out=None)"
)]
fn standard_exponential(
    vm: &dyn Vm,
    this: &Generator,
    size: &Value,
    dtype: Given<&Value>,
    method: &Value,
    out: &Value,
) -> PyResult<Value> {
    no_out(out)?;
    float64_only(vm, dtype, "standard_exponential")?;
    // numpy: 'zig', else the inverse method
    let zig = matches!(method, Value::Str(m) if m.as_str() == "zig");
    let draw = if zig { exponential01 } else { exponential_inv };
    floats(&this.rng, size_arg(vm, size)?, draw)
}

/// Poisson counts with mean `lam`.
#[native("Generator.poisson(self, lam=1.0, size=None)")]
fn poisson(vm: &dyn Vm, this: &Generator, lam: &Value, size: &Value) -> PyResult<Value> {
    draw::poisson(vm, &this.rng, lam, size)
}

/// `length` random bytes.
#[native("Generator.bytes(self, length)")]
fn bytes(this: &Generator, length: i64) -> PyResult<Value> {
    draw::random_bytes(&this.rng, length)
}

/// Floats whose logarithm is normal with mean `mean` and standard deviation `sigma`.
#[native("Generator.lognormal(self, mean=0.0, sigma=1.0, size=None)")]
fn lognormal(
    vm: &dyn Vm,
    this: &Generator,
    mean: &Value,
    sigma: &Value,
    size: &Value,
) -> PyResult<Value> {
    cont2(
        vm,
        &this.rng,
        mean,
        sigma,
        size,
        Some(("sigma", draw::negative)),
        lognormal_at,
    )
}

/// Floats in `[low, high)`.
#[native("Generator.uniform(self, low=0.0, high=1.0, size=None)")]
fn uniform(
    vm: &dyn Vm,
    this: &Generator,
    low: &Value,
    high: &Value,
    size: &Value,
) -> PyResult<Value> {
    let (low, range) = uniform_range(vm, low, high, "high - low range exceeds valid bounds")?;
    cont2(
        vm,
        &this.rng,
        &low,
        &range,
        size,
        Some(("high - low", draw::negative)),
        uniform_at,
    )
}

/// A sample of `a` (an int: `range(a)`) along its first axis.
#[native("Generator.choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True)")]
#[allow(clippy::too_many_arguments)]
fn choice(
    vm: &dyn Vm,
    this: &Generator,
    a: &Value,
    size: &Value,
    replace: &Value,
    p: &Value,
    axis: i64,
    shuffle: &Value,
) -> PyResult<Value> {
    if axis != 0 {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "Generator.choice(axis=...) other than 0 is not supported in dist",
        ));
    }
    let (replace, shuffle) = (vm.truthy(replace)?, vm.truthy(shuffle)?);
    random_seq::choice(vm, &this.rng, a, size, replace, p, shuffle, Api::Generator)
}

/// Shuffles an array along `axis` (or a list) in place.
#[native("Generator.shuffle(self, x, axis=0)")]
fn shuffle(vm: &dyn Vm, this: &Generator, x: &Value, axis: i64) -> PyResult<()> {
    random_seq::shuffle(vm, &this.rng, x, axis)
}

/// A shuffled `arange(x)`, or a shuffled copy of an array along `axis`.
#[native("Generator.permutation(self, x, axis=0)")]
fn permutation(vm: &dyn Vm, this: &Generator, x: &Value, axis: i64) -> PyResult<Value> {
    random_seq::permutation(vm, &this.rng, x, axis, Api::Generator)
}

/// Adds `default_rng` and `Generator` to `numpy.random`.
pub fn register(m: &mut ModuleBuilder) {
    m.add(default_rng::DEF);
    m.value("Generator", Value::Class(GENERATOR.class()));
}
