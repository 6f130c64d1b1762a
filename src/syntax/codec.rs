//! The syntax tree as bytes: how `stdlib/` modules ship parsed and resolved.
//!
//! Parsing is most of what `import keras` costs (pest and the lowering:
//! two thirds of the import, half of a small `fit` script's whole run), and
//! resolving the names of the parsed tree most of what is left. So the build
//! script (`build.rs`) parses every `stdlib/*.dist` file with this same
//! `syntax` module, resolves it with the crate's `resolve` against a table
//! of its own module-level names, and writes the tree and that table with
//! [`encode_module`]; the binary embeds the bytes beside the source text,
//! and the importer reads the tree back with [`decode_module`], which
//! interns the table's names into the interpreter's global table and
//! renumbers each global slot as it reads it. Resolution depends on nothing
//! but the tree and the global numbering, so the result is the tree the
//! importer would have resolved. The source text stays for diagnostics and
//! tracebacks.
//!
//! The format is private to one build (the writer and the reader are the
//! same code, `#[derive(Codec)]` in `macros/src/codec.rs`): unsigned
//! integers are LEB128, signed ones zigzag LEB128, an enum is a tag byte
//! then its fields, a sequence its length then its items. A reader that
//! meets anything it did not expect returns `None`, and the importer parses
//! the source instead.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use super::ast::{Body, Constant, Module, Slot, Stmt};

/// A syntax-tree type that can be written as bytes and read back.
pub trait Codec: Sized {
    /// Appends `self` to `w`.
    fn encode(&self, w: &mut Vec<u8>);
    /// Reads one value, or `None` on malformed input.
    fn decode(r: &mut Reader) -> Option<Self>;
}

/// The bytes being read, and the string constants shared so far (as one
/// compilation shares them: `lower::intern_constant`).
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    strings: Rc<RefCell<HashMap<Rc<str>, Rc<String>>>>,
    /// The interpreter's slot of each name of the written global table.
    globals: Rc<[u32]>,
    /// The whole of `buf`, when it lives as long as the program: function
    /// bodies are then left unread until they run ([`Unread`]).
    lasting: Option<&'static [u8]>,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader {
            buf,
            pos: 0,
            strings: Rc::default(),
            globals: Rc::from([]),
            lasting: None,
        }
    }

    /// The next byte.
    #[inline]
    pub fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    #[inline]
    fn uleb(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            if shift > 63 {
                return None;
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
            shift += 7;
        }
    }

    /// A length, checked against the bytes left (every item is at least a
    /// byte), so a damaged length cannot ask for a huge allocation.
    fn len(&mut self) -> Option<usize> {
        let n = usize::try_from(self.uleb()?).ok()?;
        (n <= self.buf.len() - self.pos).then_some(n)
    }

    fn str(&mut self) -> Option<&'a str> {
        let n = self.len()?;
        std::str::from_utf8(self.bytes(n)?).ok()
    }
}

fn put_uleb(w: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        w.push((v as u8) | 0x80);
        v >>= 7;
    }
    w.push(v as u8);
}

/// The bytes of a module's syntax tree: the module-level names its global
/// slots number (`globals[i]` is `Slot::Global(i)`), then the tree.
pub fn encode_module(m: &Module, globals: &[Rc<str>]) -> Vec<u8> {
    let mut w = Vec::new();
    globals.to_vec().encode(&mut w);
    m.encode(&mut w);
    w
}

/// The module `encode_module` wrote, its global slots renumbered by
/// `intern` (a table name's slot in the reader's global table), or `None`
/// if `bytes` are not one (trailing bytes included).
pub fn decode_module(bytes: &[u8], intern: &mut dyn FnMut(&Rc<str>) -> u32) -> Option<Module> {
    read_module(Reader::new(bytes), intern)
}

/// Like [`decode_module`], for bytes the program embeds: each function body
/// is read when it is first used, so an import reads the module's top level
/// and its signatures, not the code of every function it defines. The bytes
/// are this build's own writing (`build.rs`), checked by the unit tests that
/// read every stdlib tree back whole.
pub fn decode_lasting_module(
    bytes: &'static [u8],
    intern: &mut dyn FnMut(&Rc<str>) -> u32,
) -> Option<Module> {
    let mut r = Reader::new(bytes);
    r.lasting = Some(bytes);
    read_module(r, intern)
}

fn read_module(mut r: Reader, intern: &mut dyn FnMut(&Rc<str>) -> u32) -> Option<Module> {
    let names = <Vec<Rc<str>>>::decode(&mut r)?;
    r.globals = names.iter().map(intern).collect();
    let m = Module::decode(&mut r)?;
    (r.pos == r.buf.len()).then_some(m)
}

/// A function body's bytes, not read yet, with what reading them needs.
pub struct Unread {
    bytes: &'static [u8],
    strings: Rc<RefCell<HashMap<Rc<str>, Rc<String>>>>,
    globals: Rc<[u32]>,
}

impl Unread {
    /// The statements. The bytes were written by this build and a body is
    /// only deferred from a tree that read back to its end, so they always
    /// read; should they not, the body is refused loudly rather than run
    /// short.
    pub fn read(self) -> Vec<Stmt> {
        let mut r = Reader {
            buf: self.bytes,
            pos: 0,
            strings: self.strings,
            globals: self.globals,
            lasting: Some(self.bytes),
        };
        match <Vec<Stmt>>::decode(&mut r) {
            Some(stmts) if r.pos == self.bytes.len() => stmts,
            _ => panic!("a function body embedded by this build does not read back"),
        }
    }
}

/// A body is its length in bytes, then its statements: a lasting reader
/// skips it until it runs.
impl Codec for Body {
    fn encode(&self, w: &mut Vec<u8>) {
        let stmts = self.stmts();
        let mut b = Vec::new();
        put_uleb(&mut b, stmts.len() as u64);
        for st in stmts {
            st.encode(&mut b);
        }
        put_uleb(w, b.len() as u64);
        w.extend_from_slice(&b);
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        let n = r.len()?;
        let start = r.pos;
        let bytes = r.bytes(n)?;
        if let Some(all) = r.lasting {
            return Some(Body::unread(Unread {
                bytes: &all[start..start + n],
                strings: r.strings.clone(),
                globals: r.globals.clone(),
            }));
        }
        let mut inner = Reader {
            buf: bytes,
            pos: 0,
            strings: r.strings.clone(),
            globals: r.globals.clone(),
            lasting: None,
        };
        let stmts = <Vec<Stmt>>::decode(&mut inner)?;
        (inner.pos == n).then(|| Body::new(stmts))
    }
}

/// By hand: a global slot is renumbered into the reader's global table.
impl Codec for Slot {
    fn encode(&self, w: &mut Vec<u8>) {
        let (tag, i) = match *self {
            Slot::Unresolved => (0, None),
            Slot::Local(i) => (1, Some(i)),
            Slot::Cell(i) => (2, Some(i)),
            Slot::Global(i) => (3, Some(i)),
            Slot::ClassBody(i) => (4, Some(i)),
            Slot::Builtin(i) => (5, Some(i)),
            Slot::ClassBuiltin(i) => (6, Some(i)),
        };
        w.push(tag);
        if let Some(i) = i {
            i.encode(w);
        }
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        let tag = r.byte()?;
        if tag == 0 {
            return Some(Slot::Unresolved);
        }
        let i = u32::decode(r)?;
        let global = |r: &Reader| r.globals.get(i as usize).copied();
        Some(match tag {
            1 => Slot::Local(i),
            2 => Slot::Cell(i),
            3 => Slot::Global(global(r)?),
            4 => Slot::ClassBody(global(r)?),
            5 => Slot::Builtin(global(r)?),
            6 => Slot::ClassBuiltin(global(r)?),
            _ => return None,
        })
    }
}

impl Codec for u8 {
    fn encode(&self, w: &mut Vec<u8>) {
        w.push(*self);
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        r.byte()
    }
}

impl Codec for u32 {
    fn encode(&self, w: &mut Vec<u8>) {
        put_uleb(w, u64::from(*self));
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        u32::try_from(r.uleb()?).ok()
    }
}

impl Codec for i64 {
    fn encode(&self, w: &mut Vec<u8>) {
        put_uleb(w, ((*self << 1) ^ (*self >> 63)) as u64);
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        let v = r.uleb()?;
        Some((v >> 1) as i64 ^ -((v & 1) as i64))
    }
}

impl Codec for bool {
    fn encode(&self, w: &mut Vec<u8>) {
        w.push(u8::from(*self));
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        match r.byte()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

impl Codec for f64 {
    fn encode(&self, w: &mut Vec<u8>) {
        w.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        let b = r.bytes(8)?;
        Some(f64::from_bits(u64::from_le_bytes(b.try_into().ok()?)))
    }
}

impl Codec for char {
    fn encode(&self, w: &mut Vec<u8>) {
        put_uleb(w, u64::from(*self));
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        char::from_u32(u32::try_from(r.uleb()?).ok()?)
    }
}

impl Codec for Rc<str> {
    fn encode(&self, w: &mut Vec<u8>) {
        put_uleb(w, self.len() as u64);
        w.extend_from_slice(self.as_bytes());
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        r.str().map(Rc::from)
    }
}

impl Codec for Rc<[u8]> {
    fn encode(&self, w: &mut Vec<u8>) {
        put_uleb(w, self.len() as u64);
        w.extend_from_slice(self);
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        let n = r.len()?;
        r.bytes(n).map(Rc::from)
    }
}

impl<T: Codec> Codec for Option<T> {
    fn encode(&self, w: &mut Vec<u8>) {
        match self {
            None => w.push(0),
            Some(v) => {
                w.push(1);
                v.encode(w);
            }
        }
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        match r.byte()? {
            0 => Some(None),
            1 => Some(Some(T::decode(r)?)),
            _ => None,
        }
    }
}

impl<T: Codec> Codec for Vec<T> {
    fn encode(&self, w: &mut Vec<u8>) {
        put_uleb(w, self.len() as u64);
        for v in self {
            v.encode(w);
        }
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        let n = r.len()?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(T::decode(r)?);
        }
        Some(v)
    }
}

impl<T: Codec> Codec for Box<T> {
    fn encode(&self, w: &mut Vec<u8>) {
        (**self).encode(w);
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        T::decode(r).map(Box::new)
    }
}

impl<T: Codec> Codec for Rc<T> {
    fn encode(&self, w: &mut Vec<u8>) {
        (**self).encode(w);
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        T::decode(r).map(Rc::new)
    }
}

impl<T: Codec + Copy> Codec for Cell<T> {
    fn encode(&self, w: &mut Vec<u8>) {
        self.get().encode(w);
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        T::decode(r).map(Cell::new)
    }
}

impl<T: Codec> Codec for RefCell<T> {
    fn encode(&self, w: &mut Vec<u8>) {
        self.borrow().encode(w);
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        T::decode(r).map(RefCell::new)
    }
}

impl<A: Codec, B: Codec> Codec for (A, B) {
    fn encode(&self, w: &mut Vec<u8>) {
        self.0.encode(w);
        self.1.encode(w);
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        Some((A::decode(r)?, B::decode(r)?))
    }
}

/// By hand for its two shared kinds: string constants go through the
/// lowering's interning, long ints are their two's-complement bytes.
impl Codec for Constant {
    fn encode(&self, w: &mut Vec<u8>) {
        match self {
            Constant::None => w.push(0),
            Constant::Bool(b) => {
                w.push(1);
                b.encode(w);
            }
            Constant::Int(i) => {
                w.push(2);
                i.encode(w);
            }
            Constant::Long(n) => {
                w.push(3);
                let b: Rc<[u8]> = n.to_signed_bytes_le().into();
                b.encode(w);
            }
            Constant::Float(f) => {
                w.push(4);
                f.encode(w);
            }
            Constant::Imaginary(f) => {
                w.push(5);
                f.encode(w);
            }
            Constant::Str(s) => {
                w.push(6);
                put_uleb(w, s.len() as u64);
                w.extend_from_slice(s.as_bytes());
            }
            Constant::Bytes(b) => {
                w.push(7);
                b.encode(w);
            }
            Constant::Ellipsis => w.push(8),
        }
    }
    fn decode(r: &mut Reader) -> Option<Self> {
        Some(match r.byte()? {
            0 => Constant::None,
            1 => Constant::Bool(bool::decode(r)?),
            2 => Constant::Int(i64::decode(r)?),
            3 => {
                let b = <Rc<[u8]>>::decode(r)?;
                Constant::Long(Rc::new(num_bigint::BigInt::from_signed_bytes_le(&b)))
            }
            4 => Constant::Float(f64::decode(r)?),
            5 => Constant::Imaginary(f64::decode(r)?),
            6 => {
                let s = Rc::from(r.str()?);
                Constant::Str(super::lower::intern_constant(
                    s,
                    &mut r.strings.borrow_mut(),
                ))
            }
            7 => Constant::Bytes(<Rc<[u8]>>::decode(r)?),
            8 => Constant::Ellipsis,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests;
