//! `tf.nn.embedding_lookup`: rows of an embedding table by id, TensorFlow's
//! `embedding_lookup_v2` over one table (a gather along axis 0, so the
//! table's gradient is a `tf.IndexedSlices`).

use super::convert::{placed, to_tensor};
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::ops;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The rows of `params` named by `ids` (`tf.gather(params, ids)`); `params`
/// a table or a list of one table.
///
/// ```python
/// t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
/// print(tf.nn.embedding_lookup(t, [1, 1]).numpy().tolist())  # [[3.0, 4.0], [3.0, 4.0]]
/// ```
#[native("embedding_lookup(params, ids, max_norm=None, name=None)")]
fn embedding_lookup(
    vm: &dyn Vm,
    params: &Value,
    ids: &Value,
    max_norm: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let table = match params {
        Value::List(_) | Value::Tuple(_) => {
            let parts = vm.collect(params)?;
            match parts.as_slice() {
                [] => {
                    return Err(PyErr::new(
                        ExcType::ValueError,
                        "Need at least one param",
                    ))
                }
                [one] => one.clone(),
                _ => {
                    return Err(PyErr::new(
                        ExcType::NotImplementedError,
                        "tf.nn.embedding_lookup over a table sharded in several tensors is not implemented in dist",
                    ))
                }
            }
        }
        _ => params.clone(),
    };
    if !max_norm.is_none() {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.nn.embedding_lookup with max_norm is not implemented in dist",
        ));
    }
    let table = to_tensor(vm, &table, None)?;
    let ids = to_tensor(vm, ids, None)?;
    placed(vm, ops::gather(&table, &ids, 0)).map(Value::Tensor)
}

/// Adds `embedding_lookup` to `tf.nn`.
pub fn register_nn(n: &mut ModuleBuilder) {
    n.add(embedding_lookup::DEF);
}
