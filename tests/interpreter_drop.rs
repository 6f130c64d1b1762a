//! Dropping an `Interpreter` frees what its scripts made: no reference
//! cycle through functions, frames, cells or closures outlives it (the fuzz
//! harness makes thousands of interpreters; a leak per interpreter added up
//! to gigabytes). Each case keeps a weak reference to an object the script
//! made, drops the interpreter, and checks the object is gone.

use std::cell::RefCell;
use std::rc::Rc;

use dist::value::Value;
use dist::{Interpreter, Options, SourceFile};

/// Runs `code` in a fresh interpreter on a thread of its own, drops the
/// interpreter, and says how many strong references the value bound to
/// `name` still has (0: it was freed).
fn survivors(code: &'static str, name: &'static str) -> usize {
    dist::with_big_stack(move || {
        let interpreter = Interpreter::new(Options::default());
        let sink: dist::Output = Rc::new(RefCell::new(std::io::sink()));
        interpreter.set_output(sink);
        interpreter
            .run_source(SourceFile::new("<drop>", code))
            .expect("the script runs");
        let count: Box<dyn Fn() -> usize> = match interpreter.global(name) {
            Some(Value::Function(f)) => {
                let w = Rc::downgrade(&f);
                Box::new(move || w.strong_count())
            }
            Some(Value::Instance(i)) => {
                let w = Rc::downgrade(&i);
                Box::new(move || w.strong_count())
            }
            other => panic!("{name} is not a function or instance: {other:?}"),
        };
        drop(interpreter);
        count()
    })
}

#[test]
fn closures_that_reach_themselves_die_with_their_interpreter() {
    let cases = [
        ("plain function", "def f():\n    return 1\n", "f"),
        ("global naming itself", "def f():\n    return f\n", "f"),
        (
            "recursive global, called",
            "def f(n):\n    return 1 if n < 2 else n * f(n - 1)\nf(10)\n",
            "f",
        ),
        // The cycle: inner's closure holds the cell that holds inner.
        (
            "inner function naming itself",
            "def outer():\n    def inner():\n        return inner\n    return inner\ng = outer()\n",
            "g",
        ),
        (
            "recursive inner function, called",
            "def outer():\n    def inner(n):\n        return n if n < 1 else inner(n - 1)\n    inner(5)\n    return inner\ng = outer()\ng(3)\n",
            "g",
        ),
        (
            "mutually recursive inner functions",
            "def outer():\n    def even(n):\n        return n == 0 or odd(n - 1)\n    def odd(n):\n        return n != 0 and even(n - 1)\n    return even\ng = outer()\ng(6)\n",
            "g",
        ),
        (
            "an instance a closure cell holds",
            "class A:\n    pass\ndef outer():\n    a = A()\n    def get():\n        return a\n    a.get = get\n    return a\nx = outer()\n",
            "x",
        ),
        (
            "functools.lru_cache",
            "import functools\n@functools.lru_cache\ndef f(n):\n    return n if n < 2 else f(n - 1) + f(n - 2)\nf(20)\n",
            "f",
        ),
    ];
    for (what, code, name) in cases {
        assert_eq!(
            survivors(code, name),
            0,
            "{what}: `{name}` outlived its interpreter"
        );
    }
}
