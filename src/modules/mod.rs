//! Natives under their Python names: `builtins`, `tf`, `np`, `os`, `json`,
//! `math`, `time`, `collections`, `re`. Registration and argument conversion only; the work lives
//! in `runtime` and `distribute`.

pub mod builtins;
pub mod collections;
pub mod hashlib;
pub mod io;
pub mod json;
pub mod keras_saving;
pub mod math;
pub mod math_int;

pub mod np;
pub mod os;
pub mod os_fs;
pub mod os_path;
pub mod random_core;
pub mod re;
pub mod socket;
pub mod statistics;
pub mod sys;
pub mod tf;
pub mod tf_data;
pub mod tf_distribute;
pub mod time;

pub mod weakref;

#[cfg(test)]
mod tests;

pub use crate::object::module::{ModuleBuilder, ModuleObj};
pub use crate::object::tensor::hooks::*;

use crate::value::{Value, Vm};

/// Where a module comes from.
pub enum Source {
    /// Built by natives (None: not there after all, as `os.path` without `os`).
    Native(fn(&dyn Vm) -> Option<Value>),
    /// Written in the language (`stdlib/`): its file defines
    /// `__dist_module__()`, whose returned dict the importer makes the
    /// module's namespace. With the source, its syntax tree as the build
    /// script wrote it (`syntax::codec`), which the importer reads instead
    /// of parsing the source.
    Stdlib(&'static str, &'static [u8]),
    /// Another module under a second name: `tensorflow.keras` is `keras`,
    /// as TensorFlow 2.21's `tf.keras` is Keras 3.
    Alias(&'static str),
}

/// A module written in the language: `stdlib/FILE.dist` (FILE defaults
/// to the module's name).
macro_rules! stdlib {
    ($name:literal) => {
        stdlib!($name, $name)
    };
    ($name:literal, $file:literal) => {
        (
            $name,
            Source::Stdlib(
                include_str!(concat!("../../stdlib/", $file, ".dist")),
                include_bytes!(concat!(env!("OUT_DIR"), "/stdlib/", $file, ".ast")),
            ),
        )
    };
}

/// Every module dist has, native or written in the language, by dotted
/// name. A name not here is `ModuleNotFoundError: No module named 'x'`
/// (unless it is an attribute chain of modules, `tensorflow.distribute`).
pub static MODULES: &[(&str, Source)] = &[
    ("math", Source::Native(|_| Some(math::module()))),
    ("os", Source::Native(|_| Some(os::module()))),
    (
        "os.path",
        Source::Native(|_| {
            let os = os::module();
            let m = os.downcast::<ModuleObj>()?;
            let path = m.dict.borrow().get("path").cloned();
            path
        }),
    ),
    // `os.makedirs`, `os.walk`, `os.scandir`: Python, as in CPython
    stdlib!("os.__py__", "os_py"),
    stdlib!("shutil"),
    stdlib!("tempfile"),
    stdlib!("pathlib"),
    stdlib!("glob"),
    ("_json", Source::Native(|_| Some(json::module()))),
    (
        "_dist_graph",
        Source::Native(|_| Some(crate::distribute::function::control::module())),
    ),
    (
        "_collections",
        Source::Native(|_| Some(collections::module())),
    ),
    ("time", Source::Native(|_| Some(time::module()))),
    ("socket", Source::Native(|_| Some(socket::module()))),
    (
        "_statistics",
        Source::Native(|_| Some(statistics::module())),
    ),
    ("sys", Source::Native(|vm| Some(sys::module(vm)))),
    ("re", Source::Native(|_| Some(re::module()))),
    ("tensorflow", Source::Native(|_| Some(tf::module()))),
    ("numpy", Source::Native(|_| Some(np::module()))),
    ("_io", Source::Native(|_| Some(io::module()))),
    ("_hashlib", Source::Native(|_| Some(hashlib::module()))),
    (
        "_dist_mt19937",
        Source::Native(|_| Some(random_core::module())),
    ),
    ("_weakref", Source::Native(|_| Some(weakref::module()))),
    (
        "_dist_random",
        Source::Native(|_| Some(tf::random::stateful::module())),
    ),
    (
        "_dist_checkpoint",
        Source::Native(|_| Some(tf::train::module())),
    ),
    (
        "_dist_saved_model",
        Source::Native(|_| Some(tf::saved_model::module())),
    ),
    (
        "_dist_saving",
        Source::Native(|_| Some(keras_saving::module())),
    ),
    ("gc", Source::Native(|_| Some(gc_module()))),
    stdlib!("itertools"),
    stdlib!("functools"),
    stdlib!("__future__"),
    stdlib!("string"),
    stdlib!("typing"),
    stdlib!("random"),
    stdlib!("copy"),
    stdlib!("dataclasses"),
    stdlib!("abc"),
    stdlib!("collections"),
    stdlib!("heapq"),
    stdlib!("bisect"),
    stdlib!("operator"),
    stdlib!("enum"),
    stdlib!("contextlib"),
    stdlib!("types"),
    stdlib!("io"),
    stdlib!("textwrap"),
    stdlib!("hashlib"),
    stdlib!("pprint"),
    stdlib!("datetime"),
    stdlib!("logging"),
    stdlib!("warnings"),
    stdlib!("fractions"),
    stdlib!("statistics"),
    stdlib!("timeit"),
    stdlib!("multiprocessing"),
    stdlib!("multiprocessing.util", "multiprocessing_util"),
    stdlib!("traceback"),
    stdlib!("unittest"),
    stdlib!("numpy.testing", "numpy_testing"),
    stdlib!("numpy.linalg", "numpy_linalg"),
    // the part of `numpy` written in the language, added to it on import
    stdlib!("numpy.__py__", "numpy_py"),
    stdlib!("json"),
    stdlib!("weakref"),
    stdlib!("argparse"),
    stdlib!("reprlib"),
    stdlib!("keyword"),
    stdlib!("fnmatch"),
    stdlib!("shlex"),
    stdlib!("graphlib"),
    stdlib!("queue"),
    stdlib!("numbers"),
    stdlib!("struct"),
    stdlib!("array"),
    stdlib!("decimal"),
    stdlib!("asyncio"),
    // the part of `tensorflow` written in the language, added to it on import
    stdlib!("tensorflow.__py__", "tensorflow_py"),
    // eager control flow (`tf.cond`, `tf.while_loop`, `tf.TensorArray`,
    // `tf.map_fn` …) and the nesting rules they check, imported by
    // `tensorflow.__py__`
    stdlib!("tensorflow_nest"),
    stdlib!("tensorflow_control_flow"),
    stdlib!("tensorflow_functional"),
    stdlib!("tensorflow_cluster"),
    stdlib!("tensorflow_io"),
    stdlib!("tensorflow_example"),
    stdlib!("tensorflow_protobuf"),
    stdlib!("tensorflow_parsing"),
    stdlib!("tensorflow_summary"),
    stdlib!("tensorflow_event"),
    // `google.protobuf`'s text_format and message, for tf.train.Example
    stdlib!("google"),
    stdlib!("google.protobuf", "google_protobuf"),
    stdlib!("google.protobuf.text_format", "google_protobuf_text_format"),
    stdlib!("google.protobuf.message", "google_protobuf_message"),
    stdlib!("tensorflow_debugging"),
    stdlib!("tensorflow_test"),
    stdlib!("tensorflow_image"),
    stdlib!("tensorflow_initializers"),
    stdlib!("tensorflow_lookup"),
    stdlib!("tensorflow_saved_model"),
    stdlib!("tensorflow_forwardprop"),
    stdlib!("tensorflow_data"),
    stdlib!("tensorflow_array"),
    stdlib!("tensorflow_sparse"),
    stdlib!("tensorflow_v1compat"),
    stdlib!("tensorflow_unicode"),
    stdlib!("tensorflow_ragged"),
    // tf.train.Checkpoint, CheckpointManager and their helpers
    stdlib!("tensorflow_checkpoint"),
    stdlib!("tensorflow_checkpoint_management"),
    stdlib!("collections.abc", "collections_abc"),
    // keras.optimizers (its base class and schedules) and keras.callbacks
    stdlib!("keras.optimizers", "keras_optimizers"),
    stdlib!("keras.optimizers.base", "keras_optimizers_base"),
    stdlib!("keras.optimizers.schedules", "keras_optimizers_schedules"),
    stdlib!("keras.optimizers.more", "keras_optimizers_more"),
    stdlib!("keras.optimizers.legacy", "keras_optimizers_legacy"),
    stdlib!("keras.callbacks", "keras_callbacks"),
    // Keras 3's saving (`.weights.h5`, `.keras`, `load_model`)
    stdlib!("keras.saving", "keras_saving"),
    stdlib!("keras.saving.serialization", "keras_saving_serialization"),
    stdlib!("keras.utils.progbar", "keras_utils_progbar"),
    stdlib!("keras.callbacks.monitors", "keras_callbacks_monitors"),
    stdlib!("keras.callbacks.tensorboard", "keras_callbacks_tensorboard"),
    // Keras 3, written in the language; `tf.keras` is `keras`
    // `tf.keras` is Keras 3's `keras._tf_keras.keras`: `keras`'s objects,
    // with Keras 2's names in `losses` and `metrics`
    stdlib!("tensorflow.keras", "tensorflow_keras"),
    stdlib!("tensorflow.keras.losses", "tensorflow_keras_losses"),
    stdlib!("tensorflow.keras.metrics", "tensorflow_keras_metrics"),
    // TensorFlow's shortcuts to four of them: `tf.metrics` is
    // `keras._tf_keras.keras.metrics`, as `tf.keras.metrics` is
    (
        "tensorflow.metrics",
        Source::Alias("tensorflow.keras.metrics"),
    ),
    (
        "tensorflow.losses",
        Source::Alias("tensorflow.keras.losses"),
    ),
    ("tensorflow.optimizers", Source::Alias("keras.optimizers")),
    (
        "tensorflow.initializers",
        Source::Alias("keras.initializers"),
    ),
    stdlib!("keras"),
    stdlib!("keras.backend", "keras_backend"),
    stdlib!("keras.random", "keras_random"),
    stdlib!("keras.initializers", "keras_initializers"),
    stdlib!("keras.utils", "keras_utils"),
    stdlib!("keras.config", "keras_config"),
    stdlib!("keras.activations", "keras_activations"),
    stdlib!("keras.engine", "keras_engine"),
    stdlib!("keras.layers", "keras_layers"),
    stdlib!("keras.models", "keras_models"),
    stdlib!("keras.trainer", "keras_trainer"),
    stdlib!("keras.layers_extra", "keras_layers_extra"),
    // the preprocessing layers (Normalization …) and the lookup layers
    stdlib!("keras.layers_preprocessing", "keras_layers_preprocessing"),
    stdlib!("keras.layers_lookup", "keras_layers_lookup"),
    stdlib!("keras.summary", "keras_summary"),
    stdlib!("keras.regularizers", "keras_regularizers"),
    // keras.ops: Keras's backend-agnostic ops, by Keras's own submodules
    stdlib!("keras.ops", "keras_ops"),
    stdlib!("keras.ops.numpy", "keras_ops_numpy"),
    stdlib!("keras.ops.nn", "keras_ops_nn"),
    stdlib!("keras.ops.linalg", "keras_ops_linalg"),
    stdlib!("keras.ops.image", "keras_ops_image"),
    stdlib!("keras.constraints", "keras_constraints"),
    // keras.losses, keras.metrics and what `compile` makes of them, with
    // the `keras.src.*` modules they are written in (Keras's own layout)
    stdlib!("keras.losses", "keras_losses"),
    stdlib!("keras.metrics", "keras_metrics"),
    stdlib!("keras.compile_utils", "keras_compile_utils"),
    // Keras's own path to it, as scripts and tests import it
    (
        "keras.src.trainers.compile_utils",
        Source::Alias("keras.compile_utils"),
    ),
    stdlib!("keras.src.tensor_attributes", "keras_src_tensor_attributes"),
    stdlib!("keras.src.sparse_ops", "keras_src_sparse_ops"),
    stdlib!("keras.src.ops_tf", "keras_src_ops_tf"),
    stdlib!("keras.src.serialization", "keras_src_serialization"),
    stdlib!("keras.src.losses", "keras_src_losses"),
    stdlib!("keras.src.loss_functions", "keras_src_loss_functions"),
    stdlib!("keras.src.loss_classes", "keras_src_loss_classes"),
    stdlib!("keras.src.metrics", "keras_src_metrics"),
    stdlib!("keras.src.metric_classes", "keras_src_metric_classes"),
    stdlib!("keras.src.confusion_metrics", "keras_src_confusion_metrics"),
    stdlib!("keras.src.auc", "keras_src_auc"),
    stdlib!("keras.src.score_metrics", "keras_src_score_metrics"),
    stdlib!("keras.src.compile_metrics", "keras_src_compile_metrics"),
    stdlib!("keras.src.compile_loss", "keras_src_compile_loss"),
];

/// The module table's entry for a dotted name.
pub fn find(name: &str) -> Option<&'static Source> {
    MODULES.iter().find(|(n, _)| *n == name).map(|(_, s)| s)
}

/// `gc`: dist frees objects by reference counting alone, as CPython does
/// for everything outside reference cycles; it has no cycle collector, so
/// `collect()` finds nothing to free.
mod gc {
    use crate::object::native;

    /// Runs a collection: 0, as dist has no reference cycles' collector (objects are freed when their last reference goes).
    #[native("collect(generation=2)")]
    pub fn collect(_generation: &crate::value::Value) -> i64 {
        0
    }

    /// Whether automatic collection is on.
    #[native("isenabled()")]
    pub fn isenabled() -> bool {
        true
    }

    /// Turns automatic collection on.
    #[native("enable()")]
    pub fn enable() {}

    /// Turns automatic collection off (no effect in dist).
    #[native("disable()")]
    pub fn disable() {}
}

fn gc_module() -> Value {
    let mut m = ModuleBuilder::new("gc");
    m.add(gc::collect::DEF)
        .add(gc::isenabled::DEF)
        .add(gc::enable::DEF)
        .add(gc::disable::DEF);
    m.build()
}
