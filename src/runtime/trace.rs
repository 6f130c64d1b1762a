//! The `--trace` recorder: op and collective events with their replica,
//! device, time and bytes, kept per thread (the interpreter and its replica
//! coroutines share one thread). Ops and collectives open a span; layers
//! above say which replica runs (`set_lane`) and which source line is
//! executing (`set_line`). Turning the text into a timeline or Chrome trace
//! JSON is the CLI's business (`cli/trace.rs`).
//!
//! Off by default, and then every hook is one branch on a thread-local flag,
//! with no allocation and no clock read.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::time::Instant;

use super::device::Device;

/// What an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A kernel (`AddV2`, `Sum`, `MatMul` …).
    Op,
    /// Data combined across replicas (`all_reduce SUM`, `gather` …).
    Collective,
    /// A `tf.function` call: traced, replayed its graph, or ran its Python body.
    Function,
}

/// One recorded event.
#[derive(Clone, Debug)]
pub struct Event {
    /// Op or collective.
    pub kind: EventKind,
    /// TensorFlow's op name, or the collective's name.
    pub name: Cow<'static, str>,
    /// The replica that ran it; None: the main program (cross-replica context).
    pub replica: Option<u32>,
    /// Where it ran (a collective: where its result was computed).
    pub device: Device,
    /// Nanoseconds from the start of tracing (a collective: when this replica arrived).
    pub start_ns: u64,
    /// Nanoseconds it took (a collective: until every replica had its result).
    pub dur_ns: u64,
    /// Collectives: bytes of the tensors all replicas contributed; ops: 0.
    pub bytes: u64,
    /// The source line that was executing (0: unknown).
    pub line: u32,
    /// Collectives: the replicas that met (empty for ops).
    pub group: Vec<u32>,
    /// Collectives: a number shared by the events of one collective (from 1).
    pub id: u32,
}

struct Arrival {
    replica: u32,
    at_ns: u64,
    line: u32,
}

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static LANE: Cell<Option<u32>> = const { Cell::new(None) };
    static LINE: Cell<u32> = const { Cell::new(0) };
    /// Open spans that hide the ops they run (a collective's own adds).
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    static NEXT_ID: Cell<u32> = const { Cell::new(0) };
    static EPOCH: Cell<Option<Instant>> = const { Cell::new(None) };
    static EVENTS: RefCell<Vec<Event>> = const { RefCell::new(Vec::new()) };
    /// Index in EVENTS of the op recorded last and not yet placed.
    static UNPLACED: Cell<Option<usize>> = const { Cell::new(None) };
    static ARRIVALS: RefCell<Vec<Arrival>> = const { RefCell::new(Vec::new()) };
}

/// Whether events are being recorded on this thread.
#[inline]
pub fn enabled() -> bool {
    ON.with(Cell::get)
}

/// Starts recording on this thread (forgetting earlier events).
pub fn start() {
    EVENTS.with(|e| e.borrow_mut().clear());
    ARRIVALS.with(|a| a.borrow_mut().clear());
    EPOCH.with(|e| e.set(Some(Instant::now())));
    NEXT_ID.with(|n| n.set(0));
    DEPTH.with(|d| d.set(0));
    LANE.with(|l| l.set(None));
    LINE.with(|l| l.set(0));
    ON.with(|o| o.set(true));
}

/// Stops recording and returns the events, in the order they ended.
pub fn finish() -> Vec<Event> {
    ON.with(|o| o.set(false));
    EVENTS.with(|e| std::mem::take(&mut *e.borrow_mut()))
}

fn now_ns() -> u64 {
    EPOCH.with(|e| e.get().map_or(0, |t| t.elapsed().as_nanos() as u64))
}

/// Says which replica runs from now on (None: the main program).
#[inline]
pub fn set_lane(replica: Option<usize>) {
    if enabled() {
        LANE.with(|l| l.set(replica.map(|r| r as u32)));
    }
}

/// Says which source line executes from now on.
#[inline]
pub fn set_line(line: u32) {
    LINE.with(|l| l.set(line));
}

/// The line last set.
#[inline]
pub fn line() -> u32 {
    LINE.with(Cell::get)
}

/// An open op span: records its event when dropped.
pub struct OpSpan {
    name: &'static str,
    device: Device,
    start_ns: u64,
}

/// Opens a span for op `name` on `device`; None when tracing is off or the
/// op runs inside another span (it is part of that one).
#[inline]
pub fn op(name: &'static str, device: Device) -> Option<OpSpan> {
    if !enabled() {
        return None;
    }
    open_op(name, device)
}

#[cold]
fn open_op(name: &'static str, device: Device) -> Option<OpSpan> {
    if DEPTH.with(Cell::get) > 0 {
        return None;
    }
    DEPTH.with(|d| d.set(d.get() + 1));
    Some(OpSpan {
        name,
        device,
        start_ns: now_ns(),
    })
}

impl Drop for OpSpan {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        let end = now_ns();
        push(Event {
            kind: EventKind::Op,
            name: Cow::Borrowed(self.name),
            replica: LANE.with(Cell::get),
            device: self.device,
            start_ns: self.start_ns,
            dur_ns: end.saturating_sub(self.start_ns),
            bytes: 0,
            line: line(),
            group: Vec::new(),
            id: 0,
        });
        UNPLACED.with(|u| u.set(EVENTS.with(|v| v.borrow().len().checked_sub(1))));
    }
}

/// Notes a `tf.function` call (`what`: `train_step traced: 14 nodes`) made
/// at `at` (the line set when the call began; 0: the line set now).
pub fn function(at: u32, what: impl FnOnce() -> String) {
    if !enabled() {
        return;
    }
    let at = if at == 0 { line() } else { at };
    push(Event {
        kind: EventKind::Function,
        name: Cow::Owned(what()),
        replica: LANE.with(Cell::get),
        device: Device::CPU0,
        start_ns: now_ns(),
        dur_ns: 0,
        bytes: 0,
        line: at,
        group: Vec::new(),
        id: 0,
    });
}

fn push(e: Event) {
    EVENTS.with(|v| v.borrow_mut().push(e));
}

/// The op just recorded ran, in TensorFlow's terms, on `device`: the
/// language layer places each op's result on the device in scope (a
/// replica's device, `tf.device`), which is where TensorFlow runs the op.
#[inline]
pub fn placed_on(device: Device) {
    if !enabled() {
        return;
    }
    let Some(i) = UNPLACED.with(Cell::take) else {
        return;
    };
    EVENTS.with(|v| {
        if let Some(e) = v.borrow_mut().get_mut(i) {
            e.device = device;
        }
    });
}

/// Notes that the running replica arrived at a collective (at the line set last).
#[inline]
pub fn arrive() {
    if !enabled() {
        return;
    }
    let Some(replica) = LANE.with(Cell::get) else {
        return;
    };
    let at_ns = now_ns();
    let line = line();
    ARRIVALS.with(|a| {
        let mut a = a.borrow_mut();
        // A replica is at one collective at a time: an older entry is stale
        // (its collective failed before it was recorded).
        a.retain(|x| x.replica != replica);
        a.push(Arrival {
            replica,
            at_ns,
            line,
        });
    });
}

/// An open collective span: records one event per replica that met when dropped.
pub struct CollectiveSpan {
    name: String,
    device: Device,
    bytes: u64,
    start_ns: u64,
    replicas: usize,
    arrivals: Vec<Arrival>,
    hides_ops: bool,
}

/// Opens a span for a collective over `replicas` replicas' values totalling
/// `bytes`, computed on `device`. The replicas that arrived (`arrive`) are
/// the ones that met; with none (a reduction in cross-replica context) the
/// event is the main program's. `hides_ops`: the ops it runs are part of it
/// (false for `merge_call`, whose function's ops are the user's).
/// `name` and `bytes` are only computed when tracing is on.
#[inline]
pub fn collective(
    name: impl FnOnce() -> String,
    device: Device,
    replicas: usize,
    bytes: impl FnOnce() -> u64,
    hides_ops: bool,
) -> Option<CollectiveSpan> {
    if !enabled() || DEPTH.with(Cell::get) > 0 {
        return None;
    }
    if hides_ops {
        DEPTH.with(|d| d.set(d.get() + 1));
    }
    Some(CollectiveSpan {
        name: name(),
        device,
        bytes: bytes(),
        start_ns: now_ns(),
        replicas,
        arrivals: ARRIVALS.with(|a| std::mem::take(&mut *a.borrow_mut())),
        hides_ops,
    })
}

impl Drop for CollectiveSpan {
    fn drop(&mut self) {
        if self.hides_ops {
            DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        }
        let end = now_ns();
        let id = NEXT_ID.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        let name: Cow<'static, str> = Cow::Owned(std::mem::take(&mut self.name));
        let event = |replica: Option<u32>, start: u64, line: u32, group: Vec<u32>| Event {
            kind: EventKind::Collective,
            name: name.clone(),
            replica,
            device: self.device,
            start_ns: start,
            dur_ns: end.saturating_sub(start),
            bytes: self.bytes,
            line,
            group,
            id,
        };
        if self.arrivals.is_empty() {
            let group = (0..self.replicas as u32).collect();
            let e = event(LANE.with(Cell::get), self.start_ns, line(), group);
            push(e);
            return;
        }
        let group: Vec<u32> = self.arrivals.iter().map(|a| a.replica).collect();
        for a in &self.arrivals {
            let e = event(Some(a.replica), a.at_ns, a.line, group.clone());
            push(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_records_nothing() {
        assert!(!enabled());
        assert!(op("AddV2", Device::CPU0).is_none());
        arrive();
        assert!(collective(|| unreachable!(), Device::CPU0, 2, || unreachable!(), true).is_none());
    }

    #[test]
    fn spans_nest_and_collectives_fan_out() {
        start();
        set_line(3);
        drop(op("AddV2", Device::CPU0));
        for r in 0..2 {
            set_lane(Some(r));
            set_line(7 + r as u32);
            arrive();
        }
        set_lane(None);
        {
            let _c = collective(|| "all_reduce SUM".into(), Device::CPU0, 2, || 16, true);
            // Its own adds are part of it.
            assert!(op("AddV2", Device::CPU0).is_none());
        }
        let events = finish();
        assert!(!enabled());
        assert_eq!(events.len(), 3);
        assert_eq!((events[0].kind, events[0].line), (EventKind::Op, 3));
        assert_eq!(events[1].replica, Some(0));
        assert_eq!(events[2].replica, Some(1));
        assert_eq!((events[1].line, events[2].line), (7, 8));
        assert_eq!(events[2].group, vec![0, 1]);
        assert_eq!((events[2].bytes, events[2].id), (16, 1));
    }
}
