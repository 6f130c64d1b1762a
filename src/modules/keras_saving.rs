//! `_dist_saving`: the natives under Keras 3's saving
//! (`stdlib/keras_saving.dist`): HDF5 files as groups of datasets and zip
//! archives as named members, both as bytes (the stdlib reads and writes
//! the files with `open`, so missing files and permissions raise Python's
//! own errors). The formats are `runtime::saving`'s.

use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::object::numpy::from_tensor;
use crate::object::tensor::convert::to_tensor;
use crate::runtime::saving::{archive, h5, SaveError, SaveErrorKind};
use crate::value::{Dict, ExcType, PyErr, PyResult, Value, Vm};
use std::rc::Rc;

fn save_err(e: SaveError) -> PyErr {
    let ty = match e.kind {
        SaveErrorKind::Unsupported => ExcType::NotImplementedError,
        SaveErrorKind::NotFound => ExcType::FileNotFoundError,
        SaveErrorKind::Io | SaveErrorKind::Format => ExcType::OSError,
    };
    PyErr::new(ty, e.message)
}

fn str_of(v: &Value, what: &str) -> PyResult<String> {
    match v.as_builtin() {
        Value::Str(s) => Ok(s.to_string()),
        _ => Err(PyErr::new(
            ExcType::TypeError,
            format!("{what} must be a str, not {}", v.type_name()),
        )),
    }
}

fn bytes_of(v: &Value, what: &str) -> PyResult<Vec<u8>> {
    match v.as_builtin() {
        Value::Bytes(b) => Ok(b.as_ref().clone()),
        _ => Err(PyErr::new(
            ExcType::TypeError,
            format!("{what} must be bytes, not {}", v.type_name()),
        )),
    }
}

fn pair(vm: &dyn Vm, v: &Value, what: &str) -> PyResult<(Value, Value)> {
    let items = vm.collect(v)?;
    match <[Value; 2]>::try_from(items) {
        Ok([a, b]) => Ok((a, b)),
        Err(_) => Err(PyErr::new(
            ExcType::ValueError,
            format!("{what} must be a pair"),
        )),
    }
}

/// The bytes of an HDF5 file holding `groups`: each a `(path, attrs,
/// datasets)` triple, `attrs` a dict of strings, `datasets` a list of
/// `(name, array)` pairs (tensors, numpy arrays, variables).
#[native("h5_dumps(groups)")]
fn h5_dumps(vm: &dyn Vm, groups: &Value) -> PyResult<Value> {
    let mut out = Vec::new();
    for g in vm.collect(groups)? {
        let parts = vm.collect(&g)?;
        let [path, attrs, datasets] = <[Value; 3]>::try_from(parts).map_err(|_| {
            PyErr::new(
                ExcType::ValueError,
                "a group must be (path, attrs, datasets)",
            )
        })?;
        let mut group = h5::H5Group {
            path: str_of(&path, "a group path")?,
            ..Default::default()
        };
        for key in vm.collect(&attrs)? {
            let value = vm.getitem(&attrs, &key)?;
            group.attrs.push((
                str_of(&key, "an attribute name")?,
                str_of(&value, "an attribute")?,
            ));
        }
        for d in vm.collect(&datasets)? {
            let (name, value) = pair(vm, &d, "a dataset")?;
            group.datasets.push((
                str_of(&name, "a dataset name")?,
                to_tensor(vm, &value, None)?,
            ));
        }
        out.push(group);
    }
    let bytes = h5::write(&out).map_err(save_err)?;
    Ok(Value::Bytes(Rc::new(bytes)))
}

/// Every group of the HDF5 file `data` (bytes), parents first: a list of
/// `(path, attrs, datasets)`, `datasets` a list of `(name, numpy array)`.
#[native("h5_loads(data)")]
fn h5_loads(data: &Value) -> PyResult<Value> {
    let groups = h5::read(bytes_of(data, "data")?).map_err(save_err)?;
    let mut out = Vec::with_capacity(groups.len());
    for g in groups {
        let mut attrs = Dict::new();
        for (k, v) in g.attrs {
            attrs.insert(Value::str(k), Value::str(v))?;
        }
        let mut datasets = Vec::with_capacity(g.datasets.len());
        for (name, t) in g.datasets {
            datasets.push(Value::tuple(vec![Value::str(name), from_tensor(&t)?]));
        }
        out.push(Value::tuple(vec![
            Value::str(g.path),
            Value::dict(attrs),
            Value::list(datasets),
        ]));
    }
    Ok(Value::list(out))
}

/// The bytes of a zip archive of `members`, `(name, bytes)` pairs stored
/// uncompressed in this order (Keras's `.keras` archive).
#[native("zip_dumps(members)")]
fn zip_dumps(vm: &dyn Vm, members: &Value) -> PyResult<Value> {
    let mut out = Vec::new();
    for m in vm.collect(members)? {
        let (name, data) = pair(vm, &m, "a member")?;
        out.push((
            str_of(&name, "a member name")?,
            bytes_of(&data, "a member")?,
        ));
    }
    let bytes = archive::write(&out).map_err(save_err)?;
    Ok(Value::Bytes(Rc::new(bytes)))
}

/// The members of the zip archive `data` (bytes), `(name, bytes)` pairs in
/// the archive's order; not a zip archive is `ValueError("File is not a zip
/// file")` (zipfile's `BadZipFile` message).
#[native("zip_loads(data)")]
fn zip_loads(data: &Value) -> PyResult<Value> {
    let members = archive::read(bytes_of(data, "data")?).map_err(save_err)?;
    Ok(Value::list(
        members
            .into_iter()
            .map(|(n, b)| Value::tuple(vec![Value::str(n), Value::Bytes(Rc::new(b))]))
            .collect(),
    ))
}

/// Builds the `_dist_saving` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("_dist_saving");
    m.add(h5_dumps::DEF);
    m.add(h5_loads::DEF);
    m.add(zip_dumps::DEF);
    m.add(zip_loads::DEF);
    m.build()
}
