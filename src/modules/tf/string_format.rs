//! `tf.strings.format`: TensorFlow's Python wrapper (`string_ops.string_format`:
//! a lone tensor becomes a list of one, the placeholder count must match)
//! over the `StringFormat` kernel, which fills each placeholder of the
//! template with its input's `SummarizeValue(summarize, print_v2=true)`
//! (`runtime::format::summarize`, the text `tf.print` shows).

use super::print::{host, is_tensor_like};
use crate::object::native;
use crate::object::tensor::convert::{runtime_err, to_tensor};
use crate::runtime::format::summarize::summarize as summary;
use crate::runtime::{Device, HostData, Shape, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Formats tensors into a template string: a scalar string tensor.
///
/// Each `placeholder` in `template` is replaced by the next input's value,
/// the first and last `summarize` entries of each dimension (-1: all).
///
/// ```python
/// >>> tf.strings.format("tensor: {}, suffix", tf.range(5))
/// <tf.Tensor: shape=(), dtype=string, numpy=b'tensor: [0 1 2 3 4], suffix'>
/// ```
#[native("format(template, inputs, placeholder='{}', summarize=3, name=None)")]
pub(super) fn format(
    vm: &dyn Vm,
    template: &str,
    inputs: &Value,
    placeholder: &str,
    summarize: i64,
    _name: &Value,
) -> PyResult<Tensor> {
    let inputs = if is_tensor_like(inputs) {
        vec![inputs.clone()]
    } else {
        // `len(inputs)` first, as TensorFlow's check calls it
        vm.len(inputs)?;
        vm.collect(inputs)?
    };
    let count = if placeholder.is_empty() {
        template.chars().count() + 1
    } else {
        template.matches(placeholder).count()
    };
    if count != inputs.len() {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!(
                "The template expects {count} tensors, but the inputs only has {}. Please \
                 ensure the number of placeholders in template matches inputs length.",
                inputs.len()
            ),
        ));
    }
    // the kernel splits the template as absl::StrSplit does (an empty
    // placeholder splits between characters)
    let pieces: Vec<String> = if placeholder.is_empty() {
        template.chars().map(String::from).collect()
    } else {
        template.split(placeholder).map(String::from).collect()
    };
    if pieces.len() != inputs.len() + 1 {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "num placeholders in template and num inputs must match: {} vs. {}",
                pieces.len().saturating_sub(1),
                inputs.len()
            ),
        ));
    }
    let mut out = String::new();
    for (piece, input) in pieces.iter().zip(&inputs) {
        out.push_str(piece);
        let t = match input {
            Value::Tensor(t) => t.clone(),
            v => to_tensor(vm, v, None)?,
        };
        out.push_str(&summary(&host(&t)?, summarize));
    }
    out.push_str(pieces.last().map(String::as_str).unwrap_or(""));
    Tensor::from_host(
        HostData::Str(vec![out.into_bytes()]),
        Shape::new(&[]),
        Device::CPU0,
    )
    .map_err(runtime_err)
}
