//! `slice` objects: what `a[1:2:3]` subscripts with. The evaluator builds them
//! with [`make_slice`]; sequences resolve them against a length with
//! [`slice_indices`] (CPython's `PySlice_Unpack` + `PySlice_AdjustIndices`).

use super::{type_error, value_error};
use crate::object::{native, ClassSpec, Member, NativeClass, This};
use crate::value::{NativeObject, PyResult, Value, Vm};

/// A `slice(start, stop, step)` object; the parts are any values.
pub struct SliceObj {
    /// `start` (None when omitted).
    pub start: Value,
    /// `stop`.
    pub stop: Value,
    /// `step`.
    pub step: Value,
}

/// `slice(lower, upper, step)`, the value of a subscript `a[lower:upper:step]`.
pub fn make_slice(lower: Value, upper: Value, step: Value) -> Value {
    Value::native(SliceObj {
        start: lower,
        stop: upper,
        step,
    })
}

/// One part of a slice as an index: None for `None`, an int (a bool counts,
/// an int subclass converts as its value), else CPython's TypeError.
pub fn slice_index(v: &Value) -> PyResult<Option<i64>> {
    match v.as_builtin() {
        Value::None => Ok(None),
        Value::Int(i) => Ok(Some(*i)),
        Value::Bool(b) => Ok(Some(*b as i64)),
        // Past 64 bits: clipped, as CPython's `_PyEval_SliceIndex` clips.
        Value::Long(n) => Ok(Some(if super::long::sign(n) < 0 {
            i64::MIN
        } else {
            i64::MAX
        })),
        _ => Err(type_error(
            "slice indices must be integers or None or have an __index__ method",
        )),
    }
}

/// Resolves a slice against a sequence of length `len`: `(start, stop, step)`
/// with start/stop clamped as CPython does (stop may be -1 for negative
/// steps). None when `v` is not a slice.
pub fn slice_indices(v: &Value, len: usize) -> PyResult<Option<(isize, isize, isize)>> {
    let Some(s) = v.downcast::<SliceObj>() else {
        return Ok(None);
    };
    let step = slice_index(&s.step)?.unwrap_or(1);
    if step == 0 {
        return Err(value_error("slice step cannot be zero"));
    }
    // Clamp to isize; values beyond it behave like the ends.
    let clamp = |x: i64| x.clamp(-(isize::MAX as i64), isize::MAX as i64) as isize;
    let step = clamp(step.max(-i64::MAX));
    let len = len as isize;
    let (lo_default, hi_default) = if step < 0 { (len - 1, -1) } else { (0, len) };
    let adjust = |x: Option<i64>, default: isize| -> isize {
        match x {
            None => default,
            Some(x) => {
                let mut x = clamp(x);
                if x < 0 {
                    x += len;
                    if x < 0 {
                        x = if step < 0 { -1 } else { 0 };
                    }
                } else if x >= len {
                    x = if step < 0 { len - 1 } else { len };
                }
                x
            }
        }
    };
    let start = adjust(slice_index(&s.start)?, lo_default);
    let stop = adjust(slice_index(&s.stop)?, hi_default);
    Ok(Some((start, stop, step)))
}

/// The number of items a resolved slice selects.
pub fn slice_len(start: isize, stop: isize, step: isize) -> usize {
    if step > 0 && start < stop {
        ((stop - start - 1) / step + 1) as usize
    } else if step < 0 && start > stop {
        ((start - stop - 1) / (-step) + 1) as usize
    } else {
        0
    }
}

/// The positions a resolved slice selects, in order.
pub fn slice_positions(start: isize, stop: isize, step: isize) -> impl Iterator<Item = usize> {
    let n = slice_len(start, stop, step);
    (0..n).map(move |k| (start + k as isize * step) as usize)
}

impl NativeObject for SliceObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&SLICE)
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "slice({}, {}, {})",
            vm.repr(&self.start)?,
            vm.repr(&self.stop)?,
            vm.repr(&self.step)?
        ))
    }

    fn hashable(&self) -> bool {
        false
    }

    fn equals(&self, _this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        let Some(o) = other.downcast::<SliceObj>() else {
            return Ok(None);
        };
        let a = Value::tuple(vec![
            self.start.clone(),
            self.stop.clone(),
            self.step.clone(),
        ]);
        let b = Value::tuple(vec![o.start.clone(), o.stop.clone(), o.step.clone()]);
        vm.eq(&a, &b).map(Some)
    }
}

/// The class `slice`.
pub static SLICE: ClassSpec = ClassSpec {
    name: "slice",
    module: "builtins",
    bases: &[],
    members: &[
        Member::New(slice_new::DEF),
        Member::Method(slice_indices_method::DEF),
        Member::Getter(slice_start::DEF),
        Member::Getter(slice_stop::DEF),
        Member::Getter(slice_step::DEF),
    ],
};

impl NativeClass for SliceObj {
    const SPEC: &'static ClassSpec = &SLICE;
}

/// slice(stop) or slice(start, stop[, step]): the object `a[start:stop:step]` indexes with.
#[native("slice(*args)", c_ctor)]
fn slice_new(args: &[Value]) -> PyResult<Value> {
    let v = args;
    match v.len() {
        0 => Err(type_error("slice expected at least 1 argument, got 0")),
        1 => Ok(make_slice(Value::None, v[0].clone(), Value::None)),
        2 => Ok(make_slice(v[0].clone(), v[1].clone(), Value::None)),
        3 => Ok(make_slice(v[0].clone(), v[1].clone(), v[2].clone())),
        n => Err(type_error(format!(
            "slice expected at most 3 arguments, got {n}"
        ))),
    }
}

/// The `(start, stop, step)` this slice selects from a sequence of `length` items.
#[native("slice.indices(self, length, /)", c)]
fn slice_indices_method(vm: &dyn Vm, this: This<SliceObj>, length: &Value) -> PyResult<Value> {
    let len = super::int_arg(length, vm)?;
    let len = usize::try_from(len).map_err(|_| value_error("length should not be negative"))?;
    match slice_indices(this.value, len)? {
        Some((s, e, st)) => Ok(Value::tuple(vec![
            Value::Int(s as i64),
            Value::Int(e as i64),
            Value::Int(st as i64),
        ])),
        None => Err(super::descriptor_error("indices", "slice", this.value)),
    }
}

/// The first index (None when omitted).
#[native("slice.start(self)")]
fn slice_start(this: &SliceObj) -> Value {
    this.start.clone()
}

/// The end index (None when omitted).
#[native("slice.stop(self)")]
fn slice_stop(this: &SliceObj) -> Value {
    this.stop.clone()
}

/// The step (None when omitted).
#[native("slice.step(self)")]
fn slice_step(this: &SliceObj) -> Value {
    this.step.clone()
}
