//! `tf.TensorShape`: what `tensor.shape` returns. Dimensions may be unknown
//! (`None`); printing, indexing, `as_list`, `num_elements` and equality with
//! lists and tuples follow TensorFlow.

use std::any::Any;
use std::rc::Rc;

use crate::object::types::{builtin_class, slice_indices};
use crate::value::{
    Args, Class, ClassKind, ExcType, NativeObject, PyErr, PyResult, Value, ValueType, Vm,
};

/// A `tf.TensorShape` of known rank.
pub struct TensorShapeObj {
    /// The dims, `None` where unknown.
    pub dims: Vec<Option<usize>>,
}

thread_local! {
    static CLASS: Rc<Class> = {
        let c = Class::new_builtin(
            "TensorShape",
            "tensorflow.python.framework.tensor_shape",
            Some(builtin_class(ValueType::Object)),
            ClassKind::Native,
        );
        crate::object::types::add_new(&c, "TensorShape(dims)", shape_new, "A tensor's shape: `tf.TensorShape([2, 3])`.");
        for (sig, f) in [
            ("TensorShape.as_list(self)", as_list as crate::value::NativeFn),
            ("TensorShape.num_elements(self)", num_elements),
            ("TensorShape.is_fully_defined(self)", is_fully_defined),
        ] {
            crate::object::types::add_method(&c, sig, f, "");
        }
        c
    };
}

/// The `tf.TensorShape` class.
pub fn shape_class() -> Rc<Class> {
    CLASS.with(Rc::clone)
}

/// A `TensorShape` value of fully known dims.
pub fn shape_value(dims: &[usize]) -> Value {
    Value::native(TensorShapeObj {
        dims: dims.iter().map(|&d| Some(d)).collect(),
    })
}

fn this(a: &Args) -> PyResult<&TensorShapeObj> {
    match a.get(0) {
        Value::Native(n) => n.as_any().downcast_ref::<TensorShapeObj>(),
        _ => None,
    }
    .ok_or_else(|| PyErr::new(ExcType::TypeError, "expected a TensorShape"))
}

fn dim_value(d: Option<usize>) -> Value {
    d.map_or(Value::None, |x| Value::Int(x as i64))
}

fn as_list(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::list(
        this(a)?.dims.iter().map(|&d| dim_value(d)).collect(),
    ))
}

fn num_elements(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let s = this(a)?;
    Ok(
        match s
            .dims
            .iter()
            .try_fold(1i64, |acc, d| d.map(|x| acc.saturating_mul(x as i64)))
        {
            Some(n) => Value::Int(n),
            None => Value::None,
        },
    )
}

fn is_fully_defined(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    Ok(Value::Bool(this(a)?.dims.iter().all(Option::is_some)))
}

fn shape_new(vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let v = a.get(0);
    if let Value::Native(n) = v {
        if let Some(s) = n.as_any().downcast_ref::<TensorShapeObj>() {
            return Ok(Value::native(TensorShapeObj {
                dims: s.dims.clone(),
            }));
        }
    }
    let items = match v {
        Value::Int(i) => vec![Value::Int(*i)],
        other => vm.collect(other)?,
    };
    let mut dims = Vec::with_capacity(items.len());
    for x in &items {
        dims.push(match x {
            Value::None => None,
            other => match crate::object::tensor::convert::int_scalar(vm, other)? {
                Some(i) if i >= 0 => Some(i as usize),
                Some(i) => return Err(PyErr::new(ExcType::ValueError, format!("Dimension {i} must be >= 0"))),
                None => {
                    return Err(PyErr::new(
                        ExcType::TypeError,
                        format!("Dimension value must be integer or None or have an __index__ method, got value '{}' with type '{}'", vm.repr(other)?, other.type_name()),
                    ))
                }
            },
        });
    }
    Ok(Value::native(TensorShapeObj { dims }))
}

impl TensorShapeObj {
    fn text(&self, sep: &str) -> Vec<String> {
        let _ = sep;
        self.dims
            .iter()
            .map(|d| d.map_or("None".to_string(), |x| x.to_string()))
            .collect()
    }

    /// The dims of a list, tuple or TensorShape compared against (None when not comparable).
    fn other_dims(vm: &dyn Vm, other: &Value) -> Option<Vec<Option<usize>>> {
        match other {
            Value::Native(n) => n
                .as_any()
                .downcast_ref::<TensorShapeObj>()
                .map(|s| s.dims.clone()),
            Value::List(_) | Value::Tuple(_) => {
                let items = vm.collect(other).ok()?;
                items
                    .iter()
                    .map(|x| match x {
                        Value::None => Some(None),
                        Value::Int(i) if *i >= 0 => Some(Some(*i as usize)),
                        _ => None,
                    })
                    .collect()
            }
            _ => None,
        }
    }
}

impl NativeObject for TensorShapeObj {
    fn type_name(&self) -> &str {
        "TensorShape"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn class(&self) -> Option<Rc<Class>> {
        Some(shape_class())
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("TensorShape([{}])", self.text(", ").join(", ")))
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let parts = self.text(", ");
        Ok(match parts.len() {
            1 => format!("({},)", parts[0]),
            _ => format!("({})", parts.join(", ")),
        })
    }

    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(match name {
            "rank" | "ndims" => Value::Int(self.dims.len() as i64),
            "dims" => Value::list(self.dims.iter().map(|&d| dim_value(d)).collect()),
            _ => match shape_class().lookup(name) {
                Some(Value::NativeFunction(f)) => f.bind(this.clone()),
                _ => return Ok(None),
            },
        }))
    }

    fn len(&self, _vm: &dyn Vm) -> PyResult<Option<usize>> {
        Ok(Some(self.dims.len()))
    }

    fn iter(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let l = Value::list(self.dims.iter().map(|&d| dim_value(d)).collect());
        vm.iter(&l).map(Some)
    }

    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        if let Some((start, stop, step)) = slice_indices(key, self.dims.len())? {
            {
                let mut dims = Vec::new();
                let mut i = start;
                while (step > 0 && i < stop) || (step < 0 && i > stop) {
                    dims.push(self.dims[i as usize]);
                    i += step;
                }
                return Ok(Some(Value::native(TensorShapeObj { dims })));
            }
        }
        let Some(i) = crate::object::tensor::convert::int_scalar(vm, key)? else {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "list indices must be integers or slices, not {}",
                    key.type_name()
                ),
            ));
        };
        let n = self.dims.len() as i64;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(PyErr::new(ExcType::IndexError, "list index out of range"));
        }
        Ok(Some(dim_value(self.dims[j as usize])))
    }

    fn compare(
        &self,
        _this: &Value,
        op: &str,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let eq = match Self::other_dims(vm, other) {
            Some(d) => d == self.dims,
            None => false,
        };
        Ok(match op {
            "==" => Some(Value::Bool(eq)),
            "!=" => Some(Value::Bool(!eq)),
            _ => None,
        })
    }
}
