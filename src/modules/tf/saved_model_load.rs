//! The loading half of `_dist_saved_model`: `saved_model.pb` read into
//! Python tuples, `StructuredValue`s as Python values, and
//! [`LoadedFunction`], a loaded `FunctionDef` called on the runtime's
//! kernels (`runtime::saved_model::interp`).

use std::collections::HashMap;
use std::rc::Rc;

use prost::Message;

use super::saved_model::{err, os_err};
use crate::distribute::classes::native_class;
use crate::distribute::dataset::structure::{Spec, SpecObj};
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::{native, ClassSpec};
use crate::runtime::error::Result as RtResult;
use crate::runtime::saved_model::interp::{self, Assign, Env, Library, V};
use crate::runtime::saved_model::proto::{
    self as pb, saved_object::Kind, structured_value::Kind as SK,
};
use crate::runtime::saved_model::{dtype_of, static_shape};
use crate::runtime::Tensor;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A `StructuredValue` as a Python value (`TensorSpec`s for tensor specs,
/// a dict for a named tuple).
fn from_structured(v: &pb::StructuredValue) -> PyResult<Value> {
    let Some(k) = &v.kind else {
        return Ok(Value::None);
    };
    let many =
        |vs: &[pb::StructuredValue]| vs.iter().map(from_structured).collect::<PyResult<Vec<_>>>();
    Ok(match k {
        SK::NoneValue(_) => Value::None,
        SK::Float64Value(f) => Value::Float(*f),
        SK::Int64Value(i) => Value::Int(*i),
        SK::StringValue(s) => Value::str(s),
        SK::BoolValue(b) => Value::Bool(*b),
        SK::TensorShapeValue(s) => match static_shape(s) {
            None => Value::None,
            Some(d) => Value::tuple(
                d.into_iter()
                    .map(|x| x.map_or(Value::None, |v| Value::Int(v as i64)))
                    .collect(),
            ),
        },
        SK::TensorDtypeValue(d) => Value::str(dtype_of(*d).map_err(runtime_err)?.name()),
        SK::TensorSpecValue(t) => {
            let dims = t.shape.as_ref().and_then(static_shape);
            let name = (!t.name.is_empty()).then(|| Rc::from(t.name.as_str()));
            Value::native(SpecObj(
                Spec::Tensor {
                    dtype: dtype_of(t.dtype).map_err(runtime_err)?,
                    dims,
                },
                name,
            ))
        }
        SK::ListValue(l) => Value::list(many(&l.values)?),
        SK::TupleValue(t) => Value::tuple(many(&t.values)?),
        SK::DictValue(d) => {
            let mut out = crate::value::dict::Dict::new();
            for e in &d.fields {
                let x = e.value.as_ref().map_or(Ok(Value::None), from_structured)?;
                out.insert(Value::str(&e.key), x)?;
            }
            Value::dict(out)
        }
        SK::NamedTupleValue(n) => {
            let mut out = crate::value::dict::Dict::new();
            for p in &n.values {
                let x = p.value.as_ref().map_or(Ok(Value::None), from_structured)?;
                out.insert(Value::str(&p.key), x)?;
            }
            Value::dict(out)
        }
    })
}

/// A function of a loaded SavedModel: called with its flat input tensors
/// and its captured variables, it gives its flat outputs.
pub struct LoadedFunction {
    lib: Rc<Library>,
    name: String,
}

static LOADED_FUNCTION: ClassSpec = ClassSpec {
    name: "LoadedFunction",
    module: "tensorflow.python.saved_model.load",
    bases: &[],
    members: &[],
};

native_class!(LoadedFunction: LOADED_FUNCTION);

/// The variables a loaded function reads and assigns.
struct Vars<'a> {
    vm: &'a dyn Vm,
    vars: Vec<Value>,
    failed: Option<PyErr>,
}

impl Vars<'_> {
    fn keep<T>(&mut self, r: PyResult<T>) -> RtResult<T> {
        r.map_err(|e| {
            self.failed = Some(e);
            crate::runtime::Error::internal("a variable of a loaded function failed")
        })
    }
}

impl Env for Vars<'_> {
    fn read(&mut self, r: usize) -> RtResult<Tensor> {
        let v = self.vars.get(r).cloned().unwrap_or(Value::None);
        let t = to_tensor(self.vm, &v, None);
        self.keep(t)
    }
    fn assign(&mut self, r: usize, how: Assign, value: &Tensor) -> RtResult<()> {
        let v = self.vars.get(r).cloned().unwrap_or(Value::None);
        let method = match how {
            Assign::Set => "assign",
            Assign::Add => "assign_add",
            Assign::Sub => "assign_sub",
        };
        let vm = self.vm;
        let done = vm
            .getattr(&v, method)
            .and_then(|f| vm.call(&f, vec![Value::Tensor(value.clone())], vec![]));
        self.keep(done).map(|_| ())
    }
    fn poll(&mut self) -> RtResult<()> {
        let r = self.vm.check_interrupt();
        self.keep(r)
    }
}

impl NativeObject for LoadedFunction {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&LOADED_FUNCTION)
    }
    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<LoadedFunction {} at 0x{:X}>",
            self.name,
            this.id()
        ))
    }
    fn call(
        &self,
        _this: &Value,
        args: Vec<Value>,
        _kwargs: Vec<(Rc<str>, Value)>,
        vm: &dyn Vm,
    ) -> PyResult<Value> {
        let [inputs, variables] = &args[..] else {
            return Err(err(
                ExcType::TypeError,
                "a loaded function takes (inputs, variables)",
            ));
        };
        let mut flat = Vec::new();
        for x in vm.collect(inputs)? {
            flat.push(V::T(to_tensor(vm, &x, None)?));
        }
        let vars: Vec<Value> = vm.collect(variables)?;
        flat.extend((0..vars.len()).map(V::R));
        let mut env = Vars {
            vm,
            vars,
            failed: None,
        };
        let out = interp::call(&self.lib, &self.name, &flat, &mut env);
        if let Some(e) = env.failed.take() {
            return Err(e);
        }
        let out = out.map_err(runtime_err)?;
        Ok(Value::list(
            out.into_iter()
                .map(|v| match v {
                    V::T(t) => Value::Tensor(t),
                    V::R(_) => Value::None,
                })
                .collect(),
        ))
    }
}

/// Reads `DIR/saved_model.pb`: `(nodes, functions)`, nodes as `(children,
/// kind, payload)` and functions as `{name: (callable, bound_inputs, input
/// signature, output signature)}`.
#[native("read_saved_model(export_dir)")]
pub(super) fn read_saved_model(export_dir: &str) -> PyResult<Value> {
    let path = format!("{}/saved_model.pb", export_dir.trim_end_matches('/'));
    let bytes = std::fs::read(&path).map_err(|e| os_err(&path, &e))?;
    let model = pb::SavedModel::decode(&bytes[..]).map_err(|_| {
        err(
            ExcType::OSError,
            format!("Cannot parse file b'{path}': Error parsing message with type 'tensorflow.SavedModel': Wire format was corrupt."),
        )
    })?;
    let meta = model
        .meta_graphs
        .into_iter()
        .next()
        .ok_or_else(|| {
            err(
                ExcType::ValueError,
                "Importing a SavedModel with `tf.saved_model.load` requires a `tags=` argument if there is more than one MetaGraph. Got `tags=None`, but there are 0 MetaGraphs in the SavedModel with tag sets: []. Pass a `tags=` argument to load this SavedModel.",
            )
        })?;
    let objects = meta.object_graph_def.ok_or_else(|| {
        err(
            ExcType::NotImplementedError,
            "dist cannot load a TensorFlow 1 SavedModel (one without an object graph)",
        )
    })?;
    let lib: Library = meta
        .graph_def
        .and_then(|g| g.library)
        .map(|l| {
            l.function
                .into_iter()
                .map(|f| {
                    (
                        f.signature
                            .as_ref()
                            .map_or(String::new(), |s| s.name.clone()),
                        f,
                    )
                })
                .collect::<HashMap<_, _>>()
        })
        .unwrap_or_default();
    let lib = Rc::new(lib);
    let mut nodes = Vec::new();
    for n in &objects.nodes {
        let children = Value::list(
            n.children
                .iter()
                .map(|c| {
                    Value::tuple(vec![
                        Value::Int(c.node_id as i64),
                        Value::str(&c.local_name),
                    ])
                })
                .collect(),
        );
        let (kind, payload) = match &n.kind {
            Some(Kind::UserObject(u)) => ("user", vec![Value::str(&u.identifier)]),
            Some(Kind::Variable(v)) => {
                let dims = v.shape.as_ref().map_or(Some(vec![]), static_shape);
                let shape = match dims {
                    None => Value::None,
                    Some(d) => Value::list(
                        d.into_iter()
                            .map(|x| x.map_or(Value::None, |v| Value::Int(v as i64)))
                            .collect(),
                    ),
                };
                (
                    "variable",
                    vec![
                        Value::str(dtype_of(v.dtype).map_err(runtime_err)?.name()),
                        shape,
                        Value::Bool(v.trainable),
                        Value::str(&v.name),
                        Value::Int(v.synchronization as i64),
                        Value::Int(v.aggregation as i64),
                    ],
                )
            }
            Some(Kind::Function(f)) => {
                let signature = match f
                    .function_spec
                    .as_ref()
                    .and_then(|s| s.input_signature.as_ref())
                {
                    Some(s) => from_structured(s)?,
                    None => Value::None,
                };
                (
                    "function",
                    vec![
                        Value::list(f.concrete_functions.iter().map(Value::str).collect()),
                        signature,
                    ],
                )
            }
            Some(Kind::BareConcreteFunction(b)) => (
                "bare",
                vec![
                    Value::str(&b.concrete_function_name),
                    Value::list(b.argument_keywords.iter().map(Value::str).collect()),
                    Value::Int(b.allowed_positional_arguments),
                ],
            ),
            Some(Kind::Constant(c)) => ("constant", vec![Value::str(&c.operation)]),
            Some(Kind::Resource(_)) => ("resource", vec![]),
            None => ("user", vec![Value::str("")]),
        };
        nodes.push(Value::tuple(vec![
            children,
            Value::str(kind),
            Value::tuple(payload),
        ]));
    }
    let mut functions = crate::value::dict::Dict::new();
    for (name, c) in &objects.concrete_functions {
        if !lib.contains_key(name) {
            return Err(err(
                ExcType::ValueError,
                format!("{path}: no FunctionDef for {name}"),
            ));
        }
        let f = Value::native(LoadedFunction {
            lib: lib.clone(),
            name: name.clone(),
        });
        let none = pb::StructuredValue::default();
        let entry = Value::tuple(vec![
            f,
            Value::list(
                c.bound_inputs
                    .iter()
                    .map(|&b| Value::Int(b as i64))
                    .collect(),
            ),
            from_structured(c.canonicalized_input_signature.as_ref().unwrap_or(&none))?,
            from_structured(c.output_signature.as_ref().unwrap_or(&none))?,
        ]);
        functions.insert(Value::str(name), entry)?;
    }
    Ok(Value::tuple(vec![
        Value::list(nodes),
        Value::dict(functions),
    ]))
}
