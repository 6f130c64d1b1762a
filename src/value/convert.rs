//! Conversions from `Value` to Rust types, with Python's error messages.
//! Natives convert their bound arguments here, never ad hoc. An instance of
//! a builtin type's subclass converts as its builtin value (a `StrEnum`
//! member is a str, an `IntEnum` member an int), as CPython's argument
//! parsing accepts subclasses.

use std::rc::Rc;

use super::error::{ExcType, PyErr, PyResult};
use super::signature::Args;
use super::value::Value;

/// A Rust type a `Value` converts to. `what` names the parameter for messages.
pub trait FromValue: Sized {
    /// Converts, or raises the TypeError Python would.
    fn from_value(v: &Value, what: &str) -> PyResult<Self>;
}

impl FromValue for i64 {
    fn from_value(v: &Value, what: &str) -> PyResult<i64> {
        match v.as_builtin() {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(*b as i64),
            _ => Err(type_error(format!(
                "'{}' object cannot be interpreted as an integer{}",
                v.type_name(),
                for_what(what)
            ))),
        }
    }
}

impl FromValue for usize {
    fn from_value(v: &Value, what: &str) -> PyResult<usize> {
        let i = i64::from_value(v, what)?;
        usize::try_from(i)
            .map_err(|_| PyErr::new(ExcType::ValueError, format!("{what} must be non-negative")))
    }
}

impl FromValue for f64 {
    fn from_value(v: &Value, what: &str) -> PyResult<f64> {
        match v.as_builtin() {
            Value::Float(f) => Ok(*f),
            Value::Int(i) => Ok(*i as f64),
            Value::Bool(b) => Ok(*b as i64 as f64),
            _ => Err(type_error(format!(
                "must be real number, not {}{}",
                v.type_name(),
                for_what(what)
            ))),
        }
    }
}

impl FromValue for bool {
    fn from_value(v: &Value, _what: &str) -> PyResult<bool> {
        match v {
            Value::Bool(b) => Ok(*b),
            Value::Int(i) => Ok(*i != 0),
            Value::None => Ok(false),
            _ => Ok(true),
        }
    }
}

impl FromValue for Rc<String> {
    fn from_value(v: &Value, what: &str) -> PyResult<Rc<String>> {
        match v.as_builtin() {
            Value::Str(s) => Ok(s.clone()),
            _ => Err(type_error(format!(
                "{}must be str, not {}",
                prefix(what),
                v.type_name()
            ))),
        }
    }
}

impl FromValue for String {
    fn from_value(v: &Value, what: &str) -> PyResult<String> {
        Rc::<String>::from_value(v, what).map(|s| s.to_string())
    }
}

impl FromValue for Value {
    fn from_value(v: &Value, _what: &str) -> PyResult<Value> {
        Ok(v.clone())
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value, what: &str) -> PyResult<Option<T>> {
        match v {
            Value::None => Ok(None),
            v => T::from_value(v, what).map(Some),
        }
    }
}

fn for_what(what: &str) -> String {
    let _ = what;
    String::new()
}

fn prefix(what: &str) -> String {
    if what.is_empty() {
        String::new()
    } else {
        format!("{what} ")
    }
}

#[cold]
fn type_error(msg: String) -> PyErr {
    PyErr::new(ExcType::TypeError, msg)
}

impl Args {
    /// Parameter `i` converted to `T` (named `what` in messages).
    pub fn conv<T: FromValue>(&self, i: usize, what: &str) -> PyResult<T> {
        T::from_value(&self.values[i], what)
    }

    /// Parameter `i` as an int.
    pub fn int(&self, i: usize) -> PyResult<i64> {
        self.conv(i, "")
    }

    /// Parameter `i` as a float.
    pub fn float(&self, i: usize) -> PyResult<f64> {
        self.conv(i, "")
    }

    /// Parameter `i` as a string.
    pub fn string(&self, i: usize) -> PyResult<Rc<String>> {
        self.conv(i, "")
    }
}
