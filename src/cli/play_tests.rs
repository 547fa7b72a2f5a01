//! Tests of `scramblebot play`'s lines (`cli/play.rs`), kept apart so the command's file
//! holds the command.

use super::*;

#[test]
fn words_entered_again_are_not_counted_as_more_words() {
    assert_eq!(super::entered_text(178, 0, 178), "entered 178 of 178 words");
    assert_eq!(
        super::entered_text(200, 22, 178),
        "entered 178 of 178 words, 22 of them twice"
    );
    assert_eq!(super::entered_text(1, 0, 1), "entered 1 of 1 word");
}

#[test]
fn the_closing_line_tells_the_score_read_unread_and_never_read_surely() {
    let judged = play::Judged {
        taken: 170,
        not_taken: vec!["ulna".into(), "tolu".into(), "neb".into()],
        refused: vec!["ulna".into(), "tolu".into()],
        unknown: 4,
    };
    let told = score_line(Some(1180), Some(&judged), true);
    assert_eq!(
        told,
        "the game shows 1180 points; it took 170 words, refused 2 not in its list (ulna, \
         tolu), 1 more not taken, 4 not told apart by the score"
    );
    let never = score_line(None, None, true);
    assert!(never.contains("not read surely on any look"), "{never}");
    assert!(!never.contains("calibrate"), "{never}");
    let unread = score_line(None, None, false);
    assert!(unread.contains("calibrate learns"), "{unread}");
}
