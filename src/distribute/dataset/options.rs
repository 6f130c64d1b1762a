//! `tf.distribute`'s option records (`InputOptions`, `RunOptions`), its
//! string-valued enums, and `tf.distribute.InputContext`, which
//! `distribute_datasets_from_function` passes to the dataset function.
//! (`tf.data.Options` is `data_options.rs`.)

use crate::distribute::classes::{getters, native_class, object_repr, DISTRIBUTE_LIB};
use crate::object::{native, ClassSpec, Member};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A namedtuple-like options record of `tf.distribute`: `InputOptions(...)`,
/// `RunOptions(...)`.
pub struct NamedOptions {
    /// The class (`InputOptions`).
    spec: &'static ClassSpec,
    /// The field names, in order.
    fields: &'static [&'static str],
    /// The field values.
    values: Vec<Value>,
}

native_class!(NamedOptions: INPUT_OPTIONS);

/// `tf.distribute.RunOptions`.
pub static RUN_OPTIONS: ClassSpec = ClassSpec {
    name: "RunOptions",
    module: DISTRIBUTE_LIB,
    bases: &[],
    members: &[
        Member::New(new_run_options::DEF),
        Member::Getter(enable_dynamic_batch_size::DEF),
        Member::Getter(bucketizing_dynamic_shape::DEF),
        Member::Getter(xla_options::DEF),
    ],
};

/// `tf.distribute.InputOptions`.
pub static INPUT_OPTIONS: ClassSpec = ClassSpec {
    name: "InputOptions",
    module: DISTRIBUTE_LIB,
    bases: &[],
    members: &[
        Member::New(new_input_options::DEF),
        Member::Getter(fetch_to_device::DEF),
        Member::Getter(replication_mode::DEF),
        Member::Getter(place_dataset_on_device::DEF),
        Member::Getter(per_replica_buffer_size::DEF),
    ],
};

const RUN_OPTION_NAMES: [&str; 3] = [
    "experimental_enable_dynamic_batch_size",
    "experimental_bucketizing_dynamic_shape",
    "experimental_xla_options",
];

/// Options for `strategy.run` (TPU-only in TensorFlow; accepted).
#[native("RunOptions.__new__(experimental_enable_dynamic_batch_size=True, experimental_bucketizing_dynamic_shape=False, experimental_xla_options=None)")]
fn new_run_options(
    experimental_enable_dynamic_batch_size: &Value,
    experimental_bucketizing_dynamic_shape: &Value,
    experimental_xla_options: &Value,
) -> Value {
    Value::native(NamedOptions {
        spec: &RUN_OPTIONS,
        fields: &RUN_OPTION_NAMES,
        values: vec![
            experimental_enable_dynamic_batch_size.clone(),
            experimental_bucketizing_dynamic_shape.clone(),
            experimental_xla_options.clone(),
        ],
    })
}

getters! { this: &NamedOptions;
    /// Whether batches may differ in size.
    fn enable_dynamic_batch_size("RunOptions.experimental_enable_dynamic_batch_size(self)") -> Value {
        this.values[0].clone()
    }
    /// Whether dynamic shapes are bucketized.
    fn bucketizing_dynamic_shape("RunOptions.experimental_bucketizing_dynamic_shape(self)") -> Value {
        this.values[1].clone()
    }
    /// XLA's options.
    fn xla_options("RunOptions.experimental_xla_options(self)") -> Value { this.values[2].clone() }
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
    /// The enum's class.
    pub spec: &'static ClassSpec,
    /// The member's name, which is also its value.
    pub member: &'static str,
}

/// The members of the string-valued enum class `$spec`, one object each
/// (a class attribute), with `_member_names_`, `name` and `value`.
macro_rules! str_enum {
    ($spec:ident: $($m:literal),+) => {
        &[
            $(crate::object::Member::Attr($m, || {
                crate::value::Value::native(crate::distribute::dataset::options::StrEnumMember {
                    spec: &$spec,
                    member: $m,
                })
            }),)+
            crate::object::Member::Attr("_member_names_", || {
                crate::distribute::classes::member_names(&[$($m),+])
            }),
            crate::object::Member::Getter(crate::distribute::dataset::options::str_enum_name::DEF),
            crate::object::Member::Getter(crate::distribute::dataset::options::str_enum_value::DEF),
        ]
    };
}
pub(crate) use str_enum;

native_class!(StrEnumMember: INPUT_REPLICATION_MODE);

impl NativeObject for StrEnumMember {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.spec)
    }
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("<{}.{1}: '{1}'>", self.spec.name, self.member))
    }
    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!("{}.{}", self.spec.name, self.member))
    }
    fn equals(&self, _this: &Value, other: &Value, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        let same = other
            .downcast::<StrEnumMember>()
            .is_some_and(|o| std::ptr::eq(o.spec, self.spec) && o.member == self.member);
        Ok(Some(same))
    }
}

getters! { this: &StrEnumMember;
    /// The member's name.
    pub(crate) fn str_enum_name("Enum.name(self)") -> &'static str { this.member }
    /// The member's value (its name).
    pub(crate) fn str_enum_value("Enum.value(self)") -> &'static str { this.member }
}

/// `tf.distribute.InputReplicationMode`, with its two members.
pub static INPUT_REPLICATION_MODE: ClassSpec = ClassSpec {
    name: "InputReplicationMode",
    module: DISTRIBUTE_LIB,
    bases: &[],
    members: str_enum!(INPUT_REPLICATION_MODE: "PER_WORKER", "PER_REPLICA"),
};

/// Options for distributed datasets (accepted).
#[native("InputOptions.__new__(experimental_fetch_to_device=None, experimental_replication_mode=None, experimental_place_dataset_on_device=False, experimental_per_replica_buffer_size=1)")]
fn new_input_options(
    experimental_fetch_to_device: &Value,
    experimental_replication_mode: &Value,
    experimental_place_dataset_on_device: &Value,
    experimental_per_replica_buffer_size: &Value,
) -> Value {
    let fetch = match experimental_fetch_to_device {
        Value::None => Value::Bool(!matches!(
            experimental_place_dataset_on_device,
            Value::Bool(true)
        )),
        v => v.clone(),
    };
    let mode = match experimental_replication_mode {
        Value::None => INPUT_REPLICATION_MODE
            .class()
            .lookup("PER_WORKER")
            .unwrap_or(Value::None),
        v => v.clone(),
    };
    Value::native(NamedOptions {
        spec: &INPUT_OPTIONS,
        fields: &INPUT_OPTION_NAMES,
        values: vec![
            fetch,
            mode,
            experimental_place_dataset_on_device.clone(),
            experimental_per_replica_buffer_size.clone(),
        ],
    })
}

getters! { this: &NamedOptions;
    /// Whether the inputs are copied to the replicas' devices.
    fn fetch_to_device("InputOptions.experimental_fetch_to_device(self)") -> Value {
        this.values[0].clone()
    }
    /// One input pipeline per worker or per replica (`tf.distribute.InputReplicationMode`).
    fn replication_mode("InputOptions.experimental_replication_mode(self)") -> Value {
        this.values[1].clone()
    }
    /// Whether the dataset is placed on the device.
    fn place_dataset_on_device("InputOptions.experimental_place_dataset_on_device(self)") -> Value {
        this.values[2].clone()
    }
    /// How many elements each replica buffers.
    fn per_replica_buffer_size("InputOptions.experimental_per_replica_buffer_size(self)") -> Value {
        this.values[3].clone()
    }
}

impl NativeObject for NamedOptions {
    fn type_name(&self) -> &str {
        self.spec.name
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.spec)
    }

    fn repr(&self, _this: &Value, vm: &dyn Vm) -> PyResult<String> {
        let mut parts = Vec::new();
        for (name, v) in self.fields.iter().zip(&self.values) {
            parts.push(format!("{name}={}", vm.repr(v)?));
        }
        Ok(format!("{}({})", self.spec.name, parts.join(", ")))
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

/// `tf.distribute.InputContext`.
pub static INPUT_CONTEXT: ClassSpec = ClassSpec {
    name: "InputContext",
    module: DISTRIBUTE_LIB,
    bases: &[],
    members: &[
        Member::New(new_input_context::DEF),
        Member::Getter(num_input_pipelines::DEF),
        Member::Getter(input_pipeline_id::DEF),
        Member::Getter(num_replicas_in_sync::DEF),
        Member::Method(per_replica_batch_size::DEF),
    ],
};

native_class!(InputContextObj: INPUT_CONTEXT);

/// What a dataset function learns about the input pipelines and replicas.
#[native(
    "InputContext.__init__(num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1)"
)]
fn new_input_context(
    num_input_pipelines: i64,
    input_pipeline_id: i64,
    num_replicas_in_sync: i64,
) -> Value {
    Value::native(InputContextObj {
        num_input_pipelines,
        input_pipeline_id,
        num_replicas_in_sync,
    })
}

getters! { this: &InputContextObj;
    /// The number of input pipelines.
    fn num_input_pipelines("InputContext.num_input_pipelines(self)") -> i64 {
        this.num_input_pipelines
    }
    /// The index of this input pipeline.
    fn input_pipeline_id("InputContext.input_pipeline_id(self)") -> i64 { this.input_pipeline_id }
    /// The number of replicas.
    fn num_replicas_in_sync("InputContext.num_replicas_in_sync(self)") -> i64 {
        this.num_replicas_in_sync
    }
}

/// The batch size of each replica: global_batch_size / num_replicas_in_sync.
#[native("InputContext.get_per_replica_batch_size(self, global_batch_size)")]
fn per_replica_batch_size(
    vm: &dyn Vm,
    this: &InputContextObj,
    global_batch_size: &Value,
) -> PyResult<i64> {
    let n = this.num_replicas_in_sync;
    let global = super::methods::int_arg(vm, global_batch_size, "global_batch_size")?;
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
    Ok(global / n)
}

impl NativeObject for InputContextObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&INPUT_CONTEXT)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(object_repr(&INPUT_CONTEXT, this))
    }

    fn str(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "tf.distribute.InputContext(input pipeline id {}, total: {})",
            self.input_pipeline_id, self.num_input_pipelines
        ))
    }
}

/// Whether `options` (an `InputOptions` or None) asks for
/// `InputReplicationMode.PER_REPLICA`: one input pipeline per replica.
pub fn per_replica_mode(vm: &dyn Vm, options: &Value) -> PyResult<bool> {
    if options.is_none() {
        return Ok(false);
    }
    let mode = vm.getattr(options, "experimental_replication_mode")?;
    Ok(mode.downcast::<StrEnumMember>().is_some_and(|m| {
        std::ptr::eq(m.spec, &INPUT_REPLICATION_MODE) && m.member == "PER_REPLICA"
    }))
}
