//! Nested structures across replicas, as `tf.nest` and TensorFlow's
//! `distribute_utils` treat them: picking one replica's part of a structure
//! ([`select_replica`]), regrouping the replicas' results into one structure
//! of `PerReplica` leaves ([`regroup`]), and zipping the replicas' structures
//! leaf by leaf ([`zip_map`]) for collectives.

use std::rc::Rc;

use crate::object::types::namedtuple::NamedTuple;
use crate::value::{Dict, ExcType, PyErr, PyResult, Value, Vm};

use super::values::{components, per_replica};
use super::variables::is_distributed_variable;

/// Replica `i`'s part of `v`: the `i`-th component of each distributed value
/// in the structure (tuples, lists and dicts are rebuilt; other values are
/// shared by every replica).
pub fn select_replica(i: usize, v: &Value) -> PyResult<Value> {
    if let Some(c) = components(v) {
        return c.get(i).cloned().ok_or_else(|| {
            PyErr::new(
                ExcType::ValueError,
                format!(
                    "a distributed value with {} components was given to replica {i}",
                    c.len()
                ),
            )
        });
    }
    map_leaves(v, &mut |leaf| select_replica(i, leaf))
}

/// The string-keyed entries of a kwargs dict (or None), to pass on in a call.
pub fn keywords(kwargs: &Value) -> Vec<(Rc<str>, Value)> {
    let mut out = Vec::new();
    if let Value::Dict(d) = kwargs {
        for (k, v) in d.borrow().items() {
            if let Value::Str(s) = k {
                out.push((Rc::from(s.as_str()), v));
            }
        }
    }
    out
}

/// Positional and keyword arguments of one call.
pub type CallArgs = (Vec<Value>, Vec<(Rc<str>, Value)>);

/// Arguments handed out to several calls, one per replica or copy:
/// `args` (a sequence, or None) and the string-keyed `kwargs` (a dict, or
/// None), of which call `i` gets [`select_replica`]`(i, ..)` of each.
pub struct SplitArgs {
    args: Vec<Value>,
    kwargs: Vec<(Rc<str>, Value)>,
}

impl SplitArgs {
    /// Collects `args` and `kwargs`.
    pub fn new(vm: &dyn Vm, args: &Value, kwargs: &Value) -> PyResult<SplitArgs> {
        let args = match args {
            Value::None => Vec::new(),
            v => vm.collect(v)?,
        };
        Ok(SplitArgs {
            args,
            kwargs: keywords(kwargs),
        })
    }

    /// The positional and keyword arguments of call `i`.
    pub fn select(&self, i: usize) -> PyResult<CallArgs> {
        let args = self.args.iter().map(|x| select_replica(i, x));
        let kwargs = self.kwargs.iter();
        Ok((
            args.collect::<PyResult<_>>()?,
            kwargs
                .map(|(k, v)| Ok((k.clone(), select_replica(i, v)?)))
                .collect::<PyResult<_>>()?,
        ))
    }
}

/// Rebuilds a structure of tuples, lists and dicts with `f` applied to each
/// element that is not one of them (nested structures recurse through `f`'s
/// caller: `f` sees the direct children).
pub fn map_leaves(v: &Value, f: &mut dyn FnMut(&Value) -> PyResult<Value>) -> PyResult<Value> {
    Ok(match v {
        Value::Tuple(t) => Value::tuple(t.iter().map(&mut *f).collect::<PyResult<_>>()?),
        Value::List(l) => {
            let items = l.borrow().clone();
            Value::list(items.iter().map(&mut *f).collect::<PyResult<_>>()?)
        }
        Value::Dict(d) => {
            let items = d.borrow().items();
            let mut out = Dict::new();
            for (k, x) in items {
                out.insert(k, f(&x)?)?;
            }
            Value::dict(out)
        }
        Value::Native(n) => match n.as_any().downcast_ref::<NamedTuple>() {
            Some(nt) => nt.with_values(nt.values().iter().map(&mut *f).collect::<PyResult<_>>()?),
            None => v.clone(),
        },
        other => other.clone(),
    })
}

/// True when `v` is a structure `tf.nest` walks into: a tuple, list, dict or
/// named tuple.
pub fn is_structure(v: &Value) -> bool {
    matches!(v, Value::Tuple(_) | Value::List(_) | Value::Dict(_))
        || v.downcast::<NamedTuple>().is_some()
}

/// Rebuilds a nested structure with `f` applied to every leaf (at any depth).
pub fn map_nest(v: &Value, f: &mut dyn FnMut(&Value) -> PyResult<Value>) -> PyResult<Value> {
    if is_structure(v) {
        map_leaves(v, &mut |c| map_nest(c, f))
    } else {
        f(v)
    }
}

/// True when `v` holds a distributed value somewhere.
pub fn contains_distributed(v: &Value) -> bool {
    if components(v).is_some() || is_distributed_variable(v) {
        return true;
    }
    match v {
        Value::Tuple(t) => t.iter().any(contains_distributed),
        Value::Native(n) => n
            .as_any()
            .downcast_ref::<NamedTuple>()
            .is_some_and(|nt| nt.values().iter().any(contains_distributed)),
        Value::List(l) => l.borrow().iter().any(contains_distributed),
        Value::Dict(d) => d
            .borrow()
            .items()
            .iter()
            .any(|(_, x)| contains_distributed(x)),
        _ => false,
    }
}

fn mismatch(what: &str) -> PyErr {
    PyErr::new(
        ExcType::ValueError,
        format!("the replicas returned different structures ({what}); every replica must return the same nesting"),
    )
}

/// Regroups the replicas' results (one value per replica) into one
/// structure whose leaves are `PerReplica` values, as TensorFlow's
/// `regroup`: identical objects are not wrapped (unless `always_wrap`), a
/// distributed variable returned by every replica is returned itself.
pub fn regroup(values: &[Value], always_wrap: bool) -> PyResult<Value> {
    regroup_with(values, always_wrap, &mut |vs| Ok(per_replica(vs)))
}

/// [`regroup`] with TensorFlow's `wrap_class`: `wrap` builds the value that
/// stands for the replicas' differing leaves (`PerReplica`, `Mirrored`, or
/// `update_regroup`'s grouped `Mirrored`).
pub fn regroup_with(
    values: &[Value],
    always_wrap: bool,
    wrap: &mut dyn FnMut(Vec<Value>) -> PyResult<Value>,
) -> PyResult<Value> {
    let v0 = &values[0];
    if let Some(nt0) = v0.downcast::<NamedTuple>() {
        // a named tuple regroups field by field into the same type, as TF's nest
        let n = nt0.values().len();
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let mut col = Vec::with_capacity(values.len());
            for v in values {
                match v.downcast::<NamedTuple>() {
                    Some(nt) if nt.same_type(nt0) => col.push(nt.values()[k].clone()),
                    _ => return Err(mismatch("named tuples")),
                }
            }
            out.push(regroup_with(&col, always_wrap, wrap)?);
        }
        return Ok(nt0.with_values(out));
    }
    match v0 {
        Value::List(l0) => {
            let n = l0.borrow().len();
            let mut out = Vec::with_capacity(n);
            for k in 0..n {
                let mut col = Vec::with_capacity(values.len());
                for v in values {
                    match v {
                        Value::List(l) if l.borrow().len() == n => col.push(l.borrow()[k].clone()),
                        _ => return Err(mismatch("lists")),
                    }
                }
                out.push(regroup_with(&col, always_wrap, wrap)?);
            }
            Ok(Value::list(out))
        }
        Value::Tuple(t0) => {
            let n = t0.len();
            let mut out = Vec::with_capacity(n);
            for k in 0..n {
                let mut col = Vec::with_capacity(values.len());
                for v in values {
                    match v {
                        Value::Tuple(t) if t.len() == n => col.push(t[k].clone()),
                        _ => return Err(mismatch("tuples")),
                    }
                }
                out.push(regroup_with(&col, always_wrap, wrap)?);
            }
            Ok(Value::tuple(out))
        }
        Value::Dict(d0) => {
            let keys = d0.borrow().keys();
            let mut out = Dict::new();
            for k in keys {
                let mut col = Vec::with_capacity(values.len());
                for v in values {
                    match v {
                        Value::Dict(d) => match d.borrow().get(&k)? {
                            Some(x) => col.push(x),
                            None => return Err(mismatch("dicts with different keys")),
                        },
                        _ => return Err(mismatch("dicts")),
                    }
                }
                out.insert(k, regroup_with(&col, always_wrap, wrap)?)?;
            }
            Ok(Value::dict(out))
        }
        _ => {
            // A literal string returned by every replica is one constant
            // object in Python; ours may be separate allocations.
            let same = values[1..]
                .iter()
                .all(|v| v.is(v0) || matches!((v, v0), (Value::Str(a), Value::Str(b)) if a == b));
            if same && is_distributed_variable(v0) {
                return Ok(v0.clone());
            }
            if same && !always_wrap {
                return Ok(v0.clone());
            }
            wrap(values.to_vec())
        }
    }
}

/// Zips the replicas' structures leaf by leaf: `f` gets the replicas'
/// leaves at one position and returns one result per replica; the result
/// is one structure per replica.
pub fn zip_map(
    values: &[Value],
    f: &dyn Fn(&[Value]) -> PyResult<Vec<Value>>,
) -> PyResult<Vec<Value>> {
    let n = values.len();
    match &values[0] {
        Value::Tuple(_) | Value::List(_) => {
            let is_list = matches!(&values[0], Value::List(_));
            let rows: Vec<Vec<Value>> = values
                .iter()
                .map(|v| match v {
                    Value::Tuple(t) if !is_list => Ok(t.to_vec()),
                    Value::List(l) if is_list => Ok(l.borrow().clone()),
                    _ => Err(mismatch("sequences")),
                })
                .collect::<PyResult<_>>()?;
            let len = rows[0].len();
            if rows.iter().any(|r| r.len() != len) {
                return Err(mismatch("sequences of different lengths"));
            }
            let mut per: Vec<Vec<Value>> = vec![Vec::with_capacity(len); n];
            for k in 0..len {
                let col: Vec<Value> = rows.iter().map(|r| r[k].clone()).collect();
                for (i, x) in zip_map(&col, f)?.into_iter().enumerate() {
                    per[i].push(x);
                }
            }
            Ok(per
                .into_iter()
                .map(|p| {
                    if is_list {
                        Value::list(p)
                    } else {
                        Value::tuple(p)
                    }
                })
                .collect())
        }
        Value::Dict(d0) => {
            let keys = d0.borrow().keys();
            let mut per: Vec<Dict> = (0..n).map(|_| Dict::new()).collect();
            for k in keys {
                let mut col = Vec::with_capacity(n);
                for v in values {
                    match v {
                        Value::Dict(d) => {
                            col.push(d.borrow().get(&k)?.ok_or_else(|| mismatch("dicts"))?)
                        }
                        _ => return Err(mismatch("dicts")),
                    }
                }
                for (i, x) in zip_map(&col, f)?.into_iter().enumerate() {
                    per[i].insert(k.clone(), x)?;
                }
            }
            Ok(per.into_iter().map(Value::dict).collect())
        }
        v0 => match v0.downcast::<NamedTuple>() {
            // A named tuple is zipped field by field and rebuilt with its type.
            Some(nt0) => {
                let rows: Vec<&[Value]> = values
                    .iter()
                    .map(|v| match v.downcast::<NamedTuple>() {
                        Some(nt) if nt.same_type(nt0) => Ok(nt.values()),
                        _ => Err(mismatch("named tuples")),
                    })
                    .collect::<PyResult<_>>()?;
                let mut per: Vec<Vec<Value>> = vec![Vec::with_capacity(rows[0].len()); n];
                for k in 0..rows[0].len() {
                    let col: Vec<Value> = rows.iter().map(|r| r[k].clone()).collect();
                    for (i, x) in zip_map(&col, f)?.into_iter().enumerate() {
                        per[i].push(x);
                    }
                }
                Ok(per.into_iter().map(|p| nt0.with_values(p)).collect())
            }
            None => f(values),
        },
    }
}
