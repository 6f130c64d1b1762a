//! `tf.distribute.experimental.CommunicationOptions` and the
//! `CommunicationImplementation` enum (also `CollectiveCommunication`): what
//! `all_reduce(..., options=)` and the strategies' collectives accept. The
//! collectives here run the same way whatever they say.

use super::dataset::options::{str_enum, StrEnumMember};
use crate::distribute::classes::{getters, native_class};
use crate::object::types::int_arg;
use crate::object::{native, ClassSpec, Member};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

const COLLECTIVE_UTIL: &str = "tensorflow.python.distribute.collective_util";

/// `CommunicationOptions(bytes_per_pack=0, timeout_seconds=None, implementation=AUTO)`.
pub struct CommunicationOptions {
    bytes_per_pack: Value,
    timeout_seconds: Value,
    implementation: Value,
}

/// `tf.distribute.experimental.CommunicationImplementation` (also
/// `CollectiveCommunication`), an enum.
pub static COMMUNICATION_IMPLEMENTATION: ClassSpec = ClassSpec {
    name: "CommunicationImplementation",
    module: COLLECTIVE_UTIL,
    bases: &[],
    members: str_enum!(COMMUNICATION_IMPLEMENTATION: "AUTO", "RING", "NCCL"),
};

/// Options for collective operations (accepted; the collectives run the same way).
#[native("CommunicationOptions(bytes_per_pack=0, timeout_seconds=None, implementation=None)")]
pub fn communication_options(
    vm: &dyn Vm,
    bytes_per_pack: &Value,
    timeout_seconds: &Value,
    implementation: &Value,
) -> PyResult<Value> {
    let bytes = int_arg(bytes_per_pack, vm)?;
    if bytes < 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!("Argument `bytes_per_pack` must be >=0, Received {bytes}."),
        ));
    }
    let class = COMMUNICATION_IMPLEMENTATION.class();
    let implementation = match implementation {
        Value::None => class.lookup("AUTO").unwrap_or(Value::None),
        Value::Str(s) => class.lookup(&s.to_ascii_uppercase()).ok_or_else(|| {
            PyErr::new(
                ExcType::ValueError,
                format!("'{s}' is not a valid CommunicationImplementation"),
            )
        })?,
        v if v.downcast::<StrEnumMember>().is_some() => v.clone(),
        v => {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!(
                    "implementation should be a tf.distribute.experimental.CommunicationImplementation, got {}",
                    vm.repr(v)?
                ),
            ))
        }
    };
    Ok(Value::native(CommunicationOptions {
        bytes_per_pack: Value::Int(bytes),
        timeout_seconds: timeout_seconds.clone(),
        implementation,
    }))
}

/// The class of `CommunicationOptions(...)`.
pub static OPTIONS: ClassSpec = ClassSpec {
    name: "Options",
    module: COLLECTIVE_UTIL,
    bases: &[],
    members: &[
        Member::Getter(bytes_per_pack::DEF),
        Member::Getter(timeout_seconds::DEF),
        Member::Getter(implementation::DEF),
    ],
};

native_class!(CommunicationOptions: OPTIONS);

impl NativeObject for CommunicationOptions {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&OPTIONS)
    }
    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        // TensorFlow's own __repr__, spacing included
        Ok(format!(
            "Options(bytes_per_pack={},timeout_seconds={}, implementation={})",
            vm.str(&self.bytes_per_pack)?,
            vm.str(&self.timeout_seconds)?,
            vm.str(&self.implementation)?
        ))
    }
}

getters! { this: &CommunicationOptions;
    /// The size of the packs the tensors are packed into (0: no packing).
    fn bytes_per_pack("Options.bytes_per_pack(self)") -> Value { this.bytes_per_pack.clone() }
    /// The timeout of a collective, in seconds.
    fn timeout_seconds("Options.timeout_seconds(self)") -> Value { this.timeout_seconds.clone() }
    /// The collective implementation.
    fn implementation("Options.implementation(self)") -> Value { this.implementation.clone() }
}
