//! `tf.train.load_checkpoint`'s reader (TensorFlow's C++
//! `CheckpointReader` as `_pywrap_checkpoint_reader` wraps it): the tensors
//! of a bundle as numpy values, their shapes and dtypes, and (for restore,
//! dist's own `_get_tensor`) as tensors.

use super::bundle_err;
use crate::modules::tf::gfile::tf_error;
use crate::object::numpy::from_tensor;
use crate::object::tensor::dtype::dtype_value;
use crate::object::{native, ClassSpec, Member, NativeClass};
use crate::runtime::checkpoint::bundle::{self, Bundle, BundleErrorKind};
use crate::runtime::Tensor;
use crate::value::{Dict, ExcType, NativeObject, PyResult, Value};

/// An open checkpoint.
pub struct CheckpointReader(Bundle);

/// The class of `tf.train.load_checkpoint`'s readers.
pub static CHECKPOINT_READER: ClassSpec = ClassSpec {
    name: "CheckpointReader",
    module: "tensorflow.python.util._pywrap_checkpoint_reader",
    bases: &[],
    members: &[
        Member::New(reader_new::DEF),
        Member::Method(get_tensor::DEF),
        Member::Method(get_tensor_as_tensor::DEF),
        Member::Method(has_tensor::DEF),
        Member::Method(get_variable_to_shape_map::DEF),
        Member::Method(get_variable_to_dtype_map::DEF),
        Member::Method(debug_string::DEF),
    ],
};

impl NativeClass for CheckpointReader {
    const SPEC: &'static ClassSpec = &CHECKPOINT_READER;
}

impl NativeObject for CheckpointReader {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&CHECKPOINT_READER)
    }
}

/// Opens the checkpoint `filepattern` (a prefix: `dir/ckpt-1`).
#[native("CheckpointReader.__init__(filepattern)")]
fn reader_new(filepattern: &str) -> PyResult<Value> {
    if !std::path::Path::new(&bundle::index_path(filepattern)).is_file() {
        return Err(tf_error(
            ExcType::NotFoundError,
            format!(
                "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {filepattern}"
            ),
        ));
    }
    let b = Bundle::open(filepattern).map_err(bundle_err)?;
    Ok(Value::native(CheckpointReader(b)))
}

fn tensor(this: &CheckpointReader, name: &str) -> PyResult<Tensor> {
    if !this.0.entries.contains_key(name) {
        return Err(tf_error(
            ExcType::NotFoundError,
            format!("Key {name} not found in checkpoint"),
        ));
    }
    this.0.tensor(name).map_err(bundle_err)
}

/// The tensor saved under `tensor_str`, as a numpy array (a numpy scalar or
/// bytes for a 0-d one).
#[native("CheckpointReader.get_tensor(self, tensor_str)")]
fn get_tensor(this: &CheckpointReader, tensor_str: &str) -> PyResult<Value> {
    from_tensor(&tensor(this, tensor_str)?)
}

/// The tensor saved under `name`, as a tensor (what restoring assigns; a
/// damaged value is the `DataLossError` of TensorFlow's `RestoreV2` op).
#[native("CheckpointReader._get_tensor(self, name)")]
fn get_tensor_as_tensor(this: &CheckpointReader, name: &str) -> PyResult<Tensor> {
    if !this.0.entries.contains_key(name) {
        return tensor(this, name);
    }
    this.0.tensor(name).map_err(|e| {
        if e.kind == BundleErrorKind::DataLoss {
            tf_error(
                ExcType::DataLossError,
                format!(
                    "{{{{function_node __wrapped__RestoreV2_dtypes_1_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} {} [Op:RestoreV2]",
                    e.message
                ),
            )
        } else {
            bundle_err(e)
        }
    })
}

/// Whether the checkpoint holds `tensor_str`.
#[native("CheckpointReader.has_tensor(self, tensor_str)")]
fn has_tensor(this: &CheckpointReader, tensor_str: &str) -> bool {
    this.0.entries.contains_key(tensor_str)
}

/// Each saved name and its shape (a list of ints).
#[native("CheckpointReader.get_variable_to_shape_map(self)")]
fn get_variable_to_shape_map(this: &CheckpointReader) -> PyResult<Value> {
    let mut d = Dict::new();
    for (k, e) in &this.0.entries {
        let dims = e.dims.iter().map(|&x| Value::Int(x as i64)).collect();
        d.insert(Value::str(k.clone()), Value::list(dims))?;
    }
    Ok(Value::dict(d))
}

/// Each saved name and its dtype.
#[native("CheckpointReader.get_variable_to_dtype_map(self)")]
fn get_variable_to_dtype_map(this: &CheckpointReader) -> PyResult<Value> {
    let mut d = Dict::new();
    for (k, e) in &this.0.entries {
        let dtype = e.dtype.clone().map_err(bundle_err)?;
        d.insert(Value::str(k.clone()), dtype_value(dtype))?;
    }
    Ok(Value::dict(d))
}

/// One line per saved tensor: `name (DT_FLOAT) [2,3]`, as bytes.
#[native("CheckpointReader.debug_string(self)")]
fn debug_string(this: &CheckpointReader) -> PyResult<Value> {
    let mut out = String::new();
    for (k, e) in &this.0.entries {
        let dtype = e.dtype.clone().map_err(bundle_err)?;
        let dt = match dtype.kernel_name() {
            "half" => "HALF".to_string(),
            n => n.to_uppercase(),
        };
        let dims: Vec<String> = e.dims.iter().map(|d| d.to_string()).collect();
        out.push_str(&format!("{k} (DT_{dt}) [{}]\n", dims.join(",")));
    }
    Ok(Value::Bytes(std::rc::Rc::new(out.into_bytes())))
}
