//! `numpy.random`: the legacy API (`np.random.seed`, `rand`, `randn`,
//! `randint`, `random`, `uniform`, `normal`, `choice`, `shuffle`,
//! `permutation` …, all methods of one global `RandomState`) and
//! `RandomState` itself, over MT19937 with numpy's seeding; `default_rng`
//! and `Generator` are in `random_gen`. Every draw is numpy's, number for
//! number (`runtime::random::numpy`).

use std::cell::RefCell;
use std::rc::Rc;

use super::random_draw::{self as draw, cont1, cont2, floats, size_arg, Api, Cell, NpRng};
use super::random_seq;
use super::to_np_tensor;
use crate::modules::ModuleBuilder;
use crate::object::native::Given;
use crate::object::types::{type_error, value_error};
use crate::object::{native, ClassSpec, Member, NativeClass, NativeDef};
use crate::runtime::random::numpy::{legacy_gauss, BitGen};
use crate::runtime::random::pcg64::{int_words, SeedSequence};
use crate::runtime::random::Mt19937;
use crate::runtime::{DType, Scalar};
use crate::value::{NativeObject, PyResult, Value, Vm};

/// `numpy.random.RandomState`: an MT19937 state and the cached Gaussian.
pub struct RandomState {
    /// The state (shared with the module's functions for the global one).
    pub rng: Rc<Cell>,
}

/// The global `RandomState` behind `np.random.*` (made on first use).
#[derive(Default)]
struct Global(RefCell<Option<Rc<Cell>>>);

fn global(vm: &dyn Vm) -> Rc<Cell> {
    let g = vm.state().get::<Global>();
    let mut slot = g.0.borrow_mut();
    slot.get_or_insert_with(|| Rc::new(RefCell::new(legacy_rng(unseeded_mt()))))
        .clone()
}

fn legacy_rng(mt: Mt19937) -> NpRng {
    NpRng {
        bits: BitGen::Mt(Box::new(mt)),
        gauss: None,
    }
}

/// OS-like entropy words (numpy pulls 128 bits from the OS).
pub fn entropy_words() -> Vec<u32> {
    let (a, b) = (
        crate::runtime::random::seed::entropy(),
        crate::runtime::random::seed::entropy(),
    );
    int_words((a as u128) << 64 | b as u128)
}

/// `RandomState()` without a seed: a `SeedSequence` of fresh entropy fills
/// the words, the first with its top bit set, as numpy does.
fn unseeded_mt() -> Mt19937 {
    let seq = SeedSequence::new(&entropy_words());
    let mut words = [0u32; 624];
    words.copy_from_slice(&seq.generate_u32(624));
    words[0] = 0x8000_0000;
    Mt19937::from_state(&words, 624)
}

/// numpy's `_legacy_seeding`: an int in `[0, 2**32)`, or a 1-d sequence of them.
fn legacy_seed(vm: &dyn Vm, seed: &Value) -> PyResult<Mt19937> {
    const RANGE: &str = "Seed must be between 0 and 2**32 - 1";
    let one = |v: &Value| -> PyResult<Option<u32>> {
        match v {
            Value::Int(i) => u32::try_from(*i).map(Some).map_err(|_| value_error(RANGE)),
            Value::Bool(b) => Ok(Some(*b as u32)),
            Value::Long(_) => Err(value_error(RANGE)),
            _ => Ok(None),
        }
    };
    match seed {
        Value::None => return Ok(unseeded_mt()),
        v => {
            if let Some(s) = one(v)? {
                return Ok(Mt19937::numpy_seed(s));
            }
        }
    }
    let t = to_np_tensor(vm, seed, None)?;
    if t.numel() == 0 {
        return Err(value_error("Seed must be non-empty"));
    }
    if t.dtype().is_floating() || t.dtype() == DType::String {
        return Err(type_error(format!(
            "Cannot cast {} from dtype('{}') to dtype('int64') according to the rule 'safe'",
            if t.rank() == 0 {
                "scalar"
            } else {
                "array data"
            },
            t.dtype().numpy_name()
        )));
    }
    if t.rank() == 0 {
        let i = t.get(0).map_or(0, |s| s.as_f64() as i64);
        return u32::try_from(i)
            .map(Mt19937::numpy_seed)
            .map_err(|_| value_error(RANGE));
    }
    if t.rank() != 1 {
        return Err(value_error("Seed array must be 1-d"));
    }
    let key = t
        .to_scalars()
        .iter()
        .map(|s| match s {
            Scalar::Int(i) => u32::try_from(*i).map_err(|_| value_error(RANGE)),
            Scalar::Bool(b) => Ok(*b as u32),
            _ => Err(value_error(RANGE)),
        })
        .collect::<PyResult<Vec<u32>>>()?;
    Ok(Mt19937::from_key(&key))
}

/// `numpy.random.RandomState`.
pub static RANDOM_STATE: ClassSpec = ClassSpec {
    name: "RandomState",
    module: "numpy.random.mtrand",
    bases: &[],
    members: &[
        Member::New(rs_new::DEF),
        Member::Method(m_seed::DEF),
        Member::Method(m_rand::DEF),
        Member::Method(m_randn::DEF),
        Member::Method(m_randint::DEF),
        Member::Method(m_random::DEF),
        Member::Method(m_random_sample::DEF),
        Member::Method(m_uniform::DEF),
        Member::Method(m_normal::DEF),
        Member::Method(m_standard_normal::DEF),
        Member::Method(m_exponential::DEF),
        Member::Method(m_standard_exponential::DEF),
        Member::Method(m_lognormal::DEF),
        Member::Method(m_poisson::DEF),
        Member::Method(m_bytes::DEF),
        Member::Method(m_choice::DEF),
        Member::Method(m_shuffle::DEF),
        Member::Method(m_permutation::DEF),
    ],
};

impl NativeClass for RandomState {
    const SPEC: &'static ClassSpec = &RANDOM_STATE;
}

impl NativeObject for RandomState {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&RANDOM_STATE)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("RandomState(MT19937) at 0x{:X}", this.id()))
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok("RandomState(MT19937)".into())
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        match draw::missing_method("RandomState", name, draw::RANDOM_STATE_METHODS) {
            Some(e) => Err(e),
            None => Ok(None),
        }
    }
}

/// A random state of its own: `np.random.RandomState(42)` draws what
/// `np.random.seed(42)` makes the module draw.
///
/// ```python
/// import numpy as np
/// rs = np.random.RandomState(0)
/// print(rs.rand())  # 0.5488135039273248
/// ```
#[native("RandomState.__init__(seed=None)")]
fn rs_new(vm: &dyn Vm, seed: &Value) -> PyResult<Value> {
    Ok(Value::native(RandomState {
        rng: Rc::new(RefCell::new(legacy_rng(legacy_seed(vm, seed)?))),
    }))
}

fn uniform_double(r: &mut NpRng) -> f64 {
    r.bits.next_double()
}

fn gauss(r: &mut NpRng) -> f64 {
    legacy_gauss(&mut r.bits, &mut r.gauss)
}

fn normal_at(r: &mut NpRng, loc: f64, scale: f64) -> f64 {
    loc + scale * gauss(r)
}

/// `legacy_standard_exponential`: `-log(1 - U)`.
fn std_exponential(r: &mut NpRng) -> f64 {
    -(1.0 - r.bits.next_double()).ln()
}

fn exponential_at(r: &mut NpRng, scale: f64) -> f64 {
    scale * std_exponential(r)
}

fn lognormal_at(r: &mut NpRng, mean: f64, sigma: f64) -> f64 {
    normal_at(r, mean, sigma).exp()
}

fn uniform_at(r: &mut NpRng, low: f64, range: f64) -> f64 {
    low + range * r.bits.next_double()
}

/// `size` from `rand(*args)`/`randn(*args)`.
fn args_size(vm: &dyn Vm, args: &[Value]) -> PyResult<Value> {
    if args.is_empty() {
        return Ok(Value::None);
    }
    for a in args {
        crate::object::types::int_arg(a, vm)?;
    }
    Ok(Value::tuple(args.to_vec()))
}

/// `high - low` as numpy's `uniform` computes it (the scalars as Python
/// floats, arrays element-wise), with its check that the range is finite.
pub fn uniform_range(
    vm: &dyn Vm,
    low: &Value,
    high: &Value,
    scalar_msg: &str,
) -> PyResult<(Value, Value)> {
    let l = to_np_tensor(vm, low, Some(DType::Float64))?;
    let h = to_np_tensor(vm, high, Some(DType::Float64))?;
    let overflow =
        |m: &str| crate::value::PyErr::new(crate::value::ExcType::OverflowError, m.to_string());
    if l.rank() == 0 && h.rank() == 0 {
        let (a, b) = (draw::f64s(&l)[0], draw::f64s(&h)[0]);
        if !(b - a).is_finite() {
            return Err(overflow(scalar_msg));
        }
        return Ok((Value::Float(a), Value::Float(b - a)));
    }
    let joint = l.shape().broadcast(h.shape()).ok_or_else(|| {
        value_error("shape mismatch: objects cannot be broadcast to a single shape")
    })?;
    let rt = crate::modules::tf::convert::runtime_err;
    let lb = crate::runtime::ops::broadcast_to(&l, joint.dims()).map_err(rt)?;
    let hb = crate::runtime::ops::broadcast_to(&h, joint.dims()).map_err(rt)?;
    let range: Vec<f64> = draw::f64s(&hb)
        .iter()
        .zip(draw::f64s(&lb))
        .map(|(b, a)| b - a)
        .collect();
    if range.iter().any(|x| !x.is_finite()) {
        return Err(overflow("Range exceeds valid bounds"));
    }
    let r = crate::runtime::Tensor::from_vec(range, joint.dims()).map_err(rt)?;
    Ok((super::array::wrap_array(l), super::array::wrap_array(r)))
}

/// The functions of `np.random` and the same-named methods of `RandomState`:
/// each native pair runs one body on the global state or on `self`'s.
macro_rules! legacy {
    ($(
        $(#[$doc:meta])*
        $func:ident / $method:ident ($fsig:literal, $msig:literal)
        |$vm:ident, $cell:ident $(, $arg:ident : $ty:ty)*| $body:block
    )*) => {$(
        $(#[$doc])*
        #[native($fsig)]
        fn $func($vm: &dyn Vm $(, $arg: $ty)*) -> PyResult<Value> {
            let $cell: &Cell = &global($vm);
            $body
        }

        $(#[$doc])*
        #[native($msig)]
        fn $method($vm: &dyn Vm, this: &RandomState $(, $arg: $ty)*) -> PyResult<Value> {
            let $cell: &Cell = &this.rng;
            $body
        }
    )*};
}

legacy! {
    /// Floats in `[0, 1)` of the shape given by the arguments (a float without any).
    ///
    /// ```python
    /// import numpy as np
    /// np.random.seed(0)
    /// print(np.random.rand(2))  # [0.5488135  0.71518937]
    /// ```
    rand / m_rand ("rand(*args)", "RandomState.rand(self, *args)") |vm, cell, args: &[Value]| {
        floats(cell, size_arg(vm, &args_size(vm, args)?)?, uniform_double)
    }
    /// Standard normal floats of the shape given by the arguments (numpy's
    /// legacy polar method).
    randn / m_randn ("randn(*args)", "RandomState.randn(self, *args)") |vm, cell, args: &[Value]| {
        floats(cell, size_arg(vm, &args_size(vm, args)?)?, gauss)
    }
    /// Floats in `[0, 1)`.
    random / m_random ("random(size=None)", "RandomState.random(self, size=None)") |vm, cell, size: &Value| {
        floats(cell, size_arg(vm, size)?, uniform_double)
    }
    /// Floats in `[0, 1)`.
    random_sample / m_random_sample ("random_sample(size=None)", "RandomState.random_sample(self, size=None)") |vm, cell, size: &Value| {
        floats(cell, size_arg(vm, size)?, uniform_double)
    }
    /// Standard normal floats.
    standard_normal / m_standard_normal ("standard_normal(size=None)", "RandomState.standard_normal(self, size=None)") |vm, cell, size: &Value| {
        floats(cell, size_arg(vm, size)?, gauss)
    }
    /// Normal floats with mean `loc` and standard deviation `scale`.
    normal / m_normal ("normal(loc=0.0, scale=1.0, size=None)", "RandomState.normal(self, loc=0.0, scale=1.0, size=None)") |vm, cell, loc: &Value, scale: &Value, size: &Value| {
        cont2(vm, cell, loc, scale, size, Some(("scale", draw::negative)), normal_at)
    }
    /// Exponentially distributed floats with mean `scale`.
    exponential / m_exponential ("exponential(scale=1.0, size=None)", "RandomState.exponential(self, scale=1.0, size=None)") |vm, cell, scale: &Value, size: &Value| {
        cont1(vm, cell, scale, size, ("scale", draw::negative), exponential_at)
    }
    /// Exponentially distributed floats with mean 1.
    standard_exponential / m_standard_exponential ("standard_exponential(size=None)", "RandomState.standard_exponential(self, size=None)") |vm, cell, size: &Value| {
        floats(cell, size_arg(vm, size)?, std_exponential)
    }
    /// Floats whose logarithm is normal with mean `mean` and standard deviation `sigma`.
    lognormal / m_lognormal ("lognormal(mean=0.0, sigma=1.0, size=None)", "RandomState.lognormal(self, mean=0.0, sigma=1.0, size=None)") |vm, cell, mean: &Value, sigma: &Value, size: &Value| {
        cont2(vm, cell, mean, sigma, size, Some(("sigma", draw::negative)), lognormal_at)
    }
    /// Poisson counts with mean `lam`.
    poisson / m_poisson ("poisson(lam=1.0, size=None)", "RandomState.poisson(self, lam=1.0, size=None)") |vm, cell, lam: &Value, size: &Value| {
        draw::poisson(vm, cell, lam, size)
    }
    /// `length` random bytes.
    bytes / m_bytes ("bytes(length)", "RandomState.bytes(self, length)") |_vm, cell, length: i64| {
        draw::random_bytes(cell, length)
    }
    /// Floats in `[low, high)`.
    uniform / m_uniform ("uniform(low=0.0, high=1.0, size=None)", "RandomState.uniform(self, low=0.0, high=1.0, size=None)") |vm, cell, low: &Value, high: &Value, size: &Value| {
        let (low, range) = uniform_range(vm, low, high, "Range exceeds valid bounds")?;
        cont2(vm, cell, &low, &range, size, None, uniform_at)
    }
    /// Integers in `[low, high)` (`[0, low)` without `high`).
    ///
    /// ```python
    /// import numpy as np
    /// np.random.seed(0)
    /// print(np.random.randint(10, size=3))  # [5 0 3]
    /// ```
    randint / m_randint ("randint(low, high=None, size=None, dtype=int)", "RandomState.randint(self, low, high=None, size=None, dtype=int)") |vm, cell, low: &Value, high: &Value, size: &Value, dtype: Given<&Value>| {
        draw::integers(vm, cell, low, high, size, dtype.0, false, Api::Legacy)
    }
    /// A sample of `a` (an int: `range(a)`), with or without replacement,
    /// uniform or with probabilities `p`.
    choice / m_choice ("choice(a, size=None, replace=True, p=None)", "RandomState.choice(self, a, size=None, replace=True, p=None)") |vm, cell, a: &Value, size: &Value, replace: &Value, p: &Value| {
        random_seq::choice(vm, cell, a, size, vm.truthy(replace)?, p, true, Api::Legacy)
    }
    /// Shuffles an array (along its first axis) or a list in place.
    shuffle / m_shuffle ("shuffle(x)", "RandomState.shuffle(self, x)") |vm, cell, x: &Value| {
        random_seq::shuffle(vm, cell, x, 0).map(|()| Value::None)
    }
    /// A shuffled `arange(x)`, or a shuffled copy of an array.
    permutation / m_permutation ("permutation(x)", "RandomState.permutation(self, x)") |vm, cell, x: &Value| {
        random_seq::permutation(vm, cell, x, 0, Api::Legacy)
    }
    /// Reseeds the generator: an int in `[0, 2**32)`, a sequence of them, or
    /// None for fresh entropy.
    seed / m_seed ("seed(seed=None)", "RandomState.seed(self, seed=None)") |vm, cell, seed: &Value| {
        let mt = legacy_seed(vm, seed)?;
        *cell.borrow_mut() = legacy_rng(mt);
        Ok(Value::None)
    }
}

/// The module's functions, in registration order.
const FUNCTIONS: &[NativeDef] = &[
    seed::DEF,
    rand::DEF,
    randn::DEF,
    randint::DEF,
    random::DEF,
    random_sample::DEF,
    uniform::DEF,
    normal::DEF,
    standard_normal::DEF,
    exponential::DEF,
    standard_exponential::DEF,
    lognormal::DEF,
    poisson::DEF,
    bytes::DEF,
    choice::DEF,
    shuffle::DEF,
    permutation::DEF,
];

/// Fills the `numpy.random` namespace.
pub fn register(m: &mut ModuleBuilder) {
    for &def in FUNCTIONS {
        m.add(def);
    }
    m.value("RandomState", Value::Class(RANDOM_STATE.class()));
    super::random_gen::register(m);
}
