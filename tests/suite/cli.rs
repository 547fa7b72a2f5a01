//! The real binary, run as a user runs it: output, JSON, exit codes and error messages.

use crate::common::{self, OutputBounded};

use std::path::PathBuf;
use std::process::{Command, Output};

/// A board for each virtual phone, for the tests that play every model at once.
const ONE_BOARD_A_MODEL: [(scramblebot::sim::Model, &str); 3] = [
    (scramblebot::sim::Model::Nexus7, "rats/eqxj/zkvw/ybxo"),
    (scramblebot::sim::Model::Pixel, "mild/exqf/gkzh/vnyu"),
    (scramblebot::sim::Model::Small, "cape/rwjq/xzvk/oybf"),
];

fn scramblebot(args: &[&str]) -> Output {
    common::bin()
        .args(args)
        // Run from elsewhere: nothing may be looked up relative to the working directory.
        .current_dir(std::env::temp_dir())
        .output_bounded()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Checks that a run failed with `code` and said `message` on stderr.
fn fails_with(out: &Output, code: i32, message: &str, what: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{what}: {err}");
    assert!(err.contains(message), "{what}: {err}");
}

/// An empty directory of the system's temporary one, for this test process.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scramblebot-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scramblebot-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

fn secs(n: u64) -> std::time::Duration {
    std::time::Duration::from_secs(n)
}

/// How long a person's finger rests on the glass for a tap.
const TAP_HOLD: std::time::Duration = std::time::Duration::from_millis(60);

/// A person asked to tap: once, then again every so often while nothing happens.
#[derive(Default)]
struct Person {
    last: Option<std::time::Instant>,
}

impl Person {
    /// Taps (`tap`) unless the last tap was under 300 ms ago.
    fn taps(&mut self, tap: impl FnOnce()) {
        let again = std::time::Duration::from_millis(300);
        if self.last.is_none_or(|t| t.elapsed() >= again) {
            tap();
            self.last = Some(std::time::Instant::now());
        }
    }
}

#[test]
fn solve_prints_a_table_longest_first_and_a_summary() {
    let out = scramblebot(&["solve", "lqreslusaticnren"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let rows: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("WORD"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(rows.len() > 100, "{stdout}");
    let lengths: Vec<usize> = rows
        .iter()
        .map(|r| r.split_whitespace().next().unwrap().len())
        .collect();
    assert!(
        lengths.windows(2).all(|w| w[0] >= w[1]),
        "not longest first"
    );
    assert!(stdout.contains("board LQuRE/SLUS/ATIC/NREN"));
    let summary = stdout.lines().last().unwrap();
    assert!(
        summary.starts_with(&format!("{} words, ", rows.len())),
        "{summary}"
    );
    assert!(summary.contains("ENABLE"), "{summary}");
}

#[test]
fn solve_json_is_one_object_with_paths() {
    let out = scramblebot(&[
        "solve",
        "--json",
        "--order",
        "score",
        "--bonus",
        "TL@0,0,TW@2,3",
        "LQuRE/SLUS/ATIC/NREN",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(v["board"], "LQuRE/SLUS/ATIC/NREN");
    assert_eq!(v["rules"], "scramble");
    let words = v["words"].as_array().unwrap();
    assert_eq!(words.len() as u64, v["word_count"].as_u64().unwrap());
    let points: Vec<u64> = words
        .iter()
        .map(|w| w["points"].as_u64().unwrap())
        .collect();
    assert!(points.windows(2).all(|w| w[0] >= w[1]), "not by score");
    assert_eq!(
        points.iter().sum::<u64>(),
        v["total_points"].as_u64().unwrap()
    );
    for w in words {
        let word = w["word"].as_str().unwrap();
        let tiles = w["path"].as_array().unwrap().len();
        assert_eq!(tiles + word.matches("qu").count(), word.len(), "{w}");
    }
    assert_eq!(v["bonuses"].as_array().unwrap().len(), 2);
    assert!(v["timings_us"]["solve"].is_u64());
}

#[test]
fn bad_input_exits_2_with_the_reason_on_one_line() {
    // (args, message)
    let cases: &[(&[&str], &str)] = &[
        (
            &["solve", "lqreslusaticnre"],
            "error: expected 16 tiles (4x4) or a square count (9, 25 or 36), got 15",
        ),
        (
            &["solve", "abcdeféghijklmno"],
            "error: tile 7 'é' is not a letter",
        ),
        (
            &["solve", "--bonus", "TL@9,9", "abcdefghijklmnop"],
            "error: bonus TL@9,9 is off the 4x4 board",
        ),
        (
            &[
                "solve",
                "--rules",
                "boggle",
                "--bonus",
                "TL@0,0",
                "abcdefghijklmnop",
            ],
            "error: boggle rules have no bonus tiles",
        ),
        (
            &["solve", "--min-len", "0", "abcdefghijklmnop"],
            "error: minimum word length 0 is out of range",
        ),
    ];
    for (args, message) in cases {
        let out = scramblebot(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.starts_with(message), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(out.stdout.is_empty());
    }
    // clap's own usage errors are bad input too.
    assert_eq!(scramblebot(&["solve"]).status.code(), Some(2));
    assert_eq!(
        scramblebot(&["solve", "--order", "random", "abcdefghijklmnop"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn a_missing_word_list_is_a_failure_with_its_cause() {
    let out = scramblebot(&[
        "solve",
        "--dict",
        "/nonexistent/words.txt",
        "abcdefghijklmnop",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr).trim_end(),
        "error: cannot read word list /nonexistent/words.txt: No such file or directory (os error 2)"
    );
}

#[test]
fn any_word_list_works_and_odd_lines_are_skipped() {
    let list = temp_file("words.txt", b"CAT\r\nact\r\nit's\r\n\r\ntac\r\nqat\r\n");
    let out = scramblebot(&[
        "solve",
        "--json",
        "--dict",
        list.to_str().unwrap(),
        "cat/zzz/zzz",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let words: Vec<&str> = v["words"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["word"].as_str().unwrap())
        .collect();
    assert_eq!(words, ["cat", "tac"]);
    assert_eq!(v["dictionary"]["words"], 3);
    let empty = temp_file("empty.txt", b"123\n");
    let out = scramblebot(&["solve", "--dict", empty.to_str().unwrap(), "cat/zzz/zzz"]);
    // Bad input, as README says (it was 1, a failure).
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("has no playable words"));
}

#[test]
fn boggle_rules_and_min_len() {
    let out = scramblebot(&["solve", "--json", "--rules", "boggle", "cat/zzz/zzz"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["word_count"].as_u64(), v["total_points"].as_u64()),
        (Some(1), Some(1))
    );
    let out = scramblebot(&["solve", "--json", "--min-len", "3", "cat/zzz/zzz"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["word_count"], 1);
}

#[test]
fn bench_runs_every_structure_and_checks_its_answers() {
    for structure in ["trie", "sorted", "prefixes"] {
        let out = scramblebot(&[
            "bench",
            "--boards",
            "20",
            "--structure",
            structure,
            "--json",
        ]);
        assert!(out.status.success(), "{structure}: {}", text(&out.stderr));
        let lines: Vec<serde_json::Value> = text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 6, "3 sets x 2 modes");
        for l in &lines {
            assert_eq!(l["structure"], structure);
            assert!(l["boards_per_sec"].as_f64().unwrap() > 0.0);
        }
    }
    let out = scramblebot(&["bench", "--boards", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn help_describes_the_board_syntax() {
    let out = scramblebot(&["solve", "--help"]);
    let help = text(&out.stdout);
    assert!(
        help.contains("LQuRE/SLUS/ATIC/NREN") && help.contains("--bonus"),
        "{help}"
    );
}

/// A `sim` child's output lines after the first, the first (where it listens) and the
/// address in it. Keep the lines while the child runs: it writes to them.
type Lines = std::io::Lines<std::io::BufReader<std::process::ChildStdout>>;
fn sim_listening(child: &mut std::process::Child) -> (Lines, String, std::net::SocketAddr) {
    use std::io::BufRead;
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr = first
        .rsplit(' ')
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("an address in {first:?}"));
    (lines, first, addr)
}

fn sigterm(child: &std::process::Child) {
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
}

/// `scramblebot ARGS` in `dir` on a disk that fills after 1 kB: a file size limit (`ulimit
/// -f 1`) fails writes past it as a full disk does (SIGXFSZ ignored, as the exec'd program
/// inherits it, so the write fails instead of killing the process).
fn on_a_full_disk(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new("bash")
        .args(["-c", "trap '' XFSZ; ulimit -f 1; exec \"$@\"", "full"])
        .arg(env!("CARGO_BIN_EXE_scramblebot"))
        .args(args)
        .current_dir(dir)
        .env("XDG_STATE_HOME", dir.join("state"))
        .output_bounded()
}

/// The files under `dir` (recursively), as paths relative to it.
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                found.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn sim_serves_until_sigterm_and_leaves_its_report() {
    let report = temp_file("sim-report.json", b"");
    std::fs::remove_file(&report).unwrap();
    let mut child = common::bin()
        .args([
            "sim",
            "--port",
            "0",
            "--model",
            "pixel",
            "--board",
            "cats/xxxx/xxxx/xxxx",
        ])
        .args(["--round-secs", "300", "--report"])
        .arg(&report)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let (_lines, first, addr) = sim_listening(&mut child);
    assert!(
        first.contains("pixel") && first.contains("sdk 33"),
        "{first}"
    );
    // The report exists from the start and is rewritten after every stroke.
    // The report file is the typed report, serialised.
    let read = || -> scramblebot::sim::game::Report {
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap()
    };
    assert_eq!(read().strokes.len(), 0);
    let mut host = common::Host::ready(addr);
    host.exec("screencap > /dev/null");
    for x in [180, 420, 660, 660] {
        host.exec(&format!("input tap {x} 860"));
    }
    let r = read();
    assert_eq!(r.strokes.len(), 4, "{r:?}");
    assert_eq!(r.found, ["cat"], "{r:?}");
    assert!(r.first_touch_after_screenshot_ms.unwrap() > 0.0, "{r:?}");
    sigterm(&child);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let r = read();
    assert_eq!(r.model.as_deref(), Some("pixel"));
    assert_eq!(r.board, "CATS/XXXX/XXXX/XXXX");
}

/// A disk that fills (here a file size limit of 1 kB, `ulimit -f 1`, which fails writes as a
/// full disk does) leaves the sim's report whole or absent: never a cut one, never an empty
/// one, never a temporary file beside it. Before, a 1 kB `.json.tmp` was left behind.
#[test]
fn sim_on_a_full_disk_leaves_no_cut_report() {
    let dir = std::env::temp_dir().join(format!("scramblebot-full-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.json");
    // SIGXFSZ ignored, as the exec'd program inherits it: a write past the limit then fails
    // with EFBIG instead of killing the process.
    let script = format!(
        "trap '' XFSZ; ulimit -f 1; exec \"$0\" sim --port 0 --round-secs 300 --report '{}'",
        report.display()
    );
    let mut child = Command::new("bash")
        .args(["-c", &script, env!("CARGO_BIN_EXE_scramblebot")])
        .env("XDG_STATE_HOME", &dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bash runs");
    let (_lines, _, addr) = sim_listening(&mut child);
    // Strokes make the report grow past the limit.
    let mut host = common::Host::ready(addr);
    for i in 0..12 {
        host.exec(&format!(
            "input swipe {} 700 {} 900 50",
            100 + 20 * i,
            300 + 20 * i
        ));
    }
    sigterm(&child);
    let out = common::output_within(child, secs(120), "sim after SIGTERM");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{}: {stderr}", out.status);
    assert!(stderr.contains("cannot write the report"), "{stderr}");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "scramblebot")
        .collect();
    assert!(names.iter().all(|n| n == "report.json"), "{names:?}");
    if let Ok(bytes) = std::fs::read(&report) {
        let whole: Result<scramblebot::sim::game::Report, _> = serde_json::from_slice(&bytes);
        assert!(whole.is_ok(), "a cut report of {} bytes", bytes.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_refuses_bad_settings_and_a_busy_port() {
    // (args, exit code, stderr contains)
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port().to_string();
    let not_a_font = temp_file("not-a-font.ttf", b"these bytes draw no letter");
    let cases: &[(&[&str], i32, &str)] = &[
        (&["sim", "--board", "abc"], 2, "expected 16 tiles"),
        (
            &["sim", "--board", "abcdefghijklmnopqrstuvwxy"],
            2,
            "4x4, got 5x5",
        ),
        (
            &["sim", "--round-secs", "0"],
            2,
            "--round-secs must be between",
        ),
        (
            &["sim", "--frame-ms", "0"],
            2,
            "--frame-ms must be between 1 and 86400000 milliseconds, got 0",
        ),
        (&["sim", "--model", "iphone"], 2, "invalid value 'iphone'"),
        (&["sim", "--port", &port], 1, "cannot listen on 127.0.0.1"),
        (
            &["sim", "--font", "/nonexistent/face.ttf"],
            2,
            "cannot read the typeface /nonexistent/face.ttf",
        ),
        (
            &["sim", "--font", not_a_font.to_str().unwrap()],
            2,
            "is not a TrueType or OpenType font",
        ),
    ];
    for (args, code, message) in cases {
        fails_with(&scramblebot(args), *code, message, &format!("{args:?}"));
    }
}

/// Runs `demo --json` with `args`; its summary.
fn demo_json(args: &[&str]) -> serde_json::Value {
    // Short rounds on the wall clock: never beside the tests that keep two cores busy.
    let _alone = heavy();
    let out = scramblebot(&[&["demo", "--json"], args].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Held by the tests whose short rounds on the wall clock a busy machine would make miss:
/// they run one at a time.
fn heavy() -> std::sync::MutexGuard<'static, ()> {
    static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    HEAVY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Checks the freezes of a demo: at every `every` seconds of round time, each one counted by
/// the referee.
fn freezes_on_schedule(r: &serde_json::Value, every: f64) -> usize {
    let freezes = r["bot"]["freezes"].as_array().unwrap();
    let seen = r["referee"]["freezes"].as_array().unwrap();
    assert_eq!(seen.len(), freezes.len(), "{r}");
    for (i, at) in freezes.iter().enumerate() {
        let due = every * (i + 1) as f64;
        let at = at.as_f64().unwrap();
        // Between words: a word lasts well under half a second.
        assert!(at >= due && at < due + 0.5, "freeze {i} at {at} s: {r}");
    }
    freezes.len()
}

/// A demo on the Pixel model, seed 30: a board of 41 words, in a round long enough for all.
const PIXEL_41_WORDS: [&str; 6] = ["--model", "pixel", "--seed", "30", "--round-secs", "60"];

#[test]
fn demo_plays_a_whole_round_on_the_virtual_phone() {
    // A short freeze interval so the schedule shows within the round; a board of 41 words
    // (seed 3's 134 kept the test 8.5 s on the wall clock, beside no other demo).
    let freezes = ["--freeze-every-secs", "1.5", "--freeze-secs", "0.5"];
    let r = demo_json(&[&PIXEL_41_WORDS[..], &freezes].concat());
    let (bot, referee) = (&r["bot"], &r["referee"]);
    assert!(bot["words_planned"].as_u64().unwrap() > 20, "{r}");
    assert_eq!(bot["words_entered"], bot["words_planned"], "{r}");
    assert_eq!(bot["stop"], "all_words");
    // The referee saw every word, accepted, with no rejection and no violation.
    assert_eq!(referee["words"], bot["words_entered"], "{r}");
    assert_eq!(referee["words"], referee["words_possible"], "{r}");
    assert_eq!(referee["score"], referee["max_score"], "{r}");
    assert_eq!(referee["rejected"], 0, "{r}");
    assert_eq!(referee["violations"], 0, "{r}");
    assert!(freezes_on_schedule(&r, 1.5) >= 1, "{r}");
}

/// A round whose notes have nowhere to go (stderr a pipe nobody reads, as under `2>&1 |
/// head -1`) is played whole, and its summary still said on stdout: `eprintln!` panicked
/// at the first note, before the first word was entered.
#[test]
fn a_demo_whose_stderr_is_gone_plays_its_round_whole() {
    let _alone = heavy();
    let (reader, gone) = std::io::pipe().unwrap();
    drop(reader);
    let demo = common::bin()
        .arg("demo")
        .args(PIXEL_41_WORDS)
        .current_dir(std::env::temp_dir())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(gone)
        .spawn()
        .unwrap();
    let out = common::output_within(demo, secs(120), "demo, stderr gone");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{:?}\n{stdout}", out.status);
    // "referee: 41 words accepted of 41 possible, ..."
    let referee = stdout
        .lines()
        .find_map(|l| l.strip_prefix("referee: "))
        .unwrap_or_else(|| panic!("no referee line: {stdout}"));
    let counts: Vec<&str> = referee.split_whitespace().collect();
    assert!(counts.len() > 5 && counts[5] == "possible,", "{stdout}");
    assert_eq!(counts[0], counts[4], "every word accepted: {stdout}");
    assert!(stdout.contains(" 0 rejected, 0 violations"), "{stdout}");
}

#[test]
fn a_two_minute_round_scaled_down() {
    // The game's round (120 s, Freeze every 30 s adding 15 s) scaled by 1/12.5: 9.6 s, every
    // 2.4 s, 1.2 s a freeze. Freezes are due at 2.4, 4.8 and 7.2 s of round time (the last at
    // about 9.6 s of wall time); the 178 words of seed 1 take about 10.5 s, and the clock with
    // its three freezes ends at 13.2 s.
    let r = demo_json(&[
        "--model",
        "nexus7",
        "--round-secs",
        "9.6",
        "--freeze-every-secs",
        "2.4",
        "--freeze-secs",
        "1.2",
    ]);
    let (bot, referee) = (&r["bot"], &r["referee"]);
    // Every word, or on a machine loaded by the rest of the suite (12.4 words a second seen
    // in CI, where 15-16 is usual) most of them, the clock ending the round cleanly: played
    // up to its end with the freezes' time, not cut short. The pace itself is `bench pace`'s.
    let entered = bot["words_entered"].as_u64().unwrap();
    match bot["stop"].as_str() {
        Some("all_words") => assert_eq!(entered, 178, "{r}"),
        Some("clock") => {
            assert!(entered >= 120, "{r}");
            let elapsed = bot["elapsed_secs"].as_f64().unwrap();
            assert!(
                elapsed >= 12.0,
                "stopped {elapsed} s in, before its clock: {r}"
            );
        }
        _ => panic!("{r}"),
    }
    assert_eq!(referee["words"], entered, "{r}");
    assert_eq!(referee["rejected"], 0, "{r}");
    assert_eq!(referee["violations"], 0, "{r}");
    assert_eq!(freezes_on_schedule(&r, 2.4), 3, "{r}");
}

#[test]
fn demo_on_android_4_4_does_without_exec() {
    // Android 4.4's adbd has no `exec:` (the virtual phone refuses it, as a real one does): the
    // bot's own link to the phone must ask through `shell:` and see through `framebuffer:`.
    // 6 s: on a loaded machine the first touch has come 2.1 s after the start. Seed 30's 41
    // words are all entered within it on an idle machine (2.7 s instead of the whole 6 s
    // clock and its freezes).
    let r = demo_json(&[
        "--model",
        "small",
        "--seed",
        "30",
        "--round-secs",
        "6",
        "--freeze-every-secs",
        "1",
        "--freeze-secs",
        "0.5",
    ]);
    let (bot, referee) = (&r["bot"], &r["referee"]);
    assert_eq!(r["model"], "small", "{r}");
    assert!(bot["error"].is_null(), "{r}");
    let entered = bot["words_entered"].as_u64().unwrap();
    assert!(entered > 5, "{r}");
    assert_eq!(referee["words"], entered, "{r}");
    assert_eq!(referee["rejected"], 0, "{r}");
    assert_eq!(referee["violations"], 0, "{r}");
}

#[test]
fn a_round_the_clock_ends_stops_before_the_clock() {
    // Far more words than time: the bot stops starting words before the clock ends, so the
    // referee rejects nothing and no touch lands on the results screen.
    let r = demo_json(&[
        "--round-secs",
        "5",
        "--freeze-every-secs",
        "1",
        "--freeze-secs",
        "0.5",
    ]);
    let (bot, referee) = (&r["bot"], &r["referee"]);
    assert_eq!(bot["stop"], "clock", "{r}");
    let entered = bot["words_entered"].as_u64().unwrap();
    assert!(entered > 5 && entered < 178, "{r}");
    assert_eq!(referee["words"], entered, "{r}");
    assert_eq!(referee["rejected"], 0, "{r}");
    assert_eq!(referee["violations"], 0, "{r}");
    // Freezes at 1, 2, 3 and 4 s of the bot's time; at 5 s of round time the clock has
    // ended. The last is tapped only when its tap can land before the clock ends: on a
    // machine under load, taps are slow and the bot rightly skips it. (A 2.5 s round with
    // freezes every 0.5 s left room for only two beside a busy test binary: the first touch
    // came 0.86 s into the round.)
    let freezes = freezes_on_schedule(&r, 1.0);
    assert!((3..=4).contains(&freezes), "{freezes} freezes: {r}");
}

#[test]
fn play_enters_every_word_through_debians_adb_server() {
    use scramblebot::sim::game::GameConfig;
    use scramblebot::sim::{Model, SimConfig};
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let play = |args: &[&str]| play_through(&server, args);
    // No phone attached yet.
    let out = play(&["--device", "pixel", "--board", "cats/xxxx/xxxx/xxxx"]);
    fails_with(&out, 1, "no phone is attached", "no phone");
    let sims: Vec<_> = [Model::Pixel, Model::Small]
        .into_iter()
        .map(|model| {
            common::start_with(SimConfig {
                model,
                game: GameConfig {
                    seed: 11,
                    ..GameConfig::default()
                },
                report: None,
                letters: None,
            })
        })
        .collect();
    let serial = sims[0].addr().to_string();
    let board = sims[0].device().game().board().to_string();
    let out = play(&[
        "--device",
        "pixel",
        "--board",
        &board,
        "--connect",
        &serial,
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["bot"]["words_entered"], r["bot"]["words_planned"], "{r}");
    referee_agrees(&sims[0], &r);
    // The monkey's port was forwarded for the round, and is not left behind it (every play
    // and every daemon round left one on the server).
    let routes = r["bot"]["routes"].to_string();
    assert!(routes.contains("monkey"), "{routes}");
    let forwards = server.adb(&["forward", "--list"]);
    assert!(forwards.status.success());
    assert_eq!(text(&forwards.stdout).trim(), "", "forwards left behind");
    // Two phones attached: the user must say which.
    let small = sims[1].addr().to_string();
    assert!(server.adb(&["connect", &small]).status.success());
    server.wait_for_device(&small);
    let out = play(&["--device", "small", "--board", &board]);
    fails_with(&out, 1, "several phones", "two phones");
    // A profile for another screen shape is refused before any touch, naming the one that
    // fits.
    let out = play(&["--device", "pixel", "--board", &board, "-s", &small]);
    let err = text(&out.stderr);
    assert!(err.contains("calibrate"), "{err}");
    assert!(
        err.contains("the profile small fits a 480x800 screen: --device small"),
        "{err}"
    );
    assert!(sims[1].device().game().strokes().is_empty());
}

#[test]
fn play_refuses_bad_input_before_connecting() {
    // (args, stderr contains)
    let cases: &[(&[&str], &str)] = &[
        (
            &["play", "--device", "nexus7", "--board", "abc"],
            "expected 16 tiles",
        ),
        (
            &[
                "play",
                "--device",
                "nokia",
                "--board",
                "cats/xxxx/xxxx/xxxx",
            ],
            "no profile named",
        ),
        (
            &["play", "--device", "nexus7", "--board", "abcd", "--watch"],
            "cannot be used with",
        ),
        (
            &[
                "play",
                "--device",
                "nexus7",
                "--board",
                "catsxxxxxxxxxxxx",
                "--connect",
                "nowhere",
            ],
            "not HOST:PORT",
        ),
    ];
    for (args, message) in cases {
        let out = common::bin()
            .args(*args)
            .stdin(std::process::Stdio::null())
            .output_bounded();
        fails_with(&out, 2, message, &format!("{args:?}"));
    }
}

#[test]
fn play_reads_the_board_on_the_screen_and_never_plays_one_it_cannot_see() {
    use scramblebot::Board;
    use scramblebot::sim::game::{Action, GameConfig, Route};
    use scramblebot::sim::{Model, SimConfig, layout::Layout};
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let sim = |model, board: &str, lobby| {
        common::start_with(SimConfig {
            model,
            game: GameConfig {
                board: Some(Board::parse(board).unwrap()),
                lobby,
                ..GameConfig::default()
            },
            report: None,
            letters: None,
        })
    };
    // Every model, through the route auto picks: the board comes from the screen, raw
    // screencap from Android 5, the framebuffer service before. The phones play at once,
    // each keeping its state apart.
    std::thread::scope(|scope| {
        for (model, board) in ONE_BOARD_A_MODEL {
            let (server, sim) = (&server, &sim);
            scope.spawn(move || {
                let phone = sim(model, board, false);
                let addr = phone.addr().to_string();
                let state = server.home.join(format!("state-{}", model.name()));
                let out = play_command(
                    server,
                    &["--device", model.name(), "--connect", &addr, "--json"],
                )
                .env("XDG_STATE_HOME", state)
                .output_bounded();
                let what = format!("{}: {}", model.name(), text(&out.stderr));
                assert!(out.status.success(), "{what}");
                let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(r["board_from"], "screen", "{what}");
                assert_eq!(
                    r["board"].as_str().unwrap(),
                    Board::parse(board).unwrap().to_string(),
                    "{what}"
                );
                assert_eq!(
                    r["bot"]["words_entered"], r["bot"]["words_planned"],
                    "{what}"
                );
                referee_agrees(&phone, &r);
                assert!(server.adb(&["disconnect", &addr]).status.success());
            });
        }
    });
    // A screen that is not a board (the lobby) is not played: exit 3, the screenshot saved
    // where the user ran the bot, and no touch.
    let dir = fresh_dir("unsure");
    let lobby = sim(Model::Nexus7, "rats/eqxj/zkvw/ybxo", true);
    let addr = lobby.addr().to_string();
    let out = play_command(&server, &["--device", "nexus7", "--connect", &addr])
        .current_dir(&dir)
        .output_bounded();
    fails_with(&out, 3, "not read surely", "the lobby");
    assert!(
        text(&out.stderr).contains("--board"),
        "{}",
        text(&out.stderr)
    );
    let saved: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    let img = image::open(&saved[0]).expect("the saved screenshot is a PNG");
    assert_eq!((img.width(), img.height()), (800, 1280));
    assert!(lobby.device().game().strokes().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
    // With --watch the bot waits in the lobby and plays once the round starts.
    let watching = play_command(
        &server,
        &[
            "--device",
            "nexus7",
            "--connect",
            &addr,
            "--watch",
            "--json",
        ],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    // The bot has looked at the lobby (twice: it read the first look) and touched nothing.
    common::wait_until("play --watch looking", secs(30), || {
        lobby.device().report().screenshots >= 2
    });
    assert!(lobby.device().game().strokes().is_empty());
    let play = Layout::of(Model::Nexus7).play;
    let (x, y) = ((play.x0 + play.x1) / 2.0, (play.y0 + play.y1) / 2.0);
    lobby.device().touch(Route::Input, Action::Down, x, y);
    lobby.device().touch(Route::Input, Action::Up, x, y);
    let out = common::output_within(watching, secs(120), "play --watch");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["board"], "RATS/EQuXJ/ZKVW/YBXO", "{r}");
    referee_agrees(&lobby, &r);
}

#[test]
fn calibrating_each_virtual_phone_gives_a_profile_play_enters_every_word_with() {
    use scramblebot::Board;
    use scramblebot::sim::game::{GameConfig, Key, ScreenLock};
    use scramblebot::sim::{Model, SimConfig};
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = fresh_dir("calibrate");
    // Each phone's state (a game's pace, its refused words) kept apart.
    let run_in = |state: &str, args: &[&str]| {
        through_server(&server, &dir, args[0])
            .args(&args[1..])
            .env("XDG_STATE_HOME", dir.join("state").join(state))
            .output_bounded()
    };
    let run = |args: &[&str]| run_in("other", args);
    // Each phone at once (they wait on the phones more than they work).
    std::thread::scope(|scope| {
        for (model, board) in ONE_BOARD_A_MODEL {
            let (server, run_in, dir) = (&server, &run_in, &dir);
            scope.spawn(move || {
                // The phone's screen has gone off, to a swipe lock: calibrate turns it on and
                // dismisses the lock (MENU on Android 4.4 and 5.1, `wm dismiss-keyguard` on 13).
                let phone = common::start_with(SimConfig {
                    model,
                    game: GameConfig {
                        board: Some(Board::parse(board).unwrap()),
                        screen_lock: ScreenLock::Swipe,
                        ..GameConfig::default()
                    },
                    report: None,
                    letters: None,
                });
                phone.device().key(Key::Power);
                let addr = phone.addr().to_string();
                let name = format!("new-{}", model.name());
                // Watching for the clock and score is the test below's.
                let out = run_in(
                    model.name(),
                    &[
                        "calibrate",
                        "--name",
                        &name,
                        "--connect",
                        &addr,
                        "--watch-secs",
                        "0",
                    ],
                );
                let what = format!("{}: {}", model.name(), text(&out.stderr));
                assert!(out.status.success(), "{what}");
                let said = text(&out.stdout);
                assert!(said.contains("routes that work: monkey"), "{said}");
                let toml = dir.join("devices").join(format!("{name}.toml"));
                let overlay = image::open(dir.join("devices").join(format!("{name}.overlay.png")))
                    .expect("an overlay PNG");
                let profile = scramblebot::profile::Profile::load(&toml).expect("a valid profile");
                assert_eq!((overlay.width(), overlay.height()), profile.screen());
                assert!(phone.device().game().strokes().is_empty(), "{what}");
                assert!(said.contains("dismissed it"), "{said}");
                assert_eq!(phone.device().report().unlocks, 1, "{what}");
                // Calibrating touches nothing; playing with the new profile (found in ./devices)
                // enters every word of the board read on the screen.
                let out = run_in(
                    model.name(),
                    &["play", "--device", &name, "-s", &addr, "--json"],
                );
                let what = format!("{}: {}", model.name(), text(&out.stderr));
                assert!(out.status.success(), "{what}");
                let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(r["board_from"], "screen", "{what}");
                referee_agrees(&phone, &r);
                // A second calibration under the same name needs --force.
                let out = run_in(model.name(), &["calibrate", "--name", &name, "-s", &addr]);
                fails_with(&out, 2, "--force", "an existing profile");
                assert!(server.adb(&["disconnect", &addr]).status.success());
            });
        }
    });
    // From a file; a screen that is not a round; bad names and points.
    let lobby = common::start_game(
        Model::Nexus7,
        GameConfig {
            lobby: true,
            ..GameConfig::default()
        },
    );
    let round = common::start(Model::Nexus7);
    let shot = dir.join("round.jpg");
    image::DynamicImage::ImageRgba8((*round.device().screenshot()).clone())
        .to_rgb8()
        .save(&shot)
        .unwrap();
    let out = run(&[
        "calibrate",
        "--name",
        "from-file",
        "--image",
        &shot.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let found = scramblebot::profile::Profile::load(&dir.join("devices/from-file.toml")).unwrap();
    let shipped = scramblebot::profile::Profile::built_in("nexus7").unwrap();
    for (a, b) in found.centres().iter().zip(shipped.centres()) {
        assert!((a.0 - b.0).hypot(a.1 - b.1) < 4.0, "{a:?} for {b:?}");
    }
    // A board typed that contradicts tiles the references read surely is refused, naming
    // them: a typo would teach a glyph the reader then reads surely, wrongly.
    let board = round.device().game().board().to_string();
    assert!(board.starts_with('R'), "{board}");
    let taught = format!("K{}", &board[1..]);
    let jpg = shot.display().to_string();
    let teach = [
        "calibrate",
        "--name",
        "taught",
        "--image",
        &jpg,
        "--board",
        &taught,
    ];
    fails_with(
        &run(&teach),
        2,
        "row 1 col 1 reads R surely, typed K (--force if the screen is what is wrong)",
        "a typed board that contradicts the screen",
    );
    assert!(!dir.join("devices/taught.toml").exists());
    // With --force, templates learned with --board take precedence over the built-in
    // references: taught that the R is a K, the reader says K on that screen.
    let out = run(&[&teach[..], &["--force"]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("read 1 of 16 tiles otherwise, every one surely"),
        "{}",
        text(&out.stdout)
    );
    assert!(dir.join("devices/taught.glyphs.png").is_file());
    let read = |profile: &str| {
        let out = common::bin()
            .args(["read", &jpg, "--profile", profile, "--json"])
            .current_dir(&dir)
            .output_bounded();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", text(&out.stderr)));
        v["board"].as_str().unwrap().to_owned()
    };
    assert_eq!(read("devices/taught.toml"), taught);
    assert_eq!(read("devices/from-file.toml"), board);
    let shot = dir.join("lobby.png");
    lobby.device().screenshot().save(&shot).unwrap();
    let shot = shot.display().to_string();
    fails_with(
        &run(&["calibrate", "--name", "lobby", "--image", &shot]),
        3,
        "a round in progress",
        "the lobby",
    );
    fails_with(
        &run(&["calibrate", "--name", "../x", "--image", &shot]),
        2,
        "not a device name",
        "a bad name",
    );
    fails_with(
        &run(&[
            "calibrate",
            "--name",
            "x",
            "--image",
            &shot,
            "--freeze",
            "1;2",
        ]),
        2,
        "not X,Y",
        "a bad point",
    );
    // Another directory: made when its parent exists (and said), and then only --profile
    // finds the profile; a mistyped parent is refused, nothing made.
    let elsewhere = dir.join("phones");
    let out = run(&[
        "calibrate",
        "--name",
        "n7",
        "--image",
        &jpg,
        "--dir",
        &elsewhere.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains(&format!("made the directory {}", elsewhere.display())),
        "{said}"
    );
    assert!(
        said.trim_end().ends_with(&format!(
            "play with --profile {}",
            elsewhere.join("n7.toml").display()
        )),
        "{said}"
    );
    let missing = dir.join("no-such/phones");
    fails_with(
        &run(&[
            "calibrate",
            "--name",
            "n7",
            "--image",
            &jpg,
            "--dir",
            &missing.display().to_string(),
        ]),
        2,
        "no-such does not exist",
        "a directory whose parent is missing",
    );
    assert!(!dir.join("no-such").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn calibrate_tap_takes_freeze_from_a_finger_on_the_touchscreen() {
    use scramblebot::sim::Model;
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = fresh_dir("tap");
    // Android 5.1 (raw 0..4095 on both axes), 13 (no sendevent; getevent still reads) and
    // 4.4 (a terminal's CRLF; twice the pixels' resolution).
    for model in [Model::Nexus7, Model::Pixel, Model::Small] {
        let phone = common::start(model);
        let addr = phone.addr().to_string();
        let button = phone.device().layout().buttons[0];
        // Off the button's centre, which the picture alone would give.
        let at = (button.x + 9.0, button.y - 6.0);
        let name = format!("tapped-{}", model.name());
        let mut child = through_server(&server, &dir, "calibrate")
            .args([
                "--name",
                &name,
                "--connect",
                &addr,
                "--tap",
                "--watch-secs",
                "0",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A person taps when asked; here, until calibrate has seen a tap and finished.
        let mut person = Person::default();
        common::wait_until("calibrate --tap ending", secs(60), || {
            person.taps(|| phone.device().finger_tap(at, TAP_HOLD));
            child.try_wait().unwrap().is_some()
        });
        let out = common::output_within(child, secs(120), "calibrate --tap");
        let what = format!("{}: {}", model.name(), text(&out.stderr));
        assert!(out.status.success(), "{what}");
        assert!(
            text(&out.stderr).contains("Tap the Freeze button"),
            "{what}"
        );
        let profile =
            scramblebot::profile::Profile::load(&dir.join(format!("devices/{name}.toml")))
                .expect("a valid profile");
        let freeze = profile
            .buttons()
            .iter()
            .find(|b| b.0 == "freeze")
            .unwrap()
            .1;
        // Near the tap (a raw unit is at most a pixel on these panels), not at the button's
        // centre, 10.8 px away.
        assert!(
            (freeze.0 - at.0).hypot(freeze.1 - at.1) < 2.5,
            "{what}: freeze at {freeze:?}, tapped at {at:?}"
        );
        assert!(server.adb(&["disconnect", &addr]).status.success());
    }
    // Without a phone's touchscreen there is nothing to read.
    let out = scramblebot(&["calibrate", "--name", "x", "--image", "shot.png", "--tap"]);
    fails_with(&out, 2, "--image", "--tap with --image");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn calibrate_tap_advance_takes_play_next_from_a_tap_once_the_round_is_over() {
    use scramblebot::sim::Model;
    use scramblebot::sim::game::{GameConfig, Screen};
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = fresh_dir("tap-next");
    // Calibrated during a short round; the person waits for the results, then taps Next.
    let phone = common::start_game(
        Model::Nexus7,
        GameConfig {
            round: std::time::Duration::from_secs(4),
            ..GameConfig::default()
        },
    );
    let addr = phone.addr().to_string();
    let play = phone.device().layout().play;
    let at = (
        (play.x0 + play.x1) / 2.0 - 30.0,
        (play.y0 + play.y1) / 2.0 + 5.0,
    );
    let mut child = through_server(&server, &dir, "calibrate")
        .args([
            "--name",
            "next",
            "--connect",
            &addr,
            "--tap-advance",
            "--watch-secs",
            "0",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut person = Person::default();
    common::wait_until("calibrate ending", secs(60), || {
        if phone.device().report().screen == Screen::Results {
            person.taps(|| phone.device().finger_tap(at, TAP_HOLD));
        }
        child.try_wait().unwrap().is_some()
    });
    let out = common::output_within(child, secs(120), "calibrate --tap --advance");
    let what = text(&out.stderr);
    assert!(out.status.success(), "{what}");
    assert!(
        what.contains("Tap the results screen's Play/Next"),
        "{what}"
    );
    assert!(
        text(&out.stdout).contains("the daemon taps it"),
        "{}",
        text(&out.stdout)
    );
    let profile = scramblebot::profile::Profile::load(&dir.join("devices/next.toml"))
        .expect("a valid profile");
    let next = profile.advance().expect("an advance button");
    assert!(
        (next.0 - at.0).hypot(next.1 - at.1) < 2.5,
        "next at {next:?}, tapped at {at:?}"
    );
    // The tap on Next started round 2, as it would have for a person.
    assert_eq!(phone.device().report().round, 2);
    assert!(phone.device().report().violations.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `scramblebot play` through the adb server at `server`, with `args`, ready to run.
fn play_command(server: &common::AdbServer, args: &[&str]) -> Command {
    let mut play = through_server(server, &std::env::temp_dir(), "play");
    play.args(args);
    play
}

/// `scramblebot COMMAND` talking to the adb server at `server` (its port, its home), run in
/// `dir`, with no stdin; its arguments follow.
fn through_server(server: &common::AdbServer, dir: &std::path::Path, command: &str) -> Command {
    let mut cmd = common::bin();
    cmd.args([command, "-P", &server.port.to_string()])
        .env("HOME", &server.home)
        .env_remove("ANDROID_SERIAL")
        .current_dir(dir)
        .stdin(std::process::Stdio::null());
    cmd
}

/// Runs `scramblebot play` through the adb server at `server` to the end.
fn play_through(server: &common::AdbServer, args: &[&str]) -> Output {
    play_command(server, args).output_bounded()
}

/// Starts `play --json` on nexus7 with `board` and `route`, connecting `addr`.
fn spawn_play(
    server: &common::AdbServer,
    addr: &str,
    board: &str,
    route: &str,
) -> std::process::Child {
    play_command(
        server,
        &[
            // What it was doing, should it not exit when it must.
            "-v",
            "--device",
            "nexus7",
            "--board",
            board,
            "--json",
            "--connect",
            addr,
            "--route",
            route,
        ],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap()
}

/// Checks that the referee accepted every word the bot says it entered, and nothing else.
fn referee_agrees(sim: &scramblebot::sim::Sim, played: &serde_json::Value) {
    let report = sim.device().report();
    let entered = played["bot"]["words_entered"].as_u64().unwrap();
    assert_eq!(report.words as u64, entered, "{report:?}");
    assert_eq!(report.words, report.words_possible, "{report:?}");
    assert!(report.violations.is_empty(), "{report:?}");
    assert_eq!(report.rejected(), 0, "{report:?}");
}

#[test]
fn every_route_plays_through_debians_adb_server() {
    use scramblebot::Board;
    use scramblebot::sim::game::GameConfig;
    use scramblebot::sim::{Model, SimConfig};
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let sim = |model, board: &str| {
        common::start_with(SimConfig {
            model,
            game: GameConfig {
                board: Some(Board::parse(board).unwrap()),
                ..GameConfig::default()
            },
            report: None,
            letters: None,
        })
    };
    // (model, board, route, routes the bot reports using)
    let cases: &[(Model, &str, &str, &[&str])] = &[
        (
            Model::Nexus7,
            "rats/exxx/xxxx/xxxx",
            "sendevent",
            &["sendevent"],
        ),
        // Auto on Android 5: sendevent at once, the monkey once it answers.
        (
            Model::Nexus7,
            "star/extx/xxxx/xxxx",
            "auto",
            &["sendevent", "monkey"],
        ),
        (
            Model::Small,
            "rats/exxx/xxxx/xxxx",
            "sendevent",
            &["sendevent"],
        ),
        (
            Model::Pixel,
            "rats/exxx/xxxx/xxxx",
            "motionevent",
            &["motionevent"],
        ),
        (Model::Pixel, "cats/xxxx/xxxx/xxxx", "tap", &["tap"]),
        (Model::Pixel, "rats/exxx/xxxx/xxxx", "auto", &["monkey"]),
    ];
    // Each case on its own phone, all at once (they wait on the phones more than they work),
    // each keeping its state (a game's pace, its refused words) apart.
    std::thread::scope(|scope| {
        for (case, &(model, board, route, used)) in cases.iter().enumerate() {
            let (server, sim) = (&server, &sim);
            scope.spawn(move || {
                let phone = sim(model, board);
                let addr = phone.addr().to_string();
                let out = play_command(
                    server,
                    &[
                        "--device",
                        model.name(),
                        "--board",
                        board,
                        "--connect",
                        &addr,
                        "--route",
                        route,
                        "--json",
                    ],
                )
                .env("XDG_STATE_HOME", server.home.join(format!("state-{case}")))
                .output_bounded();
                let what = format!("{} {route}: {}", model.name(), text(&out.stderr));
                assert!(out.status.success(), "{what}");
                let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(
                    r["bot"]["words_entered"], r["bot"]["words_planned"],
                    "{what}"
                );
                let routes: Vec<&str> = r["bot"]["routes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|u| u["route"].as_str().unwrap())
                    .collect();
                assert_eq!(routes, used, "{what}");
                assert!(r["first_touch_ms"].as_f64().unwrap() > 0.0, "{what}");
                referee_agrees(&phone, &r);
                assert!(server.adb(&["disconnect", &addr]).status.success());
            });
        }
    });
    // A route the phone's Android does not allow is refused before any touch, with the reason.
    for (model, route, reason) in [
        (
            Model::Pixel,
            "sendevent",
            "denies the shell writes to /dev/input",
        ),
        (Model::Nexus7, "motionevent", "needs Android 10"),
    ] {
        let phone = sim(model, "cats/xxxx/xxxx/xxxx");
        let addr = phone.addr().to_string();
        let out = play_through(
            &server,
            &[
                "--device",
                model.name(),
                "--board",
                "cats/xxxx/xxxx/xxxx",
                "--connect",
                &addr,
                "--route",
                route,
            ],
        );
        fails_with(&out, 1, reason, route);
        assert!(phone.device().game().strokes().is_empty());
        assert!(server.adb(&["disconnect", &addr]).status.success());
    }
}

#[test]
fn a_phone_lost_mid_round_ends_play_with_what_was_entered() {
    use std::io::BufRead;
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    for route in ["monkey", "sendevent"] {
        let report = temp_file(&format!("lost-{route}.json"), b"");
        let mut phone = common::bin()
            .args(["sim", "--port", "0", "--model", "nexus7", "--seed", "1"])
            .arg("--report")
            .arg(&report)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(phone.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let addr = first.rsplit(' ').next().unwrap().to_owned();
        let read = || -> Option<scramblebot::sim::game::Report> {
            serde_json::from_slice(&std::fs::read(&report).ok()?).ok()
        };
        let board = read().expect("the report is there from the start").board;
        let mut play = spawn_play(&server, &addr, &board, route);
        // Pull the plug once a few words are in.
        let strokes = || read().map_or(0, |r| r.strokes.len());
        common::wait_until(&format!("{route}: strokes"), secs(60), || strokes() >= 5);
        phone.kill().unwrap();
        phone.wait().unwrap();
        let entered = strokes();
        common::wait_until(
            &format!("{route}: play ending once the phone is gone"),
            secs(30),
            || play.try_wait().unwrap().is_some(),
        );
        let out = common::output_within(play, secs(120), "play, its phone gone");
        fails_with(&out, 1, "the round stopped after", route);
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["bot"]["stop"], "failed", "{r}");
        let done = r["bot"]["words_entered"].as_u64().unwrap() as usize;
        // The bot counts a word once its last touch is acknowledged; the referee once it
        // judged it. The phone can die between the two, so either can be one word ahead (seen:
        // the referee had judged 5 words and the monkey's acknowledgement of the fifth's up
        // never arrived).
        assert!(
            done + 1 >= entered && done <= entered + 1,
            "{route}: {done} vs {entered}: {r}"
        );
        assert!(done < r["bot"]["words_planned"].as_u64().unwrap() as usize);
        let _ = server.adb(&["disconnect", &addr]);
    }
}

#[test]
fn ctrl_c_stops_play_between_samples_and_lifts_the_finger() {
    use scramblebot::sim::game::GameConfig;
    use scramblebot::sim::{Model, SimConfig};
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    for route in ["monkey", "sendevent"] {
        let phone = common::start_with(SimConfig {
            model: Model::Nexus7,
            game: GameConfig::default(),
            report: None,
            letters: None,
        });
        let addr = phone.addr().to_string();
        let board = phone.device().game().board().to_string();
        let play = spawn_play(&server, &addr, &board, route);
        common::wait_until(&format!("{route}: strokes"), secs(60), || {
            phone.device().game().strokes().len() >= 5
        });
        // Mid-word, most likely: the strokes are back to back.
        let kill = Command::new("kill")
            .args(["-INT", &play.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let out = common::output_within(play, secs(120), &format!("{route}: play after Ctrl-C"));
        fails_with(&out, 130, "stopped by the user", route);
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["bot"]["stop"], "stopped", "{r}");
        let game = phone.device().game();
        assert!(!game.finger_down(), "{route}: the finger was left down");
        let entered = r["bot"]["words_entered"].as_u64().unwrap() as usize;
        assert!((5..178).contains(&entered), "{r}");
        // Every stroke ended with an up and was judged. A word cut short is not one the bot
        // counts (though its first letters may happen to make a word the referee takes).
        let accepted = game.strokes().iter().filter(|s| s.accepted).count();
        assert!(accepted == entered || accepted == entered + 1, "{route}");
        assert!(game.strokes().len() <= entered + 1, "{route}");
        drop(game);
        assert!(server.adb(&["disconnect", &addr]).status.success());
    }
}

/// An adb server that lists a phone, takes a shell command for it and then says nothing more
/// (a phone gone silent mid-call): `play` gives up on the call at its limit, says so and
/// exits. It never exited: the call given up on still ran on its thread, and the runtime
/// waited for it before the error could be said.
#[test]
fn a_phone_silent_mid_call_is_given_up_on_and_play_exits() {
    use std::io::{Read, Write};
    /// One client of the server: each request answered as the adb server would, until a
    /// service for the phone, which is accepted and then never answered.
    fn serve(mut socket: std::net::TcpStream) -> std::io::Result<()> {
        loop {
            let request = common::adb_request(&mut socket)?;
            if request == "host:devices" {
                let list = "silent\tdevice\n";
                return write!(socket, "OKAY{:04x}{list}", list.len());
            }
            if request.starts_with("host:transport:") {
                socket.write_all(b"OKAY")?;
                continue;
            }
            if request.starts_with("host:") {
                return socket.write_all(b"OKAY0000");
            }
            socket.write_all(b"OKAY")?;
            // Silent until the client hangs up.
            return socket.read_to_end(&mut Vec::new()).map(drop);
        }
    }
    let port = common::fake_adb_server(|socket| drop(serve(socket)));
    let home = fresh_dir("silent-phone");
    let play = common::bin()
        .args(["play", "-P", &port.to_string(), "--device", "nexus7"])
        .args(["--board", "RBENSTLAEOUONCAQ"])
        .env("HOME", &home)
        .env_remove("ANDROID_SERIAL")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The call's limit is 15 s.
    let out = common::output_within(play, secs(60), "play, its phone silent");
    fails_with(
        &out,
        1,
        "the phone did not answer getprop ro.build.version.sdk within 15s",
        "a silent phone",
    );
}

/// Output into a pipe nobody reads any more (`scramblebot read ... | head -c 100`) ends the
/// command quietly, as for any Unix tool: it panicked ("failed printing to stdout").
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use scramblebot::sim::{Device, SimConfig};
    let png = temp_file("closed-pipe.png", b"");
    Device::new(SimConfig::default())
        .screenshot()
        .save(&png)
        .unwrap();
    for args in [
        &["read", png.to_str().unwrap(), "--json"][..],
        &["solve", "RBENSTLAEOUONCAQ"][..],
        // Written by serde_json, whose error carries the closed pipe (it said "error:
        // Broken pipe" and exited 1).
        &["solve", "RBENSTLAEOUONCAQ", "--json"][..],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = common::bin().args(args).stdout(writer).output().unwrap();
        let said = text(&out.stderr);
        assert!(out.status.success() && said.is_empty(), "{args:?}: {said}");
    }
}

#[test]
fn read_tells_the_board_on_a_screenshot_and_exits_3_when_there_is_none() {
    use scramblebot::sim::{Model, Sim, SimConfig};
    let sim = Sim::start(
        "127.0.0.1:0".parse().unwrap(),
        SimConfig {
            model: Model::Pixel,
            ..SimConfig::default()
        },
    )
    .unwrap();
    let want = sim.device().game().board().to_string();
    let dir = std::env::temp_dir().join(format!("scramblebot-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("round.png");
    sim.device().screenshot().save(&png).unwrap();
    let out = scramblebot(&["read", png.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["board"], want);
    assert_eq!(v["sure"], true);
    assert_eq!(v["grid"]["tiles_seen"], 16);
    assert_eq!(v["grid"]["letters"], "dark");
    // Turned over, the screen shows light letters on dark tiles: read on its negative.
    let turned = dir.join("turned.png");
    scramblebot::vision::read::negative(&sim.device().screenshot())
        .save(&turned)
        .unwrap();
    let out = scramblebot(&["read", turned.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&v["board"], &v["grid"]["letters"]),
        (&want.clone().into(), &"light".into())
    );
    // With the model's profile, the grid comes from it.
    let out = scramblebot(&["read", png.to_str().unwrap(), "--device", "pixel"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(&format!("board {want}; grid: first centre")));
    assert!(text(&out.stdout).contains("from profile pixel"));
    // A profile for another screen size is a mistake of the user's.
    let out = scramblebot(&["read", png.to_str().unwrap(), "--device", "nexus7"]);
    fails_with(&out, 2, "is for a 800x1280 screen", "wrong profile");
    // The same board under a dark overlay (a toast before the round): its letters are read
    // through it, it is said to be dimmed, and the exit code is 3 (not a board to play).
    let mut dim = (*sim.device().screenshot()).clone();
    for p in dim.pixels_mut() {
        for c in 0..3 {
            p[c] = (f32::from(p[c]) * 0.4).round() as u8;
        }
    }
    let dimmed = dir.join("dimmed.png");
    dim.save(&dimmed).unwrap();
    let out = scramblebot(&["read", dimmed.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["board"], want, "the letters under the overlay");
    assert_eq!(v["dimmed"], true);
    let out = scramblebot(&["read", dimmed.to_str().unwrap()]);
    fails_with(&out, 3, "dimmed under an overlay", "dimmed board");
    assert!(text(&out.stdout).contains("(dimmed under an overlay: not in play)"));
    // Under a light overlay that leaves the tiles light, a toast box across the grid's middle
    // ("GO!") still says the board is not in play.
    let g = &v["grid"];
    let (first, pitch) = (&g["centres"][0], &g["pitch"]);
    let f = |j: &serde_json::Value| j.as_f64().unwrap() as f32;
    let middle = (
        f(&first[0]) + 1.5 * f(&pitch[0]),
        f(&first[1]) + 1.5 * f(&pitch[1]),
    );
    let mut toast = (*sim.device().screenshot()).clone();
    for (x, y, p) in toast.enumerate_pixels_mut() {
        let (dx, dy) = (x as f32 - middle.0, y as f32 - middle.1);
        if dx.abs() < 1.1 * f(&pitch[0]) && dy.abs() < 0.35 * f(&pitch[1]) {
            *p = image::Rgba([150, 160, 40, 255]);
        } else {
            for c in 0..3 {
                p[c] = (f32::from(p[c]) * 0.7).round() as u8;
            }
        }
    }
    let toasted = dir.join("toast.png");
    toast.save(&toasted).unwrap();
    let out = scramblebot(&["read", toasted.to_str().unwrap()]);
    fails_with(
        &out,
        3,
        "something lies over the board",
        "a toast over the board",
    );
    // A screen without a board: exit 3.
    let blank = dir.join("blank.png");
    image::RgbaImage::from_pixel(720, 1280, image::Rgba([30, 30, 60, 255]))
        .save(&blank)
        .unwrap();
    let out = scramblebot(&["read", blank.to_str().unwrap()]);
    fails_with(&out, 3, "no 4x4 grid", "blank screen");
    // Not an image at all: bad input.
    let junk = temp_file("junk.png", b"hello");
    let out = scramblebot(&["read", junk.to_str().unwrap()]);
    fails_with(&out, 2, "not an image", "junk");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn demo_shows_the_daemon_on_several_virtual_phones() {
    let out = common::bin()
        .args([
            "demo",
            "--phones",
            "2",
            "--rounds",
            "2",
            "--round-secs",
            "6",
            "--json",
        ])
        .output_bounded();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ended: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["event"] == "round_ended")
        .collect();
    assert_eq!(ended.len(), 4, "{stdout}");
    let phones: std::collections::HashSet<&str> = ended
        .iter()
        .map(|e| e["record"]["serial"].as_str().unwrap())
        .collect();
    assert_eq!(phones.len(), 2, "{stdout}");
    for e in ended {
        let ended = e["record"]["ended"].as_str().unwrap();
        assert!(ended == "all_words" || ended == "clock", "{e}");
    }
}

#[test]
fn sim_serves_several_phones_each_with_its_model_and_report() {
    use std::io::BufRead;
    let dir = fresh_dir("sims");
    let mut child = common::bin()
        .args(["sim", "--port", "0", "--phones", "3", "--model", "pixel"])
        .arg("--report")
        .arg(dir.join("r.json"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut phones = Vec::new();
    while phones.len() < 3 {
        let line = lines.next().unwrap().unwrap();
        if line.contains("listening on") {
            let addr: std::net::SocketAddr = line.rsplit(' ').next().unwrap().parse().unwrap();
            phones.push((line, addr));
        }
    }
    // The models in turn from pixel, each answering as itself.
    for ((line, addr), product) in phones.iter().zip(["Pixel 7", "Small Phone", "Nexus 7"]) {
        let mut host = common::Host::ready(*addr);
        assert_eq!(
            host.shell("getprop ro.product.model").trim(),
            product,
            "{line}"
        );
    }
    sigterm(&child);
    assert!(child.wait().unwrap().success());
    for (i, model) in ["pixel", "small", "nexus7"].iter().enumerate() {
        let report: scramblebot::sim::game::Report =
            serde_json::from_slice(&std::fs::read(dir.join(format!("r-{}.json", i + 1))).unwrap())
                .unwrap();
        assert_eq!(report.model.as_deref(), Some(*model));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn history_sums_up_per_phone_and_plots_the_rounds() {
    use scramblebot::daemon::history::{Ended, RoundRecord, append};
    let dir = std::env::temp_dir().join(format!("scramblebot-history-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let file = dir.join("history.jsonl");
    let round = |serial: &str, time: u64, points: u32, ended: Ended| RoundRecord {
        time,
        serial: serial.into(),
        profile: "nexus7".into(),
        board: "RBEN/STLA/EOUO/NCAQu".into(),
        bonuses: None,
        route: "monkey".into(),
        words_entered: 100,
        words_planned: 178,
        points_claimed: points,
        max_points: 1220,
        first_touch_ms: Some(120.0),
        duration_secs: 11.0,
        ended,
        screenshot: None,
        score_moved: None,
        words_entered_again: 0,
        points_seen: None,
        words_taken: None,
        words_not_taken: None,
        words_refused: None,
        words_unknown: None,
        clock_seen: None,
        score_looked: false,
    };
    // The game's score was read on one round: 1,100 of the 1,220 points entered.
    let seen = RoundRecord {
        points_seen: Some(1100),
        words_taken: Some(90),
        ..round("127.0.0.1:5555", 1_700_000_000, 1220, Ended::AllWords)
    };
    let rounds = [
        seen,
        round("127.0.0.1:5555", 1_700_000_600, 610, Ended::Clock),
        round("127.0.0.1:5557", 1_700_000_300, 0, Ended::Unsure),
        round("127.0.0.1:5557", 1_700_001_200, 915, Ended::Clock),
    ];
    for r in &rounds {
        append(&file, r).unwrap();
    }
    let png = dir.join("points.png");
    let f = file.to_str().unwrap();
    let out = scramblebot(&["history", "--history", f, "--plot", png.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let row = |name: &str| -> Vec<String> {
        let line = table.lines().find(|l| l.starts_with(name)).unwrap();
        line.split_whitespace().map(String::from).collect()
    };
    // phone, rounds, played, all words, words, points entered, points seen, share
    assert_eq!(
        row("127.0.0.1:5555")[1..],
        ["2", "2", "1", "200", "1830", "1100", "75.0%"]
    );
    assert_eq!(
        row("127.0.0.1:5557")[1..],
        ["2", "1", "0", "200", "915", "-", "37.5%"]
    );
    assert_eq!(
        row("all")[1..],
        ["4", "3", "1", "400", "2745", "1100", "56.2%"]
    );
    assert!(
        text(&out.stderr).contains("plotted 3 rounds played"),
        "{}",
        text(&out.stderr)
    );
    let img = image::open(&png).unwrap().to_rgb8();
    assert_eq!(img.dimensions(), (1000, 700));
    // A line per phone, in the first two colours of the palette.
    for colour in [[31, 119, 180], [214, 39, 40]] {
        assert!(
            img.pixels().filter(|p| p.0 == colour).count() > 100,
            "{colour:?}"
        );
    }
    // A JPEG when the name says so; a name of another kind is refused, and no file left.
    let jpg = dir.join("points.jpg");
    let out = scramblebot(&["history", "--history", f, "--plot", jpg.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(&std::fs::read(&jpg).unwrap()[..3], b"\xff\xd8\xff");
    let gif = dir.join("points.gif");
    let out = scramblebot(&["history", "--history", f, "--plot", gif.to_str().unwrap()]);
    fails_with(&out, 2, "name a .png or .jpg file", "a .gif plot");
    assert!(!gif.exists());
    // An empty history has nothing to plot: said, exit 2, no file.
    let empty = temp_file("empty-history.jsonl", b"");
    let none = dir.join("none.png");
    let out = scramblebot(&[
        "history",
        "--history",
        empty.to_str().unwrap(),
        "--plot",
        none.to_str().unwrap(),
    ]);
    fails_with(&out, 2, "nothing to plot", "an empty history");
    assert!(!none.exists());
    // A disk that fills: the plot is refused with the cause said once, and no file is left,
    // whole or cut.
    let before = files_under(&dir);
    let out = on_a_full_disk(&dir, &["history", "--history", f, "--plot", "full.png"]);
    fails_with(&out, 1, "File too large", "a plot on a full disk");
    let err = text(&out.stderr);
    assert_eq!(err.matches("File too large").count(), 1, "{err}");
    assert_eq!(files_under(&dir), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `calibrate --image` on a disk that fills: refused, the cause said once, and no profile,
/// strip or temporary file left behind.
#[test]
fn calibrate_on_a_full_disk_leaves_no_cut_file() {
    use scramblebot::sim::Model;
    let dir = fresh_dir("calibrate-full");
    let phone = common::start(Model::Nexus7);
    phone
        .device()
        .screenshot()
        .save(dir.join("shot.png"))
        .unwrap();
    drop(phone);
    let out = on_a_full_disk(&dir, &["calibrate", "--name", "z", "--image", "shot.png"]);
    fails_with(&out, 1, "File too large", "a profile on a full disk");
    let err = text(&out.stderr);
    assert_eq!(err.matches("File too large").count(), 1, "{err}");
    assert_eq!(files_under(&dir), ["shot.png"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tmux server of its own (`-L`), killed when dropped; None when tmux is not installed.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(name: &str, width: u32, height: u32, command: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            scramblebot::testing::skip("tmux (a real terminal)", "tmux");
            return None;
        }
        let tmux = Tmux {
            socket: format!("scramblebot-{name}-{}", std::process::id()),
        };
        let (w, h) = (width.to_string(), height.to_string());
        let out = tmux.run(&["new-session", "-d", "-s", "t", "-x", &w, "-y", &h, command]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        Some(tmux)
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .env_remove("TMUX")
            .output_bounded()
    }

    /// What the terminal shows now.
    fn screen(&self) -> String {
        text(&self.run(&["capture-pane", "-p", "-t", "t"]).stdout)
    }

    /// Everything the terminal has shown on its main screen, scrolled off or not.
    fn scrollback(&self) -> String {
        text(
            &self
                .run(&["capture-pane", "-p", "-S", "-", "-t", "t"])
                .stdout,
        )
    }

    /// Waits, up to `secs`, until the screen satisfies `ready`; the last screen either way.
    fn wait_for(&self, secs: u64, ready: impl Fn(&str) -> bool) -> (bool, String) {
        let mut screen = String::new();
        let held = common::poll_until(std::time::Duration::from_secs(secs), || {
            screen = self.screen();
            ready(&screen)
        });
        (held, screen)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

#[test]
fn on_a_terminal_the_daemon_shows_a_live_line_per_phone() {
    let command = format!(
        "{} demo --phones 2 --rounds 1 --round-secs 16; sleep 60",
        env!("CARGO_BIN_EXE_scramblebot")
    );
    let Some(tmux) = Tmux::start("live", 140, 40, &command) else {
        return;
    };
    // A line per phone: its serial, a bar, words entered of all, the round, points (entered,
    // said so: the demo's phones have no digits learned) and the time left, redrawn in place
    // as the words go in. (Rounds of 16 s: under a full suite's load a phone's round once
    // began 3.3 s late and its 8 s were over before a live line showed.)
    let live = |screen: &str| {
        screen
            .lines()
            .filter(|l| {
                l.starts_with("127.0.0.1:")
                    && l.contains(" words  round 1: ")
                    && l.contains(" points entered, 0:0")
                    && l.ends_with(" left")
            })
            .count()
            == 2
    };
    let (seen, screen) = tmux.wait_for(60, live);
    assert!(seen, "{screen}");
    // When the round is over, both phones' lines say they are done, under the lines of
    // what happened, in order: each phone's round ended before it was done.
    let over = |screen: &str| {
        screen
            .lines()
            .filter(|l| l.starts_with("127.0.0.1:") && l.ends_with(" words  done, 1 round"))
            .count()
            == 2
    };
    let (seen, screen) = tmux.wait_for(60, over);
    assert!(seen, "{screen}");
    for (i, l) in screen.lines().enumerate() {
        if let Some(serial) = l.strip_suffix(": done, 1 round") {
            let ended = screen
                .lines()
                .take(i)
                .any(|e| e.starts_with(&format!("{serial}: entered ")));
            assert!(ended, "{serial}: done before its round ended\n{screen}");
        }
    }
}

/// Endless input piped into `practice` (`< /dev/zero`, `< /dev/urandom`) grew it to 2.1 GB
/// and an abort, or echoed gigabytes past the practice's clock: a line is read with a bound,
/// and the clock ends the session.
#[test]
fn practice_piped_endless_input_stays_small_and_keeps_the_clock() {
    for source in ["/dev/zero", "/dev/urandom"] {
        let child = common::bin()
            .args([
                "practice",
                "--board",
                "CATSXXXXXXXXXXXX",
                "--no-history",
                "--secs",
                "2",
            ])
            .current_dir(std::env::temp_dir())
            .stdin(std::fs::File::open(source).unwrap())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let out = common::output_within(child, secs(30), "practice");
        assert!(out.status.success(), "{source}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("time is up"), "{source}");
        // /dev/zero is one line that never ends: dropped as it comes (it was held whole),
        // nothing judged. (/dev/urandom's lines, a newline in 256 bytes, are each judged.)
        if source == "/dev/zero" {
            assert!(out.stdout.len() < 10_000, "{}", text(&out.stdout));
        }
    }
}

/// `scramblebot ARGS` with `input` on its stdin.
fn scramblebot_fed(args: &[&str], input: &str) -> Output {
    use std::io::Write as _;
    let mut child = common::bin()
        .args(args)
        .current_dir(std::env::temp_dir())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    common::output_within(child, secs(120), "scramblebot fed its stdin")
}

#[test]
fn practice_piped_judges_a_word_a_line_and_sums_up() {
    let dict = temp_file(
        "practice-words.txt",
        b"at\ncat\ncats\nact\nsat\nzebra\ntax\n",
    );
    let history = temp_file("practice-history.jsonl", b"");
    let args = [
        "practice",
        "--board",
        "CATSXXXXXXXXXXXX",
        "--dict",
        dict.to_str().unwrap(),
        "--history",
        history.to_str().unwrap(),
        "--json",
    ];
    let out = scramblebot_fed(&args, "cat\nCAT\nact\nzebra\nxyz\na\n\ncats\ntax\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let (lines, json) = stdout.trim_end().rsplit_once('\n').unwrap();
    assert_eq!(
        lines,
        "cat: accepted, 6 points
CAT: already found
act: not on the board
zebra: not on the board
xyz: not a word
a: too short (at least 2 letters)
cats: accepted, 7 points
tax: accepted, 10 points
score 23 of 24 points; 3 of 4 words found
missed, longest first (1):
  at                 1"
    );
    assert!(
        text(&out.stderr).contains("board CATS/XXXX/XXXX/XXXX, scramble rules"),
        "{}",
        text(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(json["score"], 23);
    assert_eq!(json["max_score"], 24);
    assert_eq!(json["rules"], "scramble");
    assert_eq!(json["found"][2]["word"], "tax");
    assert_eq!(
        json["found"][2]["path"],
        serde_json::json!([[0, 2], [0, 1], [1, 1]])
    );
    assert_eq!(json["missed"][0]["word"], "at");
    // The practice went into the history, and `history --practice` shows it.
    let out = scramblebot(&[
        "history",
        "--practice",
        "--history",
        history.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let h: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(
        h["practices"][0]["found"],
        serde_json::json!(["cat", "cats", "tax"])
    );
    assert_eq!(h["practices"][0]["missed"], serde_json::json!(["at"]));
    assert!((h["mean_share"].as_f64().unwrap() - 23.0 / 24.0).abs() < 1e-9);
    // Boggle rules: three letters at least.
    let out = scramblebot_fed(
        &[
            "practice",
            "--board",
            "CATSXXXXXXXXXXXX",
            "--dict",
            dict.to_str().unwrap(),
            "--rules",
            "boggle",
            "--no-history",
        ],
        "at\ncat\n",
    );
    assert!(
        text(&out.stdout)
            .starts_with("at: too short (at least 3 letters)\ncat: accepted, 1 point\n"),
        "{}",
        text(&out.stdout)
    );
    // A board that is not one: exit 2, said.
    let out = scramblebot_fed(&["practice", "--board", "CATS", "--no-history"], "");
    fails_with(&out, 2, "4x4", "a short board");
}

#[test]
fn practice_in_a_terminal_judges_words_and_shows_every_missed_one() {
    use scramblebot::practice::Practice;
    use scramblebot::sample::{Rng, roll_dice};
    // The board seed 1 rolls, and its words, as the trainer will find them.
    let board = scramblebot::Board::from_tiles(&roll_dice(&mut Rng::new(1))).unwrap();
    let trie = scramblebot::Trie::enable();
    let practice = Practice::new(
        board,
        scramblebot::Bonuses::none(),
        scramblebot::Rules::scramble(),
        &trie,
        std::time::Duration::from_secs(5),
    );
    let words = practice.words();
    let (typed, next) = (&words[0], &words[1]);
    let history = std::env::temp_dir().join(format!(
        "scramblebot-practice-tmux-{}.jsonl",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&history);
    let command = format!(
        "{} practice --seed 1 --secs 5 --history {}; sleep 60",
        env!("CARGO_BIN_EXE_scramblebot"),
        history.display()
    );
    let Some(tmux) = Tmux::start("practice", 100, 30, &command) else {
        return;
    };
    let (seen, screen) = tmux.wait_for(20, |s| s.contains("type a word and Enter"));
    assert!(seen, "{screen}");
    assert!(
        screen.contains(&format!("board {board} (seed 1)")),
        "{screen}"
    );
    let send = |keys: &[&str]| {
        assert!(
            tmux.run(&[&["send-keys", "-t", "t"], keys].concat())
                .status
                .success()
        )
    };
    // Two wrong letters taken back with Backspace, then the word.
    send(&["zq", "BSpace", "BSpace", &typed.word, "Enter"]);
    let accepted = format!("{}: accepted, {} points", typed.word, typed.points);
    let (seen, screen) = tmux.wait_for(5, |s| s.contains(&accepted));
    assert!(seen, "{screen}");
    // Its path lit on the board: each step numbered in the tiles' bottom edges.
    assert!(
        screen.contains("──1──") && screen.contains("──2──"),
        "{screen}"
    );
    send(&["qxzvw", "Enter"]);
    let (seen, screen) = tmux.wait_for(5, |s| s.contains("qxzvw: not a word"));
    assert!(seen, "{screen}");
    // A smaller terminal: drawn again to fit, the board whole.
    assert!(
        tmux.run(&["resize-window", "-t", "t", "-x", "70", "-y", "22"])
            .status
            .success()
    );
    let (seen, screen) = tmux.wait_for(5, |s| {
        s.lines().all(|l| l.chars().count() <= 70) && s.contains("┌ board") && s.contains("> _")
    });
    assert!(seen, "{screen}");
    send(&[&typed.word.to_uppercase(), "Enter"]);
    let (seen, screen) =
        tmux.wait_for(5, |s| s.contains(&format!("{}: already found", typed.word)));
    assert!(seen, "{screen}");
    // Time is up: the score, and the missed words longest first, the first selected.
    let over = format!(
        "time is up: score {} of {} points",
        typed.points,
        practice.max_score()
    );
    let found = format!("1 of {} words found", words.len());
    let (seen, screen) = tmux.wait_for(15, |s| s.contains(&over) && s.contains(&found));
    assert!(seen, "{screen}");
    assert!(
        screen.contains(&format!("missed ({})", words.len() - 1)),
        "{screen}"
    );
    assert!(screen.contains(&format!("> {}", next.word)), "{screen}");
    send(&["Down"]);
    let (seen, screen) = tmux.wait_for(5, |s| s.contains(&format!("> {}", words[2].word)));
    assert!(seen, "{screen}");
    // q leaves the trainer; the terminal is restored and the summary printed on it.
    send(&["q"]);
    let summary = format!(
        "score {} of {} points; 1 of {} words found",
        typed.points,
        practice.max_score(),
        words.len()
    );
    let last = words.last().unwrap();
    let last = format!("  {:<16} {:>3}", last.word, last.points);
    let (seen, screen) = tmux.wait_for(5, |s| s.contains(&last));
    assert!(seen, "{screen}");
    let printed = tmux.scrollback();
    assert!(printed.contains(&summary), "{printed}");
    assert!(
        !printed.contains("time is up"),
        "the alternate screen is gone:\n{printed}"
    );
    let records: Vec<scramblebot::practice::PracticeRecord> =
        scramblebot::daemon::history::read_lines(&history)
            .unwrap()
            .0;
    assert_eq!(records.len(), 1);
    assert_eq!((records[0].seed, records[0].score), (Some(1), typed.points));
    let _ = std::fs::remove_file(&history);
}

#[test]
fn practice_ends_early_on_esc_and_ctrl_c_restores_the_terminal() {
    let command = format!(
        "{} practice --seed 2 --secs 600 --no-history; sleep 60",
        env!("CARGO_BIN_EXE_scramblebot")
    );
    let Some(tmux) = Tmux::start("practice-esc", 100, 30, &command) else {
        return;
    };
    let (seen, screen) = tmux.wait_for(20, |s| s.contains("time 10:00") || s.contains("time 9:5"));
    assert!(seen, "{screen}");
    assert!(
        tmux.run(&["send-keys", "-t", "t", "Escape"])
            .status
            .success()
    );
    let (seen, screen) = tmux.wait_for(5, |s| s.contains("time is up: score 0 of "));
    assert!(seen, "{screen}");
    drop(tmux);
    // Ctrl-C mid-practice: the terminal back as it was, the summary printed, exit 130.
    let command = format!(
        "{} practice --seed 2 --secs 600 --no-history; echo exit=$?; sleep 60",
        env!("CARGO_BIN_EXE_scramblebot")
    );
    let Some(tmux) = Tmux::start("practice-ctrl-c", 100, 30, &command) else {
        return;
    };
    let (seen, screen) = tmux.wait_for(20, |s| s.contains("type a word and Enter"));
    assert!(seen, "{screen}");
    assert!(tmux.run(&["send-keys", "-t", "t", "C-c"]).status.success());
    let (seen, screen) = tmux.wait_for(5, |s| s.contains("exit=130"));
    assert!(seen, "{screen}");
    let printed = tmux.scrollback();
    assert!(printed.contains("score 0 of "), "{printed}");
    assert!(!printed.contains("type a word"), "{printed}");
}

#[test]
fn practice_takes_its_board_and_bonuses_from_a_screenshot() {
    use scramblebot::sim::Model;
    use scramblebot::sim::game::GameConfig;
    // Round 2 of a match: the board with its DL/DW tiles, as a phone shows it.
    let sim = common::start_game(
        Model::Nexus7,
        GameConfig {
            // Round 2 is on from 1.7 s to 3.2 s: time to take its screenshot.
            round: std::time::Duration::from_millis(1500),
            auto_advance: Some(std::time::Duration::from_millis(200)),
            ..GameConfig::default()
        },
    );
    common::wait_until("round 2", secs(10), || sim.device().report().round >= 2);
    let report = sim.device().report();
    let png = std::env::temp_dir().join(format!("scramblebot-practice-{}.png", std::process::id()));
    sim.device().screenshot().save(&png).unwrap();
    let out = scramblebot_fed(
        &[
            "practice",
            "--image",
            png.to_str().unwrap(),
            "--no-history",
            "--json",
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let json: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(json["board"], report.board.as_str());
    assert_eq!(json["bonuses"], report.bonuses.as_str());
    assert_eq!(json["max_score"], report.max_score);
    // A screen that is not a board: exit 3, said.
    let blank = std::env::temp_dir().join(format!("scramblebot-blank-{}.png", std::process::id()));
    image::RgbaImage::from_pixel(400, 700, image::Rgba([20, 30, 60, 255]))
        .save(&blank)
        .unwrap();
    let out = scramblebot_fed(&["practice", "--image", blank.to_str().unwrap()], "");
    fails_with(&out, 3, "no 4x4 grid", "a screen without a board");
    let _ = std::fs::remove_file(&png);
    let _ = std::fs::remove_file(&blank);
}

/// `play --board` holds the board typed against the screen: one tile read surely as another
/// letter refuses it (exit 2, naming the tile, nothing touched); the board showing is played
/// with what the screen says; `--force` enters a board the screen contradicts.
#[test]
fn a_typed_board_the_screen_contradicts_is_refused() {
    use scramblebot::sim::Model;
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let game = scramblebot::sim::game::GameConfig {
        board: Some(scramblebot::Board::parse("cape/rwjq/xzvk/oybf").unwrap()),
        ..Default::default()
    };
    let phone = common::start_game(Model::Nexus7, game);
    let addr = phone.addr().to_string();
    let play = |board: &str, more: &[&str]| {
        let mut args = vec!["--device", "nexus7", "--connect", &addr, "--board", board];
        args.extend_from_slice(&["--time-left", "2", "--json"]);
        args.extend_from_slice(more);
        play_through(&server, &args)
    };
    // A typo in the last tile: F typed as Z.
    let out = play("cape/rwjq/xzvk/oybz", &[]);
    fails_with(
        &out,
        2,
        "row 4 col 4 reads F surely, typed Z",
        "a board the screen contradicts",
    );
    assert!(
        text(&out.stderr).contains("--force"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(phone.device().report().strokes.len(), 0, "nothing touched");
    // The board showing: played, said to be on the screen.
    let out = play("cape/rwjq/xzvk/oybf", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["board_from"], "typed, on the screen", "{json}");
    assert!(json["bot"]["words_entered"].as_u64().unwrap() > 0, "{json}");
    // Forced: entered as typed.
    let out = play("cape/rwjq/xzvk/oybz", &["--force"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["board_from"], "typed", "{json}");
}

#[test]
fn play_starts_an_adb_server_on_its_own_port_and_keeps_adb_quiet() {
    use scramblebot::sim::Model;
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    // No server on the port given with -P: play starts one there (adb_client started one on
    // 5037, then could not reach it), and adb's "daemon started" lines stay off the terminal.
    assert!(server.adb(&["kill-server"]).status.success());
    let game = scramblebot::sim::game::GameConfig {
        board: Some(scramblebot::Board::parse("cats/xxxx/xxxx/xxxx").unwrap()),
        ..Default::default()
    };
    let phone = common::start_game(Model::Nexus7, game);
    let addr = phone.addr().to_string();
    let out = play_through(
        &server,
        &[
            "--device",
            "nexus7",
            "--connect",
            &addr,
            "--board",
            "cats/xxxx/xxxx/xxxx",
        ],
    );
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("daemon"), "{err}");
    // The shipped profile reads no clock: the first line says so, and how the round ends.
    assert!(
        err.contains("the profile reads no clock")
            && err.contains("playing until the board leaves the screen, at most 1"),
        "{err}"
    );
    let listed = text(&server.adb(&["devices"]).stdout);
    assert!(listed.contains(&addr), "{listed}");
}

#[test]
fn logs_are_plain_text_when_stderr_is_not_a_terminal() {
    let out = scramblebot(&["-v", "solve", "catsxxxxxxxxxxxx"]);
    assert!(out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("INFO"), "{err}");
    assert!(!err.contains('\u{1b}'), "colour codes in a pipe: {err:?}");
}

#[test]
fn read_says_which_tiles_show_no_letter() {
    use scramblebot::sim::Model;
    use scramblebot::sim::game::GameConfig;
    // Android's "isn't responding" dialog over the grid: the covered tiles show no letter.
    let sim = common::start_game(
        Model::Nexus7,
        GameConfig {
            dialog_round: Some(1),
            dimmed_round: None,
            ..GameConfig::default()
        },
    );
    let dir = fresh_dir("read-dialog");
    let png = dir.join("dialog.png");
    sim.device().screenshot().save(&png).unwrap();
    let out = scramblebot(&["read", png.to_str().unwrap(), "--device", "nexus7"]);
    fails_with(&out, 3, "not sure of ", "a dialog over the grid");
    let err = text(&out.stderr);
    assert!(
        err.contains("no letter on row 2 col 4, row 3 col 1"),
        "{err}"
    );
    assert!(!err.contains("A or A"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_solves_the_boards_of_a_file() {
    let file = temp_file(
        "bench-boards.txt",
        b"# two boards and a comment\nRBEN/STLA/EOUO/NCAQu\n\nperslatgsineters\n",
    );
    let out = scramblebot(&[
        "bench",
        "--boards-file",
        file.to_str().unwrap(),
        "--mode",
        "full",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let fig: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (fig["set"].as_str(), fig["boards"].as_u64()),
        (Some("file"), Some(2))
    );
    // The words are those `solve` finds on each board under the same (boggle) rules.
    let words = |board: &str| {
        let out = scramblebot(&["solve", board, "--rules", "boggle", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["word_count"].as_u64().unwrap()
    };
    assert_eq!(
        fig["words"].as_u64().unwrap(),
        words("RBEN/STLA/EOUO/NCAQu") + words("perslatgsineters")
    );
    let bad = temp_file("bench-bad.txt", b"RBEN/STLA/EOUO/NCAQu\nabc\n");
    let out = scramblebot(&["bench", "--boards-file", bad.to_str().unwrap()]);
    fails_with(&out, 2, "bench-bad.txt:2:", "a line that is not a board");
    // Said before any table begins.
    assert_eq!(text(&out.stdout), "");
    let out = scramblebot(&[
        "bench",
        "--boards-file",
        bad.to_str().unwrap(),
        "--set",
        "near",
    ]);
    fails_with(&out, 2, "cannot be used with", "a file and a set");
}

/// `bench vision --gallery FILE` keeps the screens read exactly and surely as lines the
/// gallery test reads back; a second run adds none of them again.
#[test]
fn bench_vision_keeps_its_exact_and_sure_screens_in_a_gallery() {
    use scramblebot::vision::corpus::{self, Corpus};
    let faces = corpus::load_named(
        std::path::Path::new("/usr/share/fonts"),
        Corpus::Classic.face_names(),
    );
    if faces.len() < Corpus::Classic.face_names().len() {
        scramblebot::testing::skip("the classic corpus's typefaces", Corpus::Classic.packages());
        return;
    }
    let dir = fresh_dir("gallery");
    let file = dir.join("gallery.txt");
    let run = || {
        scramblebot(&[
            "bench",
            "vision",
            "--corpus",
            "classic",
            "--screens",
            "6",
            "--seed",
            "1",
            "--gallery",
            file.to_str().unwrap(),
            "--json",
        ])
    };
    let out = run();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kept = corpus::gallery::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        kept.len() as u64,
        report["boards_exact_sure"].as_u64().unwrap(),
        "{}",
        text(&out.stderr)
    );
    assert!(
        kept.iter()
            .all(|e| e.corpus == Corpus::Classic && e.seed == 1 && e.index < 6)
    );
    let out = run();
    assert!(
        text(&out.stderr).contains(": 0 screens added"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        corpus::gallery::parse(&std::fs::read_to_string(&file).unwrap()).unwrap(),
        kept
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A long file of boards takes minutes in release; on a terminal a bar shows the boards
/// solved of all the passes, and moves.
#[test]
fn a_long_boards_file_shows_its_progress_on_a_terminal() {
    const BOARDS: usize = 150_000;
    let letters = b"ABCDEFGHIJKLMNOPRSTUVWYEEAIO";
    let mut state = 7u64;
    let mut file = Vec::with_capacity(BOARDS * 17);
    for _ in 0..BOARDS {
        for _ in 0..16 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            file.push(letters[(state >> 33) as usize % letters.len()]);
        }
        file.push(b'\n');
    }
    let path = temp_file("bench-long.txt", &file);
    let command = format!(
        "{} bench --boards-file {} --mode full; sleep 60",
        env!("CARGO_BIN_EXE_scramblebot"),
        path.display()
    );
    let Some(tmux) = Tmux::start("bench", 120, 10, &command) else {
        return;
    };
    // One pass untimed, five timed.
    let total = format!("/{} boards solved", BOARDS * 6);
    let solved = |screen: &str| -> Option<u64> {
        let line = screen.lines().find(|l| l.contains(&total))?;
        let (before, _) = line.split_once(&total)?;
        before.rsplit(' ').next()?.parse().ok()
    };
    let (seen, first) = tmux.wait_for(30, |s| solved(s).is_some());
    assert!(seen, "{first}");
    assert!(
        first.contains(&format!("{BOARDS} boards from ")) && first.contains("file full ["),
        "{first}"
    );
    let at = solved(&first).unwrap();
    let (moved, later) = tmux.wait_for(30, |s| solved(s).is_some_and(|n| n > at));
    assert!(moved, "stuck at {at}: {later}");
}

#[test]
fn a_game_without_lifelines_calibrates_without_freeze_and_plays() {
    use scramblebot::sim::game::GameConfig;
    use scramblebot::sim::{Model, SimConfig};
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = fresh_dir("no-freeze");
    // A round's screen with nothing under the grid (the lifeline row painted over); a board
    // of 41 words, about 2.6 s of play, past the first Freeze due.
    let phone = common::start_with(SimConfig {
        model: Model::Nexus7,
        game: GameConfig {
            seed: 30,
            ..GameConfig::default()
        },
        report: None,
        letters: None,
    });
    let mut shot = (*phone.device().screenshot()).clone();
    for y in 1100..1280 {
        for x in 0..800 {
            let above = *shot.get_pixel(x, 1095);
            shot.put_pixel(x, y, above);
        }
    }
    let png = dir.join("bare.png");
    shot.save(&png).unwrap();
    let out = through_server(&server, &dir, "calibrate")
        .args(["--name", "bare", "--image", png.to_str().unwrap()])
        .output_bounded();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains("no row of lifeline buttons under the grid: Freeze will not be tapped"),
        "{said}"
    );
    assert!(
        said.contains("buttons: none (Freeze is not tapped)"),
        "{said}"
    );
    let profile = dir.join("devices/bare.toml");
    let p = scramblebot::profile::Profile::load(&profile).unwrap();
    assert_eq!(p.freeze(), None);
    // Played with it, Freeze due every 2 s of its rules: every word in, no touch off the
    // tiles, and no Freeze, there being none to tap.
    let text_of = std::fs::read_to_string(&profile).unwrap();
    let every_two = text_of.replace("freeze_every_secs = 30", "freeze_every_secs = 2");
    assert_ne!(every_two, text_of);
    std::fs::write(&profile, every_two).unwrap();
    let addr = phone.addr().to_string();
    let out = play_through(
        &server,
        &["--profile", profile.to_str().unwrap(), "--connect", &addr],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = phone.device().report();
    assert!(report.freezes.is_empty(), "{:?}", report.freezes);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0);
    assert_eq!(report.words, report.words_possible);
    // --no-freeze on a screen that has the row: none, as asked.
    let full = dir.join("full.png");
    phone.device().screenshot().save(&full).unwrap();
    let out = through_server(&server, &dir, "calibrate")
        .args([
            "--name",
            "asked",
            "--image",
            full.to_str().unwrap(),
            "--no-freeze",
        ])
        .output_bounded();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("no Freeze, as asked"),
        "{}",
        text(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn play_warns_loudly_when_the_games_score_does_not_move() {
    use scramblebot::sim::Model;
    use scramblebot::sim::game::GameConfig;
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = fresh_dir("score-box");
    // The Nexus 7 profile, knowing where the virtual game draws its score (upper right).
    let shipped = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("devices/nexus7.toml"),
    )
    .unwrap();
    let profile = dir.join("scored.toml");
    let scored = shipped.replace("name = \"nexus7\"", "name = \"scored\"")
        + "\n[score]\nbox = [520, 95, 790, 170]\n";
    std::fs::write(&profile, scored).unwrap();
    let run = |dialog: Option<u32>| {
        let phone = common::start_game(
            Model::Nexus7,
            GameConfig {
                dialog_round: dialog,
                dimmed_round: None,
                // A board of 41 words: enough to see the score move, or stay.
                seed: 30,
                ..GameConfig::default()
            },
        );
        let board = phone.device().game().board().to_string();
        let addr = phone.addr().to_string();
        let out = through_server(&server, &dir, "play")
            .args(["--profile", profile.to_str().unwrap(), "--connect", &addr])
            .args(["--board", &board, "--json"])
            .env("XDG_STATE_HOME", dir.join(format!("state-{dialog:?}")))
            .output_bounded();
        (out, phone.device().report())
    };
    // Both at once, each on its own phone, each keeping its state apart.
    let ((out, report), (dialog_out, dialog_report)) = std::thread::scope(|scope| {
        let dialog = scope.spawn(|| run(Some(1)));
        (run(None), dialog.join().expect("the run under a dialog"))
    });
    // The game takes the words: the score moved, nothing said.
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["score_moved"], true, "{json}");
    assert!(
        !text(&out.stderr).contains("WARNING"),
        "{}",
        text(&out.stderr)
    );
    assert!(report.words > 3);
    // Android's dialog over the game takes every touch: the bot sends its words, the score
    // stays, and it says so loudly with the screen saved.
    let (out, report) = (dialog_out, dialog_report);
    let err = text(&out.stderr);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["score_moved"], false, "{json}");
    // After the first 3 words at least: more are in when a screenshot takes longer.
    let after: usize = err
        .split("WARNING: the game's score has not moved after ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(after >= 3, "{err}");
    assert_eq!(report.words, 0);
    let saved = err
        .split("the screenshot saved as ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(std::path::Path::new(saved).is_file(), "{saved}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn read_learn_keeps_a_confirmed_boards_glyphs_in_the_profile() {
    use scramblebot::sim::Model;
    let sim = common::start(Model::Nexus7);
    let board = sim.device().game().board().to_string();
    let dir = fresh_dir("learn");
    let shot = dir.join("shot.png");
    sim.device().screenshot().save(&shot).unwrap();
    let profile = dir.join("mine.toml");
    let shipped = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("devices/nexus7.toml"),
    )
    .unwrap();
    std::fs::write(
        &profile,
        shipped.replace("name = \"nexus7\"", "name = \"mine\""),
    )
    .unwrap();
    let learn = || {
        scramblebot(&[
            "read",
            shot.to_str().unwrap(),
            "--profile",
            profile.to_str().unwrap(),
            "--learn",
            &board,
        ])
    };
    // A typo that contradicts tiles read surely teaches nothing (the issue's case: every
    // tile Z): refused, naming the tiles, the profile untouched.
    let out = scramblebot(&[
        "read",
        shot.to_str().unwrap(),
        "--profile",
        profile.to_str().unwrap(),
        "--learn",
        "zzzzzzzzzzzzzzzz",
    ]);
    fails_with(&out, 2, "row 1 col 1 reads R surely, typed Z", "a typo");
    assert!(
        !std::fs::read_to_string(&profile)
            .unwrap()
            .contains("[glyphs]")
    );
    let out = learn();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("mine: learned "), "{err}");
    // The profile keeps its own lines and comments, and now its glyphs and letters.
    let kept = std::fs::read_to_string(&profile).unwrap();
    assert!(kept.starts_with("# Nexus 7 (2012)"), "{kept}");
    assert!(kept.contains("\n[glyphs]"), "{kept}");
    assert!(kept.contains("# letters learned: "), "{kept}");
    assert!(kept.contains("letters = \""), "{kept}");
    let strip = image::open(dir.join("mine.glyphs.png")).unwrap();
    let cells = strip.width() / strip.height();
    assert!((14..=16).contains(&cells), "{cells} cells");
    // Each letter is kept twice at most: a second confirmation adds the second glyphs, a
    // third nothing.
    let out = learn();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = learn();
    assert!(
        text(&out.stderr).contains("no glyph to learn"),
        "{}",
        text(&out.stderr)
    );
    // And the screen is read with the templates.
    let out = scramblebot(&[
        "read",
        shot.to_str().unwrap(),
        "--profile",
        profile.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["board"], board);
    // Without a profile there is nowhere to keep glyphs.
    let out = scramblebot(&["read", shot.to_str().unwrap(), "--learn", &board]);
    fails_with(
        &out,
        2,
        "--learn keeps the glyphs in a profile",
        "no profile",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs the binary with `args` to the end, and its peak resident memory in kB (polled from
/// /proc; 0 where there is none).
fn run_measured(args: &[&str]) -> (Output, u64) {
    use std::io::Read;
    let mut child = common::bin()
        .args(args)
        .current_dir(std::env::temp_dir())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let mut code = None;
    // The peak is a high-water mark: sampled until the process ends, it is the process's.
    let ended = common::poll_until(secs(60), || {
        if let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok());
            peak = peak.max(hwm.unwrap_or(0));
        }
        code = child.try_wait().unwrap();
        code.is_some()
    });
    if !ended {
        let _ = child.kill();
        panic!("{args:?} still running after 60 s");
    }
    let code = code.expect("ended");
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    (
        Output {
            status: code,
            stdout,
            stderr,
        },
        peak,
    )
}

/// Every file a user hands the bot is read with a bound that fits its kind: a device that
/// never ends and a 3 GB sparse file are refused at once, with the bound in the message, in
/// bounded memory (each of these grew without end before: `read /dev/zero` reached 12 GB).
#[test]
fn endless_and_huge_input_files_are_refused_with_bounded_memory() {
    let dir = fresh_dir("endless");
    let sparse = dir.join("sparse.bin");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let sparse = sparse.to_str().unwrap().to_owned();
    for file in ["/dev/zero", sparse.as_str()] {
        if !std::path::Path::new(file).exists() {
            continue;
        }
        let cases: [&[&str]; 7] = [
            &["read", file],
            &["bench", "--boards-file", file],
            &["solve", "--dict", file, "lqreslusaticnren"],
            &["daemon", "--config", file],
            &["practice", "--image", file, "--no-history"],
            &["calibrate", "--image", file, "--name", "x"],
            &["history", "--history", file],
        ];
        for args in cases {
            let (out, peak_kb) = run_measured(args);
            let err = text(&out.stderr);
            assert!(!out.status.success(), "{args:?}: {err}");
            assert!(err.contains(" MB "), "{args:?}: {err}");
            assert!(peak_kb < 400 * 1024, "{args:?}: {peak_kb} kB at its peak");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A history that cannot be kept is refused before any round; one whose last line was cut
/// gets the next record on a line of its own; a line that is not text is one bad line.
#[test]
fn a_history_is_checked_at_start_and_never_glued_or_lost_to_a_bad_byte() {
    let dir = fresh_dir("history-safe");
    let out = scramblebot(&["daemon", "--history", dir.to_str().unwrap(), "-P", "1"]);
    fails_with(&out, 2, "a directory: name a file in it", "a directory");
    // A cut line, a line of bytes that are not text, then a record appended.
    use scramblebot::daemon::history::{self, Ended, RoundRecord};
    let file = dir.join("h.jsonl");
    let record = RoundRecord {
        time: 1_700_000_000,
        serial: "emulator-5554".into(),
        profile: "nexus7".into(),
        board: "RBEN/STLA/EOUO/NCAQu".into(),
        bonuses: None,
        route: "monkey".into(),
        words_entered: 178,
        words_planned: 178,
        points_claimed: 1220,
        max_points: 1220,
        first_touch_ms: Some(60.0),
        duration_secs: 11.0,
        ended: Ended::AllWords,
        screenshot: None,
        score_moved: None,
        words_entered_again: 0,
        points_seen: Some(1220),
        words_taken: Some(178),
        words_not_taken: Some(0),
        words_refused: Some(0),
        words_unknown: Some(0),
        clock_seen: Some(118),
        score_looked: true,
    };
    history::append(&file, &record).unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"\xff\xfe not text\n{\"time\": 17000");
    std::fs::write(&file, &bytes).unwrap();
    history::append(&file, &record).unwrap();
    let (rounds, bad) = history::read(&file).unwrap();
    assert_eq!((rounds.len(), bad), (2, 2));
    let out = scramblebot(&["history", "--history", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("2 lines of"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A practice fed a line that is not text judges it as a line it does not understand and goes
/// on: the summary is printed and the record written.
#[test]
fn a_practice_survives_a_line_that_is_not_text() {
    let dir = fresh_dir("practice-bytes");
    let history = dir.join("practice.jsonl");
    let mut child = common::bin()
        .args([
            "practice",
            "--seed",
            "42",
            "--history",
            history.to_str().unwrap(),
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"moths\nethene\n\xff\n").unwrap();
    }
    let out = common::output_within(child, secs(120), "practice");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("score "),
        "{}",
        text(&out.stdout)
    );
    let written = std::fs::read_to_string(&history).unwrap();
    assert_eq!(written.lines().count(), 1, "{written}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `words --refused` before any game refused a word says so; with some, lists them per game,
/// and `--forget` takes a word back. `history` before any round says there are none yet.
#[test]
fn refused_words_are_listed_and_forgotten_and_an_empty_history_is_said() {
    let dir = fresh_dir("words");
    let words = |args: &[&str]| {
        common::bin()
            .arg("words")
            .args(args)
            .env("XDG_STATE_HOME", &dir)
            .output_bounded()
    };
    let out = words(&["--refused"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no game has refused a word yet"));
    let file = dir.join("scramblebot/refused/com.zynga.scramble.txt");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "qi\nza\n").unwrap();
    let out = words(&["--refused"]);
    assert_eq!(
        text(&out.stdout),
        "com.zynga.scramble: 2 refused words\n  qi\n  za\n"
    );
    let out = words(&["--refused", "--forget", "qi"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("1 of 1 word taken off"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "za\n");
    let out = words(&["--refused", "--game", "not a package"]);
    fails_with(&out, 2, "is not an Android package name", "a bad --game");
    // With or without --plot (which failed on the missing file, exit 2).
    let plot = dir.join("rounds.png");
    for args in [
        &["history"][..],
        &["history", "--plot", plot.to_str().unwrap()][..],
    ] {
        let out = common::bin()
            .args(args)
            .env("XDG_STATE_HOME", &dir)
            .output_bounded();
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("no rounds yet"),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // A word list with no word in it is bad input, as every other (it exited 1).
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "\n\n").unwrap();
    let out = common::bin()
        .args([
            "solve",
            "RBENSTLAEOUONCAQ",
            "--dict",
            empty.to_str().unwrap(),
        ])
        .output_bounded();
    fails_with(&out, 2, "has no playable words", "an empty --dict");
    let _ = std::fs::remove_dir_all(&dir);
}
