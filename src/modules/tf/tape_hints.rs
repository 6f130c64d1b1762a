//! The teaching hint for a None gradient: TensorFlow's `tape.gradient`
//! returns None silently when the target does not depend on a source
//! through ops the tape recorded; dist returns the same None and says once,
//! on stderr, where the chain broke: the target computed outside the tape,
//! a value taken off it with `.numpy()` (which op made it), a source the
//! tape does not watch.

use crate::distribute::notes::hint_once;
use crate::distribute::variables::is_variable;
use crate::runtime::autodiff::tape::Exit;
use crate::runtime::autodiff::Tape;
use crate::runtime::Tensor;
use crate::value::{Value, Vm};

/// What a source of `tape.gradient` is, for the hint.
fn describe(vm: &dyn Vm, v: &Value, t: &Tensor) -> String {
    if is_variable(v) {
        if let Ok(Value::Str(name)) = vm.getattr(v, "name") {
            return format!("the variable '{name}'");
        }
        return "a variable".into();
    }
    format!(
        "a tensor of shape {} and dtype {}",
        t.shape().tuple_text(),
        t.dtype().name()
    )
}

/// Where a value left the tape.
fn left(exit: &Exit) -> String {
    let made = match exit.op {
        Some(op) => format!("the output of {op}"),
        None => "a watched tensor".into(),
    };
    format!(
        "`{}` took the value of a tensor the tape followed ({made}, shape {}, {}) off the tape, and the ops run on that NumPy value are not recorded: keep the computation in TensorFlow ops",
        exit.how, exit.shape, exit.dtype
    )
}

/// Prints the hint once for the first source whose gradient is None
/// (`sources`: the flat sources, with the id the tape knows each by and its
/// value), unless the caller asked for zeros.
pub fn hint_none_gradients(
    vm: &dyn Vm,
    tape: &Tape,
    targets: &[Tensor],
    sources: &[Value],
    ids: &[Option<(usize, Tensor)>],
    grads: &[Value],
) {
    let Some(i) = grads.iter().position(Value::is_none) else {
        return;
    };
    let Some(Some((id, t))) = ids.get(i) else {
        return;
    };
    // a Keras Variable stands for the tf.Variable it holds
    let src = match &sources[i] {
        Value::Instance(inst)
            if inst
                .class
                .lookup("_should_act_as_resource_variable")
                .is_some() =>
        {
            vm.getattr(&sources[i], "value").unwrap_or(Value::None)
        }
        v => v.clone(),
    };
    let what = describe(vm, &src, t);
    let head = format!("tape.gradient returned None for source {i} ({what}):");
    let followed = targets.iter().any(|t| tape.follows_id(t.id()));
    // a trainable variable is watched once read under the tape: if it was
    // not, the loss was computed elsewhere
    let auto_watched = is_variable(&src)
        && tape.watch_accessed_variables
        && vm
            .getattr(&src, "trainable")
            .is_ok_and(|t| matches!(t, Value::Bool(true)));
    let why = if is_variable(&src) && !auto_watched && !tape.watches_variable(*id) {
        "the tape does not watch this variable: one with trainable=False, or any under a tape with watch_accessed_variables=False, is watched only after `tape.watch(v)`".to_string()
    } else if !is_variable(&src) && !tape.follows_id(*id) {
        "the tape does not watch this tensor: call `tape.watch(x)` before using it (only trainable variables are watched automatically)".to_string()
    } else if !followed {
        match tape.exit() {
            Some(exit) => format!("the target was not computed from ops the tape recorded; {}", left(&exit)),
            None => "the target was not computed from ops the tape recorded: compute the loss inside `with tf.GradientTape() as tape:`, from the variables or watched tensors, not before or after the block".to_string(),
        }
    } else {
        match tape.exit() {
            Some(exit) => format!("the target does not depend on it through recorded ops; {}", left(&exit)),
            None => "the target does not depend on it through ops the tape recorded (integer ops, tf.stop_gradient and values computed outside the tape break the chain)".to_string(),
        }
    };
    hint_once(vm, "tape-none-gradient", &format!("{head} {why}"));
}
