//! Option objects that are accepted and remembered but change nothing here:
//! `tf.data.Options` (with its nested option groups) and
//! `tf.distribute.InputOptions`; plus `tf.distribute.InputContext`, which
//! `distribute_datasets_from_function` passes to the dataset function.

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use indexmap::IndexMap;

use crate::value::{Args, ExcType, NativeFunction, NativeObject, PyErr, PyResult, Value, Vm};

/// `tf.data.Options()` or one of its groups (`experimental_distribute` …).
pub struct OptionsObj {
    class: &'static str,
    attrs: RefCell<IndexMap<String, Value>>,
}

/// A fresh `tf.data.Options()`.
pub fn options_value() -> Value {
    Value::native(OptionsObj {
        class: "Options",
        attrs: RefCell::new(IndexMap::new()),
    })
}

/// `tf.data.Options()`.
pub fn new_options(_vm: &dyn Vm, _args: &Args) -> PyResult<Value> {
    Ok(options_value())
}

fn group_class(name: &str) -> Option<&'static str> {
    Some(match name {
        "experimental_distribute" => "DistributeOptions",
        "experimental_optimization" => "OptimizationOptions",
        "threading" => "ThreadingOptions",
        "autotune" => "AutotuneOptions",
        _ => return None,
    })
}

impl NativeObject for OptionsObj {
    fn type_name(&self) -> &str {
        self.class
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<tensorflow.python.data.ops.options.{} object at {:#x}>",
            self.class,
            this.id()
        ))
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        if let Some(v) = self.attrs.borrow().get(name) {
            return Ok(Some(v.clone()));
        }
        if name.starts_with("__") {
            return Ok(None);
        }
        let v = match group_class(name) {
            Some(class) if self.class == "Options" => Value::native(OptionsObj {
                class,
                attrs: RefCell::new(IndexMap::new()),
            }),
            _ => Value::None,
        };
        self.attrs.borrow_mut().insert(name.to_string(), v.clone());
        Ok(Some(v))
    }

    fn setattr(&self, _this: &Value, name: &str, value: Value, _vm: &dyn Vm) -> PyResult<bool> {
        self.attrs.borrow_mut().insert(name.to_string(), value);
        Ok(true)
    }
}

/// A namedtuple-like options record of `tf.distribute`: `InputOptions(...)`,
/// `RunOptions(...)`.
pub struct NamedOptions {
    /// The class name (`InputOptions`).
    name: &'static str,
    /// The field names, in order.
    fields: &'static [&'static str],
    /// The field values.
    values: Vec<Value>,
}

const RUN_OPTION_NAMES: [&str; 3] = [
    "experimental_enable_dynamic_batch_size",
    "experimental_bucketizing_dynamic_shape",
    "experimental_xla_options",
];

/// `tf.distribute.RunOptions(experimental_enable_dynamic_batch_size=True, ...)`.
pub fn new_run_options(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(Value::native(NamedOptions {
        name: "RunOptions",
        fields: &RUN_OPTION_NAMES,
        values: (0..RUN_OPTION_NAMES.len())
            .map(|i| args.get(i).clone())
            .collect(),
    }))
}

const INPUT_OPTION_NAMES: [&str; 4] = [
    "experimental_fetch_to_device",
    "experimental_replication_mode",
    "experimental_place_dataset_on_device",
    "experimental_per_replica_buffer_size",
];

/// A member of one of `tf.distribute`'s string-valued enums
/// (`InputReplicationMode.PER_WORKER`,
/// `experimental.CommunicationImplementation.NCCL`).
pub struct StrEnumMember {
    /// The enum's class name.
    pub class: &'static str,
    /// The member's name, which is also its value.
    pub member: &'static str,
}

impl NativeObject for StrEnumMember {
    fn type_name(&self) -> &str {
        self.class
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class(&self) -> Option<Rc<crate::value::Class>> {
        Some(crate::distribute::classes::class(self.class))
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("<{}.{1}: '{1}'>", self.class, self.member))
    }
    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("{}.{}", self.class, self.member))
    }
    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "name" | "value" => Some(Value::str(self.member)),
            _ => None,
        })
    }
    fn compare(
        &self,
        _this: &Value,
        op: &str,
        other: &Value,
        _vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let same = other
            .downcast::<StrEnumMember>()
            .is_some_and(|o| o.class == self.class && o.member == self.member);
        Ok(crate::value::native::equality(op, same))
    }
}

/// The class `name` of a string-valued enum with these members.
pub fn str_enum_class(name: &'static str, members: &[&'static str]) -> Rc<crate::value::Class> {
    let c = crate::distribute::classes::class(name);
    if c.dict.borrow().get(members[0]).is_none() {
        for &member in members {
            c.set_attr(
                member,
                Value::native(StrEnumMember {
                    class: name,
                    member,
                }),
            );
        }
        crate::distribute::classes::mark_enum(&c, members);
    }
    c
}

/// The `tf.distribute.InputReplicationMode` enum, with its two members.
pub fn replication_mode_class() -> Rc<crate::value::Class> {
    str_enum_class("InputReplicationMode", &["PER_WORKER", "PER_REPLICA"])
}

/// `tf.distribute.InputOptions(...)`.
pub fn new_input_options(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let fetch = match args.get(0) {
        Value::None => Value::Bool(!matches!(args.get(2), Value::Bool(true))),
        v => v.clone(),
    };
    let mode = match args.get(1) {
        Value::None => replication_mode_class()
            .lookup("PER_WORKER")
            .unwrap_or(Value::None),
        v => v.clone(),
    };
    Ok(Value::native(NamedOptions {
        name: "InputOptions",
        fields: &INPUT_OPTION_NAMES,
        values: vec![fetch, mode, args.get(2).clone(), args.get(3).clone()],
    }))
}

impl NativeObject for NamedOptions {
    fn type_name(&self) -> &str {
        self.name
    }

    fn class(&self) -> Option<Rc<crate::value::Class>> {
        Some(crate::distribute::classes::class(self.name))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        let mut parts = Vec::new();
        for (name, v) in self.fields.iter().zip(&self.values) {
            parts.push(format!("{name}={}", vm.repr(v)?));
        }
        Ok(format!("{}({})", self.name, parts.join(", ")))
    }

    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(self
            .fields
            .iter()
            .position(|n| *n == name)
            .map(|i| self.values[i].clone()))
    }
}

/// `tf.distribute.InputContext`.
pub struct InputContextObj {
    /// `num_input_pipelines`.
    pub num_input_pipelines: i64,
    /// `input_pipeline_id`.
    pub input_pipeline_id: i64,
    /// `num_replicas_in_sync`.
    pub num_replicas_in_sync: i64,
}

/// `tf.distribute.InputContext(num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1)`.
pub fn new_input_context(_vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    Ok(Value::native(InputContextObj {
        num_input_pipelines: args.int(0)?,
        input_pipeline_id: args.int(1)?,
        num_replicas_in_sync: args.int(2)?,
    }))
}

fn per_replica_batch_size(vm: &dyn Vm, args: &Args) -> PyResult<Value> {
    let Some(ctx) = args.get(0).downcast::<InputContextObj>() else {
        return Err(PyErr::new(
            ExcType::TypeError,
            "get_per_replica_batch_size() needs an InputContext",
        ));
    };
    let n = ctx.num_replicas_in_sync;
    let global = super::methods::int_arg(vm, args.get(1), "global_batch_size")?;
    if n == 0 || global % n != 0 {
        return Err(PyErr::new(
            ExcType::ValueError,
            format!("The `global_batch_size` {global} is not divisible by `num_replicas_in_sync` {n} "),
        )
        .help(format!(
            "each of the {n} replicas must get the same share of a global batch; use a multiple of {n}, e.g. {}",
            (global / n.max(1) + 1) * n
        )));
    }
    Ok(Value::Int(global / n))
}

thread_local! {
    static PER_REPLICA_BATCH: Rc<NativeFunction> = NativeFunction::new(
        "InputContext.get_per_replica_batch_size(self, global_batch_size)",
        per_replica_batch_size,
        "The batch size of each replica: global_batch_size / num_replicas_in_sync.",
    );
}

impl NativeObject for InputContextObj {
    fn type_name(&self) -> &str {
        "InputContext"
    }

    fn class(&self) -> Option<Rc<crate::value::Class>> {
        Some(crate::distribute::classes::class("InputContext"))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<tensorflow.python.distribute.distribute_lib.InputContext object at {:#x}>",
            this.id()
        ))
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "tf.distribute.InputContext(input pipeline id {}, total: {})",
            self.input_pipeline_id, self.num_input_pipelines
        ))
    }

    fn getattr(&self, this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match name {
            "num_input_pipelines" => Some(Value::Int(self.num_input_pipelines)),
            "input_pipeline_id" => Some(Value::Int(self.input_pipeline_id)),
            "num_replicas_in_sync" => Some(Value::Int(self.num_replicas_in_sync)),
            "get_per_replica_batch_size" => Some(PER_REPLICA_BATCH.with(|f| f.bind(this.clone()))),
            _ => None,
        })
    }
}

/// Whether `options` (an `InputOptions` or None) asks for
/// `InputReplicationMode.PER_REPLICA`: one input pipeline per replica.
pub fn per_replica_mode(vm: &dyn Vm, options: &Value) -> PyResult<bool> {
    if options.is_none() {
        return Ok(false);
    }
    let mode = vm.getattr(options, "experimental_replication_mode")?;
    Ok(mode
        .downcast::<StrEnumMember>()
        .is_some_and(|m| m.class == "InputReplicationMode" && m.member == "PER_REPLICA"))
}
