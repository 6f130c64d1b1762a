//! How the evaluator reaches tensor behaviour (`Value::Tensor`): operators,
//! attributes, printing, conversion to Python numbers. Implemented over
//! `runtime`, with TensorFlow's operand conversion rules (`tf::convert`).
//! The operator path is the eager hot loop (`x = x + 1`): it allocates only
//! the operand and result tensors and formats nothing unless it fails.

use crate::object::numpy::array::py_scalar as python_scalar;
use std::rc::Rc;

use crate::object::tensor::convert::{operand, placed, runtime_err};
use crate::object::tensor::index::{index_items, Flavor};
use crate::object::types::{type_error, value_error};
use crate::runtime::ops;
use crate::runtime::{BinaryOp, DType, Scalar, Semantics, Tensor, UnaryOp};
use crate::syntax::ast;
use crate::syntax::ast::BinOp;
use crate::syntax::ast::CmpOp;
use crate::value::{Class, ExcType, PyErr, PyResult, Value, Vm};

/// TensorFlow's qualified name of the eager tensor type, used in messages.
pub const EAGER_NAME: &str = "tensorflow.python.framework.ops.EagerTensor";

/// The `tf.Tensor` class (the base of eager tensors).
pub fn tensor_base_class() -> Rc<Class> {
    super::classes::TENSOR.class()
}

/// The class of eager tensors (`type(t)`), a subclass of `tf.Tensor`.
pub fn tensor_class() -> Rc<Class> {
    super::classes::EAGER_TENSOR.class()
}

fn tensor_of(v: &Value) -> PyResult<&Tensor> {
    match v {
        Value::Tensor(t) => Ok(t),
        _ => Err(type_error("expected a tensor")),
    }
}

/// [`tensor_of`] for an operand of an op: TensorFlow's TypeError for a
/// tensor of a `tf.function` graph whose trace has ended ([`in_scope`]).
fn operand_of(v: &Value) -> PyResult<&Tensor> {
    let t = tensor_of(v)?;
    in_scope(t)?;
    Ok(t)
}

/// TensorFlow's TypeError for a graph tensor used after its function's
/// trace ended (one the body kept in a list or an attribute), as the
/// tensor is used in an op; Ok for every other tensor.
pub fn in_scope(t: &Tensor) -> PyResult<()> {
    if t.tag() == 0 {
        return Ok(());
    }
    let Some((name, _, func)) = crate::runtime::graph::escaped(t) else {
        return Ok(());
    };
    let r = format!(
        "<tf.Tensor '{name}' shape={} dtype={}>",
        static_shape_text(t),
        t.dtype().name()
    );
    Err(type_error(format!(
        "{r} is out of scope and cannot be used here. Use return values, explicit Python \
         locals or TensorFlow collections to access it.\nPlease see \
         https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values \
         for more information.\n\nThe tensor {r} cannot be accessed from here, because it was \
         defined in FuncGraph(name={func}), which is out of scope."
    )))
}

/// `t.name`: the attributes and methods of `EagerTensor`'s class, with
/// TensorFlow's errors for what an eager tensor lacks.
pub fn tensor_getattr(vm: &dyn Vm, t: &Value, name: &str) -> PyResult<Option<Value>> {
    let x = tensor_of(t)?;
    if crate::runtime::graph::tracing() || x.tag() != 0 {
        match name {
            "name" => {
                if let Some(name) = symbolic_name(x) {
                    return Ok(Some(Value::str(name.as_str())));
                }
            }
            "device" => {
                if let Some((_, d)) = symbolic(x) {
                    let d = d.map_or(String::new(), |d| d.full_name());
                    return Ok(Some(Value::str(d.as_str())));
                }
            }
            "numpy" if symbolic_name(x).is_some() => {
                return Err(PyErr::new(
                    ExcType::AttributeError,
                    "'SymbolicTensor' object has no attribute 'numpy'",
                ))
            }
            _ => {}
        }
    }
    match name {
        // EagerTensor's getters, called directly: `t.shape` in a loop need
        // not pay for a property call
        "shape" => return Ok(Some(super::classes::shape(x))),
        "dtype" => return Ok(Some(super::classes::dtype(x))),
        "device" => return Ok(Some(Value::str(super::classes::device(x)))),
        "ndim" => return Ok(Some(Value::Int(super::classes::ndim(x) as i64))),
        "T" => return Ok(None),
        "__class__" => return Ok(Some(Value::Class(tensor_class()))),
        "name" | "op" | "graph" => {
            return Err(PyErr::new(
                ExcType::AttributeError,
                format!("Tensor.{name} is undefined when eager execution is enabled."),
            ))
        }
        _ => {}
    }
    let cls = tensor_class();
    match cls.lookup(name) {
        Some(Value::NativeFunction(f)) => Ok(Some(f.bind(t.clone()))),
        Some(p @ Value::Native(_)) if crate::object::attr::is_data_descriptor(&p) => {
            crate::object::attr::descriptor_get(vm, &p, Some(t), &cls)
        }
        _ => {
            let e = crate::object::attr::no_attribute(EAGER_NAME, name);
            // TensorFlow gives a slice of a variable (`v[1]`) an `assign`;
            // dist's slices are plain tensors, so say what to do instead.
            Err(if name == "assign" {
                e.help("assigning to a slice of a tf.Variable (v[i].assign(x)) is not supported by dist yet: assign the whole variable")
            } else {
                e
            })
        }
    }
}

/// Runs a TensorFlow binary operator on two tensors.
fn apply(op: BinOp, a: &Tensor, b: &Tensor) -> Option<crate::runtime::Result<Tensor>> {
    Some(match op {
        BinOp::Add => ops::add(a, b),
        BinOp::Sub => ops::sub(a, b),
        BinOp::Mult => ops::mul(a, b),
        BinOp::Div => ops::truediv(a, b),
        BinOp::FloorDiv => ops::floordiv(a, b),
        BinOp::Mod => ops::floormod(a, b),
        BinOp::Pow => ops::pow(a, b),
        BinOp::MatMult => ops::matmul(a, b, false, false),
        BinOp::BitAnd => ops::binary(BinaryOp::LogicalAnd, a, b),
        BinOp::BitOr => ops::binary(BinaryOp::LogicalOr, a, b),
        _ => return None,
    })
}

/// `t op other` / `other op t`.
pub fn tensor_binop(
    vm: &dyn Vm,
    op: BinOp,
    t: &Value,
    other: &Value,
    reflected: bool,
) -> PyResult<Option<Value>> {
    let x = operand_of(t)?;
    if !matches!(
        op,
        BinOp::Add
            | BinOp::Sub
            | BinOp::Mult
            | BinOp::Div
            | BinOp::FloorDiv
            | BinOp::Mod
            | BinOp::Pow
            | BinOp::MatMult
            | BinOp::BitAnd
            | BinOp::BitOr
    ) {
        return Ok(None);
    }
    // objects that are not tensor-like get their own reflected method
    // (a Python complex number converts, as an int or float does)
    if let Value::Native(n) = other {
        if other
            .downcast::<crate::object::types::complex::Complex>()
            .is_none()
            && n.to_tensor(vm)?.is_none()
        {
            return Ok(None);
        }
    }
    if matches!(other, Value::Instance(_)) {
        return Ok(None);
    }
    // `t + y` converts y with x's dtype only as a hint (TensorFlow's
    // `_add_dispatch`); every other operator converts strictly.
    let hint_only = op == BinOp::Add && !reflected;
    if !crate::runtime::graph::tracing() {
        let y = operand(vm, other, x.dtype(), x.device(), hint_only)?;
        let r = if reflected {
            apply(op, &y, x)
        } else {
            apply(op, x, &y)
        };
        return match r {
            Some(r) => placed(vm, r).map(|v| Some(Value::Tensor(v))),
            None => Ok(None),
        };
    }
    // while a tf.function traces: the node names TensorFlow's operator
    // overloads give (`add`, with the other operand's constant `add/y`)
    let scope = match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mult => "mul",
        BinOp::Div => "truediv",
        BinOp::FloorDiv => "floordiv",
        BinOp::Mod => "mod",
        BinOp::Pow => "pow",
        BinOp::MatMult => "matmul",
        BinOp::BitAnd => "and",
        _ => "or",
    };
    let mut unsupported = false;
    let r = crate::runtime::graph::named(scope, || -> PyResult<Tensor> {
        let before = crate::runtime::graph::node_count();
        let y = operand(vm, other, x.dtype(), x.device(), hint_only)?;
        let side = if reflected { "x" } else { "y" };
        crate::runtime::graph::rename_constant(&y, before, side);
        if crate::runtime::graph::is_constant(&y) {
            crate::runtime::graph::constant_named(&y, side);
        }
        let r = if reflected {
            apply(op, &y, x)
        } else {
            apply(op, x, &y)
        };
        match r {
            Some(r) => placed(vm, r),
            None => {
                unsupported = true;
                Ok(y)
            }
        }
    })?;
    if unsupported {
        return Ok(None);
    }
    Ok(Some(Value::Tensor(r)))
}

/// `-t`, `+t`, `~t`.
pub fn tensor_unary(vm: &dyn Vm, op: ast::UnaryOp, t: &Value) -> PyResult<Option<Value>> {
    let x = operand_of(t)?;
    let r = match op {
        ast::UnaryOp::USub => ops::unary(UnaryOp::Neg, x),
        ast::UnaryOp::Invert if x.dtype() == DType::Bool => ops::unary(UnaryOp::LogicalNot, x),
        ast::UnaryOp::Invert if x.dtype().is_integer() => {
            // two's complement: ~x == -x - 1
            let one =
                Tensor::fill(&[], &Scalar::Int(1), x.dtype(), x.device()).map_err(runtime_err)?;
            ops::unary(UnaryOp::Neg, x).and_then(|n| ops::sub(&n, &one))
        }
        _ => {
            let name = match op {
                ast::UnaryOp::UAdd => "+",
                ast::UnaryOp::Invert => "~",
                _ => "-",
            };
            return Err(type_error(format!(
                "bad operand type for unary {name}: '{EAGER_NAME}'"
            )));
        }
    };
    placed(vm, r).map(|v| Some(Value::Tensor(v)))
}

/// `t == other` etc.
pub fn tensor_compare(vm: &dyn Vm, t: &Value, op: CmpOp, other: &Value) -> PyResult<Option<Value>> {
    let x = operand_of(t)?;
    let bop = match op {
        CmpOp::Eq => BinaryOp::Equal,
        CmpOp::NotEq => BinaryOp::NotEqual,
        CmpOp::Lt => BinaryOp::Less,
        CmpOp::LtE => BinaryOp::LessEqual,
        CmpOp::Gt => BinaryOp::Greater,
        CmpOp::GtE => BinaryOp::GreaterEqual,
        _ => return Ok(None),
    };
    if let Value::Native(n) = other {
        if n.to_tensor(vm)?.is_none() {
            return Ok(None);
        }
    }
    let eq = matches!(bop, BinaryOp::Equal | BinaryOp::NotEqual);
    if eq && matches!(other, Value::None | Value::Instance(_)) {
        return Ok(Some(Value::Bool(bop == BinaryOp::NotEqual)));
    }
    let y = operand(vm, other, x.dtype(), x.device(), false)?;
    if eq && x.shape().broadcast(y.shape()).is_none() {
        // TensorFlow's __eq__ compares with incompatible_shape_error=False
        let r = Tensor::fill(
            &[],
            &Scalar::Bool(bop == BinaryOp::NotEqual),
            DType::Bool,
            x.device(),
        );
        return placed(vm, r).map(|v| Some(Value::Tensor(v)));
    }
    placed(vm, ops::binary(bop, x, &y)).map(|v| Some(Value::Tensor(v)))
}

/// `bool(t)`.
pub fn tensor_truthy(vm: &dyn Vm, t: &Value) -> PyResult<bool> {
    let x = tensor_of(t)?;
    let escaped = x.tag() != 0 && crate::runtime::graph::escaped(x).is_some();
    if escaped || (vm.graph_strict() && crate::runtime::graph::in_graph(x)) {
        return Err(not_allowed_in_graph(
            "Using a symbolic `tf.Tensor` as a Python `bool`",
        ));
    }
    match x.numel() {
        0 => Ok(false),
        1 => Ok(x.get(0).is_some_and(|s| match s {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::Float(f) => f != 0.0,
            Scalar::Complex(re, im) => re != 0.0 || im != 0.0,
            Scalar::Bytes(b) => !b.is_empty(),
        })),
        _ => Err(value_error(
            "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
        )),
    }
}

/// TensorFlow's error for Python control flow on a symbolic tensor in code
/// autograph did not convert.
fn not_allowed_in_graph(task: &str) -> PyErr {
    PyErr::new(
        ExcType::OperatorNotAllowedInGraphError,
        format!(
            "{task} is not allowed. You can attempt the following resolutions to the problem: \
             If you are running in Graph mode, use Eager execution mode or decorate this \
             function with @tf.function. If you are using AutoGraph, you can try decorating \
             this function with @tf.function. If that does not work, then you may be using an \
             unsupported feature or your source code may not be visible to AutoGraph. See \
             https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/limitations.md#access-to-source-code \
             for more information."
        ),
    )
}

/// `len(t)`.
pub fn tensor_len(vm: &dyn Vm, t: &Value) -> PyResult<usize> {
    let x = tensor_of(t)?;
    // (autograph converts `len` of a tensor to its dynamic size)
    let escaped = x.tag() != 0 && crate::runtime::graph::escaped(x).is_some();
    if escaped || (vm.graph_strict() && !vm.autograph() && crate::runtime::graph::in_graph(x)) {
        if let Some(name) = symbolic_name(x) {
            return Err(type_error(format!(
                "len is not well defined for a symbolic Tensor ({name}). Please call `x.shape` \
                 rather than `len(x)` for shape information."
            )));
        }
    }
    x.dims()
        .first()
        .copied()
        .ok_or_else(|| type_error("Scalar tensor has no `len()`"))
}

/// `t[key]`.
pub fn tensor_getitem(vm: &dyn Vm, t: &Value, key: &Value) -> PyResult<Value> {
    let x = operand_of(t)?;
    let items = index_items(vm, key, Flavor::Tf)?;
    ops::index(x, &items, Semantics::Tf)
        .map(Value::Tensor)
        .map_err(runtime_err)
}

/// `format(t, spec)`: a 0-d tensor formats its value; others format as numpy does.
pub fn tensor_format(vm: &dyn Vm, t: &Value, spec: &str) -> PyResult<String> {
    let x = tensor_of(t)?;
    if symbolic(x).is_some() {
        // a graph tensor formats as `object.__format__`: its str
        if !spec.is_empty() {
            return Err(type_error(
                "unsupported format string passed to SymbolicTensor.__format__",
            ));
        }
        return tensor_str(vm, t);
    }
    if spec.is_empty() && x.rank() != 0 {
        return Ok(crate::runtime::format::numpy_str(x));
    }
    if x.rank() != 0 {
        return Err(type_error(
            "unsupported format string passed to numpy.ndarray.__format__",
        ));
    }
    let v = x.item().map_err(runtime_err)?;
    vm.format(&python_scalar(v), spec)
}

/// `iter(t)`: the slices along the first axis.
pub fn tensor_iter(vm: &dyn Vm, t: &Value) -> PyResult<Value> {
    let x = tensor_of(t)?;
    // (even an eager tensor the function captures: TensorFlow asks whether
    // it executes eagerly)
    if vm.graph_strict() {
        return Err(not_allowed_in_graph(
            "Iterating over a symbolic `tf.Tensor`",
        ));
    }
    if x.rank() == 0 {
        return Err(type_error("Cannot iterate over a scalar tensor."));
    }
    let parts = ops::unstack(x, 0).map_err(runtime_err)?;
    vm.iter(&Value::list(parts.into_iter().map(Value::Tensor).collect()))
}

/// `repr(t)`.
pub fn tensor_repr(_vm: &dyn Vm, t: &Value) -> PyResult<String> {
    let x = tensor_of(t)?;
    if let Some(name) = symbolic_name(x) {
        return Ok(format!(
            "<tf.Tensor '{name}' shape={} dtype={}>",
            static_shape_text(x),
            x.dtype().name()
        ));
    }
    Ok(crate::runtime::format::tf_repr(x))
}

/// `str(t)`.
pub fn tensor_str(_vm: &dyn Vm, t: &Value) -> PyResult<String> {
    let x = tensor_of(t)?;
    if let Some((name, device)) = symbolic(x) {
        let device = device.map_or(String::new(), |d| format!(", device={}", d.full_name()));
        // (an unknown rank prints no shape)
        let shape = match crate::runtime::graph::static_dims(x) {
            Some(None) => String::new(),
            _ => format!("shape={}, ", static_shape_text(x)),
        };
        return Ok(format!(
            "Tensor(\"{name}\", {shape}dtype={}{device})",
            x.dtype().name()
        ));
    }
    Ok(crate::runtime::format::tf_str(x))
}

/// A traced tensor's static shape as TensorFlow prints it (`(None, 3)`).
fn static_shape_text(x: &Tensor) -> String {
    match crate::runtime::graph::static_dims(x) {
        Some(dims) => super::shape::shape_text(dims.as_deref()),
        None => x.shape().tuple_text(),
    }
}

/// The graph name (`add:0`) of a tensor of the `tf.function` being traced.
fn symbolic_name(x: &Tensor) -> Option<String> {
    symbolic(x).map(|(n, _)| n)
}

/// The graph name of a tensor of the `tf.function` being traced, and its
/// device where the trace set it.
fn symbolic(x: &Tensor) -> Option<(String, Option<crate::runtime::Device>)> {
    if let Some((name, _, _)) = crate::runtime::graph::escaped(x) {
        return Some((name, None));
    }
    if !crate::runtime::graph::tracing() {
        return None;
    }
    crate::runtime::graph::tensor_name(x)
}

/// `int(t)`, `float(t)`, `operator.index(t)`: the Python number of a 0-d
/// tensor (TypeError for others). `index` asks for an integer dtype.
pub fn tensor_to_number(_vm: &dyn Vm, t: &Value, index: bool) -> PyResult<Option<Value>> {
    let x = operand_of(t)?;
    if index && !(x.dtype().is_integer() && x.rank() == 0) {
        return Ok(None);
    }
    if x.rank() != 0 {
        return Err(type_error(
            "only 0-dimensional arrays can be converted to Python scalars",
        ));
    }
    Ok(Some(python_scalar(x.item().map_err(runtime_err)?)))
}
