//! Placeholder renderer (the ariadne renderer lands from branch `cli`).
use super::Diagnostic;

/// Renders a diagnostic as text (no colour when `color` is false).
pub fn render(d: &Diagnostic, color: bool) -> String {
    let _ = color;
    format!("{}\n", d.headline())
}
