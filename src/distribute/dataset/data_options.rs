//! `tf.data.Options` and its option groups (`experimental_distribute`,
//! `autotune`, `threading` …), modelled on TensorFlow's schema
//! (`data/ops/options.py`, `data/util/options.py`): every field with its
//! type and default, read lazily as TensorFlow does (a read stores the
//! default), type-checked when set, `merge_options` semantics for
//! `with_options` and for datasets with several inputs (the last non-default
//! value wins, with absl's warning), and `Dataset.options()` returning the
//! merged options, made read-only. The enums the fields take
//! (`AutoShardPolicy` …) are here too. Which options dist acts on, and the
//! one-time note for those it does not, is [`note_unused`].

use std::cell::{Cell, RefCell};

use indexmap::IndexMap;

use super::node::{dataset_of, Kind};
use crate::distribute::classes::{native_class, object_repr};
use crate::distribute::enums::{enum_class, EnumDef};
use crate::object::types::builtin_class;
use crate::object::{native, ClassSpec, Member};
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, ValueType, Vm};

/// `tensorflow.python.data.ops.options`.
const OPTIONS_MODULE: &str = "tensorflow.python.data.ops.options";

enum_class!(pub AUTO_SHARD_POLICY, AUTO_SHARD, auto_shard_policy_call,
    "AutoShardPolicy", OPTIONS_MODULE, int: true,
    [("OFF", -1), ("AUTO", 0), ("FILE", 1), ("DATA", 2), ("HINT", 3)]);

enum_class!(pub AUTOTUNE_ALGORITHM, AUTOTUNE_ALGO, autotune_algorithm_call,
    "AutotuneAlgorithm", OPTIONS_MODULE, int: false,
    [("DEFAULT", 0), ("HILL_CLIMB", 1), ("GRADIENT_DESCENT", 2), ("MAX_PARALLELISM", 3),
     ("STAGE_BASED", 4)]);

enum_class!(pub EXTERNAL_STATE_POLICY, EXTERNAL_STATE, external_state_policy_call,
    "ExternalStatePolicy", OPTIONS_MODULE, int: false,
    [("WARN", 0), ("IGNORE", 1), ("FAIL", 2)]);

/// The type an option field takes (`isinstance(value, ty)` when set).
#[derive(Clone, Copy)]
enum Ty {
    /// `bool`.
    Bool,
    /// `int` (bools pass, as in Python; the proto refuses them later).
    Int,
    /// `str`.
    Str,
    /// `list` (`framework_type`).
    List,
    /// A member of an enum.
    Enum(&'static EnumDef),
    /// A nested option group.
    Group(&'static Group),
}

/// One option: its name, type, and the enum member it defaults to (the
/// others default to None, groups to a fresh group).
struct Field {
    name: &'static str,
    ty: Ty,
    default: Option<&'static str>,
}

const fn field(name: &'static str, ty: Ty) -> Field {
    Field {
        name,
        ty,
        default: None,
    }
}

/// An option class: its Python class, its proto message's name, its fields
/// (in TensorFlow's order), and whether `Dataset.options()` makes it
/// read-only (TensorFlow's `_set_mutable` skips the service options).
pub struct Group {
    spec: &'static ClassSpec,
    proto: &'static str,
    fields: &'static [Field],
    frozen: bool,
}

static AUTOTUNE: Group = Group {
    spec: &AUTOTUNE_OPTIONS,
    proto: "AutotuneOptions",
    fields: &[
        field("enabled", Ty::Bool),
        field("cpu_budget", Ty::Int),
        field("ram_budget", Ty::Int),
        field("autotune_algorithm", Ty::Enum(&AUTOTUNE_ALGO)),
        field("initial_parallelism", Ty::Int),
        field("min_parallelism", Ty::Int),
    ],
    frozen: true,
};

static DISTRIBUTE: Group = Group {
    spec: &DISTRIBUTE_OPTIONS,
    proto: "DistributeOptions",
    fields: &[
        Field {
            name: "auto_shard_policy",
            ty: Ty::Enum(&AUTO_SHARD),
            default: Some("AUTO"),
        },
        field("num_devices", Ty::Int),
    ],
    frozen: true,
};

static OPTIMIZATION: Group = Group {
    spec: &OPTIMIZATION_OPTIONS,
    proto: "OptimizationOptions",
    fields: &[
        field("apply_default_optimizations", Ty::Bool),
        field("filter_fusion", Ty::Bool),
        field("filter_parallelization", Ty::Bool),
        field("inject_prefetch", Ty::Bool),
        field("seq_interleave_prefetch", Ty::Bool),
        field("map_and_batch_fusion", Ty::Bool),
        field("map_and_filter_fusion", Ty::Bool),
        field("map_fusion", Ty::Bool),
        field("map_parallelization", Ty::Bool),
        field("noop_elimination", Ty::Bool),
        field("parallel_batch", Ty::Bool),
        field("shuffle_and_repeat_fusion", Ty::Bool),
    ],
    frozen: true,
};

static SERVICE: Group = Group {
    spec: &SERVICE_OPTIONS,
    proto: "ServiceOptions",
    fields: &[field("pinned", Ty::Bool)],
    frozen: false,
};

static THREADING: Group = Group {
    spec: &THREADING_OPTIONS,
    proto: "ThreadingOptions",
    fields: &[
        field("max_intra_op_parallelism", Ty::Int),
        field("private_threadpool_size", Ty::Int),
    ],
    frozen: true,
};

static OPTIONS_GROUP: Group = Group {
    spec: &OPTIONS,
    proto: "Options",
    fields: &[
        field("autotune", Ty::Group(&AUTOTUNE)),
        field("deterministic", Ty::Bool),
        field("experimental_distribute", Ty::Group(&DISTRIBUTE)),
        field(
            "experimental_external_state_policy",
            Ty::Enum(&EXTERNAL_STATE),
        ),
        field("experimental_optimization", Ty::Group(&OPTIMIZATION)),
        field("experimental_slack", Ty::Bool),
        field("experimental_symbolic_checkpoint", Ty::Bool),
        field("experimental_service", Ty::Group(&SERVICE)),
        field("experimental_warm_start", Ty::Bool),
        field("dataset_name", Ty::Str),
        field("framework_type", Ty::List),
        field("threading", Ty::Group(&THREADING)),
    ],
    frozen: true,
};

/// The deprecated names `tf.data.Options` reads and writes as others.
const ALIASES: [(&str, &str); 2] = [
    ("experimental_threading", "threading"),
    ("experimental_deterministic", "deterministic"),
];

/// The option classes.
macro_rules! option_classes {
    ($($id:ident $name:literal $new:ident $group:ident [$($extra:expr),*]),* $(,)?) => {$(
        #[doc = concat!("`", $name, "`.")]
        pub static $id: ClassSpec = ClassSpec {
            name: $name,
            module: OPTIONS_MODULE,
            bases: &[&OPTIONS_BASE],
            members: &[Member::New($new::DEF) $(, $extra)*],
        };

        #[doc = concat!("A new `", $name, "` with every option unset.")]
        #[native("OptionsBase.__init__()")]
        fn $new() -> Value {
            OptionsObj::new_value(&$group)
        }
    )*};
}

/// `tensorflow.python.data.util.options.OptionsBase`.
pub static OPTIONS_BASE: ClassSpec =
    ClassSpec::plain("OptionsBase", "tensorflow.python.data.util.options");

option_classes!(
    OPTIONS "Options" new_options OPTIONS_GROUP [Member::Method(merge::DEF)],
    AUTOTUNE_OPTIONS "AutotuneOptions" new_autotune AUTOTUNE [],
    DISTRIBUTE_OPTIONS "DistributeOptions" new_distribute DISTRIBUTE [],
    OPTIMIZATION_OPTIONS "OptimizationOptions" new_optimization OPTIMIZATION [],
    SERVICE_OPTIONS "ServiceOptions" new_service SERVICE [],
    THREADING_OPTIONS "ThreadingOptions" new_threading THREADING [],
);

/// An instance of one of the option classes: the options read or set so
/// far (TensorFlow's `_options`, in that order), and whether it may change.
pub struct OptionsObj {
    group: &'static Group,
    values: RefCell<IndexMap<&'static str, Value>>,
    mutable: Cell<bool>,
}

native_class!(OptionsObj: OPTIONS_BASE);

impl OptionsObj {
    /// A new, mutable instance of `group` with nothing set.
    fn new_value(group: &'static Group) -> Value {
        Value::native(OptionsObj {
            group,
            values: RefCell::new(IndexMap::new()),
            mutable: Cell::new(true),
        })
    }

    /// The field `name` (after the aliases of `tf.data.Options`).
    fn field(&self, name: &str) -> Option<&'static Field> {
        let name = match std::ptr::eq(self.group, &OPTIONS_GROUP) {
            true => ALIASES
                .iter()
                .find(|(a, _)| *a == name)
                .map_or(name, |(_, to)| to),
            false => name,
        };
        self.group.fields.iter().find(|f| f.name == name)
    }

    /// The option's value, its default stored first when unset (as
    /// TensorFlow's property getter does).
    fn get(&self, f: &'static Field) -> Value {
        if let Some(v) = self.values.borrow().get(f.name) {
            return v.clone();
        }
        let v = default_of(f);
        self.values.borrow_mut().insert(f.name, v.clone());
        v
    }

    /// Stores `value` (already checked).
    fn put(&self, f: &'static Field, value: Value) {
        self.values.borrow_mut().insert(f.name, value);
    }

    /// The names read or set so far, in order.
    fn names(&self) -> Vec<&'static Field> {
        let names: Vec<&str> = self.values.borrow().keys().copied().collect();
        names
            .into_iter()
            .filter_map(|n| self.group.fields.iter().find(|f| f.name == n))
            .collect()
    }

    /// `_set_mutable(mutable)`: this object and, for `tf.data.Options`, the
    /// groups TensorFlow's method names.
    fn set_mutable(&self, mutable: bool) {
        self.mutable.set(mutable);
        for f in self.group.fields {
            if let Ty::Group(g) = f.ty {
                if g.frozen {
                    if let Some(o) = self.get(f).downcast::<OptionsObj>() {
                        o.set_mutable(mutable);
                    }
                }
            }
        }
    }
}

/// A field's default: an enum member, a fresh group, or None.
fn default_of(f: &'static Field) -> Value {
    match (f.ty, f.default) {
        (Ty::Enum(def), Some(m)) => def.member(m),
        (Ty::Group(g), _) => OptionsObj::new_value(g),
        _ => Value::None,
    }
}

/// The class a field's values must be instances of.
fn class_of(ty: Ty) -> Value {
    Value::Class(match ty {
        Ty::Bool => builtin_class(ValueType::Bool),
        Ty::Int => builtin_class(ValueType::Int),
        Ty::Str => builtin_class(ValueType::Str),
        Ty::List => builtin_class(ValueType::List),
        Ty::Enum(def) => def.spec.class(),
        Ty::Group(g) => g.spec.class(),
    })
}

/// TensorFlow's type check of an assignment.
fn check(vm: &dyn Vm, f: &Field, value: &Value) -> PyResult<()> {
    let cls = class_of(f.ty);
    if vm.isinstance(value, &cls)? {
        return Ok(());
    }
    Err(PyErr::new(
        ExcType::TypeError,
        format!(
            "Property \"{}\" must be of type {}, got: {} (type: {})",
            f.name,
            vm.repr(&cls)?,
            vm.str(value)?,
            vm.repr(&vm.type_of(value))?
        ),
    ))
}

/// absl's warning (stderr) when a deprecated alias is used.
fn warn_alias(vm: &dyn Vm, name: &str) {
    if name == "experimental_threading" {
        warn(
            vm,
            "options.experimental_threading is deprecated. Use options.threading instead.",
        );
    }
}

/// A line of absl's `WARNING` logging, on stderr.
fn warn(vm: &dyn Vm, text: &str) {
    use std::io::Write;
    vm.flush_stdout();
    let _ = writeln!(std::io::stderr(), "WARNING:absl:{text}");
}

impl NativeObject for OptionsObj {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(self.group.spec)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(object_repr(self.group.spec, this))
    }

    fn getattr(&self, _this: &Value, name: &str, vm: &dyn Vm) -> PyResult<Option<Value>> {
        let Some(f) = self.field(name) else {
            return Ok(None);
        };
        warn_alias(vm, name);
        Ok(Some(self.get(f)))
    }

    fn setattr(&self, _this: &Value, name: &str, value: Value, vm: &dyn Vm) -> PyResult<bool> {
        warn_alias(vm, name);
        if !self.mutable.get() {
            return Err(PyErr::new(
                ExcType::ValueError,
                "Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` has no \
                 effect. Use `tf.data.Dataset.with_options(options)` to set or update dataset \
                 options.",
            ));
        }
        let Some(f) = self.field(name) else {
            return Err(PyErr::new(
                ExcType::AttributeError,
                format!(
                    "Cannot set the property {name} on {}.",
                    self.group.spec.name
                ),
            ));
        };
        check(vm, f, &value)?;
        self.put(f, value);
        Ok(true)
    }

    fn dir(&self) -> Vec<String> {
        let mut names: Vec<String> = self.group.fields.iter().map(|f| f.name.into()).collect();
        if std::ptr::eq(self.group, &OPTIONS_GROUP) {
            names.extend(ALIASES.iter().map(|(a, _)| a.to_string()));
            names.push("merge".into());
        }
        names
    }

    fn equals(&self, _this: &Value, other: &Value, vm: &dyn Vm) -> PyResult<Option<bool>> {
        let Some(o) = other.downcast::<OptionsObj>() else {
            return Ok(None);
        };
        if !std::ptr::eq(o.group, self.group) {
            return Ok(None);
        }
        let mut names = self.names();
        for f in o.names() {
            if !names.iter().any(|n| std::ptr::eq(*n, f)) {
                names.push(f);
            }
        }
        for f in names {
            if !vm.eq(&self.get(f), &o.get(f))? {
                return Ok(Some(false));
            }
        }
        Ok(Some(true))
    }

    fn hashable(&self) -> bool {
        // a class with `__eq__` and no `__hash__`
        false
    }
}

/// Merges itself with the given `tf.data.Options`.
///
/// Options set to different values by both take `options`' value (with a
/// warning); the result is a new `tf.data.Options`.
#[native("Options.merge(self, options)")]
fn merge(vm: &dyn Vm, this: &Value, options: &Value) -> PyResult<Value> {
    merge_options(vm, &[this.clone(), options.clone()])
}

/// TensorFlow's `merge_options(*options_list)`: a new options object of the
/// first one's class; each option takes the last value that differs from
/// its default (groups merged recursively, `framework_type` lists joined).
pub fn merge_options(vm: &dyn Vm, list: &[Value]) -> PyResult<Value> {
    let first = list.first().and_then(|v| v.downcast::<OptionsObj>());
    let Some(first) = first else {
        let ty = list.first().map(|v| vm.type_of(v)).unwrap_or(Value::None);
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "All options to be merged should inherit from `OptionsBase` but found option of type {} which does not.",
                vm.repr(&ty)?
            ),
        ));
    };
    let group = first.group;
    for v in list {
        if !v
            .downcast::<OptionsObj>()
            .is_some_and(|o| std::ptr::eq(o.group, group))
        {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "Could not merge incompatible options of type {} and {}.",
                    vm.repr(&vm.type_of(v))?,
                    vm.repr(&Value::Class(group.spec.class()))?
                ),
            ));
        }
    }
    let result_value = OptionsObj::new_value(group);
    let defaults_value = OptionsObj::new_value(group);
    let (result, defaults) = (
        result_value.downcast::<OptionsObj>(),
        defaults_value.downcast::<OptionsObj>(),
    );
    let (Some(result), Some(defaults)) = (result, defaults) else {
        return Ok(result_value);
    };
    for v in list {
        let Some(options) = v.downcast::<OptionsObj>() else {
            continue;
        };
        for f in options.names() {
            let this = result.get(f);
            let that = options.get(f);
            let default = defaults.get(f);
            if vm.eq(&that, &default)? {
                continue;
            }
            if vm.eq(&this, &default)? {
                result.put(f, that);
            } else if let Ty::Group(_) = f.ty {
                result.put(f, merge_options(vm, &[this, that])?);
            } else if f.name == "framework_type" {
                result.put(f, vm.binop(BinOp::Add, &this, &that)?);
            } else if !vm.eq(&this, &that)? {
                warn(
                    vm,
                    &format!(
                        "Changing the value of option {} from {} to {}.",
                        f.name,
                        vm.repr(&this)?,
                        vm.repr(&that)?
                    ),
                );
                result.put(f, that);
            }
        }
    }
    Ok(result_value)
}

/// What `_OptionsDataset` checks of the options given to `with_options`
/// (TensorFlow serializes them to a proto there): a `tf.data.Options`,
/// whose int options are ints (not bools) and whose `framework_type` holds
/// strings.
pub fn check_serializable(vm: &dyn Vm, options: &Value) -> PyResult<()> {
    let Some(o) = options.downcast::<OptionsObj>() else {
        return Err(PyErr::new(
            ExcType::AttributeError,
            format!(
                "'{}' object has no attribute '_to_proto'",
                options.type_name()
            ),
        ));
    };
    if !std::ptr::eq(o.group, &OPTIONS_GROUP) {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "Parameter to CopyFrom() must be instance of same class: expected <class 'tensorflow.core.framework.dataset_options_pb2.Options'> got <class 'tensorflow.core.framework.dataset_options_pb2.{}'>.",
                o.group.proto
            ),
        ));
    }
    check_group(vm, o)
}

fn check_group(vm: &dyn Vm, o: &OptionsObj) -> PyResult<()> {
    for f in o.names() {
        let v = o.get(f);
        match f.ty {
            Ty::Int if matches!(v, Value::Bool(_)) => {
                return Err(PyErr::new(
                    ExcType::TypeError,
                    format!(
                        "Field tensorflow.data.{}.{}: Expected an int, got a boolean.",
                        o.group.proto, f.name
                    ),
                ))
            }
            Ty::List if !v.is_none() => {
                for item in vm.collect(&v)? {
                    if !matches!(item, Value::Str(_)) {
                        return Err(PyErr::new(
                            ExcType::TypeError,
                            "bad argument type for built-in operation",
                        ));
                    }
                }
            }
            Ty::Group(_) => {
                if let Some(g) = v.downcast::<OptionsObj>() {
                    check_group(vm, g)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// What `Dataset.options()` returns for the merged options `merged` (None:
/// nothing set): TensorFlow reads them back from their proto, so the
/// result is a new, read-only copy in which the distribute options'
/// `auto_shard_policy` is always set and an empty `framework_type` is
/// unset.
pub fn read_back(merged: Option<&Value>) -> Value {
    let copy = match merged.and_then(|v| v.downcast::<OptionsObj>()) {
        Some(o) => deep_copy(o),
        None => OptionsObj::new_value(&OPTIONS_GROUP),
    };
    if let Some(o) = copy.downcast::<OptionsObj>() {
        o.set_mutable(false);
    }
    copy
}

fn deep_copy(o: &OptionsObj) -> Value {
    let mut values = IndexMap::new();
    for f in o.names() {
        let v = o.get(f);
        let v = match (&v, f.ty) {
            (Value::List(items), _) if items.borrow().is_empty() => continue,
            (Value::List(items), _) => Value::list(items.borrow().clone()),
            (_, Ty::Group(_)) => match v.downcast::<OptionsObj>() {
                Some(g) => deep_copy(g),
                None => v.clone(),
            },
            _ if v.is_none() => continue,
            _ => v.clone(),
        };
        values.insert(f.name, v);
    }
    Value::native(OptionsObj {
        group: o.group,
        values: RefCell::new(values),
        mutable: Cell::new(true),
    })
}

/// The options dist does not act on that `options` sets, as dotted names
/// (`threading.private_threadpool_size`), for a one-time note each: dist
/// runs an input pipeline on one thread, in order, without static
/// optimizations, and it has neither the tf.data service nor
/// serialization. (`auto_shard_policy` is acted on as TensorFlow does with
/// one worker; `deterministic=True`, `dataset_name` and `framework_type`
/// hold as they are.)
pub fn unused_options(options: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(o) = options.downcast::<OptionsObj>() {
        collect_unused(o, "", &mut out);
    }
    out
}

fn collect_unused(o: &OptionsObj, prefix: &str, out: &mut Vec<String>) {
    for f in o.names() {
        let v = o.get(f);
        let acted_on = match f.name {
            "deterministic" => matches!(v, Value::Bool(true)),
            "auto_shard_policy" | "dataset_name" | "framework_type" => true,
            _ => v.is_none(),
        };
        match v.downcast::<OptionsObj>() {
            Some(g) => collect_unused(g, &format!("{prefix}{}.", f.name), out),
            None if !acted_on => out.push(format!("{prefix}{}", f.name)),
            None => {}
        }
    }
}

/// The merged options of the dataset `ds` (None: nothing set anywhere in
/// its pipeline), as TensorFlow's `DatasetV2.__init__` merges them: a
/// dataset has its inputs' options merged in order, and a `with_options`
/// node those merged with its own. Computed once per node, walking the
/// pipeline with a stack of its own (a long pipeline does not recurse).
pub fn options_of(vm: &dyn Vm, ds: &Value) -> PyResult<Option<Value>> {
    let mut stack = vec![(ds.clone(), false)];
    while let Some((v, expanded)) = stack.pop() {
        let Some(d) = dataset_of(&v) else {
            continue;
        };
        if d.options.get().is_some() {
            continue;
        }
        let inputs = d.inputs();
        if !expanded {
            stack.push((v.clone(), true));
            for input in inputs {
                if dataset_of(input).is_some_and(|i| i.options.get().is_none()) {
                    stack.push((input.clone(), false));
                }
            }
            continue;
        }
        let mut set: Vec<Value> = inputs
            .iter()
            .filter_map(|i| dataset_of(i).and_then(|i| i.options.get().cloned().flatten()))
            .collect();
        if let Kind::Options(_, given) = &d.kind {
            set.push(given.clone());
        }
        let merged = match set.len() {
            0 => None,
            1 if !matches!(d.kind, Kind::Options(..)) => set.pop(),
            _ => {
                set.insert(0, OptionsObj::new_value(&OPTIONS_GROUP));
                let merged = merge_options(vm, &set)?;
                // TensorFlow makes the merged options read-only, and with
                // them the option groups of the given options they share;
                // the dataset keeps a copy (TensorFlow's proto of them)
                if let Some(m) = merged.downcast::<OptionsObj>() {
                    m.set_mutable(false);
                    Some(deep_copy(m))
                } else {
                    Some(merged)
                }
            }
        };
        let _ = d.options.set(merged);
    }
    Ok(dataset_of(ds).and_then(|d| d.options.get().cloned().flatten()))
}
