//! The fuzz targets' checks (`fuzz_targets/decode.rs`, `engine.rs`) on
//! inputs a seeded generator makes, so that `cargo test` runs them on
//! every change without a fuzzer or a nightly compiler. A fuzzer runs
//! them far longer, steered by coverage.

mod decode;
mod engine;

use proptest::prelude::*;
use proptest::test_runner::Config;

/// Bytes shaped like packed tuples: type codes, each followed by a few
/// bytes where the end marker `00` and its escape `ff` are frequent.
fn tuple_like() -> impl Strategy<Value = Vec<u8>> {
    const CODES: &[u8] = &[
        0x00, 0x01, 0x02, 0x05, 0x0b, 0x0c, 0x13, 0x14, 0x15, 0x16, 0x1c, 0x1d, 0x20, 0x21, 0x26,
        0x27, 0x30, 0x32, 0x33, 0xff,
    ];
    let payload = prop::collection::vec(prop_oneof![Just(0u8), Just(0xff), any::<u8>()], 0..12);
    let chunk = (prop::sample::select(CODES), payload).prop_map(|(code, mut rest)| {
        rest.insert(0, code);
        rest
    });
    prop::collection::vec(chunk, 0..6).prop_map(|chunks| chunks.concat())
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(4000))]

    #[test]
    fn the_decoder_agrees_with_the_tuple_crate(bytes in tuple_like()) {
        decode::check(&bytes);
    }

    #[test]
    fn the_decoder_agrees_on_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..48)) {
        decode::check(&bytes);
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn generated_scripts_run_or_fail_with_typed_errors(input in prop::collection::vec(any::<u8>(), 0..96)) {
        engine::check(&input);
    }
}

/// Inputs found by fuzzing or worth keeping: each stays fixed.
#[test]
fn kept_inputs() {
    for bytes in [
        &b""[..],
        b"\x05\x00",
        b"\x00\xff",
        b"\x05\x00\xff\x00",
        b"\x15",
        b"\x20\x00\x00\x00",
    ] {
        decode::check(bytes);
    }
    // Deeper than fql's tuples may nest, as a key and as a value; and a
    // string of as many 05 bytes.
    decode::check(&[0x05; 5000]);
    let mut string = vec![0x01; 1];
    string.extend([0x05; 5000]);
    string.push(0x00);
    decode::check(&string);
    let mut deep = vec![0x05; 150];
    deep.extend(vec![0x00; 150]);
    decode::check(&deep);
    engine::check(b"");
    engine::check(&[2, 0, 0, 0, 1, 3, 9, 9, 0, 4, 4, 4, 4]);
}
