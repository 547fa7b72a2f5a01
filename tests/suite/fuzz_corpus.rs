//! The fuzz targets on stable Rust, in every test run: each target's committed corpus
//! (fuzz/corpus/TARGET: seeds, the inputs the fuzzer kept as covering new paths after
//! minimising, and every crash it found, now fixed) is replayed through the same function
//! cargo-fuzz runs, and then random byte strings and mutations of the corpus go through it,
//! so a regression of any finding fails here without a nightly toolchain.

use std::path::Path;

use proptest::prelude::*;
use scramblebot::fuzz::TARGETS;

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

#[test]
fn every_target_takes_its_whole_corpus() {
    for (name, target) in TARGETS {
        let inputs = corpus(name);
        assert!(!inputs.is_empty(), "no corpus for {name}");
        for input in &inputs {
            target(input);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn every_target_takes_mutated_corpus_inputs(
        which in 0..TARGETS.len(),
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8),
    ) {
        let (name, target) = TARGETS[which];
        let inputs = corpus(name);
        let mut input = inputs[pick.index(inputs.len())].clone();
        for (at, byte, how) in edits {
            let i = if input.is_empty() { 0 } else { at.index(input.len()) };
            match how {
                0 if !input.is_empty() => input[i] = byte,
                1 => input.insert(i, byte),
                _ => input.truncate(i),
            }
        }
        target(&input);
    }

    #[test]
    fn every_target_takes_random_bytes(
        which in 0..TARGETS.len(),
        input in prop::collection::vec(any::<u8>(), 0..512),
    ) {
        (TARGETS[which].1)(&input);
    }
}
