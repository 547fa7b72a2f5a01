//! Tests of `scramblebot daemon`'s lines (`cli/daemon.rs`), kept apart so the command's file
//! holds the command.

use super::*;
use scramblebot::daemon::history::RoundRecord;

fn ended_line(record: RoundRecord) -> String {
    line(&Event::RoundEnded {
        record: Box::new(record),
    })
    .unwrap()
}

#[test]
fn a_rounds_line_says_what_the_score_told_and_when_it_was_never_read() {
    let played = RoundRecord {
        serial: "emulator-5554".into(),
        words_entered: 178,
        words_planned: 178,
        points_claimed: 1220,
        max_points: 1220,
        ended: Ended::AllWords,
        ..Default::default()
    };
    let told = ended_line(RoundRecord {
        points_seen: Some(1180),
        score_looked: true,
        words_taken: Some(170),
        words_refused: Some(2),
        words_unknown: Some(4),
        ..played.clone()
    });
    assert!(told.contains("the game shows 1180"), "{told}");
    assert!(told.contains("it took 170 words, refused 2"), "{told}");
    assert!(told.contains("4 not told apart by the score"), "{told}");
    let unread = ended_line(RoundRecord {
        score_looked: true,
        ..played.clone()
    });
    assert!(
        unread.contains("the game's score not read surely"),
        "{unread}"
    );
    assert!(!unread.contains("shows"), "{unread}");
    // A profile that does not read the score says nothing of it.
    let plain = ended_line(played);
    assert!(!plain.contains("game's score"), "{plain}");
}
