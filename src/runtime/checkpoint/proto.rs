//! The protocol-buffer wire format, as much of it as checkpoints use:
//! varints, length-delimited fields and fixed32 (the bundle's CRCs). Writing
//! follows the C++ and Python serializers' field order (ascending field
//! numbers, proto3 defaults left out) so that the bytes equal TensorFlow's;
//! reading skips fields it does not know, as protobuf readers do.

/// Appends `v` as a base-128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A message being serialized.
#[derive(Default)]
pub struct Writer {
    /// The bytes so far.
    pub buf: Vec<u8>,
}

impl Writer {
    /// An empty message.
    pub fn new() -> Writer {
        Writer::default()
    }

    fn tag(&mut self, field: u32, wire: u8) {
        put_varint(&mut self.buf, ((field as u64) << 3) | wire as u64);
    }

    /// A varint field, left out when it is zero (proto3's default).
    pub fn varint(&mut self, field: u32, v: u64) -> &mut Self {
        if v != 0 {
            self.varint_always(field, v);
        }
        self
    }

    /// A varint field, written even when zero (a set field of a wrapper or
    /// a repeated element).
    pub fn varint_always(&mut self, field: u32, v: u64) -> &mut Self {
        self.tag(field, 0);
        put_varint(&mut self.buf, v);
        self
    }

    /// A length-delimited field (bytes, string or a nested message), always
    /// written (a set message field is written even when empty).
    pub fn bytes(&mut self, field: u32, data: &[u8]) -> &mut Self {
        self.tag(field, 2);
        put_varint(&mut self.buf, data.len() as u64);
        self.buf.extend_from_slice(data);
        self
    }

    /// A string field, left out when empty (proto3's default).
    pub fn string(&mut self, field: u32, s: &str) -> &mut Self {
        if !s.is_empty() {
            self.bytes(field, s.as_bytes());
        }
        self
    }

    /// A fixed32 field, left out when zero.
    pub fn fixed32(&mut self, field: u32, v: u32) -> &mut Self {
        if v != 0 {
            self.tag(field, 5);
            self.buf.extend_from_slice(&v.to_le_bytes());
        }
        self
    }
}

/// One field's value as it was on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Field<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2.
    Bytes(&'a [u8]),
    /// Wire type 5.
    Fixed32(u32),
}

impl<'a> Field<'a> {
    /// The value as an integer (a varint or fixed field), else 0.
    pub fn int(self) -> u64 {
        match self {
            Field::Varint(v) | Field::Fixed64(v) => v,
            Field::Fixed32(v) => v as u64,
            Field::Bytes(_) => 0,
        }
    }

    /// The bytes of a length-delimited field, else empty.
    pub fn data(self) -> &'a [u8] {
        match self {
            Field::Bytes(b) => b,
            _ => &[],
        }
    }

    /// The field as UTF-8 text (invalid bytes replaced).
    pub fn text(self) -> String {
        String::from_utf8_lossy(self.data()).into_owned()
    }
}

/// Reads a varint at `*pos`, advancing it; `None` past the end or on a
/// varint longer than ten bytes.
pub fn get_varint(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..70).step_by(7) {
        let b = *data.get(*pos)?;
        *pos += 1;
        v |= ((b & 0x7f) as u64).checked_shl(shift).unwrap_or(0);
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// The fields of a serialized message in wire order, or `None` when the
/// bytes are not a well-formed message.
pub fn fields(data: &[u8]) -> Option<Vec<(u32, Field<'_>)>> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let key = get_varint(data, &mut pos)?;
        let field = u32::try_from(key >> 3).ok()?;
        let value = match key & 7 {
            0 => Field::Varint(get_varint(data, &mut pos)?),
            1 => {
                let b = data.get(pos..pos.checked_add(8)?)?;
                pos += 8;
                Field::Fixed64(u64::from_le_bytes(b.try_into().ok()?))
            }
            2 => {
                let n = usize::try_from(get_varint(data, &mut pos)?).ok()?;
                let b = data.get(pos..pos.checked_add(n)?)?;
                pos += n;
                Field::Bytes(b)
            }
            5 => {
                let b = data.get(pos..pos.checked_add(4)?)?;
                pos += 4;
                Field::Fixed32(u32::from_le_bytes(b.try_into().ok()?))
            }
            _ => return None,
        };
        out.push((field, value));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, 1 << 35, u64::MAX] {
            let mut buf = Vec::new();
            put_varint(&mut buf, v);
            let mut pos = 0;
            assert_eq!(get_varint(&buf, &mut pos), Some(v));
            assert_eq!(pos, buf.len());
        }
        let mut buf = Vec::new();
        put_varint(&mut buf, 300);
        assert_eq!(buf, [0xac, 0x02]);
    }

    #[test]
    fn message_round_trips() {
        let mut w = Writer::new();
        w.varint(1, 7)
            .varint(2, 0)
            .string(3, "ab")
            .fixed32(6, 0xdead_beef);
        let f = fields(&w.buf).unwrap();
        assert_eq!(
            f,
            vec![
                (1, Field::Varint(7)),
                (3, Field::Bytes(b"ab")),
                (6, Field::Fixed32(0xdead_beef)),
            ]
        );
    }

    #[test]
    fn truncated_messages_are_refused() {
        assert_eq!(fields(&[0x0a, 0x05, b'a']), None);
        assert_eq!(fields(&[0x08]), None);
        assert_eq!(fields(&[0x0b]), None);
    }
}
