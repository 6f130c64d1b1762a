//! `_dist_saved_model`: the natives under `tf.saved_model`
//! (`stdlib/tensorflow_saved_model.dist` decides what is saved and rebuilds
//! what is loaded): a concrete function's graph as a `FunctionDef`
//! (`runtime::saved_model::export`), `saved_model.pb` written from and read
//! into Python tuples, and a loaded function's call (`runtime::saved_model::
//! interp`).

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use prost::Message;

use crate::distribute::classes::native_class;
use crate::distribute::dataset::structure::{Spec, SpecObj};
use crate::distribute::function::concrete::ConcreteObj;
use crate::distribute::function::trace::Template;
use crate::distribute::function::FunctionObj;
use crate::distribute::variables::resource_keys;
use crate::modules::ModuleBuilder;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::object::{native, ClassSpec};
use crate::runtime::dtype::DType;
use crate::runtime::error::Result as RtResult;
use crate::runtime::saved_model::interp::{self, Assign, Env, Library, V};
use crate::runtime::saved_model::proto::{self as pb, saved_object::Kind, structured_value::Kind as SK};
use crate::runtime::saved_model::{dtype_code, dtype_of, export, shape_proto, static_shape};
use crate::runtime::Tensor;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

fn err(ty: ExcType, msg: impl Into<String>) -> PyErr {
    PyErr::new(ty, msg.into())
}

fn os_err(path: &str, e: &std::io::Error) -> PyErr {
    err(ExcType::OSError, format!("{path}: {e}"))
}

// -- saving ------------------------------------------------------------

/// The graph outputs of a template in the order `tf.nest` flattens it (dict
/// keys sorted), and the template with each tensor as its `TensorSpec`.
fn flat_outputs(t: &Template, spec: &dyn Fn(usize) -> Value, order: &mut Vec<usize>) -> PyResult<Value> {
    Ok(match t {
        Template::Tensor(i) => {
            order.push(*i);
            spec(*i)
        }
        Template::Value(v) => v.clone(),
        Template::List(items) => Value::list(
            items
                .iter()
                .map(|x| flat_outputs(x, spec, order))
                .collect::<PyResult<_>>()?,
        ),
        Template::Tuple(items) => Value::tuple(
            items
                .iter()
                .map(|x| flat_outputs(x, spec, order))
                .collect::<PyResult<_>>()?,
        ),
        Template::Dict(items) => {
            let mut keyed: Vec<(String, &Value, &Template)> = Vec::new();
            for (k, x) in items {
                let Value::Str(s) = k else {
                    return Err(err(
                        ExcType::ValueError,
                        "a saved function's result is a dict with keys that are not strings",
                    ));
                };
                keyed.push((s.to_string(), k, x));
            }
            keyed.sort_by(|a, b| a.0.cmp(&b.0));
            let mut d = crate::value::dict::Dict::new();
            for (_, k, x) in keyed {
                let v = flat_outputs(x, spec, order)?;
                d.insert(k.clone(), v)?;
            }
            Value::dict(d)
        }
        Template::Dist(..) => {
            return Err(err(
                ExcType::ValueError,
                "a function that returns per-replica values cannot be saved",
            ))
        }
    })
}

/// `(function_def bytes, [resource keys], output structure)` of a concrete
/// function, written under `name` (`input_order`: the flat inputs' order
/// in the function, as positions among the concrete function's own).
#[native("export_function(concrete, name, input_order=None)")]
fn export_function(vm: &dyn Vm, concrete: &Value, name: &str, input_order: &Value) -> PyResult<Value> {
    let input_order = if matches!(input_order, Value::None) {
        None
    } else {
        let mut v = Vec::new();
        for x in vm.collect(input_order)? {
            v.push(usize::try_from(int_of(&x)?).map_err(|_| err(ExcType::ValueError, "a negative input position"))?);
        }
        Some(v)
    };
    let c = concrete
        .downcast::<ConcreteObj>()
        .ok_or_else(|| err(ExcType::TypeError, "expected a ConcreteFunction"))?;
    let Some(graph) = &c.graph else {
        return Err(err(
            ExcType::NotImplementedError,
            format!(
                "dist cannot save the function {}: its trace is not a graph dist can replay (it runs its Python code on every call)",
                c.name
            ),
        ));
    };
    if !graph.variables.is_empty() {
        return Err(err(
            ExcType::NotImplementedError,
            "dist cannot save a function traced with variables as arguments yet",
        ));
    }
    let g = graph.graph.borrow();
    let spec = |i: usize| -> Value {
        let p = g.outputs.get(i).copied().unwrap_or((0, 0));
        let dtype = g
            .nodes
            .get(p.0)
            .and_then(|n| n.outputs.get(p.1))
            .map_or(DType::Float32, |o| o.0);
        Value::native(SpecObj(
            Spec::Tensor {
                dtype,
                dims: g.static_port(p),
            },
            None,
        ))
    };
    let mut order = Vec::new();
    let structure = flat_outputs(&graph.template, &spec, &mut order)?;
    let ports: Vec<_> = order
        .iter()
        .map(|&i| g.outputs.get(i).copied())
        .collect::<Option<_>>()
        .ok_or_else(|| err(ExcType::RuntimeError, "a function output has no node"))?;
    let e = export::export(&g, name, input_order.as_deref(), &ports).map_err(runtime_err)?;
    let keys = e.resources.iter().map(|&k| Value::Int(k as i64)).collect();
    Ok(Value::tuple(vec![
        Value::Bytes(Rc::new(e.def.encode_to_vec())),
        Value::list(keys),
        structure,
    ]))
}

/// The addresses of a variable's cells (as `export_function` names them).
#[native("resource_keys(variable)")]
fn resource_keys_of(variable: &Value) -> PyResult<Value> {
    let keys = resource_keys(variable).ok_or_else(|| err(ExcType::TypeError, "expected a tf.Variable"))?;
    Ok(Value::list(keys.into_iter().map(|k| Value::Int(k as i64)).collect()))
}

/// The concrete functions a `tf.function` traced so far.
#[native("concrete_functions(function)")]
fn concrete_functions(function: &Value) -> PyResult<Value> {
    let f = function
        .downcast::<FunctionObj>()
        .ok_or_else(|| err(ExcType::TypeError, "expected a tf.function"))?;
    Ok(Value::list(f.concrete_functions()))
}

/// `input_signature` of a `tf.function` (None when not given).
#[native("function_input_signature(function)")]
fn function_input_signature(function: &Value) -> PyResult<Value> {
    let f = function
        .downcast::<FunctionObj>()
        .ok_or_else(|| err(ExcType::TypeError, "expected a tf.function"))?;
    Ok(f.input_signature().cloned().unwrap_or(Value::None))
}

fn dtype_named(vm: &dyn Vm, v: &Value) -> PyResult<DType> {
    let name = match v {
        Value::Str(s) => s.to_string(),
        other => vm.str(&vm.getattr(other, "name")?)?,
    };
    DType::from_name(&name).map_err(runtime_err)
}

/// A Python value of a function's signature as a `StructuredValue`.
fn structured(vm: &dyn Vm, v: &Value) -> PyResult<pb::StructuredValue> {
    let kind = match v {
        Value::None => SK::NoneValue(pb::NoneValue {}),
        Value::Bool(b) => SK::BoolValue(*b),
        Value::Int(i) => SK::Int64Value(*i),
        Value::Float(f) => SK::Float64Value(*f),
        Value::Str(s) => SK::StringValue(s.to_string()),
        Value::Tuple(t) => SK::TupleValue(pb::Values {
            values: t.iter().map(|x| structured(vm, x)).collect::<PyResult<_>>()?,
        }),
        Value::List(l) => {
            let items: Vec<Value> = l.borrow().iter().cloned().collect();
            SK::ListValue(pb::Values {
                values: items.iter().map(|x| structured(vm, x)).collect::<PyResult<_>>()?,
            })
        }
        Value::Dict(d) => {
            let mut fields = Vec::new();
            for (k, x) in d.borrow().items() {
                let Value::Str(k) = k else {
                    return Err(err(ExcType::ValueError, "a signature dict with keys that are not strings"));
                };
                fields.push(pb::DictEntry {
                    key: k.to_string(),
                    value: Some(structured(vm, &x)?),
                });
            }
            SK::DictValue(pb::DictValue { fields })
        }
        other => {
            if let Some(s) = other.downcast::<SpecObj>() {
                if let Spec::Tensor { dtype, dims } = &s.0 {
                    SK::TensorSpecValue(pb::TensorSpecProto {
                        name: s.1.as_deref().unwrap_or("").to_string(),
                        shape: Some(shape_proto(dims)),
                        dtype: dtype_code(*dtype),
                    })
                } else {
                    return Err(err(ExcType::ValueError, format!("dist cannot save the spec {}", s.0.text())));
                }
            } else {
                return Err(err(
                    ExcType::ValueError,
                    format!(
                        "dist cannot save a function whose signature holds {}",
                        vm.repr(other)?
                    ),
                ));
            }
        }
    };
    Ok(pb::StructuredValue { kind: Some(kind) })
}

/// `FullArgSpec(args=..., varargs=None, ...)` as TensorFlow writes it.
fn fullargspec(args: &[String], kwonly: &[String]) -> pb::StructuredValue {
    let none = || pb::StructuredValue {
        kind: Some(SK::NoneValue(pb::NoneValue {})),
    };
    let strings = |v: &[String]| pb::StructuredValue {
        kind: Some(SK::ListValue(pb::Values {
            values: v
                .iter()
                .map(|s| pb::StructuredValue {
                    kind: Some(SK::StringValue(s.clone())),
                })
                .collect(),
        })),
    };
    let pair = |k: &str, v| pb::PairValue {
        key: k.to_string(),
        value: Some(v),
    };
    pb::StructuredValue {
        kind: Some(SK::NamedTupleValue(pb::NamedTupleValue {
            name: "FullArgSpec".to_string(),
            values: vec![
                pair("args", strings(args)),
                pair("varargs", none()),
                pair("varkw", none()),
                pair("defaults", none()),
                pair("kwonlyargs", strings(kwonly)),
                pair("kwonlydefaults", none()),
                pair(
                    "annotations",
                    pb::StructuredValue {
                        kind: Some(SK::DictValue(pb::DictValue::default())),
                    },
                ),
            ],
        })),
    }
}

fn strings_of(vm: &dyn Vm, v: &Value) -> PyResult<Vec<String>> {
    let mut out = Vec::new();
    for x in vm.collect(v)? {
        out.push(vm.str(&x)?);
    }
    Ok(out)
}

fn item(vm: &dyn Vm, v: &Value, i: i64) -> PyResult<Value> {
    vm.getitem(v, &Value::Int(i))
}

fn dims_from_py(vm: &dyn Vm, v: &Value) -> PyResult<crate::runtime::graph::shapes::StaticShape> {
    if matches!(v, Value::None) {
        return Ok(None);
    }
    let mut d = Vec::new();
    for x in vm.collect(v)? {
        d.push(match x {
            Value::None => None,
            other => Some(usize::try_from(int_of(&other)?).map_err(|_| err(ExcType::ValueError, "a negative dim"))?),
        });
    }
    Ok(Some(d))
}

fn int_of(v: &Value) -> PyResult<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(*b as i64),
        _ => Err(err(ExcType::TypeError, "expected an int")),
    }
}

/// A `SavedObject` from `(children, kind, payload)`.
fn saved_object(vm: &dyn Vm, node: &Value) -> PyResult<pb::SavedObject> {
    let children_v = item(vm, node, 0)?;
    let mut children = Vec::new();
    for c in vm.collect(&children_v)? {
        children.push(pb::ObjectReference {
            node_id: int_of(&item(vm, &c, 0)?)? as i32,
            local_name: vm.str(&item(vm, &c, 1)?)?,
        });
    }
    let kind_name = vm.str(&item(vm, node, 1)?)?;
    let p = item(vm, node, 2)?;
    let version = Some(pb::VersionDef {
        producer: 1,
        min_consumer: 1,
    });
    let kind = match kind_name.as_str() {
        "user" => Kind::UserObject(pb::SavedUserObject {
            identifier: vm.str(&item(vm, &p, 0)?)?,
            version,
        }),
        "variable" => {
            let dims = dims_from_py(vm, &item(vm, &p, 1)?)?;
            Kind::Variable(pb::SavedVariable {
                dtype: dtype_code(dtype_named(vm, &item(vm, &p, 0)?)?),
                shape: Some(shape_proto(&dims)),
                trainable: vm.truthy(&item(vm, &p, 2)?)?,
                synchronization: int_of(&item(vm, &p, 4)?)? as i32,
                aggregation: int_of(&item(vm, &p, 5)?)? as i32,
                name: vm.str(&item(vm, &p, 3)?)?,
                device: String::new(),
            })
        }
        "function" => {
            let sig = item(vm, &p, 2)?;
            Kind::Function(pb::SavedFunction {
                concrete_functions: strings_of(vm, &item(vm, &p, 0)?)?,
                function_spec: Some(pb::FunctionSpec {
                    fullargspec: Some(fullargspec(&strings_of(vm, &item(vm, &p, 1)?)?, &[])),
                    is_method: false,
                    input_signature: if matches!(sig, Value::None) {
                        None
                    } else {
                        Some(structured(vm, &sig)?)
                    },
                }),
            })
        }
        "bare" => {
            let keywords = strings_of(vm, &item(vm, &p, 1)?)?;
            let positional = int_of(&item(vm, &p, 2)?)?;
            let keyword_only = vm.truthy(&item(vm, &p, 3)?)?;
            let (args, kwonly) = if !keyword_only {
                (keywords.clone(), vec![])
            } else {
                (vec![], keywords.clone())
            };
            Kind::BareConcreteFunction(pb::SavedBareConcreteFunction {
                concrete_function_name: vm.str(&item(vm, &p, 0)?)?,
                argument_keywords: keywords,
                allowed_positional_arguments: positional,
                function_spec: Some(pb::FunctionSpec {
                    fullargspec: Some(fullargspec(&args, &kwonly)),
                    is_method: false,
                    input_signature: Some(pb::StructuredValue {
                        kind: Some(SK::NoneValue(pb::NoneValue {})),
                    }),
                }),
            })
        }
        other => return Err(err(ExcType::ValueError, format!("unknown saved object kind {other}"))),
    };
    let dependencies = if matches!(kind, Kind::Function(_)) {
        children.clone()
    } else {
        vec![]
    };
    Ok(pb::SavedObject {
        children,
        dependencies,
        kind: Some(kind),
    })
}

/// Writes `DIR/saved_model.pb`: `nodes` as `(children, kind, payload)`,
/// `functions` as `(name, function_def bytes, bound_inputs, input
/// signature, output signature)`.
#[native("write_saved_model(export_dir, nodes, functions)")]
fn write_saved_model(vm: &dyn Vm, export_dir: &str, nodes: &Value, functions: &Value) -> PyResult<Value> {
    let mut graph = pb::SavedObjectGraph::default();
    for n in vm.collect(nodes)? {
        graph.nodes.push(saved_object(vm, &n)?);
    }
    let mut library = pb::FunctionDefLibrary::default();
    for f in vm.collect(functions)? {
        let name = vm.str(&item(vm, &f, 0)?)?;
        let Value::Bytes(b) = item(vm, &f, 1)? else {
            return Err(err(ExcType::TypeError, "expected a FunctionDef's bytes"));
        };
        let def = pb::FunctionDef::decode(&b[..])
            .map_err(|e| err(ExcType::ValueError, format!("a FunctionDef: {e}")))?;
        library.function.push(def);
        let mut bound = Vec::new();
        for x in vm.collect(&item(vm, &f, 2)?)? {
            bound.push(int_of(&x)? as i32);
        }
        graph.concrete_functions.insert(
            name,
            pb::SavedConcreteFunction {
                bound_inputs: bound,
                canonicalized_input_signature: Some(structured(vm, &item(vm, &f, 3)?)?),
                output_signature: Some(structured(vm, &item(vm, &f, 4)?)?),
            },
        );
    }
    let meta = pb::MetaGraphDef {
        meta_info_def: Some(pb::MetaInfoDef {
            tags: vec!["serve".to_string()],
            tensorflow_version: "2.21.0".to_string(),
            tensorflow_git_version: "dist".to_string(),
            stripped_default_attrs: true,
        }),
        graph_def: Some(pb::GraphDef {
            node: vec![],
            library: Some(library),
            versions: Some(pb::VersionDef {
                producer: 2474,
                min_consumer: 12,
            }),
        }),
        signature_def: BTreeMap::new(),
        object_graph_def: Some(graph),
    };
    let model = pb::SavedModel {
        saved_model_schema_version: 1,
        meta_graphs: vec![meta],
    };
    std::fs::create_dir_all(export_dir).map_err(|e| os_err(export_dir, &e))?;
    let path = format!("{}/saved_model.pb", export_dir.trim_end_matches('/'));
    std::fs::write(&path, model.encode_to_vec()).map_err(|e| os_err(&path, &e))?;
    Ok(Value::None)
}

// -- loading -----------------------------------------------------------

/// A `StructuredValue` as a Python value (`TensorSpec`s for tensor specs,
/// a dict for a named tuple).
fn from_structured(v: &pb::StructuredValue) -> PyResult<Value> {
    let Some(k) = &v.kind else {
        return Ok(Value::None);
    };
    let many = |vs: &[pb::StructuredValue]| vs.iter().map(from_structured).collect::<PyResult<Vec<_>>>();
    Ok(match k {
        SK::NoneValue(_) => Value::None,
        SK::Float64Value(f) => Value::Float(*f),
        SK::Int64Value(i) => Value::Int(*i),
        SK::StringValue(s) => Value::str(s),
        SK::BoolValue(b) => Value::Bool(*b),
        SK::TensorShapeValue(s) => match static_shape(s) {
            None => Value::None,
            Some(d) => Value::tuple(d.into_iter().map(|x| x.map_or(Value::None, |v| Value::Int(v as i64))).collect()),
        },
        SK::TensorDtypeValue(d) => Value::str(dtype_of(*d).map_err(runtime_err)?.name()),
        SK::TensorSpecValue(t) => {
            let dims = t.shape.as_ref().map_or(None, static_shape);
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
        Ok(format!("<LoadedFunction {} at 0x{:X}>", self.name, this.id()))
    }
    fn call(&self, _this: &Value, args: Vec<Value>, _kwargs: Vec<(Rc<str>, Value)>, vm: &dyn Vm) -> PyResult<Value> {
        let [inputs, variables] = &args[..] else {
            return Err(err(ExcType::TypeError, "a loaded function takes (inputs, variables)"));
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
fn read_saved_model(export_dir: &str) -> PyResult<Value> {
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
                .map(|f| (f.signature.as_ref().map_or(String::new(), |s| s.name.clone()), f))
                .collect::<HashMap<_, _>>()
        })
        .unwrap_or_default();
    let lib = Rc::new(lib);
    let mut nodes = Vec::new();
    for n in &objects.nodes {
        let children = Value::list(
            n.children
                .iter()
                .map(|c| Value::tuple(vec![Value::Int(c.node_id as i64), Value::str(&c.local_name)]))
                .collect(),
        );
        let (kind, payload) = match &n.kind {
            Some(Kind::UserObject(u)) => ("user", vec![Value::str(&u.identifier)]),
            Some(Kind::Variable(v)) => {
                let dims = v.shape.as_ref().map_or(Some(vec![]), static_shape);
                let shape = match dims {
                    None => Value::None,
                    Some(d) => Value::list(d.into_iter().map(|x| x.map_or(Value::None, |v| Value::Int(v as i64))).collect()),
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
                let signature = match f.function_spec.as_ref().and_then(|s| s.input_signature.as_ref()) {
                    Some(s) => from_structured(s)?,
                    None => Value::None,
                };
                (
                    "function",
                    vec![
                        Value::list(f.concrete_functions.iter().map(|s| Value::str(s)).collect()),
                        signature,
                    ],
                )
            }
            Some(Kind::BareConcreteFunction(b)) => (
                "bare",
                vec![
                    Value::str(&b.concrete_function_name),
                    Value::list(b.argument_keywords.iter().map(|s| Value::str(s)).collect()),
                    Value::Int(b.allowed_positional_arguments),
                ],
            ),
            Some(Kind::Constant(c)) => ("constant", vec![Value::str(&c.operation)]),
            Some(Kind::Resource(_)) => ("resource", vec![]),
            None => ("user", vec![Value::str("")]),
        };
        nodes.push(Value::tuple(vec![children, Value::str(kind), Value::tuple(payload)]));
    }
    let mut functions = crate::value::dict::Dict::new();
    for (name, c) in &objects.concrete_functions {
        if !lib.contains_key(name) {
            return Err(err(ExcType::ValueError, format!("{path}: no FunctionDef for {name}")));
        }
        let f = Value::native(LoadedFunction {
            lib: lib.clone(),
            name: name.clone(),
        });
        let none = pb::StructuredValue::default();
        let entry = Value::tuple(vec![
            f,
            Value::list(c.bound_inputs.iter().map(|&b| Value::Int(b as i64)).collect()),
            from_structured(c.canonicalized_input_signature.as_ref().unwrap_or(&none))?,
            from_structured(c.output_signature.as_ref().unwrap_or(&none))?,
        ]);
        functions.insert(Value::str(name), entry)?;
    }
    Ok(Value::tuple(vec![Value::list(nodes), Value::dict(functions)]))
}

/// Builds the `_dist_saved_model` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("_dist_saved_model");
    m.add(export_function::DEF);
    m.add(resource_keys_of::DEF);
    m.add(concrete_functions::DEF);
    m.add(function_input_signature::DEF);
    m.add(write_saved_model::DEF);
    m.add(read_saved_model::DEF);
    m.build()
}
