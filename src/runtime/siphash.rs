//! SipHash-2-4 (highwayhash's `SipHash`, behind TensorFlow's
//! `StrongKeyedHash` and `tf.strings.to_hash_bucket_strong`): bucket =
//! hash(key, s) % num_buckets.

fn round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13);
    v[1] ^= v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16);
    v[3] ^= v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21);
    v[3] ^= v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17);
    v[1] ^= v[2];
    v[2] = v[2].rotate_left(32);
}

/// SipHash-2-4 of `s` under the 128-bit key `(k0, k1)`.
pub fn siphash24(k0: u64, k1: u64, s: &[u8]) -> u64 {
    let mut v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    let (blocks, rest) = s.as_chunks::<8>();
    let mut compress = |m: u64| {
        v[3] ^= m;
        round(&mut v);
        round(&mut v);
        v[0] ^= m;
    };
    for block in blocks {
        compress(u64::from_le_bytes(*block));
    }
    let mut last = [0u8; 8];
    last[..rest.len()].copy_from_slice(rest);
    last[7] = s.len() as u8;
    compress(u64::from_le_bytes(last));
    v[2] ^= 0xff;
    for _ in 0..4 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

/// `StringToHashBucketStrong`: each string's keyed SipHash modulo
/// `num_buckets`, as int64, in the input's shape.
pub fn to_hash_bucket_strong(
    t: &crate::runtime::Tensor,
    num_buckets: u64,
    key: [u64; 2],
    name: &str,
) -> crate::runtime::Result<crate::runtime::Tensor> {
    super::farmhash::string_buckets(t, "StringToHashBucketStrong", name, num_buckets, |s| {
        siphash24(key[0], key[1], s)
    })
}

#[cfg(test)]
mod tests {
    use super::siphash24;

    /// The reference vector of the SipHash paper (key 00..0f, empty input)
    /// and TensorFlow's documented buckets: `to_hash_bucket_strong(["Hello",
    /// "TF"], 3, [1, 2])` is `[2, 0]`.
    #[test]
    fn reference_values() {
        let k0 = u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7]);
        let k1 = u64::from_le_bytes([8, 9, 10, 11, 12, 13, 14, 15]);
        assert_eq!(siphash24(k0, k1, b""), 0x726f_db47_dd0e_0e31);
        let got: Vec<u64> = ["Hello", "TF"]
            .iter()
            .map(|s| siphash24(1, 2, s.as_bytes()) % 3)
            .collect();
        assert_eq!(got, [2, 0]);
    }
}
