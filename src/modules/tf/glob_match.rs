//! TensorFlow's glob matching of one path component (`fnmatch` with
//! `FNM_PATHNAME`: `*`, `?`, `[...]`/`[!...]`/`[^...]` with ranges, `\\`
//! escapes), used by `tf.io.gfile.glob`. Linear passes: a star remembers
//! where to resume, so a hostile pattern cannot backtrack exponentially.

/// One character class or literal of a glob component, at `pat[i..]`:
/// whether it matches `c`, and the pattern index after it (`*` is the
/// caller's).
fn single(pat: &[char], i: usize, c: char) -> (bool, usize) {
    match pat[i] {
        '?' => (true, i + 1),
        '[' => {
            let mut j = i + 1;
            let negate = matches!(pat.get(j), Some('!' | '^'));
            if negate {
                j += 1;
            }
            let start = j;
            let mut matched = false;
            while j < pat.len() && (pat[j] != ']' || j == start) {
                if j + 2 < pat.len() && pat[j + 1] == '-' && pat[j + 2] != ']' {
                    matched |= pat[j] <= c && c <= pat[j + 2];
                    j += 3;
                } else {
                    matched |= pat[j] == c;
                    j += 1;
                }
            }
            if j >= pat.len() {
                // an unclosed '[' matches itself
                return (c == '[', i + 1);
            }
            (matched != negate, j + 1)
        }
        '\\' if i + 1 < pat.len() => (pat[i + 1] == c, i + 2),
        p => (p == c, i + 1),
    }
}

/// `fnmatch(pattern, name, FNM_PATHNAME)` on one path component, in
/// linear passes (a star remembers where to resume: no exponential
/// backtracking on hostile patterns).
pub fn component_match(pat: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut resume: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pat.len() && pat[p] == '*' {
            p += 1;
            resume = Some((p, n));
            continue;
        }
        if p < pat.len() {
            let (ok, next) = single(pat, p, name[n]);
            if ok {
                p = next;
                n += 1;
                continue;
            }
        }
        match resume {
            Some((sp, sn)) => {
                p = sp;
                n = sn + 1;
                resume = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    while p < pat.len() && pat[p] == '*' {
        p += 1;
    }
    p == pat.len()
}

#[cfg(test)]
mod tests {
    use super::component_match;

    fn m(p: &str, n: &str) -> bool {
        let (p, n): (Vec<char>, Vec<char>) = (p.chars().collect(), n.chars().collect());
        component_match(&p, &n)
    }

    #[test]
    fn matches_as_fnmatch() {
        assert!(m("*.txt", "a.txt"));
        assert!(!m("*.txt", "a.txtx"));
        assert!(m("[fg].txt", "g.txt"));
        assert!(!m("[!f].txt", "f.txt"));
        assert!(m("[^f].txt", "g.txt"));
        assert!(m("?.txt", "g.txt"));
        assert!(m("*", ""));
        assert!(m("a*b*c", "aXbYc"));
        assert!(!m("a*b*c", "aXbY"));
        assert!(m("\\*", "*"));
        assert!(m("[a-c]x", "bx"));
        assert!(m("[", "["));
    }

    #[test]
    fn many_stars_do_not_backtrack_exponentially() {
        let long = "a".repeat(200);
        let pat = "*a".repeat(30) + "b";
        assert!(!m(&pat, &long));
    }
}
