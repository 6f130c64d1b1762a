//! `_dist_mt19937`: the Mersenne Twister of `runtime::random::mt19937` as
//! the Python `random` module (`stdlib/random.dist`) uses it, as CPython's
//! `random` uses its C core `_random`: seeding by an array of 32-bit words,
//! 32-bit draws, CPython's 53-bit `random()`, and the state as
//! `getstate()`/`setstate()` carry it. The algorithms on top (randrange,
//! choice, gauss …) stay in the language.

use std::cell::RefCell;

use crate::modules::ModuleBuilder;
use crate::object::types::{big_arg, value_error};
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::runtime::random::Mt19937;
use crate::value::{NativeObject, PyResult, Value, Vm};
use num_traits::ToPrimitive;

/// One generator.
pub struct Core(RefCell<Mt19937>);

/// The class of `_dist_mt19937.MT19937` objects.
pub static CORE: ClassSpec = ClassSpec {
    name: "MT19937",
    module: "_dist_mt19937",
    bases: &[],
    members: &[
        Member::New(core_new::DEF),
        Member::Method(genrand::DEF),
        Member::Method(random::DEF),
        Member::Method(getstate::DEF),
    ],
};

impl NativeClass for Core {
    const SPEC: &'static ClassSpec = &CORE;
}

impl NativeObject for Core {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&CORE)
    }
}

/// A word of a key or state: an int, taken modulo `2**32` as CPython's C
/// core takes it.
fn word(vm: &dyn Vm, v: &Value) -> PyResult<u32> {
    let b = big_arg(v, vm)?;
    let m: num_bigint::BigInt = b % (1u64 << 32);
    let m = if m.sign() == num_bigint::Sign::Minus {
        m + (1u64 << 32)
    } else {
        m
    };
    Ok(m.to_u32().unwrap_or(0))
}

/// A generator seeded by `init_by_array(key)` (a list of 32-bit words).
#[native("MT19937.__init__(key)")]
fn core_new(vm: &dyn Vm, key: &Value) -> PyResult<Value> {
    let key = vm
        .collect(key)?
        .iter()
        .map(|w| word(vm, w))
        .collect::<PyResult<Vec<u32>>>()?;
    Ok(Value::native(Core(RefCell::new(Mt19937::from_key(&key)))))
}

/// The next 32-bit word.
#[native("MT19937.genrand(self)")]
fn genrand(this: &Core) -> i64 {
    this.0.borrow_mut().next_u32() as i64
}

/// A float in `[0, 1)` from 53 bits of two words (CPython's `random()`).
#[native("MT19937.random(self)")]
fn random(this: &Core) -> f64 {
    this.0.borrow_mut().next_double()
}

/// The 624 words and the position, as one tuple.
#[native("MT19937.getstate(self)")]
fn getstate(this: &Core) -> Value {
    let mt = this.0.borrow();
    let (words, pos) = mt.state();
    let mut items: Vec<Value> = words.iter().map(|&w| Value::Int(w as i64)).collect();
    items.push(Value::Int(pos as i64));
    Value::tuple(items)
}

/// A generator at the state `getstate()` returned (624 words, then the
/// position in `0..=624`).
#[native("from_state(state)")]
fn from_state(vm: &dyn Vm, state: &Value) -> PyResult<Value> {
    let items = vm.collect(state)?;
    if items.len() != 625 {
        return Err(value_error("state vector is the wrong size"));
    }
    let mut words = [0u32; 624];
    for (w, v) in words.iter_mut().zip(&items) {
        *w = word(vm, v)?;
    }
    let pos = big_arg(&items[624], vm)?
        .to_i64()
        .filter(|p| (0..=624).contains(p))
        .ok_or_else(|| value_error("invalid state"))?;
    Ok(Value::native(Core(RefCell::new(Mt19937::from_state(
        &words,
        pos as usize,
    )))))
}

/// Builds the `_dist_mt19937` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("_dist_mt19937");
    m.add(from_state::DEF);
    m.value("MT19937", Value::Class(CORE.class()));
    m.build()
}
