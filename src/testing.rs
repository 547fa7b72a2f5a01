//! What a test does when the machine lacks something it needs (Debian's adb, tmux, a corpus
//! typeface): on a developer's machine it skips with one line saying what to install, so that
//! `cargo test` passes with Rust alone; under CI (`CI=true`) a skip fails the run, as CI
//! installs everything first (`.ci/install-deps`). Used by the unit tests and by tests/; not
//! part of the bot.

/// The one command that installs what every test needs.
pub const INSTALL_ALL: &str = "sudo .ci/install-deps";

/// Whether this run is CI's, where nothing may be skipped: `CI` set to `true` or `1` (what
/// GitHub Actions, GitLab and .ci/run set).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Says that a test is skipped because `what` is missing, and which Debian `packages` bring
/// it; under CI, fails the test instead.
///
/// # Panics
/// Under CI, always: a skipped test there is a check that did not run.
pub fn skip(what: &str, packages: &str) {
    // The harness runs each test on a thread named after it.
    let test = std::thread::current()
        .name()
        .map_or_else(String::new, |n| format!(" {n}"));
    let line = format!(
        "skipped{test}: it needs {what} (apt-get install {packages}; everything: {INSTALL_ALL})"
    );
    assert!(!under_ci(), "CI=true, and a test was {line}");
    // Straight to the standard error, past the test harness's capture (which holds what
    // `eprintln!` says in a test that passes): the skip shows in a plain `cargo test`.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
