//! `_dist_saved_model`: the natives under `tf.saved_model`
//! (`stdlib/tensorflow_saved_model.dist` decides what is saved and rebuilds
//! what is loaded): a concrete function's graph as a `FunctionDef`
//! (`runtime::saved_model::export`), `saved_model.pb` written from and read
//! into Python tuples (the loading half is `saved_model_load.rs`).

use std::collections::BTreeMap;
use std::rc::Rc;

use prost::Message;

use crate::distribute::dataset::structure::{Spec, SpecObj};
use crate::distribute::function::concrete::ConcreteObj;
use crate::distribute::function::trace::Template;
use crate::distribute::function::FunctionObj;
use crate::distribute::variables::resource_keys;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::tensor::convert::runtime_err;
use crate::runtime::dtype::DType;
use crate::runtime::saved_model::proto::{
    self as pb, saved_object::Kind, structured_value::Kind as SK,
};
use crate::runtime::saved_model::{dtype_code, export, shape_proto};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

pub(super) fn err(ty: ExcType, msg: impl Into<String>) -> PyErr {
    PyErr::new(ty, msg.into())
}

pub(super) fn os_err(path: &str, e: &std::io::Error) -> PyErr {
    err(ExcType::OSError, format!("{path}: {e}"))
}

// -- saving ------------------------------------------------------------

/// The graph outputs of a template in the order `tf.nest` flattens it (dict
/// keys sorted), and the template with each tensor as its `TensorSpec`.
fn flat_outputs(
    t: &Template,
    spec: &dyn Fn(usize) -> Value,
    order: &mut Vec<usize>,
) -> PyResult<Value> {
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
fn export_function(
    vm: &dyn Vm,
    concrete: &Value,
    name: &str,
    input_order: &Value,
) -> PyResult<Value> {
    let input_order = if matches!(input_order, Value::None) {
        None
    } else {
        let mut v = Vec::new();
        for x in vm.collect(input_order)? {
            v.push(
                usize::try_from(int_of(&x)?)
                    .map_err(|_| err(ExcType::ValueError, "a negative input position"))?,
            );
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
    let keys =
        resource_keys(variable).ok_or_else(|| err(ExcType::TypeError, "expected a tf.Variable"))?;
    Ok(Value::list(
        keys.into_iter().map(|k| Value::Int(k as i64)).collect(),
    ))
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
            values: t
                .iter()
                .map(|x| structured(vm, x))
                .collect::<PyResult<_>>()?,
        }),
        Value::List(l) => {
            let items: Vec<Value> = l.borrow().iter().cloned().collect();
            SK::ListValue(pb::Values {
                values: items
                    .iter()
                    .map(|x| structured(vm, x))
                    .collect::<PyResult<_>>()?,
            })
        }
        Value::Dict(d) => {
            let mut fields = Vec::new();
            for (k, x) in d.borrow().items() {
                let Value::Str(k) = k else {
                    return Err(err(
                        ExcType::ValueError,
                        "a signature dict with keys that are not strings",
                    ));
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
                    return Err(err(
                        ExcType::ValueError,
                        format!("dist cannot save the spec {}", s.0.text()),
                    ));
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
            other => Some(
                usize::try_from(int_of(&other)?)
                    .map_err(|_| err(ExcType::ValueError, "a negative dim"))?,
            ),
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
        other => {
            return Err(err(
                ExcType::ValueError,
                format!("unknown saved object kind {other}"),
            ))
        }
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
fn write_saved_model(
    vm: &dyn Vm,
    export_dir: &str,
    nodes: &Value,
    functions: &Value,
) -> PyResult<Value> {
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

/// Builds the `_dist_saved_model` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("_dist_saved_model");
    m.add(export_function::DEF);
    m.add(resource_keys_of::DEF);
    m.add(concrete_functions::DEF);
    m.add(function_input_signature::DEF);
    m.add(write_saved_model::DEF);
    m.add(super::saved_model_load::read_saved_model::DEF);
    m.build()
}
