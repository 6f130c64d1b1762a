//! What TensorFlow and numpy have that dist does not: the public names of
//! their modules (`tf_api.txt`, generated from TensorFlow 2.21 and numpy by
//! `tools/gen_tf_api.py`). A script that reaches one of them gets a
//! `NotImplementedError` that says so, instead of an `AttributeError` that
//! would claim TensorFlow lacks it.

use std::sync::OnceLock;

use crate::value::{ExcType, PyErr};

static API: &str = include_str!("tf_api.txt");

/// Each listed module's line of names, and those names sorted, made when
/// the module is first asked about (an `AttributeError` that
/// `getattr(x, name, default)` swallows asks too, so this is on the import
/// path: splitting the 8000 names of every module up front was measurable).
type Index = std::collections::HashMap<&'static str, (&'static str, OnceLock<Vec<&'static str>>)>;

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        API.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let (module, rest) = l.split_once(' ').unwrap_or((l, ""));
                (module, (rest, OnceLock::new()))
            })
            .collect()
    })
}

/// Whether `module.name` is part of TensorFlow's, Keras's or numpy's public API.
pub fn is_public(module: &str, name: &str) -> bool {
    index().get(module).is_some_and(|(rest, sorted)| {
        sorted
            .get_or_init(|| {
                let mut names: Vec<&str> = rest.split(' ').filter(|n| !n.is_empty()).collect();
                names.sort_unstable();
                names
            })
            .binary_search(&name)
            .is_ok()
    })
}

/// The TensorFlow 1 names of `tf.compat.v1` that only make sense with a
/// graph and a session (TF1's graph mode), per module.
const GRAPH_MODE: &[(&str, &[&str])] = &[
    (
        "tensorflow.compat.v1",
        &[
            "AUTO_REUSE",
            "GraphKeys",
            "InteractiveSession",
            "Session",
            "VariableScope",
            "add_to_collection",
            "add_to_collections",
            "all_variables",
            "container",
            "disable_control_flow_v2",
            "disable_eager_execution",
            "disable_resource_variables",
            "disable_tensor_equality",
            "disable_v2_behavior",
            "disable_v2_tensorshape",
            "get_collection",
            "get_collection_ref",
            "get_default_graph",
            "get_default_session",
            "get_local_variable",
            "get_session_handle",
            "get_session_tensor",
            "get_variable",
            "get_variable_scope",
            "global_variables",
            "global_variables_initializer",
            "initialize_all_tables",
            "initialize_all_variables",
            "initialize_local_variables",
            "initialize_variables",
            "is_variable_initialized",
            "local_variables",
            "local_variables_initializer",
            "make_template",
            "model_variables",
            "moving_average_variables",
            "op_scope",
            "placeholder",
            "placeholder_with_default",
            "report_uninitialized_variables",
            "reset_default_graph",
            "sparse_placeholder",
            "tables_initializer",
            "trainable_variables",
            "variable_op_scope",
            "variable_scope",
            "variables_initializer",
            "wrap_function",
        ],
    ),
    (
        "tensorflow.compat.v1.train",
        &[
            "ChiefSessionCreator",
            "MonitoredSession",
            "MonitoredTrainingSession",
            "QueueRunner",
            "Scaffold",
            "SessionCreator",
            "SessionManager",
            "SingularMonitoredSession",
            "Supervisor",
            "WorkerSessionCreator",
            "add_queue_runner",
            "export_meta_graph",
            "import_meta_graph",
            "start_queue_runners",
            "write_graph",
        ],
    ),
];

/// Whether `module.name` is TensorFlow 1 graph-mode API.
fn is_graph_mode(module: &str, name: &str) -> bool {
    GRAPH_MODE
        .iter()
        .any(|(m, names)| *m == module && names.contains(&name))
}

/// The name users write: `tf.random.uniform`, `np.fft`.
fn user_name(module: &str, name: &str) -> String {
    let module = if let Some(rest) = module.strip_prefix("tensorflow") {
        format!("tf{rest}")
    } else if let Some(rest) = module.strip_prefix("numpy") {
        format!("np{rest}")
    } else {
        module.to_string()
    };
    format!("{module}.{name}")
}

/// The error for `module.name` when TensorFlow or numpy has it and dist
/// does not; `None` when the name is not public API there either.
#[cold]
pub fn not_implemented(module: &str, name: &str) -> Option<PyErr> {
    // `keras` is Keras 3 (its own list: `tf.keras` keeps a few Keras 2 names)
    if module == "keras" || module.starts_with("keras.") {
        return is_public(module, name).then(|| {
            PyErr::new(
                ExcType::NotImplementedError,
                format!("{module}.{name} is part of Keras 3.15 but not implemented in dist"),
            )
            .help(
                "dist's Keras has the models, layers, losses, metrics, optimizers and callbacks \
                 that TensorFlow's distributed-training tutorials use (README.md, \"What dist \
                 covers\"); this script needs real Keras for the rest",
            )
        });
    }
    if !is_public(module, name) {
        return None;
    }
    let full = user_name(module, name);
    if is_graph_mode(module, name) {
        return Some(
            PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "{full} is TensorFlow 1 graph-mode API: dist runs TensorFlow 2 code only \
                     (eager ops and tf.function)"
                ),
            )
            .help(
                "TF1 graphs, sessions, placeholders, collections and variable scopes are out of \
                 scope; write the TF2 form (tf.Variable, tf.function, tf.train.Checkpoint), as \
                 TensorFlow's migration guide (guide/migrate) shows",
            ),
        );
    }
    let help = if module.starts_with("tensorflow.distribute")
        && name.ends_with("Strategy")
        && !matches!(name, "MirroredStrategy" | "OneDeviceStrategy" | "Strategy")
    {
        format!(
            "dist simulates the devices of one machine; to learn what {full} does with replicas, \
             use tf.distribute.MirroredStrategy with `--virtual-gpus N`"
        )
    } else {
        "dist implements tf.distribute, tf.data and TensorFlow's core tensor ops \
         (README.md, \"What dist covers\"); this script needs real TensorFlow for the rest"
            .to_string()
    };
    let what = if module.starts_with("numpy") {
        "numpy"
    } else {
        "TensorFlow 2.21"
    };
    Some(
        PyErr::new(
            ExcType::NotImplementedError,
            format!("{full} is part of {what} but not implemented in dist"),
        )
        .help(help),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_knows_tensorflow_and_numpy_names() {
        assert!(is_public("tensorflow", "random"));
        assert!(is_public("tensorflow.random", "uniform"));
        assert!(is_public("tensorflow.distribute", "TPUStrategy"));
        assert!(is_public("numpy", "fft"));
        assert!(!is_public("tensorflow", "no_such_thing"));
        assert!(!is_public("tensorflow.random", "unifrom"));
        assert!(!is_public("math", "sqrt"));
    }

    #[test]
    fn errors_name_what_users_wrote() {
        let e = not_implemented("tensorflow.distribute", "TPUStrategy").unwrap();
        assert!(e.is(ExcType::NotImplementedError));
        let msg = match e.args().first() {
            Some(crate::value::Value::Str(s)) => s.to_string(),
            _ => String::new(),
        };
        assert_eq!(
            msg,
            "tf.distribute.TPUStrategy is part of TensorFlow 2.21 but not implemented in dist"
        );
        assert!(not_implemented("tensorflow", "nonsense").is_none());
        let e = not_implemented("keras.layers", "LSTM").unwrap();
        assert!(matches!(e.args().first(), Some(crate::value::Value::Str(s))
            if &**s == "keras.layers.LSTM is part of Keras 3.15 but not implemented in dist"));
        assert!(not_implemented("keras.layers", "Nonsense").is_none());
        assert!(not_implemented("tensorflow.experimental", "numpy").is_some());
    }

    #[test]
    fn tf1_graph_mode_names_say_so() {
        let msg = |m: &str, n: &str| match not_implemented(m, n).unwrap().args().first() {
            Some(crate::value::Value::Str(s)) => s.to_string(),
            _ => String::new(),
        };
        assert!(msg("tensorflow.compat.v1", "placeholder").contains("graph-mode"));
        assert!(msg("tensorflow.compat.v1.train", "MonitoredSession").contains("graph-mode"));
        // a TF1 name that is not graph-mode gets the plain message
        assert!(!msg("tensorflow.compat.v1.train", "AdamOptimizer").contains("graph-mode"));
        // and every graph-mode name is one TensorFlow has
        for (m, names) in GRAPH_MODE {
            for n in *names {
                assert!(is_public(m, n), "{m}.{n}");
            }
        }
    }
}
