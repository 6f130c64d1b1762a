//! The doctest of the API documentation `help()` prints
//! (`src/modules/builtins/help/docs.txt`): every example runs through the
//! interpreter, after `import tensorflow as tf` and with two virtual GPUs,
//! and must print exactly the output the entry shows (which came from the
//! oracle, through `tools/help_docs.py`).

use std::cell::RefCell;
use std::rc::Rc;

use dist::modules::builtins::help::entries;
use dist::{Interpreter, Options, Output, SourceFile};

/// Runs `code` as a script with two virtual GPUs; its stdout, or the error.
fn run(code: String) -> Result<String, String> {
    dist::with_big_stack(move || {
        let buf: Rc<RefCell<Vec<u8>>> = Rc::new(RefCell::new(Vec::new()));
        let interpreter = Interpreter::new(Options {
            virtual_gpus: 2,
            gpu_backend: dist::runtime::GpuBackend::Host,
            ..Options::default()
        });
        interpreter.set_output(buf.clone() as Output);
        let result = interpreter.run_source(SourceFile::new("example.dist", code));
        let out = String::from_utf8_lossy(&buf.borrow()).into_owned();
        match result {
            Ok(()) => Ok(out),
            Err(d) => Err(format!("{out}{}: {}", d.class, d.message)),
        }
    })
}

#[test]
fn every_example_prints_what_its_entry_says() {
    let mut failures = Vec::new();
    for d in entries() {
        let code = format!("import tensorflow as tf\n{}\n", d.example);
        let want = format!("{}\n", d.output);
        match run(code) {
            Ok(got) if got == want => {}
            Ok(got) => failures.push(format!("{}:\n--- want\n{want}--- got\n{got}", d.title)),
            Err(e) => failures.push(format!("{}: raised\n{e}", d.title)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn help_finds_every_entry_by_its_title() {
    let code: String = entries()
        .iter()
        .map(|d| format!("help({:?})\n", d.title))
        .collect();
    let out = run(code).unwrap();
    for d in entries() {
        assert!(
            out.contains(&format!("Help on {}:\n", d.title)),
            "{}",
            d.title
        );
    }
}

#[test]
fn natives_find_their_entries() {
    // Through the value, not the name: a bound method, an unbound one, a
    // module function under two paths, a class and an instance.
    let code = "\
import tensorflow as tf
s = tf.distribute.MirroredStrategy()
help(s.reduce)
help(tf.distribute.OneDeviceStrategy.run)
help(tf.math.reduce_sum)
help(tf.reduce_sum)
help(tf.Variable)
help(tf.Variable(1.0).assign_add)
help(tf.data.Dataset.range(3).batch)
";
    let out = run(code.to_string()).unwrap();
    for title in [
        "Help on tf.distribute.Strategy.reduce:\n\nreduce(reduce_op, value, axis)\n",
        "Help on tf.distribute.Strategy.run:\n\nrun(self, fn, args=(), kwargs=None, options=None)\n",
        "Help on tf.reduce_sum:\n\nreduce_sum(input_tensor, axis=None, keepdims=False, name=None)\n",
        "Help on tf.Variable:\n",
        "Help on tf.Variable.assign_add:\n",
        "Help on tf.data.Dataset.batch:\n",
    ] {
        assert!(out.contains(title), "{title}\n---\n{out}");
    }
    assert_eq!(out.matches("Help on tf.reduce_sum:").count(), 2);
}

#[test]
fn undocumented_and_unsupported() {
    let out = run("help(abs)\nhelp('no.such.thing')\n".into()).unwrap();
    assert!(
        out.starts_with("Help on built-in function abs:\n\nabs("),
        "{out}"
    );
    assert!(out.contains("No Python documentation found for 'no.such.thing'."));
    // pydoc's text for properties is not reproduced: refused, not approximated.
    let err = run("class C:\n    @property\n    def p(self):\n        return 1\nhelp(C)\n".into())
        .unwrap_err();
    assert!(err.contains("NotImplementedError"), "{err}");
    let err = run("help(1, 2)\n".into()).unwrap_err();
    assert!(err.contains("TypeError"), "{err}");
}
