//! The TypeErrors of operators on values that do not support them, worded
//! as CPython's. The operators themselves are evaluated in `eval::ops`.

use super::type_error;
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, PyErr, Value};

/// `TypeError: '<' not supported between instances of 'str' and 'int'`.
#[cold]
pub fn compare_error(op: &str, a: &Value, b: &Value) -> PyErr {
    type_error(format!(
        "'{op}' not supported between instances of '{}' and '{}'",
        a.type_name(),
        b.type_name()
    ))
}

/// The TypeError for an unsupported binary operation, worded as CPython's.
#[cold]
pub fn binop_error(op: BinOp, a: &Value, b: &Value) -> PyErr {
    let msg = match (op, a) {
        (BinOp::Add, Value::Str(_)) => format!(
            "can only concatenate str (not \"{}\") to str",
            b.type_name()
        ),
        (BinOp::Add, Value::List(_)) => format!(
            "can only concatenate list (not \"{}\") to list",
            b.type_name()
        ),
        (BinOp::Add, Value::Tuple(_)) => format!(
            "can only concatenate tuple (not \"{}\") to tuple",
            b.type_name()
        ),
        (BinOp::Mult, Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Bytes(_)) => {
            format!(
                "can't multiply sequence by non-int of type '{}'",
                b.type_name()
            )
        }
        (BinOp::Mult, _)
            if matches!(
                b,
                Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Bytes(_)
            ) =>
        {
            format!(
                "can't multiply sequence by non-int of type '{}'",
                a.type_name()
            )
        }
        (BinOp::Pow, _) => format!(
            "unsupported operand type(s) for ** or pow(): '{}' and '{}'",
            a.type_name(),
            b.type_name()
        ),
        _ => format!(
            "unsupported operand type(s) for {}: '{}' and '{}'",
            op.symbol(),
            a.type_name(),
            b.type_name()
        ),
    };
    type_error(msg)
}

/// The error of `a op= b` when the fallback `a op b` failed: CPython names
/// the augmented operator (`unsupported operand type(s) for +=: 'int' and
/// 'str'`); other errors (`can only concatenate …`, a method's own) pass on.
#[cold]
pub fn inplace_error(op: BinOp, a: &Value, b: &Value, err: PyErr) -> PyErr {
    let plain = binop_error(op, a, b);
    let msg_of = |e: &PyErr| match e.args().first() {
        Some(Value::Str(s)) => Some(s.to_string()),
        _ => None,
    };
    match (msg_of(&err), msg_of(&plain)) {
        (Some(m), Some(p))
            if err.is(ExcType::TypeError) && m == p && m.starts_with("unsupported operand") =>
        {
            type_error(format!(
                "unsupported operand type(s) for {}=: '{}' and '{}'",
                op.symbol(),
                a.type_name(),
                b.type_name()
            ))
        }
        _ => err,
    }
}

/// The TypeError for an unsupported unary operation.
#[cold]
pub fn unary_error(op: char, v: &Value) -> PyErr {
    type_error(format!(
        "bad operand type for unary {op}: '{}'",
        v.type_name()
    ))
}
