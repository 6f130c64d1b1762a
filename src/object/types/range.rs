//! `range`: a lazy arithmetic sequence with `len`, indexing, slicing, `in`,
//! iteration, equality, `count`/`index`, and CPython's repr (`range(0, 5)`).

use std::rc::Rc;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::iter::{IterObj, IterState};
use super::{int_arg, slice_indices, type_error, value_error};
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// The first item of a range's key tuple (see `hash_as`): an object no
/// script can reach, hashed by identity, so no plain tuple equals a range.
struct RangeKeyTag;

/// The class of the keys equal ranges hash as.
pub static RANGE_KEY: ClassSpec = ClassSpec::plain("range_key", "builtins");

impl NativeObject for RangeKeyTag {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&RANGE_KEY)
    }
}

thread_local! {
    static RANGE_KEY_TAG: Value = Value::native(RangeKeyTag);
}

/// A `range` object.
#[derive(Clone, Debug)]
pub struct RangeObj {
    /// First value.
    pub start: i64,
    /// End (exclusive).
    pub stop: i64,
    /// Step (never zero).
    pub step: i64,
    /// The bounds when one of them is past 64 bits (then the fields above
    /// are unused): every method takes the [`BigRange`] path.
    pub big: Option<Rc<BigRange>>,
}

/// A range whose start, stop or step is past 64 bits, computed on big ints.
#[derive(Clone, Debug)]
pub struct BigRange {
    start: BigInt,
    stop: BigInt,
    step: BigInt,
}

impl BigRange {
    fn len(&self) -> BigInt {
        let (start, stop, step) = (&self.start, &self.stop, &self.step);
        if step.is_positive() && start < stop {
            (stop - start - 1u8) / step + 1u8
        } else if step.is_negative() && start > stop {
            (start - stop - 1u8) / (-step) + 1u8
        } else {
            BigInt::zero()
        }
    }

    fn item(&self, i: &BigInt) -> BigInt {
        &self.start + i * &self.step
    }

    fn position(&self, x: &BigInt) -> Option<BigInt> {
        let (q, r) = (x - &self.start).div_rem(&self.step);
        (r.is_zero() && !q.is_negative() && q < self.len()).then_some(q)
    }

    fn len_checked(&self) -> PyResult<usize> {
        self.len()
            .to_i64()
            .map(|n| n as usize)
            .ok_or_else(super::int_overflow)
    }

    fn iter(&self, reversed: bool) -> Value {
        let n = self.len();
        let (first, step) = if reversed && n.is_positive() {
            (self.item(&(&n - 1u8)), -&self.step)
        } else if reversed {
            (self.start.clone(), -&self.step)
        } else {
            (self.start.clone(), self.step.clone())
        };
        IterObj::value(
            "longrange_iterator",
            IterState::BigRange(Box::new([first, step, n])),
        )
    }

    fn getitem(&self, key: &Value, vm: &dyn Vm) -> PyResult<Value> {
        if let Value::Native(_) = key {
            if let Some(s) = key.downcast::<super::slice::SliceObj>() {
                // The slice's positions over the range's indices (CPython's
                // `compute_slice` on big ints).
                let n = self.len();
                let bound =
                    |v: &Value, default: BigInt, lo: BigInt, hi: BigInt| -> PyResult<BigInt> {
                        if v.is_none() {
                            return Ok(default);
                        }
                        let mut i = super::big_arg(v, vm)?;
                        if i.is_negative() {
                            i += &n;
                            if i < lo {
                                i = lo;
                            }
                        } else if i > hi {
                            i = hi;
                        }
                        Ok(i)
                    };
                let step = if s.step.is_none() {
                    BigInt::one()
                } else {
                    super::big_arg(&s.step, vm)?
                };
                if step.is_zero() {
                    return Err(value_error("slice step cannot be zero"));
                }
                let (lo, hi) = if step.is_negative() {
                    (BigInt::from(-1), &n - 1u8)
                } else {
                    (BigInt::zero(), n.clone())
                };
                let (dstart, dstop) = if step.is_negative() {
                    (hi.clone(), lo.clone())
                } else {
                    (lo.clone(), hi.clone())
                };
                let start = bound(&s.start, dstart, lo.clone(), hi.clone())?;
                let stop = bound(&s.stop, dstop, lo, hi)?;
                return Ok(big_range(
                    self.item(&start),
                    self.item(&stop),
                    &self.step * step,
                ));
            }
        }
        let Some(i) = super::as_index_value(key, vm)? else {
            return Err(type_error(format!(
                "range indices must be integers or slices, not {}",
                key.type_name()
            )));
        };
        let mut i = super::big_arg(&i, vm)?;
        let n = self.len();
        if i.is_negative() {
            i += &n;
        }
        if i.is_negative() || i >= n {
            return Err(PyErr::new(
                ExcType::IndexError,
                "range object index out of range",
            ));
        }
        Ok(Value::from_big(self.item(&i)))
    }

    fn contains(&self, item: &Value, vm: &dyn Vm) -> PyResult<bool> {
        let x = match item {
            Value::Int(i) => BigInt::from(*i),
            Value::Long(n) => (**n).clone(),
            Value::Bool(b) => BigInt::from(*b as i64),
            _ => {
                let mut i = BigInt::zero();
                let n = self.len();
                while i < n {
                    if vm.eq(&Value::from_big(self.item(&i)), item)? {
                        return Ok(true);
                    }
                    i += 1u8;
                }
                return Ok(false);
            }
        };
        Ok(self.position(&x).is_some())
    }
}

/// A range over big ints (inline when all three fit in 64 bits).
fn big_range(start: BigInt, stop: BigInt, step: BigInt) -> Value {
    match (start.to_i64(), stop.to_i64(), step.to_i64()) {
        (Some(a), Some(b), Some(c)) => make_range(a, b, c),
        _ => Value::native(RangeObj {
            start: 0,
            stop: 0,
            step: 1,
            big: Some(Rc::new(BigRange { start, stop, step })),
        }),
    }
}

impl RangeObj {
    /// The number of items (may exceed `usize` only in theory; u64 holds all).
    pub fn len_u64(&self) -> u64 {
        let (start, stop, step) = (self.start as i128, self.stop as i128, self.step as i128);
        let n = if step > 0 && start < stop {
            (stop - start - 1) / step + 1
        } else if step < 0 && start > stop {
            (start - stop - 1) / (-step) + 1
        } else {
            0
        };
        n as u64
    }

    /// The i-th item (0 <= i < len).
    pub fn item(&self, i: u64) -> i64 {
        (self.start as i128 + i as i128 * self.step as i128) as i64
    }

    /// An iterator from the start.
    pub fn iter_value(&self) -> Value {
        if let Some(b) = &self.big {
            return b.iter(false);
        }
        IterObj::value(
            "range_iterator",
            IterState::Range(self.start, self.step, self.len_u64()),
        )
    }

    /// An iterator from the end backwards.
    pub fn reversed_iter(&self) -> Value {
        if let Some(b) = &self.big {
            return b.iter(true);
        }
        let n = self.len_u64();
        let last = if n == 0 { self.start } else { self.item(n - 1) };
        IterObj::value(
            "range_iterator",
            IterState::Range(last, self.step.wrapping_neg(), n),
        )
    }

    /// The position of `x` if it is in the range.
    pub fn position(&self, x: i64) -> Option<u64> {
        let off = x as i128 - self.start as i128;
        if off % self.step as i128 != 0 {
            return None;
        }
        let idx = off / self.step as i128;
        (idx >= 0 && (idx as u128) < self.len_u64() as u128).then_some(idx as u64)
    }

    fn len_checked(&self) -> PyResult<usize> {
        let n = self.len_u64();
        if n > i64::MAX as u64 {
            return Err(PyErr::new(
                ExcType::OverflowError,
                "Python int too large to convert to C ssize_t",
            ));
        }
        Ok(n as usize)
    }
}

/// Whether two ranges' keys (`hash_as`) are equal.
fn key_eq_of(a: Option<Value>, b: Option<Value>) -> bool {
    match (a, b) {
        (Some(Value::Tuple(x)), Some(Value::Tuple(y))) => x[1..]
            .iter()
            .zip(y[1..].iter())
            .all(|(p, q)| crate::value::dict::key_eq(p, q)),
        _ => false,
    }
}

fn range_of(v: &Value) -> Option<&RangeObj> {
    v.downcast::<RangeObj>()
}

/// A new range value.
pub fn make_range(start: i64, stop: i64, step: i64) -> Value {
    Value::native(RangeObj {
        start,
        stop,
        step,
        big: None,
    })
}

/// An int from a value that may be an int-valued number (for `in`).
fn as_exact_int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(*b as i64),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Some(*f as i64),
        _ => None,
    }
}

impl NativeObject for RangeObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&RANGE)
    }

    /// Equal ranges are equal keys with equal hashes (CPython hashes
    /// `(len, start, step)`, with None for what does not matter). The tag
    /// keeps a range from matching a plain tuple.
    fn hash_as(&self) -> Option<Value> {
        if let Some(b) = &self.big {
            let n = b.len();
            let (start, step) = if n.is_zero() {
                (Value::None, Value::None)
            } else if n.is_one() {
                (Value::from_big(b.start.clone()), Value::None)
            } else {
                (
                    Value::from_big(b.start.clone()),
                    Value::from_big(b.step.clone()),
                )
            };
            let tag = RANGE_KEY_TAG.with(Value::clone);
            return Some(Value::tuple(vec![tag, Value::from_big(n), start, step]));
        }
        let n = self.len_u64();
        let (start, step) = match n {
            0 => (Value::None, Value::None),
            1 => (Value::Int(self.start), Value::None),
            _ => (Value::Int(self.start), Value::Int(self.step)),
        };
        let tag = RANGE_KEY_TAG.with(Value::clone);
        Some(Value::tuple(vec![tag, Value::Int(n as i64), start, step]))
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        if let Some(b) = &self.big {
            return Ok(if b.step.is_one() {
                format!("range({}, {})", b.start, b.stop)
            } else {
                format!("range({}, {}, {})", b.start, b.stop, b.step)
            });
        }
        Ok(if self.step == 1 {
            format!("range({}, {})", self.start, self.stop)
        } else {
            format!("range({}, {}, {})", self.start, self.stop, self.step)
        })
    }

    fn iter(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(self.iter_value()))
    }

    fn len(&self, _vm: &dyn Vm) -> PyResult<Option<usize>> {
        if let Some(b) = &self.big {
            return b.len_checked().map(Some);
        }
        self.len_checked().map(Some)
    }

    fn truthy(&self, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        if let Some(b) = &self.big {
            return Ok(Some(b.len().is_positive()));
        }
        Ok(Some(self.len_u64() > 0))
    }

    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if let Some(b) = &self.big {
            return b.getitem(key, vm).map(Some);
        }
        if matches!(key, Value::Long(_)) {
            // An index past 64 bits is out of any 64-bit range.
            return BigRange {
                start: self.start.into(),
                stop: self.stop.into(),
                step: self.step.into(),
            }
            .getitem(key, vm)
            .map(Some);
        }
        let n = self.len_checked()?;
        if let Some((start, stop, step)) = slice_indices(key, n)? {
            let at = |i: isize| (self.start as i128 + i as i128 * self.step as i128) as i64;
            let new_step = self.step as i128 * step as i128;
            let new_step = i64::try_from(new_step).map_err(|_| super::int_overflow())?;
            return Ok(Some(make_range(at(start), at(stop), new_step)));
        }
        let Some(i) = super::as_index(key, vm)? else {
            return Err(type_error(format!(
                "range indices must be integers or slices, not {}",
                key.type_name()
            )));
        };
        let i = if i < 0 {
            i as i128 + n as i128
        } else {
            i as i128
        };
        if i < 0 || i >= n as i128 {
            return Err(PyErr::new(
                ExcType::IndexError,
                "range object index out of range",
            ));
        }
        Ok(Some(Value::Int(self.item(i as u64))))
    }

    fn contains(&self, item: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        if let Some(b) = &self.big {
            return b.contains(item, vm).map(Some);
        }
        match item {
            Value::Long(_) => Ok(Some(false)),
            Value::Int(_) | Value::Bool(_) | Value::Float(_) => Ok(Some(
                as_exact_int(item).is_some_and(|x| self.position(x).is_some()),
            )),
            _ => {
                for i in 0..self.len_u64() {
                    if vm.eq(&Value::Int(self.item(i)), item)? {
                        return Ok(Some(true));
                    }
                }
                Ok(Some(false))
            }
        }
    }

    fn equals(&self, _this: &Value, other: &Value, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        let Some(o) = range_of(other) else {
            return Ok(None);
        };
        if self.big.is_some() || o.big.is_some() {
            return Ok(Some(key_eq_of(self.hash_as(), o.hash_as())));
        }
        let (n, m) = (self.len_u64(), o.len_u64());
        let same = n == m && (n == 0 || (self.start == o.start && (n == 1 || self.step == o.step)));
        Ok(Some(same))
    }
}

/// The class `range`.
pub static RANGE: ClassSpec = ClassSpec {
    name: "range",
    module: "builtins",
    bases: &[],
    members: &[
        Member::New(range_new::DEF),
        Member::Method(range_count::DEF),
        Member::Method(range_index::DEF),
        Member::Getter(range_start::DEF),
        Member::Getter(range_stop::DEF),
        Member::Getter(range_step::DEF),
    ],
};

impl NativeClass for RangeObj {
    const SPEC: &'static ClassSpec = &RANGE;
}

// The example is CPython's indented line, not a Rust doctest.
#[cfg_attr(
    not(doctest),
    doc = "range(stop) or range(start, stop[, step]): the ints from start up to (not including) stop.\n\n    list(range(1, 7, 2)) == [1, 3, 5]"
)]
#[native("range(*args)", c_ctor)]
fn range_new(vm: &dyn Vm, args: &[Value]) -> PyResult<Value> {
    if args.len() <= 3
        && args
            .iter()
            .any(|v| matches!(super::as_index_value(v, vm), Ok(Some(Value::Long(_)))))
    {
        let b = args
            .iter()
            .map(|v| super::big_arg(v, vm))
            .collect::<PyResult<Vec<BigInt>>>()?;
        let (start, stop, step) = match &b[..] {
            [stop] => (BigInt::zero(), stop.clone(), BigInt::one()),
            [start, stop] => (start.clone(), stop.clone(), BigInt::one()),
            [start, stop, step] => (start.clone(), stop.clone(), step.clone()),
            _ => (BigInt::zero(), BigInt::zero(), BigInt::one()),
        };
        if step.is_zero() {
            return Err(value_error("range() arg 3 must not be zero"));
        }
        return Ok(big_range(start, stop, step));
    }
    let ints = args
        .iter()
        .map(|v| int_arg(v, vm))
        .collect::<PyResult<Vec<i64>>>();
    match args.len() {
        0 => Err(type_error("range expected at least 1 argument, got 0")),
        1..=3 => {
            let ints = ints?;
            let (start, stop, step) = match ints[..] {
                [stop] => (0, stop, 1),
                [start, stop] => (start, stop, 1),
                [start, stop, step] => (start, stop, step),
                _ => (0, 0, 1),
            };
            if step == 0 {
                return Err(value_error("range() arg 3 must not be zero"));
            }
            Ok(make_range(start, stop, step))
        }
        n => Err(type_error(format!(
            "range expected at most 3 arguments, got {n}"
        ))),
    }
}

/// How many times `value` occurs (0 or 1).
#[native("range.count(self, value, /)", c)]
fn range_count(vm: &dyn Vm, this: &RangeObj, value: &Value) -> PyResult<i64> {
    if this.big.is_some() && !matches!(value, Value::Int(_) | Value::Long(_) | Value::Bool(_)) {
        let mut n = 0;
        let it = this.iter_value();
        while let Some(x) = vm.next(&it)? {
            n += vm.eq(&x, value)? as i64;
        }
        return Ok(n);
    }
    Ok(this.contains(value, vm)?.unwrap_or(false) as i64)
}

/// The position of `value`: `range(0, 10, 2).index(4) == 2`.
#[native("range.index(self, value, /)", c)]
fn range_index(vm: &dyn Vm, this: &RangeObj, value: &Value) -> PyResult<Value> {
    if let (Some(b), Some(x)) = (&this.big, super::num::num(value).and_then(|n| n.to_big())) {
        if let Some(p) = b.position(&x) {
            return Ok(Value::from_big(p));
        }
        return Err(value_error(format!("{} is not in range", vm.repr(value)?)));
    }
    range_index_small(vm, this, value).map(Value::Int)
}

fn range_index_small(vm: &dyn Vm, this: &RangeObj, value: &Value) -> PyResult<i64> {
    if let Some(x) = as_exact_int(value) {
        if let Some(p) = this.position(x) {
            return Ok(p as i64);
        }
    } else {
        for i in 0..this.len_u64() {
            if vm.eq(&Value::Int(this.item(i)), value)? {
                return Ok(i as i64);
            }
        }
    }
    Err(value_error(format!("{} is not in range", vm.repr(value)?)))
}

/// The first value.
#[native("range.start(self)")]
fn range_start(this: &RangeObj) -> Value {
    match &this.big {
        Some(b) => Value::from_big(b.start.clone()),
        None => Value::Int(this.start),
    }
}

/// The end (not included).
#[native("range.stop(self)")]
fn range_stop(this: &RangeObj) -> Value {
    match &this.big {
        Some(b) => Value::from_big(b.stop.clone()),
        None => Value::Int(this.stop),
    }
}

/// The difference between consecutive values.
#[native("range.step(self)")]
fn range_step(this: &RangeObj) -> Value {
    match &this.big {
        Some(b) => Value::from_big(b.step.clone()),
        None => Value::Int(this.step),
    }
}
