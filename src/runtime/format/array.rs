//! numpy's `array2string` (`_formatArray`, legacy `1.25` mode): nested
//! brackets, line wrapping at the line width with the hanging indent,
//! `...` summarisation of arrays over 1000 elements (3 edge items per axis),
//! and blank lines between the blocks of 3-D and higher arrays.

use super::elem::ElemFormat;
use crate::runtime::storage::HostData;

/// numpy's `threshold` print option.
pub const THRESHOLD: usize = 1000;
/// numpy's `edgeitems` print option.
pub const EDGE_ITEMS: usize = 3;
/// numpy's `linewidth` print option.
pub const LINE_WIDTH: usize = 75;

/// `array2string(a, separator=sep, prefix=prefix, suffix=suffix)` for a
/// non-empty array of `dims` over row-major `data`.
pub fn array2string(
    data: &HostData,
    dims: &[usize],
    sep: &str,
    prefix: &str,
    suffix: &str,
) -> String {
    let numel: usize = dims.iter().product();
    if numel == 0 {
        return "[]".to_string();
    }
    let summarize = numel > THRESHOLD;
    let strides = strides(dims);
    let mut sel = Vec::new();
    corners(dims, &strides, 0, 0, summarize, &mut sel);
    let fmt = ElemFormat::new(data, &sel, dims.is_empty());
    let ctx = Ctx {
        data,
        dims,
        strides: &strides,
        fmt: &fmt,
        sep,
        summarize,
    };
    let next_line_prefix = " ".repeat(1 + prefix.len());
    let width = LINE_WIDTH - suffix.len();
    ctx.recurse(0, 0, &next_line_prefix, width)
}

fn strides(dims: &[usize]) -> Vec<usize> {
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

/// Flat indices of the elements numpy keeps when summarising
/// (`_leading_trailing`), in order.
fn corners(
    dims: &[usize],
    strides: &[usize],
    axis: usize,
    base: usize,
    summarize: bool,
    out: &mut Vec<usize>,
) {
    if axis == dims.len() {
        out.push(base);
        return;
    }
    let n = dims[axis];
    if summarize && n > 2 * EDGE_ITEMS {
        for i in (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n) {
            corners(
                dims,
                strides,
                axis + 1,
                base + i * strides[axis],
                summarize,
                out,
            );
        }
    } else {
        for i in 0..n {
            corners(
                dims,
                strides,
                axis + 1,
                base + i * strides[axis],
                summarize,
                out,
            );
        }
    }
}

struct Ctx<'a> {
    data: &'a HostData,
    dims: &'a [usize],
    strides: &'a [usize],
    fmt: &'a ElemFormat,
    sep: &'a str,
    summarize: bool,
}

impl Ctx<'_> {
    fn recurse(&self, axis: usize, base: usize, hanging_indent: &str, curr_width: usize) -> String {
        let axes_left = self.dims.len() - axis;
        if axes_left == 0 {
            return self.fmt.format(self.data, base);
        }
        let next_hanging_indent = format!("{hanging_indent} ");
        let next_width = curr_width.saturating_sub(1);
        let a_len = self.dims[axis];
        let show_summary = self.summarize && 2 * EDGE_ITEMS < a_len;
        let (leading, trailing) = if show_summary {
            (EDGE_ITEMS, EDGE_ITEMS)
        } else {
            (0, a_len)
        };
        let stride = self.strides[axis];
        let child = |i: usize| {
            self.recurse(
                axis + 1,
                base + i * stride,
                &next_hanging_indent,
                next_width,
            )
        };
        let mut s = String::new();
        if axes_left == 1 {
            let sep_trim = self.sep.trim_end().len();
            let elem_width = curr_width.saturating_sub(sep_trim.max(1));
            let mut line = hanging_indent.to_string();
            for i in 0..leading {
                extend_line(&mut s, &mut line, &child(i), elem_width, hanging_indent);
                line.push_str(self.sep);
            }
            if show_summary {
                extend_line(&mut s, &mut line, "...", elem_width, hanging_indent);
                line.push_str(self.sep);
            }
            for i in (2..=trailing).rev() {
                extend_line(
                    &mut s,
                    &mut line,
                    &child(a_len - i),
                    elem_width,
                    hanging_indent,
                );
                line.push_str(self.sep);
            }
            extend_line(
                &mut s,
                &mut line,
                &child(a_len - 1),
                elem_width,
                hanging_indent,
            );
            s.push_str(&line);
        } else {
            let mut line_sep = self.sep.trim_end().to_string();
            for _ in 0..axes_left - 1 {
                line_sep.push('\n');
            }
            for i in 0..leading {
                s.push_str(hanging_indent);
                s.push_str(&child(i));
                s.push_str(&line_sep);
            }
            if show_summary {
                s.push_str(hanging_indent);
                s.push_str("...");
                s.push_str(&line_sep);
            }
            for i in (2..=trailing).rev() {
                s.push_str(hanging_indent);
                s.push_str(&child(a_len - i));
                s.push_str(&line_sep);
            }
            s.push_str(hanging_indent);
            s.push_str(&child(a_len - 1));
        }
        format!("[{}]", &s[hanging_indent.len()..])
    }
}

/// numpy's `_extendLine`: wrap before `word` if it would pass `width`,
/// unless the line holds nothing but the indent.
fn extend_line(
    s: &mut String,
    line: &mut String,
    word: &str,
    width: usize,
    next_line_prefix: &str,
) {
    let needs_wrap = line.len() + word.len() > width && line.len() > next_line_prefix.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        line.clear();
        line.push_str(next_line_prefix);
    }
    line.push_str(word);
}
