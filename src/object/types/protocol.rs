//! Protocols the builtins and the types' slots share: whether a value can
//! be called (`callable`), `divmod` and `round` over numbers and the dunder
//! methods of other objects. The builtin functions (`modules/builtins`)
//! and the number slots (`slots.rs`) both call these.

use super::num::{float_divmod, Num};
use super::{int_arg, type_error};
use crate::value::format::{round_big, round_float, round_int, round_to_int};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// A number, or the number underneath an instance of an `int`/`float`
/// subclass (`round(Celsius(21.5))`).
pub fn num(v: &Value) -> Option<Num<'_>> {
    super::num::num(v.as_builtin())
}

/// `callable(v)`.
pub fn is_callable(vm: &dyn Vm, v: &Value) -> bool {
    match v {
        Value::Function(_) | Value::NativeFunction(_) | Value::BoundMethod(_) | Value::Class(_) => {
            true
        }
        Value::Instance(i) => i.class.lookup("__call__").is_some(),
        Value::Native(_) => vm.getattr(v, "__call__").is_ok(),
        _ => false,
    }
}

/// `round(x, ndigits)`; `ndigits` None when not given.
pub fn round_value(vm: &dyn Vm, x: &Value, ndigits: Option<&Value>) -> PyResult<Value> {
    let nd = match ndigits.unwrap_or(&Value::None) {
        Value::None => None,
        // An ndigits past 64 bits rounds as the nearest 64-bit one would.
        v => Some(match super::as_index_value(v, vm)? {
            Some(Value::Long(b)) if super::long::sign(&b) < 0 => i64::MIN,
            Some(Value::Long(_)) => i64::MAX,
            _ => int_arg(v, vm)?,
        }),
    };
    match (num(x), nd) {
        (Some(Num::I(i)), None) => Ok(Value::Int(i)),
        (Some(Num::I(i)), Some(n)) => round_int(i, n),
        (Some(Num::B(b)), None) => Ok(Value::Long(std::rc::Rc::new(b.clone()))),
        (Some(Num::B(b)), Some(n)) => Ok(round_big(b, n)),
        (Some(Num::F(f)), None) => round_to_int(f),
        (Some(Num::F(f)), Some(n)) => Ok(Value::Float(round_float(f, n)?)),
        (None, _) => match vm.getattr(x, "__round__") {
            Ok(f) if matches!(x, Value::Instance(_) | Value::Native(_) | Value::Tensor(_)) => {
                let args = ndigits.into_iter().cloned().collect();
                vm.call(&f, args, Vec::new())
            }
            _ => Err(type_error(format!(
                "type {} doesn't define __round__ method",
                x.type_name()
            ))),
        },
    }
}

/// `divmod(x, y)`.
pub fn divmod_values(vm: &dyn Vm, x: &Value, y: &Value) -> PyResult<Value> {
    match (num(x), num(y)) {
        (Some(p @ (Num::I(_) | Num::B(_))), Some(q @ (Num::I(_) | Num::B(_)))) => {
            if matches!(q, Num::I(0)) {
                return Err(PyErr::new(
                    ExcType::ZeroDivisionError,
                    "integer division or modulo by zero",
                ));
            }
            let (d, m) = match (p, q) {
                (Num::I(a), Num::I(b)) => super::num::int_divmod(a, b),
                _ => super::long_ops::divmod_big(p, q)?,
            };
            Ok(Value::tuple(vec![d, m]))
        }
        (Some(p), Some(q)) => {
            let (p, q) = (p.to_f64()?, q.to_f64()?);
            if q == 0.0 {
                return Err(PyErr::new(ExcType::ZeroDivisionError, "float divmod()"));
            }
            let (d, m) = float_divmod(p, q);
            Ok(Value::tuple(vec![Value::Float(d), Value::Float(m)]))
        }
        _ => {
            // `x.__divmod__(y)`, then the reflected `y.__rdivmod__(x)`;
            // NotImplemented from either passes on.
            for (this, other, name) in [(x, y, "__divmod__"), (y, x, "__rdivmod__")] {
                if matches!(this, Value::Instance(_) | Value::Native(_)) {
                    if let Ok(f) = vm.getattr(this, name) {
                        let r = vm.call(&f, vec![other.clone()], Vec::new())?;
                        if !r.is(&crate::object::descr::not_implemented()) {
                            return Ok(r);
                        }
                    }
                }
            }
            Err(type_error(format!(
                "unsupported operand type(s) for divmod(): '{}' and '{}'",
                x.type_name(),
                y.type_name()
            )))
        }
    }
}
