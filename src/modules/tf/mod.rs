//! The `tensorflow` module: tensor creation, array and math ops, dtypes,
//! `TensorShape`, `tf.math`, `tf.dtypes`, `tf.nest`, `tf.errors`. The
//! Strategy runtime adds `tf.distribute`, `tf.data`, `tf.Variable`, … through
//! `tf_distribute::register_tf`. Registration and conversion only; the work is
//! in `runtime`.

pub use crate::object::tensor::{convert, dtype, index, indexed_slices, shape};

pub mod activations;
pub mod array_ops;
pub mod complex_ops;
pub mod conv_ops;
pub mod conv_transpose_ops;
pub mod create;
pub mod custom_gradient;
pub mod dtypes;
pub mod embedding_ops;
pub mod forward_accumulator;
pub mod gfile;
pub mod glob_match;
pub mod gradient_tape;
pub mod io_ops;
pub mod linalg;
pub mod linalg_solve;
pub mod math_ops;
pub mod nd_ops;
pub mod nest;
pub mod nn;
pub mod nn_ops;
pub mod print;
pub mod py_func;
pub mod random;
pub mod records;
pub mod reorder_ops;
pub mod saved_model;
mod saved_model_load;
pub mod scan_ops;
pub mod special_ops;
pub mod stats_ops;
pub mod string_format;
pub mod string_hash;
pub mod strings_ops;
pub mod tape_hints;
pub mod train;

use crate::modules::ModuleBuilder;
use crate::value::{ExcType, Value};

/// `tf.errors`: TensorFlow's exception classes.
fn register_errors(m: &mut ModuleBuilder) {
    m.namespace("errors", |e| {
        for &ty in ExcType::ALL {
            if (ty as usize) >= ExcType::OpError as usize {
                e.value(ty.name(), Value::Class(ty.class()));
            }
        }
    });
}

/// Builds the `tensorflow` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("tensorflow");
    m.value("__version__", Value::str("2.21.0"));
    create::register(&mut m);
    array_ops::register(&mut m);
    nd_ops::register(&mut m);
    math_ops::register(&mut m, true);
    complex_ops::register(&mut m, true);
    stats_ops::register(&mut m, true);
    scan_ops::register(&mut m, true);
    reorder_ops::register(&mut m);
    linalg::register(&mut m);
    dtypes::register(&mut m);
    m.value(
        "Tensor",
        Value::Class(crate::object::tensor::hooks::tensor_base_class()),
    );
    m.value("TensorShape", Value::Class(shape::TENSOR_SHAPE.class()));
    m.value("newaxis", Value::None);
    m.add(executing_eagerly::DEF);
    m.add(inside_function::DEF);
    nn_ops::register_top(&mut m);
    m.namespace("math", |n| {
        math_ops::register(n, false);
        complex_ops::register(n, false);
        stats_ops::register(n, false);
        scan_ops::register(n, false);
        linalg::register_math(n);
        nn_ops::register_math(n);
        nd_ops::register_math(n);
        special_ops::register_math(n);
    });
    m.namespace("dtypes", |n| {
        dtypes::register(n);
        create::register_dtypes(n);
    });
    nest::register(&mut m);
    print::register(&mut m);
    py_func::register(&mut m);
    nn::register(&mut m);
    gradient_tape::register(&mut m);
    m.value(
        "IndexedSlices",
        Value::Class(indexed_slices::INDEXED_SLICES.class()),
    );
    custom_gradient::register(&mut m);
    // `tf.sparse` and `tf.ragged` are written in the language
    // (`stdlib/tensorflow_sparse.dist`, `tensorflow_ragged.dist`); their
    // names are added to these namespaces when `tensorflow` is imported.
    m.namespace("sparse", |_| {});
    // `tf.debugging`: `stdlib/tensorflow_debugging.dist`
    m.namespace("debugging", |_| {});
    // `tf.test`: `stdlib/tensorflow_test.dist`
    m.namespace("test", |t| {
        t.namespace("experimental", |_| {});
    });
    // `tf.image`: `stdlib/tensorflow_image.dist`
    m.namespace("image", |_| {});
    m.namespace("ragged", |_| {});
    // `tf.lookup`: `stdlib/tensorflow_lookup.dist`
    m.namespace("lookup", |l| {
        l.namespace("experimental", |_| {});
    });
    // `tf.saved_model`: `stdlib/tensorflow_saved_model.dist`
    m.namespace("saved_model", |s| {
        s.namespace("experimental", |_| {});
    });
    // `tf.experimental`: the Optional of `get_next_as_optional`
    m.namespace("experimental", |e| {
        e.value(
            "Optional",
            Value::Class(crate::distribute::dataset::iterator::OPTIONAL.class()),
        );
    });
    // `tf.summary`: `stdlib/tensorflow_summary.dist`
    m.namespace("summary", |s| {
        s.namespace("experimental", |_| {});
    });
    m.namespace("random", random::register);
    io_ops::register(&mut m);
    strings_ops::register(&mut m);
    register_errors(&mut m);
    crate::modules::tf_distribute::register_tf(&mut m);
    // `tf.compat`: its functions and most of `tf.compat.v1` are written in
    // the language (`stdlib/tensorflow_v1compat.dist`); the TensorFlow 1
    // strategy classes are native.
    m.namespace("compat", |c| {
        c.namespace("v1", |v| {
            crate::modules::tf_distribute::register_compat_v1(v);
            v.namespace("train", |_| {});
            v.namespace("data", |_| {});
        });
    });
    m.build()
}

/// Whether ops run eagerly now: False while a `tf.function` traces (unless
/// `tf.config.run_functions_eagerly(True)`).
#[crate::object::native("executing_eagerly()")]
fn executing_eagerly() -> bool {
    !crate::runtime::graph::tracing()
}

/// Whether the code runs while a `tf.function` traces.
#[crate::object::native("inside_function()")]
fn inside_function() -> bool {
    crate::runtime::graph::tracing()
}
