//! The secret part and request binding through the public codec: tamper
//! properties under a re-MAC, purpose and tool binding of the secret,
//! rotation, and the request digest (docs/format.md, "s" and "q").

#![cfg(all(feature = "edge", feature = "jcs"))]

mod common;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use hmac::{Hmac, Mac};
use mcp_sealed_state::{Codec, OpenWith, Reason, Request, SealError, SealWith};
use sha2::Sha256;

const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";
const OLD: &[u8] = b"an older key, still opening tokens";

fn codec(keys: &[&[u8]]) -> Codec {
    common::codec_with(keys, |_| {})
}

/// The body JSON of a token.
fn body(token: &str) -> String {
    let b = token.split('.').nth(1).unwrap();
    String::from_utf8(B64.decode(b).unwrap()).unwrap()
}

/// A token with this body, MACed with `key` as a key holder would.
fn remac(key: &[u8], body_json: &str) -> String {
    let signed = format!("v1.{}", B64.encode(body_json));
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
    mac.update(signed.as_bytes());
    format!("{signed}.{}", B64.encode(mac.finalize().into_bytes()))
}

/// The value of `s` in a body.
fn secret_of(body_json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(body_json).unwrap();
    v["p"]["s"].as_str().unwrap().to_owned()
}

fn reason<T: std::fmt::Debug>(r: Result<T, mcp_sealed_state::SealedStateError>) -> Reason {
    r.unwrap_err().reason()
}

#[test]
fn a_secret_opens_and_stays_out_of_the_readable_payload() {
    let c = codec(&[KEY]);
    let t = c
        .seal(
            "{\"board\":1}",
            &SealWith::view().secret("{\"seed\":42}").bind("u1"),
        )
        .unwrap();
    let opened = c.open(&t, &OpenWith::view().bind("u1")).unwrap();
    assert_eq!(opened.payload.payload_json(), "{\"board\":1}");
    assert_eq!(opened.secret.as_deref(), Some("{\"seed\":42}"));
    // open() is unchanged: payload only.
    assert_eq!(
        c.open(&t, &OpenWith::view().bind("u1"))
            .unwrap()
            .payload_json(),
        "{\"board\":1}"
    );
    assert!(!body(&t).contains("seed"));
    let view = mcp_sealed_state::read_token_unverified(&t).unwrap();
    assert_eq!(view.secret_bytes, Some(24 + 11 + 16));
    // 40 bytes plus 4/3 of the JSON, as base64url.
    assert_eq!(
        secret_of(&body(&t)).len(),
        ((24 + 11 + 16usize) * 4).div_ceil(3)
    );
    // No secret: none comes back, and the token is the plain one.
    let plain = c.seal("1", &SealWith::view()).unwrap();
    assert_eq!(plain, c.seal("1", &SealWith::view()).unwrap());
    assert_eq!(c.open(&plain, &OpenWith::view()).unwrap().secret, None);
}

#[test]
fn every_byte_change_of_nonce_ciphertext_or_tag_is_refused_as_mac() {
    let c = codec(&[KEY]);
    let t = c.seal("0", &SealWith::view().secret("[1,\"x\"]")).unwrap();
    let b = body(&t);
    let sealed = B64.decode(secret_of(&b)).unwrap();
    for i in 0..sealed.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut changed = sealed.clone();
            changed[i] ^= flip;
            let forged = remac(KEY, &b.replace(&secret_of(&b), &B64.encode(&changed)));
            assert_eq!(
                reason(c.open(&forged, &OpenWith::view())),
                Reason::Mac,
                "{i}"
            );
        }
    }
    // Too short for a nonce and a tag, or not canonical base64url: malformed.
    for s in ["", "AAAA", &B64.encode([0u8; 39]), "AB", "a+b/", "AAAAAB"] {
        let forged = remac(KEY, &b.replace(&secret_of(&b), s));
        assert_eq!(
            reason(c.open(&forged, &OpenWith::view())),
            Reason::Malformed,
            "{s}"
        );
    }
    let forged = remac(KEY, &b.replace(&format!("\"{}\"", secret_of(&b)), "7"));
    assert_eq!(
        reason(c.open(&forged, &OpenWith::view())),
        Reason::Malformed
    );
    // Without the key holder's re-MAC, any change is the token's MAC.
    assert_eq!(
        reason(c.open(&t.replacen("v1.e", "v1.f", 1), &OpenWith::view())),
        Reason::Mac
    );
}

#[test]
fn a_secret_moved_to_another_purpose_or_tool_is_refused() {
    let c = codec(&[KEY]);
    let view = c.seal("0", &SealWith::view().secret("\"v\"")).unwrap();
    let rs = c
        .seal("0", &SealWith::request_state("move").secret("\"r\""))
        .unwrap();
    let s_view = secret_of(&body(&view));
    let rs_body = body(&rs);
    let moved = remac(KEY, &rs_body.replace(&secret_of(&rs_body), &s_view));
    let open = |t: &str, tool| c.open(t, &OpenWith::request_state(tool));
    assert_eq!(reason(open(&moved, "move")), Reason::Mac);
    // Another tool's: the same token, its `o` rewritten.
    let other = remac(KEY, &rs_body.replace("\"o\":\"move\"", "\"o\":\"undo\""));
    assert_eq!(reason(open(&other, "undo")), Reason::Mac);
    assert_eq!(open(&rs, "move").unwrap().secret.as_deref(), Some("\"r\""));
    // requestState's secret into a view token.
    let view_body = body(&view);
    let back = remac(KEY, &view_body.replace(&s_view, &secret_of(&rs_body)));
    assert_eq!(reason(c.open(&back, &OpenWith::view())), Reason::Mac);
}

#[test]
fn rotation_opens_old_key_secrets() {
    let old = codec(&[OLD]);
    let t = old
        .seal("1", &SealWith::view().secret("{\"k\":\"v\"}"))
        .unwrap();
    let rotated = codec(&[KEY, OLD]);
    assert_eq!(
        rotated
            .open(&t, &OpenWith::view())
            .unwrap()
            .secret
            .as_deref(),
        Some("{\"k\":\"v\"}")
    );
    // A key holder of another key who re-MACs with it cannot decrypt.
    let stolen = remac(KEY, &body(&t));
    assert_eq!(
        reason(codec(&[KEY]).open(&stolen, &OpenWith::view())),
        Reason::Mac
    );
}

#[test]
fn keys_that_hmac_keys_alike_are_refused_as_one_key() {
    use mcp_sealed_state::{CodecOptions, ConfigError, KeyError};
    let padded = [KEY, b"\0"].concat();
    let long = [b'L'; 65];
    let digest = <Sha256 as sha2::Digest>::digest(long).to_vec();
    // Why they must be one key: the MAC takes them alike, the secret part's
    // derived key does not, so a token by one opens with `open` and fails
    // the secret part with the other.
    for (a, b) in [(KEY, &padded[..]), (&long[..], &digest[..])] {
        let plain = codec(&[b]).seal("1", &SealWith::view()).unwrap();
        let t = codec(&[b])
            .seal("1", &SealWith::view().secret("2"))
            .unwrap();
        let other = codec(&[a]);
        assert_eq!(
            other
                .open(&plain, &OpenWith::view())
                .unwrap()
                .payload_json(),
            "1"
        );
        assert_eq!(reason(other.open(&t, &OpenWith::view())), Reason::Mac);
        for keys in [[a, b], [b, a]] {
            let keys: Vec<Vec<u8>> = keys.iter().map(|k| k.to_vec()).collect();
            let err = Codec::new(CodecOptions::with_keys(keys)).unwrap_err();
            assert_eq!(
                err,
                ConfigError::Key(KeyError::Duplicate { index: 1, first: 0 })
            );
            assert!(
                err.to_string().contains("the same key as key #0 to HMAC"),
                "{err}"
            );
        }
    }
    // Keys that differ for HMAC stay two keys.
    let other = [b"\0", KEY].concat();
    assert!(Codec::new(CodecOptions::with_keys(vec![KEY.to_vec(), other])).is_ok());
}

#[test]
fn bad_secrets_are_refused_at_seal() {
    let c = common::codec_with(&[KEY], |o| o.max_token_bytes = 1000);
    assert_eq!(
        c.seal("1", &SealWith::view().secret("{")),
        Err(SealError::SecretNotJson)
    );
    let big = format!("\"{}\"", "x".repeat(2000));
    assert!(matches!(
        c.seal("1", &SealWith::view().secret(big.as_str())),
        Err(SealError::TokenTooLarge { .. })
    ));
}

fn seal_rs(c: &Codec, request: Option<&str>) -> String {
    let with = SealWith::request_state("move").request(request.map(Request::Json));
    c.seal("{\"n\":1}", &with).unwrap()
}

fn open_rs(c: &Codec, t: &str, request: Option<&str>) -> Result<String, Reason> {
    let with = OpenWith::request_state("move").request(request.map(Request::Json));
    c.open(t, &with)
        .map(|o| o.payload.into_payload_json())
        .map_err(|e| e.reason())
}

#[test]
fn request_binding_fails_closed_both_ways() {
    let c = codec(&[KEY]);
    let t = seal_rs(&c, Some("{\"x\":1,\"y\":[true,\"a\"]}"));
    // Key order, whitespace and number spelling do not matter.
    assert_eq!(
        open_rs(&c, &t, Some("{ \"y\" : [true,\"\\u0061\"], \"x\" : 1.0 }")).as_deref(),
        Ok("{\"n\":1}")
    );
    for changed in [
        "{\"x\":2,\"y\":[true,\"a\"]}",
        "{\"x\":1}",
        "{\"x\":1,\"y\":[true,\"a\"],\"z\":0}",
        "null",
        "{",
    ] {
        assert_eq!(
            open_rs(&c, &t, Some(changed)),
            Err(Reason::Request),
            "{changed}"
        );
    }
    // Missing request on open, or one given for a token sealed without.
    assert_eq!(open_rs(&c, &t, None), Err(Reason::Request));
    assert_eq!(
        c.open(&t, &OpenWith::request_state("move"))
            .unwrap_err()
            .reason(),
        Reason::Request
    );
    let plain = seal_rs(&c, None);
    assert_eq!(open_rs(&c, &plain, Some("{}")), Err(Reason::Request));
    assert!(open_rs(&c, &plain, None).is_ok());
    // A tampered digest under a key holder's re-MAC.
    let b = body(&t);
    let q = serde_json::from_str::<serde_json::Value>(&b).unwrap()["p"]["q"]
        .as_str()
        .unwrap()
        .to_owned();
    let forged = remac(KEY, &b.replace(&q, &"A".repeat(22)));
    assert_eq!(
        open_rs(&c, &forged, Some("{\"x\":1,\"y\":[true,\"a\"]}")),
        Err(Reason::Request)
    );
    // Rotation: checked with the key whose MAC matched.
    let rotated = codec(&[OLD, KEY]);
    assert!(open_rs(&rotated, &t, Some("{\"y\":[true,\"a\"],\"x\":1}")).is_ok());
    // A request with no canonical form is refused at seal.
    let with = SealWith::request_state("move").request(Request::Json("[1e999]"));
    assert!(matches!(c.seal("1", &with), Err(SealError::Request(_))));
}

#[test]
fn the_request_digest_is_specs() {
    let c = codec(&[KEY]);
    let t = seal_rs(&c, Some("{\"b\":2,\"a\":1}"));
    let v: serde_json::Value = serde_json::from_str(&body(&t)).unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(KEY).unwrap();
    mac.update(b"mcp-sealed-state/v1/request:{\"a\":1,\"b\":2}");
    let want = B64.encode(&mac.finalize().into_bytes()[..16]);
    assert_eq!(v["p"]["q"], want.as_str());
    assert_eq!(
        body(&t).split("\"exp\"").next().unwrap(),
        format!("{{\"p\":{{\"p\":\"r\",\"d\":{{\"n\":1}},\"o\":\"move\",\"q\":\"{want}\"}},")
    );
}
