//! "Did you mean" suggestions for NameError and AttributeError, with
//! CPython 3.11's rules (Python/suggestions.c): a Levenshtein distance where a
//! case change costs 1 and any other edit 2, bounded by the lengths involved;
//! the closest candidate wins, ties to the first in sorted order.

use super::Interp;
use crate::value::{ExcType, PyErr, Value};

const MOVE_COST: usize = 2;
const CASE_COST: usize = 1;
const MAX_CANDIDATES: usize = 750;
const MAX_STRING: usize = 40;

fn substitution_cost(a: u8, b: u8) -> usize {
    if (a & 31) != (b & 31) {
        return MOVE_COST;
    }
    if a == b {
        return 0;
    }
    if a.eq_ignore_ascii_case(&b) {
        CASE_COST
    } else {
        MOVE_COST
    }
}

fn levenshtein(a: &[u8], b: &[u8], max_cost: usize) -> usize {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suf], &b[..b.len() - suf]);
    if a.is_empty() || b.is_empty() {
        return (a.len() + b.len()) * MOVE_COST;
    }
    if a.len() > MAX_STRING || b.len() > MAX_STRING {
        return max_cost + 1;
    }
    let (a, b) = if b.len() < a.len() { (b, a) } else { (a, b) };
    if (b.len() - a.len()) * MOVE_COST > max_cost {
        return max_cost + 1;
    }
    let mut buffer: Vec<usize> = (1..=a.len()).map(|i| i * MOVE_COST).collect();
    let mut result = 0;
    for (bi, &bc) in b.iter().enumerate() {
        let mut distance = bi * MOVE_COST;
        result = distance;
        let mut minimum = usize::MAX;
        for (ai, &ac) in a.iter().enumerate() {
            let substitute = distance + substitution_cost(bc, ac);
            distance = buffer[ai];
            let insert_delete = result.min(distance) + MOVE_COST;
            result = insert_delete.min(substitute);
            buffer[ai] = result;
            minimum = minimum.min(result);
        }
        if minimum > max_cost {
            return max_cost + 1;
        }
    }
    result
}

/// The closest of `candidates` to `name`, if close enough.
pub fn closest(name: &str, candidates: &[String]) -> Option<String> {
    if candidates.len() > MAX_CANDIDATES {
        return None;
    }
    let mut best: Option<(&String, usize)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        let mut max = (name.len() + c.len() + 3) * MOVE_COST / 6;
        if let Some((_, d)) = best {
            max = max.min(d.saturating_sub(1));
        }
        let d = levenshtein(name.as_bytes(), c.as_bytes(), max);
        if d > max {
            continue;
        }
        if best.is_none_or(|(_, bd)| d < bd) {
            best = Some((c, d));
        }
    }
    best.map(|(c, _)| c.clone())
}

impl Interp {
    /// The ". Did you mean: 'x'?" suffix CPython's traceback adds, if any.
    pub fn suggestion(&self, err: &PyErr) -> Option<String> {
        if !err.0.help.is_empty() {
            // a help line already says what to use instead
            return None;
        }
        let Value::Instance(inst) = err.value() else {
            return None;
        };
        let name = match inst.get_attr("name") {
            Some(Value::Str(s)) => s.to_string(),
            _ => return None,
        };
        let found = if err.is(ExcType::AttributeError) {
            let obj = inst.get_attr("obj")?;
            let mut names = self.dir_of(&obj);
            names.sort();
            names.dedup();
            closest(&name, &names)
        } else if err.is(ExcType::NameError) {
            let mut locals: Vec<String> = match inst.get_attr("_dist_locals") {
                Some(Value::Tuple(t)) => t
                    .iter()
                    .filter_map(|v| {
                        if let Value::Str(s) = v {
                            Some(s.to_string())
                        } else {
                            None
                        }
                    })
                    .collect(),
                _ => Vec::new(),
            };
            locals.sort();
            let mut globals = self.global_names();
            globals.sort();
            let mut builtins = self.builtin_names();
            builtins.sort();
            closest(&name, &locals)
                .or_else(|| closest(&name, &globals))
                .or_else(|| closest(&name, &builtins))
        } else {
            None
        };
        found.map(|s| format!(". Did you mean: '{s}'?"))
    }
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn like_cpython() {
        let c = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            closest("raduis", &c(&["radius", "area"])),
            Some("radius".into())
        );
        assert_eq!(
            closest("weight", &c(&["weights", "bias"])),
            Some("weights".into())
        );
        assert_eq!(closest("xyz", &c(&["radius"])), None);
        assert_eq!(
            closest("Print", &c(&["print", "input"])),
            Some("print".into())
        );
    }
}
