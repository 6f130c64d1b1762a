//! The documentation table: `docs.txt` parsed once, and the lookups that
//! find a native's entry (by the name the native declares, or, for module
//! functions, by their dotted path and implementation).

use std::sync::OnceLock;

use crate::object::module::ModuleObj;
use crate::value::{Class, ClassKind, NativeFunction, Value};

/// The table's text (format in its header).
pub const SOURCE: &str = include_str!("docs.txt");

/// One documented native.
#[derive(Debug)]
pub struct Doc {
    /// TensorFlow's public name (`tf.distribute.Strategy.run`).
    pub title: &'static str,
    /// The names it is found by: declared names (`MirroredStrategy.run`,
    /// `PerReplica`) or module paths (`tf.constant`).
    pub keys: Vec<&'static str>,
    /// One paragraph.
    pub text: &'static str,
    /// Code that runs after `import tensorflow as tf` with two virtual GPUs.
    pub example: &'static str,
    /// What the example prints (from the oracle).
    pub output: &'static str,
}

impl Doc {
    /// The last component of the title (`run`), for a declaration we cannot resolve.
    pub fn short_name(&self) -> &'static str {
        let t = self.title.split(' ').next().unwrap_or(self.title);
        t.rsplit('.').next().unwrap_or(t)
    }
}

/// Every entry, in file order.
pub fn entries() -> &'static [Doc] {
    static DOCS: OnceLock<Vec<Doc>> = OnceLock::new();
    DOCS.get_or_init(|| parse(SOURCE))
}

/// Parses the table. A malformed entry is a bug the doctest catches (an
/// entry without an example or output gets empty ones).
pub fn parse(src: &'static str) -> Vec<Doc> {
    let mut out = Vec::new();
    let mut rest = src;
    // Skip the header comments up to the first entry.
    match rest.find("\n@@ ") {
        Some(i) => rest = &rest[i + 1..],
        None if rest.starts_with("@@ ") => {}
        None => return out,
    }
    while let Some(body) = rest.strip_prefix("@@ ") {
        let end = body.find("\n@@ ").map_or(body.len(), |i| i + 1);
        let entry = &body[..end];
        rest = &body[end..];
        let (head, content) = entry.split_once('\n').unwrap_or((entry, ""));
        let (title, keys) = head.split_once(" | ").unwrap_or((head, ""));
        let (text, after) = content.split_once("--- example\n").unwrap_or((content, ""));
        let (example, output) = after.split_once("--- output\n").unwrap_or((after, ""));
        out.push(Doc {
            title: title.trim(),
            keys: keys.split_whitespace().collect(),
            text: text.trim_end(),
            example: example.trim_end(),
            output: output.trim_end_matches('\n'),
        });
    }
    out
}

thread_local! {
    /// A `tf` module to resolve documented paths in (built on first use).
    static TF: Value = crate::modules::tf::module();
}

/// The value a dotted `tf.` path names, if any.
pub fn resolve_path(path: &str) -> Option<Value> {
    let mut parts = path.split('.');
    if parts.next()? != "tf" {
        return None;
    }
    let mut v = TF.with(Value::clone);
    for p in parts {
        let next = if let Some(m) = v.downcast::<ModuleObj>() {
            m.dict.borrow().get(p).cloned()
        } else if let Value::Class(c) = &v {
            c.lookup(p)
        } else {
            None
        };
        v = next?;
    }
    Some(v)
}

/// The value an entry documents, found through its title or its paths.
pub fn resolve(d: &Doc) -> Option<Value> {
    std::iter::once(d.title)
        .chain(d.keys.iter().copied())
        .find_map(resolve_path)
}

/// The entry of a native function: by its declared name (`MirroredStrategy.run`),
/// or, for a module function, by a documented path leading to the same
/// implementation.
pub fn for_function(nf: &NativeFunction) -> Option<&'static Doc> {
    let name = &*nf.sig.name;
    if name.contains('.') {
        return entries().iter().find(|d| d.keys.contains(&name));
    }
    entries().iter().find(|d| {
        d.keys.iter().any(|k| {
            k.starts_with("tf.")
                && k.rsplit('.').next() == Some(name)
                && matches!(resolve_path(k), Some(Value::NativeFunction(f))
                    if f.func as usize == nf.func as usize && *f.sig.name == *name)
        })
    })
}

/// The entry of a native class (by its name; TensorFlow's classes only).
pub fn for_class(c: &Class) -> Option<&'static Doc> {
    if c.kind != ClassKind::Native || !c.module.starts_with("tensorflow") {
        return None;
    }
    let name = &*c.name;
    entries().iter().find(|d| d.keys.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_entry() {
        let docs = entries();
        assert!(docs.len() >= 40, "{}", docs.len());
        for d in docs {
            assert!(!d.keys.is_empty(), "{}: no keys", d.title);
            assert!(!d.text.is_empty(), "{}: no paragraph", d.title);
            assert!(!d.example.is_empty(), "{}: no example", d.title);
            assert!(!d.output.is_empty(), "{}: no output", d.title);
            assert!(!d.text.contains("--- "), "{}", d.title);
        }
    }

    #[test]
    fn module_paths_resolve() {
        for d in entries() {
            for k in d.keys.iter().filter(|k| k.starts_with("tf.")) {
                assert!(
                    matches!(resolve_path(k), Some(Value::NativeFunction(_))),
                    "{k} does not name a native function"
                );
            }
        }
    }
}
