//! `dist run --trace`: turns the events `runtime::trace` recorded into a
//! per-replica text timeline (stderr) or Chrome trace-event JSON
//! (`--trace=FILE.json`, for chrome://tracing or ui.perfetto.dev).
//!
//! The text timeline has one section per lane (the main program, then each
//! replica), one row per op or collective in the order they ran, then a
//! list of the collectives: which replicas met, at which lines, and the
//! bytes they brought. Times are the only non-deterministic part and sit in
//! the bracketed first column (`[start + duration]`, milliseconds), so tests
//! mask that column. Consecutive identical ops (same name, line and device)
//! share one row, marked `xN`.

use std::fmt::Write as _;

use crate::runtime::trace::{Event, EventKind};

/// The text timeline of `events`.
pub fn timeline(events: &[Event]) -> String {
    let mut lanes: Vec<Option<u32>> = events.iter().map(|e| e.replica).collect();
    lanes.sort_by_key(|l| l.map_or(0, |r| r as i64 + 1));
    lanes.dedup();
    let replicas = lanes.iter().filter(|l| l.is_some()).count();
    let ops = events.iter().filter(|e| e.kind == EventKind::Op).count();
    let collectives = collective_list(events);
    let mut out = format!(
        "== trace: {ops} op{}, {} collective{}, {replicas} replica lane{} (times: [start + duration] in ms) ==\n",
        plural(ops),
        collectives.len(),
        plural(collectives.len()),
        plural(replicas)
    );
    if events.is_empty() {
        out.push_str("(no ops ran)\n");
        return out;
    }
    for lane in &lanes {
        match lane {
            None => out.push_str("main program (cross-replica context)\n"),
            Some(r) => {
                let _ = writeln!(out, "replica {r}");
            }
        }
        let mut rows: Vec<(&Event, u64, u32)> = Vec::new();
        for e in events.iter().filter(|e| e.replica == *lane) {
            if let Some((last, dur, n)) = rows.last_mut() {
                if e.kind == EventKind::Op
                    && last.kind == EventKind::Op
                    && last.name == e.name
                    && last.line == e.line
                    && last.device == e.device
                {
                    *dur += e.dur_ns;
                    *n += 1;
                    continue;
                }
            }
            rows.push((e, e.dur_ns, 1));
        }
        for (e, dur, n) in rows {
            if e.kind == EventKind::Function {
                let _ = writeln!(
                    out,
                    "  [{:>9.3}           ]  {:<8}  tf.function {}",
                    ms(e.start_ns),
                    line_text(e.line),
                    e.name
                );
                continue;
            }
            let name = if n > 1 {
                format!("{} x{n}", e.name)
            } else {
                e.name.to_string()
            };
            let _ = write!(
                out,
                "  [{:>9.3} + {:>8.3}]  {:<8}  {:<22} {}",
                ms(e.start_ns),
                ms(dur),
                line_text(e.line),
                name,
                e.device.short_name()
            );
            if e.kind == EventKind::Collective {
                let _ = write!(
                    out,
                    "  #{} with replicas {}, {} bytes",
                    e.id,
                    join(&e.group),
                    e.bytes
                );
            }
            out.push('\n');
        }
    }
    if !collectives.is_empty() {
        out.push_str("collectives (where the replicas met)\n");
        for c in &collectives {
            let _ = writeln!(
                out,
                "  #{:<3} {:<22} on {:<6} replicas {} at {}; {} bytes moved",
                c.id,
                c.name,
                c.device,
                join(&c.group),
                c.lines,
                c.bytes
            );
        }
    }
    out
}

struct Collective {
    id: u32,
    name: String,
    device: String,
    group: Vec<u32>,
    lines: String,
    bytes: u64,
}

/// One entry per collective (its events on every lane folded together).
fn collective_list(events: &[Event]) -> Vec<Collective> {
    let mut out: Vec<Collective> = Vec::new();
    for e in events.iter().filter(|e| e.kind == EventKind::Collective) {
        if out.iter().any(|c| c.id == e.id) {
            continue;
        }
        let lines: Vec<u32> = events
            .iter()
            .filter(|x| x.kind == EventKind::Collective && x.id == e.id)
            .map(|x| x.line)
            .collect();
        let lines = if lines.iter().all(|l| *l == lines[0]) {
            line_text(lines[0])
        } else {
            format!(
                "lines {}",
                lines
                    .iter()
                    .map(|l| l.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        out.push(Collective {
            id: e.id,
            name: e.name.to_string(),
            device: e.device.short_name(),
            group: e.group.clone(),
            lines,
            bytes: e.bytes,
        });
    }
    out.sort_by_key(|c| c.id);
    out
}

fn line_text(line: u32) -> String {
    if line == 0 {
        "line ?".into()
    } else {
        format!("line {line}")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn join(ids: &[u32]) -> String {
    ids.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// The events as Chrome trace-event JSON: one thread (`tid`) per lane (0:
/// the main program, r + 1: replica r), named by metadata events; `ts` and
/// `dur` in microseconds.
pub fn chrome_json(events: &[Event]) -> String {
    let mut lanes: Vec<Option<u32>> = events.iter().map(|e| e.replica).collect();
    lanes.push(None);
    lanes.sort_by_key(|l| l.map_or(0, |r| r as i64 + 1));
    lanes.dedup();
    let tid = |l: Option<u32>| l.map_or(0, |r| r as u64 + 1);
    let mut items: Vec<String> = vec![
        r#"{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"dist"}}"#.to_string(),
    ];
    for l in &lanes {
        let name = match l {
            None => "main program".to_string(),
            Some(r) => format!("replica {r}"),
        };
        items.push(format!(
            r#"{{"name":"thread_name","ph":"M","pid":1,"tid":{},"args":{{"name":{}}}}}"#,
            tid(*l),
            quote(&name)
        ));
    }
    for e in events {
        let (cat, extra) = match e.kind {
            EventKind::Op => ("op", String::new()),
            EventKind::Function => ("function", String::new()),
            EventKind::Collective => (
                "collective",
                format!(
                    r#","id":{},"replicas":[{}],"bytes":{}"#,
                    e.id,
                    join(&e.group),
                    e.bytes
                ),
            ),
        };
        items.push(format!(
            r#"{{"name":{},"cat":"{cat}","ph":"X","ts":{:.3},"dur":{:.3},"pid":1,"tid":{},"args":{{"device":{},"line":{}{extra}}}}}"#,
            quote(&e.name),
            e.start_ns as f64 / 1e3,
            e.dur_ns as f64 / 1e3,
            tid(e.replica),
            quote(&e.device.full_name()),
            e.line
        ));
    }
    format!(
        "{{\"traceEvents\":[\n{}\n],\"displayTimeUnit\":\"ms\"}}\n",
        items.join(",\n")
    )
}

/// A JSON string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Device;
    use std::borrow::Cow;

    fn ev(kind: EventKind, name: &'static str, replica: Option<u32>, line: u32, id: u32) -> Event {
        Event {
            kind,
            name: Cow::Borrowed(name),
            replica,
            device: Device::virtual_gpu(replica.unwrap_or(0)),
            start_ns: 1_000,
            dur_ns: 2_000,
            bytes: if kind == EventKind::Op { 0 } else { 8 },
            line,
            group: if id > 0 { vec![0, 1] } else { Vec::new() },
            id,
        }
    }

    #[test]
    fn timeline_groups_lanes_and_folds_repeats() {
        let events = vec![
            ev(EventKind::Op, "Mul", Some(0), 4, 0),
            ev(EventKind::Op, "Mul", Some(0), 4, 0),
            ev(EventKind::Op, "Mul", Some(1), 4, 0),
            ev(EventKind::Collective, "all_reduce SUM", Some(0), 5, 1),
            ev(EventKind::Collective, "all_reduce SUM", Some(1), 5, 1),
        ];
        let text = timeline(&events);
        assert!(text.starts_with("== trace: 3 ops, 1 collective, 2 replica lanes"));
        assert!(text.contains("line 4    Mul x2"), "{text}");
        assert!(text.contains("#1 with replicas 0,1, 8 bytes"), "{text}");
        assert!(
            text.contains("replicas 0,1 at line 5; 8 bytes moved"),
            "{text}"
        );
        assert!(text.find("replica 0\n").unwrap() < text.find("replica 1\n").unwrap());
    }

    #[test]
    fn json_names_threads() {
        let json = chrome_json(&[ev(EventKind::Op, "Mul\"", Some(1), 2, 0)]);
        assert!(
            json.contains(r#""tid":2,"args":{"name":"replica 1"}"#),
            "{json}"
        );
        assert!(json.contains(r#""name":"Mul\"","cat":"op","ph":"X","ts":1.000,"dur":2.000"#));
    }
}
