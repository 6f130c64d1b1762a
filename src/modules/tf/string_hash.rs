//! `tf.strings`' hashing ops: `to_hash_bucket_fast` (FarmHash's
//! `Fingerprint64`, in `runtime::farmhash`) and `to_hash_bucket_strong`
//! (keyed SipHash-2-4, `runtime::siphash`), which Keras's `Hashing` and
//! lookup layers use for their buckets.

use super::convert::runtime_err;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::{farmhash, siphash, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Converts each string to a bucket: its FarmHash fingerprint modulo `num_buckets`.
#[native("to_hash_bucket_fast(input, num_buckets, name=None)")]
fn to_hash_bucket_fast(
    vm: &dyn Vm,
    input: Tensor,
    num_buckets: i64,
    name: &Value,
) -> PyResult<Tensor> {
    check_buckets(num_buckets, "StringToHashBucketFast", "")?;
    let name = op_name(vm, name)?;
    farmhash::to_hash_bucket_fast(&input, num_buckets as u64, &name).map_err(runtime_err)
}

/// Converts each string to a bucket: its SipHash-2-4 under `key` (two
/// integers) modulo `num_buckets`.
#[native("to_hash_bucket_strong(input, num_buckets, key, name=None)")]
fn to_hash_bucket_strong(
    vm: &dyn Vm,
    input: Tensor,
    num_buckets: i64,
    key: &Value,
    name: &Value,
) -> PyResult<Tensor> {
    check_buckets(
        num_buckets,
        "StringToHashBucketStrong",
        "; attr=key:list(int)",
    )?;
    let key: Vec<i64> = vm
        .collect(key)?
        .iter()
        .map(|k| crate::object::types::int_arg(k, vm))
        .collect::<PyResult<_>>()?;
    let [k0, k1] = key[..] else {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            "{{function_node __wrapped__StringToHashBucketStrong_device_/job:localhost/\
             replica:0/task:0/device:CPU:0}} Key must have 2 elements \
             [Op:StringToHashBucketStrong]",
        ));
    };
    siphash::to_hash_bucket_strong(
        &input,
        num_buckets as u64,
        [k0 as u64, k1 as u64],
        &op_name(vm, name)?,
    )
    .map_err(runtime_err)
}

fn op_name(vm: &dyn Vm, name: &Value) -> PyResult<String> {
    Ok(match name {
        Value::None => " name: ".to_string(),
        v => format!(" name: {}", vm.str(v)?),
    })
}

fn check_buckets(num_buckets: i64, op: &str, extra: &str) -> PyResult<()> {
    if num_buckets < 1 {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "Value for attr 'num_buckets' of {num_buckets} must be at least minimum 1\n\t; \
                 NodeDef: {{{{node {op}}}}}; Op<name={op}; \
                 signature=input:string -> output:int64; attr=num_buckets:int,min=1{extra}> \
                 [Op:{op}]"
            ),
        ));
    }
    Ok(())
}

/// Adds the hashing ops to `tf.strings`.
pub fn register(m: &mut ModuleBuilder) {
    m.add(to_hash_bucket_fast::DEF);
    m.add(to_hash_bucket_strong::DEF);
}
