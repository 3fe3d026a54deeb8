//! The string scan's kernel with wasm SIMD128: 16 bytes at a time, for
//! builds made with `-C target-feature=+simd128` (the edge build, see
//! `js/build.mjs`). Strings are most of an app's payload JSON and mostly
//! shorter than 16 bytes, so one block test finds the end of most of them.
//! The scalar kernel does the last 15 bytes and is the reference the wasm
//! tests hold this one to.

use core::arch::wasm32::{
    i8x16_bitmask, i8x16_eq, i8x16_splat, u64x2, u8x16_lt, u8x16_splat, v128_or,
};

/// Index in `rest` of its first byte that ends a string's plain run (`"`,
/// `\` or a control character), or `None` when there is none.
#[inline(always)]
pub(super) fn plain_run(rest: &[u8]) -> Option<usize> {
    let mut blocks = rest.chunks_exact(16);
    let mut at = 0;
    for block in blocks.by_ref() {
        let (lo, hi) = block.split_at(8);
        let word = |h: &[u8]| u64::from_le_bytes(h.try_into().unwrap_or([0; 8]));
        let v = u64x2(word(lo), word(hi));
        let stops = v128_or(
            v128_or(
                i8x16_eq(v, i8x16_splat(b'"' as i8)),
                i8x16_eq(v, i8x16_splat(b'\\' as i8)),
            ),
            u8x16_lt(v, u8x16_splat(0x20)),
        );
        let mask = i8x16_bitmask(stops);
        if mask != 0 {
            return Some(at + mask.trailing_zeros() as usize);
        }
        at += 16;
    }
    super::plain_run_scalar(blocks.remainder()).map(|n| at + n)
}
