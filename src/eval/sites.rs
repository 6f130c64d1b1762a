//! The live call stack, for what asks where the running code is without
//! an exception unwinding: `sys._getframe`, `warnings.warn` (its
//! `stacklevel`), `traceback.extract_stack`.
//!
//! Tracebacks are built as an error unwinds, so the evaluator keeps no
//! stack of frames; this keeps the least that answers the question: the
//! innermost frame's current statement (`Interp::pos`, one store per
//! statement) and, per Python call, a [`Link`] on the native stack of
//! `run_frame` naming the called frame's file and function and the
//! caller's statement at the time of the call (two words read, two written
//! per call). Links are only read by [`Interp::live_stack`], never
//! written through, and every path that unwinds a link restores
//! `Interp::top` (a return, an error, a generator switching back to its
//! resumer, a replica coroutine parking: `ExecState` carries them).

use std::rc::Rc;

use super::Interp;
use crate::syntax::{SourceFile, Span};
use crate::value::error::TraceEntry;

/// One Python frame of the live stack.
pub(crate) struct Link {
    /// The frame's file (owned by its function or label, which outlive the
    /// frame's execution).
    pub source: *const Rc<SourceFile>,
    /// The frame's name (`f`, `<module>`).
    pub name: *const Rc<str>,
    /// The statement the next frame out was running when it made this call.
    pub caller_pos: Span,
    /// The next frame out (null at the outermost).
    pub parent: *const Link,
}

impl Interp {
    /// The live Python frames from the `skip`-th (0: the innermost) out:
    /// file, the statement running, function name.
    pub(crate) fn live_stack(&self, skip: usize) -> Vec<TraceEntry> {
        let mut out = Vec::new();
        let mut skip = skip;
        let mut pos = self.pos.get();
        let mut link = self.top.get();
        while !link.is_null() {
            // SAFETY: a link lives in the native frame of the `run_frame`
            // (or `exec_module`) that set it as `top`, which restores the
            // previous `top` before it returns; generators and replica
            // coroutines save and restore `top` around every switch. So
            // every link reachable from `top` belongs to a frame still
            // executing, and what it points at (the frame's function or
            // label) is alive with it.
            let l = unsafe { &*link };
            if skip > 0 {
                skip -= 1;
                pos = l.caller_pos;
                link = l.parent;
                continue;
            }
            let (source, name) = unsafe { ((*l.source).clone(), (*l.name).clone()) };
            out.push(TraceEntry {
                source,
                span: pos,
                func: name,
            });
            pos = l.caller_pos;
            link = l.parent;
        }
        out
    }
}
