//! `tf.strings`' hashing ops: `to_hash_bucket_fast` (FarmHash's
//! `Fingerprint64`, in `runtime::farmhash`), which Keras's `Hashing` and
//! lookup layers use for out-of-vocabulary buckets.

use super::convert::runtime_err;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::{farmhash, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Converts each string to a bucket: its FarmHash fingerprint modulo `num_buckets`.
#[native("to_hash_bucket_fast(input, num_buckets, name=None)")]
fn to_hash_bucket_fast(
    vm: &dyn Vm,
    input: Tensor,
    num_buckets: i64,
    name: &Value,
) -> PyResult<Tensor> {
    if num_buckets < 1 {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "Value for attr 'num_buckets' of {num_buckets} must be at least minimum 1\n\t; \
                 NodeDef: {{{{node StringToHashBucketFast}}}}; Op<name=StringToHashBucketFast; \
                 signature=input:string -> output:int64; attr=num_buckets:int,min=1> \
                 [Op:StringToHashBucketFast]"
            ),
        ));
    }
    let name = match name {
        Value::None => " name: ".to_string(),
        v => format!(" name: {}", vm.str(v)?),
    };
    farmhash::to_hash_bucket_fast(&input, num_buckets as u64, &name).map_err(runtime_err)
}

/// Adds the hashing ops to `tf.strings`.
pub fn register(m: &mut ModuleBuilder) {
    m.add(to_hash_bucket_fast::DEF);
}
