//! The class hierarchy of this layer's objects (`MirroredStrategy`,
//! `PerReplica`, `MirroredVariable` …), with TensorFlow's names, modules and
//! bases, so that `type(x)`, `__mro__`, `isinstance` and class reprs read as
//! in TensorFlow. The interfaces and abstract bases without members are
//! here; each concrete class's [`ClassSpec`] (its methods, properties and
//! constructor) lives with its type. The interfaces tensors share with
//! variables and distributed values are `object::tensor::classes`.

use crate::object::ClassSpec;
use crate::value::Value;

/// `tensorflow.python.distribute.distribute_lib`.
pub const DISTRIBUTE_LIB: &str = "tensorflow.python.distribute.distribute_lib";
/// `tensorflow.python.distribute.values`.
pub const VALUES: &str = "tensorflow.python.distribute.values";
/// `tensorflow.python.types.distribute`: the public interfaces.
pub const TYPES: &str = "tensorflow.python.types.distribute";
/// `tensorflow.python.distribute.input_lib`.
pub const INPUT_LIB: &str = "tensorflow.python.distribute.input_lib";
/// `tensorflow.python.ops.variables`.
pub const VARIABLES: &str = "tensorflow.python.ops.variables";

/// `tf.distribute.DistributedValues`: the interface in `types.distribute`.
pub static DISTRIBUTED_VALUES: ClassSpec = ClassSpec::plain("DistributedValues", TYPES);

/// `tf.types.experimental.distributed.PerReplica`.
pub static TYPES_PER_REPLICA: ClassSpec = ClassSpec {
    name: "PerReplica",
    module: TYPES,
    bases: &[&DISTRIBUTED_VALUES],
    members: &[],
};

/// `tf.types.experimental.distributed.Mirrored`.
pub static TYPES_MIRRORED: ClassSpec = ClassSpec {
    name: "Mirrored",
    module: TYPES,
    bases: &[&DISTRIBUTED_VALUES],
    members: &[],
};

/// `values.DistributedValues`, the base of the concrete distributed values.
pub static VALUES_DISTRIBUTED_VALUES: ClassSpec = ClassSpec {
    name: "DistributedValues",
    module: VALUES,
    bases: &[&DISTRIBUTED_VALUES],
    members: &[],
};

/// `values.DistributedDelegate`.
pub static DISTRIBUTED_DELEGATE: ClassSpec = ClassSpec {
    name: "DistributedDelegate",
    module: VALUES,
    bases: &[&VALUES_DISTRIBUTED_VALUES],
    members: &[],
};

/// `tf.distribute.DistributedDataset`: the interface.
pub static DISTRIBUTED_DATASET_INTERFACE: ClassSpec =
    ClassSpec::plain("DistributedDatasetInterface", TYPES);

/// `tf.distribute.DistributedIterator`: the interface.
pub static DISTRIBUTED_ITERATOR_INTERFACE: ClassSpec =
    ClassSpec::plain("DistributedIteratorInterface", TYPES);

/// `<module.Name object at 0x…>`, the default repr of an instance of `spec`.
pub fn object_repr(spec: &ClassSpec, this: &Value) -> String {
    format!("<{}.{} object at {:#x}>", spec.module, spec.name, this.id())
}

/// The `_member_names_` of an enum class, as Python's `Enum` classes have
/// them: the class then shows as `<enum 'Name'>` and iterates over its
/// members.
pub fn member_names(members: &[&str]) -> Value {
    Value::list(members.iter().map(|m| Value::str(*m)).collect())
}

/// `Member::Getter` natives of one native class, each an expression of the
/// receiver. `getters! { this: &Foo; /// doc  fn name("Foo.name(self)") ->
/// T { expr } ... }` expands each entry to `/// doc
/// #[native("Foo.name(self)")] fn name(this: &Foo) -> T { expr }`.
macro_rules! getters {
    ($this:ident: &$ty:ty; $($(#[doc = $doc:tt])* $vis:vis fn $name:ident($sig:tt) -> $ret:ty $body:block)*) => {$(
        $(#[doc = $doc])*
        #[$crate::object::native($sig)]
        $vis fn $name($this: &$ty) -> $ret $body
    )*};
}
pub(crate) use getters;

/// `impl NativeClass for $ty` with the class `$spec`: natives that take a
/// `&$ty` accept its instances and name that class in their messages.
macro_rules! native_class {
    ($ty:ty: $spec:ident) => {
        impl $crate::object::NativeClass for $ty {
            const SPEC: &'static $crate::object::ClassSpec = &$spec;
        }
    };
}
pub(crate) use native_class;
