//! `tf.distribute.experimental.CommunicationOptions` and the
//! `CommunicationImplementation` enum (also `CollectiveCommunication`): what
//! `all_reduce(..., options=)` and the strategies' collectives accept. The
//! collectives here run the same way whatever they say.

use std::any::Any;

use super::dataset::options::{str_enum_class, StrEnumMember};
use crate::modules::ModuleBuilder;
use crate::value::{Args, ExcType, NativeObject, PyErr, PyResult, Value, Vm};

const IMPLEMENTATIONS: [&str; 3] = ["AUTO", "RING", "NCCL"];

/// `CommunicationOptions(bytes_per_pack=0, timeout_seconds=None, implementation=AUTO)`.
pub struct CommunicationOptions {
    bytes_per_pack: Value,
    timeout_seconds: Value,
    implementation: Value,
}

fn new_options(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let bytes = crate::object::types::int_arg(args.get(0), vm)?;
    if bytes < 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!("Argument `bytes_per_pack` must be >=0, Received {bytes}."),
        ));
    }
    let implementation = match args.get(2) {
        Value::None => implementation_class()
            .lookup("AUTO")
            .unwrap_or(Value::None),
        Value::Str(s) => implementation_class()
            .lookup(&s.to_ascii_uppercase())
            .ok_or_else(|| {
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
        timeout_seconds: args.get(1).clone(),
        implementation,
    }))
}

impl NativeObject for CommunicationOptions {
    fn type_name(&self) -> &str {
        "Options"
    }
    fn class(&self) -> Option<std::rc::Rc<crate::value::Class>> {
        Some(super::classes::class("Options"))
    }
    fn as_any(&self) -> &dyn Any {
        self
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
    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "bytes_per_pack" => Some(self.bytes_per_pack.clone()),
            "timeout_seconds" => Some(self.timeout_seconds.clone()),
            "implementation" => Some(self.implementation.clone()),
            _ => None,
        })
    }
}

fn implementation_class() -> std::rc::Rc<crate::value::Class> {
    str_enum_class("CommunicationImplementation", &IMPLEMENTATIONS)
}

/// Adds the options and the enum to `tf.distribute.experimental`.
pub fn register(e: &mut ModuleBuilder) {
    e.function(
        "CommunicationOptions(bytes_per_pack=0, timeout_seconds=None, implementation=None)",
        new_options,
        "Options for collective operations (accepted; the collectives run the same way).",
    );
    let c = implementation_class();
    e.value("CommunicationImplementation", Value::Class(c.clone()));
    e.value("CollectiveCommunication", Value::Class(c));
}
