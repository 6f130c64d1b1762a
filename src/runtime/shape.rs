//! [`Shape`]: dimension sizes of a row-major tensor, broadcasting, strides,
//! element-count guards, and TensorFlow's shape text `(2, 3)`.

use std::fmt;

use super::error::{Error, ErrorKind, Result};

/// Largest number of elements a tensor may hold. Bigger requests are a
/// `ResourceExhaustedError` instead of an abort in the allocator.
pub const MAX_ELEMENTS: usize = 1 << 34;

/// The dimensions of a tensor, outermost first.
#[derive(Clone, Eq, Hash, Default)]
#[expect(
    clippy::derived_hash_with_manual_eq,
    reason = "the manual eq compares exactly what the derived hash hashes"
)]
pub struct Shape(pub Vec<usize>);

// Why by hand: the derived slice comparison calls libc `memcmp`, which
// costs far more than the comparison itself for the 0–4 dims of a shape and
// dominated a scalar `x + 1`.
impl PartialEq for Shape {
    #[inline]
    fn eq(&self, other: &Shape) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(&other.0).all(|(a, b)| a == b)
    }
}

impl Shape {
    /// Shape of a scalar: `()`.
    pub fn scalar() -> Shape {
        Shape(Vec::new())
    }

    /// Shape from a slice of dims.
    pub fn new(dims: &[usize]) -> Shape {
        Shape(dims.to_vec())
    }

    /// The dims.
    pub fn dims(&self) -> &[usize] {
        &self.0
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.0.len()
    }

    /// Number of elements (product of dims, saturating).
    pub fn numel(&self) -> usize {
        self.0.iter().fold(1usize, |a, &d| a.saturating_mul(d))
    }

    /// Number of elements, or `ResourceExhausted` when it overflows or is
    /// over [`MAX_ELEMENTS`].
    pub fn checked_numel(&self) -> Result<usize> {
        let mut n: usize = 1;
        let mut overflow = false;
        for &d in &self.0 {
            match n.checked_mul(d) {
                Some(v) => n = v,
                None => overflow = true,
            }
        }
        if self.0.contains(&0) {
            return Ok(0);
        }
        if overflow || n > MAX_ELEMENTS {
            return Err(Error::new(
                ErrorKind::ResourceExhausted,
                format!(
                    "OOM when allocating tensor with shape{}",
                    self.bracket_text_compact()
                ),
            ));
        }
        Ok(n)
    }

    /// Row-major strides in elements.
    pub fn strides(&self) -> Vec<usize> {
        let mut s = vec![0; self.0.len()];
        let mut acc = 1usize;
        for i in (0..self.0.len()).rev() {
            s[i] = acc;
            acc = acc.saturating_mul(self.0[i]);
        }
        s
    }

    /// Resolves a possibly negative axis against this rank (`rank` extra allows
    /// one past the end, as `expand_dims` does). `None` when out of range.
    pub fn normalize_axis(&self, axis: i64, extra: usize) -> Option<usize> {
        let r = (self.rank() + extra) as i64;
        let a = if axis < 0 { axis + r } else { axis };
        if a < 0 || a >= r {
            None
        } else {
            Some(a as usize)
        }
    }

    /// The broadcast of two shapes (numpy rules), or `None` if incompatible.
    pub fn broadcast(&self, other: &Shape) -> Option<Shape> {
        let (a, b) = (&self.0, &other.0);
        let n = a.len().max(b.len());
        let mut out = vec![0; n];
        for i in 0..n {
            let da = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let db = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            out[i] = if da == db || db == 1 {
                da
            } else if da == 1 {
                db
            } else {
                return None;
            };
        }
        Some(Shape(out))
    }

    /// TensorFlow's text inside errors: `[2,3]` (no spaces).
    pub fn bracket_text_compact(&self) -> String {
        let parts: Vec<String> = self.0.iter().map(|d| d.to_string()).collect();
        format!("[{}]", parts.join(","))
    }

    /// TensorFlow's text in broadcasting errors: `[2,3]` for rank ≥ 1.
    pub fn bracket_text(&self) -> String {
        self.bracket_text_compact()
    }

    /// Python tuple text, as `tensor.shape` prints: `()`, `(5,)`, `(2, 3)`.
    pub fn tuple_text(&self) -> String {
        match self.0.len() {
            0 => "()".to_string(),
            1 => format!("({},)", self.0[0]),
            _ => {
                let parts: Vec<String> = self.0.iter().map(|d| d.to_string()).collect();
                format!("({})", parts.join(", "))
            }
        }
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tuple_text())
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tuple_text())
    }
}

impl From<Vec<usize>> for Shape {
    fn from(v: Vec<usize>) -> Shape {
        Shape(v)
    }
}

impl From<&[usize]> for Shape {
    fn from(v: &[usize]) -> Shape {
        Shape(v.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::Shape;

    #[test]
    fn broadcasting() {
        let a = Shape::new(&[2, 1, 3]);
        let b = Shape::new(&[4, 1]);
        assert_eq!(a.broadcast(&b), Some(Shape::new(&[2, 4, 3])));
        assert_eq!(Shape::new(&[3]).broadcast(&Shape::new(&[2])), None);
        assert_eq!(
            Shape::scalar().broadcast(&Shape::new(&[0])),
            Some(Shape::new(&[0]))
        );
    }

    #[test]
    fn texts() {
        assert_eq!(Shape::scalar().tuple_text(), "()");
        assert_eq!(Shape::new(&[5]).tuple_text(), "(5,)");
        assert_eq!(Shape::new(&[2, 3]).tuple_text(), "(2, 3)");
        assert_eq!(Shape::new(&[2, 3]).bracket_text_compact(), "[2,3]");
        assert!(Shape::new(&[100000, 100000, 100000])
            .checked_numel()
            .is_err());
        assert_eq!(Shape::new(&[usize::MAX, 0]).checked_numel().ok(), Some(0));
    }
}
