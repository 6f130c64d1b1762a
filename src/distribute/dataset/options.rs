//! `tf.distribute`'s option records (`InputOptions`, `RunOptions`, named
//! tuples as in TensorFlow), its
//! string-valued enums, and `tf.distribute.InputContext`, which
//! `distribute_datasets_from_function` passes to the dataset function.
//! (`tf.data.Options` is `data_options.rs`.)

use crate::distribute::classes::{getters, native_class, object_repr, DISTRIBUTE_LIB};
use crate::object::types::namedtuple::{struct_class_with_defaults, NamedTuple};
use crate::object::{native, ClassSpec, Kwargs, Member};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// `tf.distribute.RunOptions`: a named tuple class (TensorFlow's subclass
/// of one, whose `__new__` only gives the defaults).
pub fn run_options_class() -> Value {
    struct_class_with_defaults(
        "RunOptions",
        &RUN_OPTION_NAMES,
        vec![Value::Bool(true), Value::Bool(false), Value::None],
        DISTRIBUTE_LIB,
    )
    .unwrap_or(Value::None)
}

const RUN_OPTION_NAMES: [&str; 3] = [
    "experimental_enable_dynamic_batch_size",
    "experimental_bucketizing_dynamic_shape",
    "experimental_xla_options",
];

/// `tf.distribute.InputOptions`: a named tuple class whose `__new__` turns
/// `experimental_fetch_to_device=None` into True, as TensorFlow's does.
pub fn input_options_class() -> Value {
    let mode = INPUT_REPLICATION_MODE
        .class()
        .lookup("PER_WORKER")
        .unwrap_or(Value::None);
    let defaults = vec![Value::None, mode, Value::Bool(false), Value::Int(1)];
    let class = struct_class_with_defaults(
        "InputOptions",
        &INPUT_OPTION_NAMES,
        defaults,
        DISTRIBUTE_LIB,
    )
    .unwrap_or(Value::None);
    if let Value::Class(c) = &class {
        let tuple_new = c.dict.borrow().get("__new__").cloned();
        if let Some(tuple_new) = tuple_new {
            let new = new_input_options::DEF.function().bind(tuple_new);
            c.set_attr("__new__", new);
        }
    }
    class
}

/// Options for distributing a dataset (`experimental_fetch_to_device`
/// defaults to True).
#[native("InputOptions.__new__(tuple_new, /, *args, **kwargs)")]
fn new_input_options(
    vm: &dyn Vm,
    tuple_new: &Value,
    args: &[Value],
    kwargs: Kwargs,
) -> PyResult<Value> {
    let made = vm.call(tuple_new, args.to_vec(), kwargs.0)?;
    let Some(nt) = made.downcast::<NamedTuple>() else {
        return Ok(made);
    };
    if !nt.values()[0].is_none() {
        return Ok(made);
    }
    let mut values = nt.values().to_vec();
    values[0] = Value::Bool(true);
    Ok(nt.with_values(values))
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
