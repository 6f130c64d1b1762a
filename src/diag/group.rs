//! The sub-exceptions of an uncaught exception group, drawn under its
//! message in the boxes CPython's `traceback` module draws
//! (`TracebackException.format`): each one's message, notes and chained
//! exceptions. Their tracebacks are not drawn (the group's own is rendered
//! by `render.rs`), so the block ends as CPython's does.

use crate::value::{ExcType, Value, Vm};

/// CPython's `max_group_width` and `max_group_depth`.
const MAX_WIDTH: usize = 15;
const MAX_DEPTH: usize = 10;

/// The lines drawn under a group's message (none for other exceptions).
pub fn sub_exception_lines(vm: &dyn Vm, v: &Value) -> Vec<String> {
    let mut ctx = Ctx {
        vm,
        depth: 1,
        need_close: false,
        out: Vec::new(),
    };
    if is_group(v) {
        ctx.group_body(v);
    }
    ctx.out
}

fn is_group(v: &Value) -> bool {
    matches!(v, Value::Instance(i) if i.class.is_subclass_of(&ExcType::BaseExceptionGroup.class()))
}

struct Ctx<'a> {
    vm: &'a dyn Vm,
    depth: usize,
    need_close: bool,
    out: Vec<String>,
}

impl Ctx<'_> {
    fn indent(&self) -> String {
        " ".repeat(2 * self.depth)
    }

    /// Each line of `text` under the current margin.
    fn emit(&mut self, text: &str) {
        let prefix = format!("{}| ", self.indent());
        for line in text.split('\n') {
            self.out.push(format!("{prefix}{line}"));
        }
    }

    /// `Type: message` and the notes, as `format_exception_only` writes them.
    fn headline(&self, v: &Value) -> String {
        let class = match self.vm.type_of(v) {
            Value::Class(c) => match &*c.module {
                "builtins" | "__main__" => c.qualname.to_string(),
                m => format!("{m}.{}", c.qualname),
            },
            _ => String::new(),
        };
        let msg = self.vm.str(v).unwrap_or_default();
        let mut s = if msg.is_empty() {
            class
        } else {
            format!("{class}: {msg}")
        };
        if let Value::Instance(i) = v {
            if let Some(notes) = i.get_attr("__notes__") {
                for n in self.vm.collect(&notes).unwrap_or_default() {
                    s.push('\n');
                    s.push_str(&self.vm.str(&n).unwrap_or_default());
                }
            }
        }
        s
    }

    /// The chain of `v` (causes and contexts first), then `v`.
    fn exception(&mut self, v: &Value) {
        let mut chain = vec![(None, v.clone())];
        let mut cur = v.clone();
        while chain.len() < 100 {
            let Value::Instance(i) = &cur else { break };
            let cause = i.get_attr("__cause__").filter(|c| !c.is_none());
            let suppressed = matches!(i.get_attr("__suppress_context__"), Some(Value::Bool(true)));
            let context = i
                .get_attr("__context__")
                .filter(|c| !c.is_none() && !suppressed);
            let (msg, next) = match (cause, context) {
                (Some(c), _) => (
                    "\nThe above exception was the direct cause of the following exception:\n",
                    c,
                ),
                (None, Some(c)) => (
                    "\nDuring handling of the above exception, another exception occurred:\n",
                    c,
                ),
                _ => break,
            };
            if chain.iter().any(|(_, e)| e.is(&next)) {
                break;
            }
            if let Some(l) = chain.last_mut() {
                l.0 = Some(msg);
            }
            chain.push((None, next.clone()));
            cur = next;
        }
        for (msg, e) in chain.into_iter().rev() {
            if let Some(m) = msg {
                self.emit(m);
            }
            if is_group(&e) {
                if self.depth > MAX_DEPTH {
                    self.emit(&format!("... (max_group_depth is {MAX_DEPTH})"));
                } else {
                    let h = self.headline(&e);
                    self.emit(&h);
                    self.group_body(&e);
                }
            } else {
                let h = self.headline(&e);
                self.emit(&h);
            }
        }
    }

    /// The numbered boxes of a group's sub-exceptions.
    fn group_body(&mut self, g: &Value) {
        let excs = self
            .vm
            .getattr(g, "exceptions")
            .and_then(|e| self.vm.collect(&e))
            .unwrap_or_default();
        let n = excs.len().min(MAX_WIDTH + 1);
        self.need_close = false;
        for i in 0..n {
            let last = i + 1 == n;
            if last {
                self.need_close = true;
            }
            let truncated = i >= MAX_WIDTH;
            let title = if truncated {
                "...".to_string()
            } else {
                (i + 1).to_string()
            };
            let lead = if i == 0 { "+-" } else { "  " };
            self.out.push(format!(
                "{}{lead}+---------------- {title} ----------------",
                self.indent()
            ));
            self.depth += 1;
            if truncated {
                let remaining = excs.len() - MAX_WIDTH;
                let s = if remaining > 1 { "s" } else { "" };
                self.emit(&format!("and {remaining} more exception{s}"));
            } else {
                self.exception(&excs[i]);
            }
            if last && self.need_close {
                self.out.push(format!(
                    "{}+------------------------------------",
                    self.indent()
                ));
                self.need_close = false;
            }
            self.depth -= 1;
        }
    }
}
