//! The hostile-input table, tests/vectors/hostile.json: every byte of a token
//! comes back from the client, so each case says which reason each way of
//! opening gives (with the one stable message), what the same token with a
//! broken MAC gives (so a case fails at the step it is about, not at the MAC),
//! and what the UNVERIFIED reader (the widget's) makes of it. js/suite runs the
//! same file in every JS runtime. The tests below the runner need code: they
//! call internal functions or check how the table builds a token.
#![cfg(all(feature = "edge", not(target_arch = "wasm32")))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;
#[path = "common/table.rs"]
mod table;

use common::KEY;
use mcp_sealed_state::internals::wire;
use mcp_sealed_state::{Reason, SealError, SealWith, DEFAULT_MAX_TOKEN_BYTES};

const HOSTILE: &str = include_str!("vectors/hostile.json");

#[test]
fn every_case_of_the_hostile_table() {
    let (cases, tokens, checks) = table::run(HOSTILE);
    assert!(
        cases >= 119 && tokens >= 302,
        "the table is complete: {cases} cases, {tokens} tokens"
    );
    println!("{cases} cases, {tokens} tokens, {checks} checks");
}

/// Step 1 is a length comparison, the first statement of `wire::split`: the
/// oversized rows are refused there, before any key is used.
#[test]
fn oversized_tokens_are_refused_by_the_first_statement_of_split() {
    for name in [
        "row19 over 1 MiB with a genuine MAC: refused before hashing at the default limit, opened by a codec whose limit allows it",
        "row20 100 MiB refused before hashing, whatever the limit",
    ] {
        let t = table::token_of(HOSTILE, name);
        assert_eq!(wire::split(t.as_bytes(), DEFAULT_MAX_TOKEN_BYTES), Err(Reason::Malformed));
    }
}

/// The non-canonical body of row 11 decodes, leniently, to the very bytes of
/// its envelope: only the spelling of the spare bits differs.
#[test]
fn the_non_canonical_body_differs_only_in_its_spare_bits() {
    use base64::Engine as _;
    let t = table::token_of(HOSTILE, "row11 non-canonical trailing bits in the body");
    let body = t.split('.').nth(1).unwrap();
    let lenient = base64::engine::GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::RequireNone),
    );
    let strict = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    assert!(strict.decode(body).is_err());
    let bytes = lenient.decode(body).unwrap();
    assert!(std::str::from_utf8(&bytes)
        .unwrap()
        .starts_with(r#"{"p":{"p":"v","d":"x"}"#));
}

/// A token over `max_token_bytes` is refused when sealing, whichever way it is
/// sealed (a long tool name included), since the same codec could never open it.
/// Sealing errors are not openings, so this is not a case of the table.
#[test]
fn regression_seal_request_state_refuses_a_token_over_the_limit() {
    let c = common::codec_with(&[KEY], |o| o.max_token_bytes = 3000);
    let tool = "\0".repeat(400); // each NUL is written as \u0000: 2,400 bytes of JSON
    match c.seal("1", &SealWith::request_state(&tool)) {
        Err(SealError::TokenTooLarge { bytes, max_bytes }) => {
            assert!(bytes > 3000 && max_bytes == 3000)
        }
        other => panic!("expected TokenTooLarge, got {other:?}"),
    }
    let big = format!("\"{}\"", "x".repeat(3000));
    for with in [
        SealWith::view(),
        SealWith::raw(),
        SealWith::request_state("move"),
    ] {
        assert!(matches!(
            c.seal(&big, &with),
            Err(SealError::TokenTooLarge { .. })
        ));
    }
    let t = c.seal("1", &SealWith::request_state("\0")).unwrap();
    let opened = c.open(&t, &mcp_sealed_state::OpenWith::request_state("\0"));
    assert_eq!(opened.unwrap().payload_json(), "1");
}
