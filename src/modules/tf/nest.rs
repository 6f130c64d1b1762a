//! `tf.nest`: `flatten`, `map_structure`, `pack_sequence_as` over lists,
//! tuples, named tuples and dicts (dict values in sorted key order, as
//! TensorFlow does); everything else, `None` included, is a leaf. With
//! `expand_composites=True`, a composite tensor written in the language
//! (`tf.sparse.SparseTensor`, `tf.RaggedTensor`) is a node too: its
//! `_dist_components()` are its children, and `_dist_from_components(items)`
//! rebuilds one like it (TensorFlow's `_type_spec._to_components` /
//! `_from_components`).

use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::types::namedtuple::NamedTuple;
use crate::value::{Dict, ExcType, PyErr, PyResult, Value, Vm};

/// A dict's keys in TensorFlow's order (sorted).
fn sorted_keys(vm: &dyn Vm, d: &Dict) -> PyResult<Vec<Value>> {
    let mut keys = d.keys();
    let mut err = None;
    keys.sort_by(|a, b| {
        if err.is_some() {
            return std::cmp::Ordering::Equal;
        }
        match vm.lt(a, b) {
            Ok(true) => std::cmp::Ordering::Less,
            Ok(false) => match vm.lt(b, a) {
                Ok(true) => std::cmp::Ordering::Greater,
                Ok(false) => std::cmp::Ordering::Equal,
                Err(e) => {
                    err = Some(e);
                    std::cmp::Ordering::Equal
                }
            },
            Err(e) => {
                err = Some(e);
                std::cmp::Ordering::Equal
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(keys),
    }
}

/// The components of a composite tensor, when `expand` and `v` is one.
fn components(vm: &dyn Vm, v: &Value, expand: bool) -> PyResult<Option<Vec<Value>>> {
    let Value::Instance(inst) = v else {
        return Ok(None);
    };
    if !expand || inst.class.lookup("_dist_components").is_none() {
        return Ok(None);
    }
    let f = vm.getattr(v, "_dist_components")?;
    let parts = vm.call(&f, Vec::new(), Vec::new())?;
    vm.collect(&parts).map(Some)
}

/// The direct children of a structure node, or None for a leaf.
fn children(vm: &dyn Vm, v: &Value, expand: bool) -> PyResult<Option<Vec<Value>>> {
    Ok(match v {
        Value::Instance(_) => components(vm, v, expand)?,
        Value::List(l) => Some(l.borrow().clone()),
        Value::Tuple(t) => Some(t.to_vec()),
        Value::Dict(d) => {
            let d = d.borrow();
            let keys = sorted_keys(vm, &d)?;
            let mut out = Vec::with_capacity(keys.len());
            for k in &keys {
                out.push(d.get(k)?.unwrap_or(Value::None));
            }
            Some(out)
        }
        Value::Native(n) => n
            .as_any()
            .downcast_ref::<NamedTuple>()
            .map(|nt| nt.values().to_vec()),
        _ => None,
    })
}

pub(super) fn flatten_into(
    vm: &dyn Vm,
    v: &Value,
    out: &mut Vec<Value>,
    expand: bool,
) -> PyResult<()> {
    match children(vm, v, expand)? {
        Some(kids) => kids
            .iter()
            .try_for_each(|k| flatten_into(vm, k, out, expand)),
        None => {
            out.push(v.clone());
            Ok(())
        }
    }
}

/// A node like `like` holding `items` (dict keys keep `like`'s order).
fn rebuild(vm: &dyn Vm, like: &Value, items: Vec<Value>) -> PyResult<Value> {
    Ok(match like {
        Value::Instance(_) => {
            let f = vm.getattr(like, "_dist_from_components")?;
            vm.call(&f, vec![Value::list(items)], Vec::new())?
        }
        Value::List(_) => Value::list(items),
        Value::Tuple(_) => Value::tuple(items),
        Value::Dict(d) => {
            let d = d.borrow();
            let keys = sorted_keys(vm, &d)?;
            let mut by_key = Dict::new();
            for (k, v) in keys.into_iter().zip(items) {
                by_key.insert(k, v)?;
            }
            let mut out = Dict::new();
            for k in d.keys() {
                let v = by_key.get(&k)?.unwrap_or(Value::None);
                out.insert(k, v)?;
            }
            Value::dict(out)
        }
        other => match other.downcast::<NamedTuple>() {
            Some(nt) => nt.with_values(items),
            None => other.clone(),
        },
    })
}

fn pack(
    vm: &dyn Vm,
    structure: &Value,
    flat: &[Value],
    pos: &mut usize,
    expand: bool,
) -> PyResult<Value> {
    match children(vm, structure, expand)? {
        Some(kids) => {
            let mut items = Vec::with_capacity(kids.len());
            for k in &kids {
                items.push(pack(vm, k, flat, pos, expand)?);
            }
            rebuild(vm, structure, items)
        }
        None => {
            let v = flat
                .get(*pos)
                .cloned()
                .ok_or_else(|| count_error(vm, structure, flat, expand))?;
            *pos += 1;
            Ok(v)
        }
    }
}

#[cold]
fn count_error(vm: &dyn Vm, structure: &Value, flat: &[Value], expand: bool) -> PyErr {
    let mut leaves = Vec::new();
    let _ = flatten_into(vm, structure, &mut leaves, expand);
    PyErr::new(
        ExcType::ValueError,
        format!(
            "Could not pack sequence. Structure had {} atoms, but flat_sequence had {} items.",
            leaves.len(),
            flat.len()
        ),
    )
}

/// The leaves of a nested structure, in order (dicts by sorted key).
#[native("flatten(structure, expand_composites=False)")]
fn flatten(vm: &dyn Vm, structure: &Value, expand_composites: &Value) -> PyResult<Vec<Value>> {
    let mut out = Vec::new();
    flatten_into(vm, structure, &mut out, vm.truthy(expand_composites)?)?;
    Ok(out)
}

/// A structure like `structure` holding the values of `flat_sequence`.
#[native("pack_sequence_as(structure, flat_sequence, expand_composites=False)")]
fn pack_sequence_as(
    vm: &dyn Vm,
    structure: &Value,
    flat_sequence: &Value,
    expand_composites: &Value,
) -> PyResult<Value> {
    let expand = vm.truthy(expand_composites)?;
    let flat = vm.collect(flat_sequence)?;
    let mut pos = 0;
    let r = pack(vm, structure, &flat, &mut pos, expand)?;
    if pos != flat.len() {
        return Err(count_error(vm, structure, &flat, expand));
    }
    Ok(r)
}

/// `check_types=False` lets the structures' sequence types differ (a list
/// against a tuple): the result takes the first one's.
fn map_node(
    vm: &dyn Vm,
    func: &Value,
    nodes: &[Value],
    expand: bool,
    check_types: bool,
) -> PyResult<Value> {
    let first = &nodes[0];
    match children(vm, first, expand)? {
        None => vm.call(func, nodes.to_vec(), Vec::new()),
        Some(kids) => {
            let mut per: Vec<Vec<Value>> = vec![Vec::with_capacity(nodes.len()); kids.len()];
            for n in nodes {
                let k = children(vm, n, expand)?;
                let nested = k.is_some();
                let k = k.unwrap_or_default();
                if k.len() != kids.len()
                    || !nested
                    || (check_types && std::mem::discriminant(n) != std::mem::discriminant(first))
                {
                    return Err(PyErr::new(
                        ExcType::ValueError,
                        format!(
                            "The two structures don't have the same nested structure.\n\nFirst structure: {}\n\nSecond structure: {}",
                            vm.repr(first)?,
                            vm.repr(n)?
                        ),
                    ));
                }
                for (slot, v) in per.iter_mut().zip(k) {
                    slot.push(v);
                }
            }
            let mut items = Vec::with_capacity(kids.len());
            for args in &per {
                items.push(map_node(vm, func, args, expand, check_types)?);
            }
            rebuild(vm, first, items)
        }
    }
}

/// `type=list str=[1, 2]`: a structure as TensorFlow's nest errors show it.
fn described(vm: &dyn Vm, v: &Value) -> PyResult<String> {
    let ty = vm.getattr(&vm.type_of(v), "__name__")?;
    Ok(format!("type={} str={}", vm.str(&ty)?, vm.str(v)?))
}

/// A leaf's stand-in in [`dotted`]: a string whose repr is unmistakable.
const DOT: &str = "\u{0}dist-nest-dot\u{0}";

fn with_dots(vm: &dyn Vm, v: &Value, expand: bool) -> PyResult<Value> {
    match children(vm, v, expand)? {
        Some(kids) => {
            let items = kids
                .iter()
                .map(|k| with_dots(vm, k, expand))
                .collect::<PyResult<Vec<_>>>()?;
            rebuild(vm, v, items)
        }
        None => Ok(Value::str(DOT)),
    }
}

/// The structure with each leaf shown as `.` (`[., (., .)]`).
fn dotted(vm: &dyn Vm, v: &Value, expand: bool) -> PyResult<String> {
    let text = vm.str(&with_dots(vm, v, expand)?)?;
    let dot_repr = vm.repr(&Value::str(DOT))?;
    Ok(if text == DOT {
        ".".to_string()
    } else {
        text.replace(&dot_repr, ".")
    })
}

/// Where two structures first differ, as TensorFlow's
/// `AssertSameStructureHelper` says it (the exception type and message).
fn difference(
    vm: &dyn Vm,
    a: &Value,
    b: &Value,
    check_types: bool,
    expand: bool,
) -> PyResult<Option<(ExcType, String)>> {
    let (ka, kb) = (children(vm, a, expand)?, children(vm, b, expand)?);
    let (seq, leaf) = match (ka, kb) {
        (None, None) => return Ok(None),
        (Some(x), Some(y)) => return same_nodes(vm, (a, x), (b, y), check_types, expand),
        (Some(_), None) => (a, b),
        (None, Some(_)) => (b, a),
    };
    Ok(Some((
        ExcType::ValueError,
        format!(
            "Substructure \"{}\" is a sequence, while substructure \"{}\" is not",
            described(vm, seq)?,
            described(vm, leaf)?
        ),
    )))
}

/// [`difference`] of two nodes (with their children).
fn same_nodes(
    vm: &dyn Vm,
    (a, ka): (&Value, Vec<Value>),
    (b, kb): (&Value, Vec<Value>),
    check_types: bool,
    expand: bool,
) -> PyResult<Option<(ExcType, String)>> {
    if check_types {
        let (ta, tb) = (vm.type_of(a), vm.type_of(b));
        if !vm.eq(&ta, &tb)? {
            let name = |t: &Value| -> PyResult<String> { vm.str(&vm.getattr(t, "__name__")?) };
            return Ok(Some((
                ExcType::TypeError,
                format!(
                    "The two namedtuples don't have the same sequence type. First structure {} \
                     has type {}, while second structure {} has type {}",
                    described(vm, a)?,
                    name(&ta)?,
                    described(vm, b)?,
                    name(&tb)?
                ),
            )));
        }
    }
    if check_types {
        if let (Value::Dict(da), Value::Dict(db)) = (a, b) {
            let (sa, sb) = (
                sorted_keys(vm, &da.borrow())?,
                sorted_keys(vm, &db.borrow())?,
            );
            let mut same = sa.len() == sb.len();
            for (x, y) in sa.iter().zip(&sb) {
                same = same && vm.eq(x, y)?;
            }
            if !same {
                let keys = |d: &Value| match d {
                    Value::Dict(d) => Value::list(d.borrow().keys()),
                    _ => Value::None,
                };
                return Ok(Some((
                    ExcType::ValueError,
                    format!(
                        "The two dictionaries don't have the same set of keys. First structure \
                         has keys {}, while second structure has keys {}",
                        described(vm, &keys(a))?,
                        described(vm, &keys(b))?
                    ),
                )));
            }
        }
    }
    if ka.len() != kb.len() {
        return Ok(Some((
            ExcType::ValueError,
            format!(
                "The two structures don't have the same number of elements. First structure: \
                 {}. Second structure: {}",
                described(vm, a)?,
                described(vm, b)?
            ),
        )));
    }
    for (x, y) in ka.iter().zip(&kb) {
        if let Some(d) = difference(vm, x, y, check_types, expand)? {
            return Ok(Some(d));
        }
    }
    Ok(None)
}

/// TensorFlow's `assert_same_structure` error for two structures, if any.
fn assert_same(vm: &dyn Vm, a: &Value, b: &Value, check_types: bool, expand: bool) -> PyResult<()> {
    let Some((kind, detail)) = difference(vm, a, b, check_types, expand)? else {
        return Ok(());
    };
    Err(PyErr::new(
        kind,
        format!(
            "The two structures don't have the same nested structure.\n\nFirst structure: {}\n\n\
             Second structure: {}\n\nMore specifically: {detail}\nEntire first structure:\n{}\n\
             Entire second structure:\n{}",
            described(vm, a)?,
            described(vm, b)?,
            dotted(vm, a, expand)?,
            dotted(vm, b, expand)?
        ),
    ))
}

/// Applies `func` to the leaves, keeping the structure.
#[native("map_structure(func, *structure, check_types=True, expand_composites=False)")]
fn map_structure(
    vm: &dyn Vm,
    func: &Value,
    structure: &[Value],
    check_types: &Value,
    expand_composites: &Value,
) -> PyResult<Value> {
    let structures = structure;
    if structures.is_empty() {
        return Err(PyErr::new(
            ExcType::ValueError,
            "Must provide at least one structure",
        ));
    }
    let check = vm.truthy(check_types)?;
    let expand = vm.truthy(expand_composites)?;
    for other in &structures[1..] {
        assert_same(vm, &structures[0], other, check, expand)?;
    }
    map_node(vm, func, structures, expand, check)
}

/// True for lists, tuples and dicts.
#[native("is_nested(seq)")]
fn is_nested(seq: &Value) -> bool {
    matches!(seq, Value::List(_) | Value::Tuple(_) | Value::Dict(_))
}

/// Registers `tf.nest`.
pub fn register(m: &mut ModuleBuilder) {
    m.namespace("nest", |n| {
        n.add(flatten::DEF)
            .add(pack_sequence_as::DEF)
            .add(map_structure::DEF)
            .add(is_nested::DEF);
    });
}
