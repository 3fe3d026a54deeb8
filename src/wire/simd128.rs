//! The base64url decode's kernel with wasm SIMD128: 16 characters at a
//! time, for builds made with `-C target-feature=+simd128` (the edge build,
//! see `js/build.mjs`). Neither the `base64` crate nor LLVM's autovectorizer
//! vectorizes this decode for wasm, and the decode of a token's body is a
//! large part of opening it. The scalar kernel does the tail and is the
//! reference: `tests/wasm_edge.rs` runs both on the same inputs in wasm, and
//! the scalar one is checked against the `base64` crate natively.

use core::arch::wasm32::{
    i16x8, i16x8_shl, i32x4_dot_i16x8, i8x16, i8x16_add, i8x16_eq, i8x16_splat, i8x16_swizzle,
    u16x8_shr, u32x4_extract_lane, u64x2, u64x2_extract_lane, u8x16_shr, u8x16_splat, v128,
    v128_and, v128_any_true, v128_or,
};

/// The 16 characters as a vector: two 8-byte loads (16 lane inserts, the
/// other safe spelling, cost more than the rest of the block).
#[inline(always)]
fn load(c: &[u8; 16]) -> v128 {
    let (lo, hi) = c.split_at(8);
    let word = |h: &[u8]| u64::from_le_bytes(h.try_into().unwrap_or([0; 8]));
    u64x2(word(lo), word(hi))
}

/// The sextets of 16 characters, and the lanes that are not base64url
/// (nonzero there). By nibble lookups, three swizzles for 16 characters
/// (Muła's method, its tables made for the url alphabet), which take half
/// the instructions of a test per character range.
///
/// Validity: the high nibble picks a row class (a bit of `ROW`), the low
/// nibble's entry in `INVALID_IN` has that bit set when the byte is not in
/// the alphabet: row 2 holds only `-` (lo D), row 3 the digits (lo 0-9),
/// rows 4 and 6 letters (lo 1-F), row 5 letters (lo 0-A) and `_` (lo F),
/// row 7 letters (lo 0-A); every other row (control, space, non-ASCII) none.
#[inline(always)]
fn sextets(c: v128) -> (v128, v128) {
    const INVALID_IN: v128 = i8x16(
        0x25, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x23, 0x3b, 0x3b, 0x3a, 0x3b,
        0x33,
    );
    const ROW: v128 = i8x16(
        0x20, 0x20, 0x01, 0x02, 0x04, 0x08, 0x04, 0x10, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
        0x20,
    );
    // What to add to each character, by row: '-' -> 62, '0' -> 52, 'A' -> 0, 'a' -> 26
    // ('_', in row 5 with 'P'..'Z', is fixed up after: -65 + 33 -> 63).
    const OFFSET: v128 = i8x16(0, 0, 17, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    let hi = u8x16_shr(c, 4);
    let lo = v128_and(c, u8x16_splat(0x0f));
    let invalid = v128_and(i8x16_swizzle(INVALID_IN, lo), i8x16_swizzle(ROW, hi));
    let under = v128_and(i8x16_eq(c, i8x16_splat(b'_' as i8)), i8x16_splat(33));
    let offset = i8x16_add(i8x16_swizzle(OFFSET, hi), under);
    (i8x16_add(c, offset), invalid)
}

/// 16 sextets (one per byte) packed into 12 bytes, in lanes 0..3 of the result.
#[inline(always)]
fn pack(s: v128) -> v128 {
    // Pairs: (s0 << 6) | s1 in each 16-bit lane (12 bits).
    let pairs = v128_or(
        i16x8_shl(
            v128_and(
                s,
                i8x16(-1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0),
            ),
            6,
        ),
        u16x8_shr(s, 8),
    );
    // Quads: (pair0 << 12) | pair1 in each 32-bit lane (24 bits), as one
    // multiply-add (pair0 * 4096 + pair1): one instruction where a mask, two
    // shifts and an or are four.
    let quads = i32x4_dot_i16x8(pairs, i16x8(4096, 1, 4096, 1, 4096, 1, 4096, 1));
    // Each lane holds its 3 bytes little-endian: take them big-endian.
    i8x16_swizzle(
        quads,
        i8x16(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1),
    )
}

/// Decode the leading whole 16-character blocks of `b`, appending 12 bytes
/// per block to `out`; returns how many characters it took and whether any
/// of them was outside the alphabet (then what it appended is garbage, and
/// the caller fails the decode). `out` has room reserved for them.
pub(super) fn decode_blocks(b: &[u8], out: &mut Vec<u8>) -> (usize, bool) {
    let blocks = b.len() / 16;
    let start = out.len();
    // Within the reserved capacity, so no allocation.
    out.resize(start + blocks * 12, 0);
    let Some(dst) = out.get_mut(start..) else {
        out.truncate(start);
        return (0, false);
    };
    let mut bad = i8x16_splat(0);
    for (block, d) in b.chunks_exact(16).zip(dst.chunks_exact_mut(12)) {
        let (Ok(chars), (d8, d4)) = (<&[u8; 16]>::try_from(block), d.split_at_mut(8)) else {
            continue;
        };
        let (s, invalid) = sextets(load(chars));
        bad = v128_or(bad, invalid);
        let bytes = pack(s);
        d8.copy_from_slice(&u64x2_extract_lane::<0>(bytes).to_le_bytes());
        d4.copy_from_slice(&u32x4_extract_lane::<2>(bytes).to_le_bytes());
    }
    (blocks * 16, v128_any_true(bad))
}
