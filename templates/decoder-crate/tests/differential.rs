//! The word-at-a-time decoder against the byte-at-a-time one. Random bytes
//! are continuation bytes half the time: streams of up to 40 bytes hold
//! valid lists, cut-off, overlong and overflowing varints alike.
use crossdec_engine::bytes::{ByteSpec, Payload};
use crossdec_engine::proptest::prelude::*;
use crossdec_engine::{Campaign, Category, RunOptions};
use varint_decoder::{decode, decode_obvious};

#[test]
fn the_word_decoder_agrees_with_the_obvious_one() {
    let streams = prop::collection::vec(any::<u8>(), 0..40).prop_map(Payload);
    let categories = vec![Category::from_strategy("streams", 1.0, streams)];
    let campaign = Campaign::new(ByteSpec::new("varints", decode_obvious, categories))
        .kernel_fn("word", |input: &Payload| decode(&input.0));
    campaign.assert_agrees(&RunOptions::default());
    // A reproducer a failed run printed (TooLong taken for Truncated), kept.
    campaign.replay_hex("word", &["8080808080"]).unwrap();
}
