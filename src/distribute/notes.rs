//! One-time notes on stderr, for what a script asks of TensorFlow that dist
//! accepts and does not act on (a `tf.data` option that tunes threads, a
//! `tf.config` setting for a runtime dist does not have), and hints for a
//! classic mistake TensorFlow answers silently (a None gradient): each is
//! written once per interpreter, and stdout stays exactly TensorFlow's.

use std::cell::RefCell;
use std::collections::HashSet;
use std::io::Write;

use crate::value::Vm;

/// The notes written so far, by key (interpreter state).
#[derive(Default)]
struct Noted(RefCell<HashSet<String>>);

/// Writes `dist: note: {text}` on stderr, unless a note with this `key`
/// was written already.
pub fn note_once(vm: &dyn Vm, key: &str, text: &str) {
    let noted = vm.state().get::<Noted>();
    if !noted.0.borrow_mut().insert(key.to_string()) {
        return;
    }
    vm.flush_stdout();
    let _ = writeln!(std::io::stderr(), "dist: note: {text}");
}

/// Writes `dist: hint: {text}` on stderr, unless a hint or note with this
/// `key` was written already: a teaching hint below TensorFlow's own
/// behaviour, which it does not change.
pub fn hint_once(vm: &dyn Vm, key: &str, text: &str) {
    let noted = vm.state().get::<Noted>();
    if !noted.0.borrow_mut().insert(key.to_string()) {
        return;
    }
    vm.flush_stdout();
    let _ = writeln!(std::io::stderr(), "dist: hint: {text}");
}
