//! The docstrings of a `.dist` file that `dist doctest` runs, found the way
//! CPython's `doctest.DocTestFinder` finds them in an imported module: the
//! module's docstring, then each function and class defined at its top level,
//! and recursively the methods and nested classes of those classes. A name
//! bound twice keeps its last definition, as the module's namespace would.
//! Nested functions are not searched (they are not attributes of anything).

use crate::syntax::ast::{Constant, ExprKind, Stmt, StmtKind};
use crate::syntax::{parse_module, SourceFile, SyntaxError};

/// One docstring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Docstring {
    /// The dotted name (`module`, `module.func`, `module.Class.method`).
    pub name: String,
    /// The string's value.
    pub text: String,
    /// 0-based line of the file where the string literal starts.
    pub line: usize,
}

/// The docstrings of `source`, module first, then in definition order.
/// `module` is the module's name (the file's stem).
pub fn docstrings(source: &SourceFile, module: &str) -> Result<Vec<Docstring>, SyntaxError> {
    let ast = parse_module(&source.text)?;
    let mut found = Vec::new();
    if let Some(doc) = docstring_of(source, module, &ast.body) {
        found.push(doc);
    }
    walk(source, module, &ast.body, &mut found);
    Ok(found)
}

/// The docstring of a body: its first statement, if a string literal.
fn docstring_of(source: &SourceFile, name: &str, body: &[Stmt]) -> Option<Docstring> {
    let StmtKind::Expr(expr) = &body.first()?.kind else {
        return None;
    };
    let ExprKind::Constant(Constant::Str(text)) = &expr.kind else {
        return None;
    };
    Some(Docstring {
        name: name.to_string(),
        text: text.to_string(),
        line: source.line_of(expr.span.start) - 1,
    })
}

/// The functions and classes bound in `body`, last definition of a name winning.
fn definitions(body: &[Stmt]) -> Vec<&Stmt> {
    let mut defs: Vec<(&str, &Stmt)> = Vec::new();
    for stmt in body {
        let name: &str = match &stmt.kind {
            StmtKind::FunctionDef(f) => &f.name,
            StmtKind::ClassDef(c) => &c.name,
            _ => continue,
        };
        defs.retain(|(n, _)| *n != name);
        defs.push((name, stmt));
    }
    defs.sort_by_key(|(_, stmt)| stmt.span.start);
    defs.into_iter().map(|(_, stmt)| stmt).collect()
}

fn walk(source: &SourceFile, prefix: &str, body: &[Stmt], found: &mut Vec<Docstring>) {
    for stmt in definitions(body) {
        match &stmt.kind {
            StmtKind::FunctionDef(f) => {
                let name = format!("{prefix}.{}", f.name);
                found.extend(docstring_of(source, &name, &f.body));
            }
            StmtKind::ClassDef(c) => {
                let name = format!("{prefix}.{}", c.name);
                found.extend(docstring_of(source, &name, &c.body));
                walk(source, &name, &c.body, found);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_functions_classes_methods() {
        let source = SourceFile::new(
            "m.dist",
            "\"\"\"Module.\"\"\"\n\ndef f():\n    \"\"\"F.\"\"\"\n    def inner():\n        \"\"\"no\"\"\"\n\nclass C:\n    '''C.'''\n    def m(self):\n        'M.'\n\ndef g():\n    pass\n\ndef f():\n    \"\"\"F2.\"\"\"\n",
        );
        let docs = docstrings(&source, "m").unwrap();
        let got: Vec<(&str, &str, usize)> = docs
            .iter()
            .map(|d| (d.name.as_str(), d.text.as_str(), d.line))
            .collect();
        assert_eq!(
            got,
            [
                ("m", "Module.", 0),
                ("m.C", "C.", 8),
                ("m.C.m", "M.", 10),
                ("m.f", "F2.", 16),
            ]
        );
    }
}
