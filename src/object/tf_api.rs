//! What TensorFlow and numpy have that dist does not: the public names of
//! their modules (`tf_api.txt`, generated from TensorFlow 2.21 and numpy by
//! `tools/gen_tf_api.py`). A script that reaches one of them gets a
//! `NotImplementedError` that says so, instead of an `AttributeError` that
//! would claim TensorFlow lacks it.

use crate::value::{ExcType, PyErr};

static API: &str = include_str!("tf_api.txt");

/// The public names of the module with this dotted name, if it is listed.
fn names_of(module: &str) -> Option<&'static str> {
    API.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| match l.split_once(' ') {
            Some((m, rest)) if m == module => Some(rest),
            None if l == module => Some(""),
            _ => None,
        })
}

/// Whether `module.name` is part of TensorFlow's or numpy's public API.
pub fn is_public(module: &str, name: &str) -> bool {
    names_of(module).is_some_and(|names| names.split(' ').any(|n| n == name))
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
    if !is_public(module, name) {
        return None;
    }
    let full = user_name(module, name);
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
    }
}
