//! `scramblebot bench pace`: what closing the loop on the game's score costs and gains. A
//! virtual phone draws its score and clock in a typeface the reader has no references for
//! and ignores a swipe begun within the accept gap of the last word it took. The bench learns
//! its digits once, as `calibrate` does, then plays a fresh round at each gap twice: open loop
//! (the shipped profile, no digits) and closed loop (the profile with them). It reports the
//! words the referee took, words taken per second, screenshots per second, and the CPU the
//! bot's own threads used (the phone's threads left out).

use std::io::Write;
use std::time::Duration;

use anyhow::Context;
use scramblebot::phone::Phone;
use scramblebot::play::{self, Sight};
use scramblebot::profile::{Clock, Profile, ScreenBox};
use scramblebot::sim::game::GameConfig;
use scramblebot::sim::screen::Face;
use scramblebot::sim::{Cable, Limits, Model, Sim, SimConfig};
use scramblebot::vision::digits::Area;

use super::BadInput;

/// One round's figures.
#[derive(serde::Serialize)]
struct PaceRow {
    gap_ms: u64,
    closed_loop: bool,
    words_taken: usize,
    words_possible: usize,
    words_entered: usize,
    /// Of those, entered again after the first pass (the score said they went untaken).
    words_entered_again: usize,
    /// Words the looks at the score could not tell taken or not (closed loop).
    words_unknown: Option<usize>,
    /// The pause between words the round ended at.
    gap_end_ms: f64,
    secs: f64,
    words_taken_per_sec: f64,
    screenshots_per_sec: f64,
    /// CPU time of the bot's threads over the round, as a share of one core.
    bot_cpu: f64,
    points_seen: Option<u32>,
    score: u32,
}

/// Name of the bench runtime's threads: their CPU is the bot's.
const BOT_THREADS: &str = "bot";

pub fn run(gaps: &[u64], cable: Cable, fonts: &std::path::Path, json: bool) -> anyhow::Result<()> {
    let font = scramblebot::vision::corpus::font_file(fonts, "Comfortaa-Bold").ok_or_else(|| {
        BadInput(anyhow::anyhow!(
            "the typeface Comfortaa-Bold is not under {} (Debian package fonts-comfortaa; --fonts DIR)",
            fonts.display()
        ))
    })?;
    let face = || Face::load(&font).map_err(anyhow::Error::from);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(BOT_THREADS)
        // Threads that end take their CPU time with them: none ends during the bench.
        .thread_keep_alive(Duration::from_secs(3600))
        .enable_all()
        .build()?;
    let dir = std::env::temp_dir().join(format!("scramblebot-bench-pace-{}", std::process::id()));
    super::errln!("learning the game's digits off its clock (about 12 s)...");
    let closed = runtime.block_on(learn(&dir, face()?, cable))?;
    let open = Profile::built_in("nexus7").context("the shipped nexus7 profile")?;
    let mut out = std::io::stdout().lock();
    if !json {
        writeln!(
            out,
            "{:>6} {:>6} {:>12} {:>8} {:>6} {:>7} {:>7} {:>7} {:>8} {:>9} {:>8} {:>12}",
            "gap",
            "loop",
            "taken",
            "entered",
            "again",
            "unknown",
            "pause",
            "time",
            "taken/s",
            "shots/s",
            "bot CPU",
            "seen/score"
        )?;
    }
    for &gap in gaps {
        for (closed_loop, profile) in [(false, &open), (true, &closed)] {
            super::errln!(
                "gap {gap} ms, {} loop...",
                if closed_loop { "closed" } else { "open" }
            );
            let row = runtime.block_on(round(profile, gap, face()?, cable, closed_loop))?;
            if json {
                writeln!(out, "{}", serde_json::to_string(&row)?)?;
            } else {
                writeln!(
                    out,
                    "{:>4}ms {:>6} {:>5} of {:>3} {:>8} {:>6} {:>7} {:>5.0}ms {:>6.1}s {:>8.2} {:>9.1} {:>7.0}% {:>12}",
                    row.gap_ms,
                    if closed_loop { "closed" } else { "open" },
                    row.words_taken,
                    row.words_possible,
                    row.words_entered,
                    row.words_entered_again,
                    row.words_unknown.map_or("-".into(), |u| u.to_string()),
                    row.gap_end_ms,
                    row.secs,
                    row.words_taken_per_sec,
                    row.screenshots_per_sec,
                    row.bot_cpu * 100.0,
                    match row.points_seen {
                        Some(p) => format!("{p}/{}", row.score),
                        None => format!("-/{}", row.score),
                    }
                )?;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// A virtual Nexus 7 drawing in `face`, ignoring a swipe within `gap_ms` of the last word,
/// its bytes sent over `cable`.
fn phone(face: Face, gap_ms: u64, cable: Cable) -> anyhow::Result<Sim> {
    Sim::start_limited(
        ([127, 0, 0, 1], 0).into(),
        SimConfig {
            model: Model::Nexus7,
            game: GameConfig {
                accept_gap: Duration::from_millis(gap_ms),
                ..GameConfig::default()
            },
            report: None,
            letters: Some(face),
        },
        Limits {
            cable,
            ..Limits::default()
        },
    )
    .context("cannot start the virtual phone")
}

/// The shipped nexus7 profile with the game's clock, score and digits as `calibrate` learns
/// them (watching a round), saved in `dir` and loaded back.
async fn learn(dir: &std::path::Path, face: Face, cable: Cable) -> anyhow::Result<Profile> {
    let sim = phone(face, 0, cable)?;
    let phone = Phone::connect_direct(sim.addr()).await?;
    let shipped = Profile::built_in("nexus7").context("the shipped nexus7 profile")?;
    let (_, stop) = tokio::sync::watch::channel(false);
    let Sight::Sure { look, .. } = play::see(&phone, &shipped, false, stop, &mut |_| {}).await?
    else {
        anyhow::bail!("the virtual phone's board was not read surely");
    };
    let grid = scramblebot::calibrate::numbers::grid_area(&shipped.grid());
    let numbers = scramblebot::calibrate::probe::watch_numbers(
        &phone,
        grid,
        None,
        None,
        Duration::from_secs(30),
    )
    .await?;
    let (Some(clock), Some(score), Some(digits)) = (numbers.clock, numbers.score, numbers.digits)
    else {
        anyhow::bail!(
            "the game's numbers were not learned: {}",
            numbers.about.join("; ")
        );
    };
    let screen_box = |a: Area| ScreenBox {
        x0: a.x0 as f32,
        y0: a.y0 as f32,
        x1: a.x1 as f32,
        y1: a.y1 as f32,
    };
    let profile = shipped
        .to_builder()
        .clock(Some(Clock {
            area: screen_box(clock),
            digits: Some("nexus7.digits.png".into()),
        }))
        .score(Some(screen_box(score)))
        .build()?;
    let reading = look.reading.as_ref().map_err(|e| anyhow::anyhow!("{e}"))?;
    let saved = scramblebot::calibrate::save(
        dir,
        &profile,
        "bench: the shipped nexus7 with the game's numbers",
        &look.image,
        reading,
        None,
        Some(&digits.strip()),
        true,
    )?;
    Ok(Profile::load(&saved.profile)?)
}

/// One fresh round at `gap_ms` with `profile`.
async fn round(
    profile: &Profile,
    gap_ms: u64,
    face: Face,
    cable: Cable,
    closed_loop: bool,
) -> anyhow::Result<PaceRow> {
    let sim = phone(face, gap_ms, cable)?;
    let phone = Phone::connect_direct(sim.addr()).await?;
    let (_, stop) = tokio::sync::watch::channel(false);
    let Sight::Sure { seen, .. } =
        play::see(&phone, profile, false, stop.clone(), &mut |_| {}).await?
    else {
        anyhow::bail!("the virtual phone's board was not read surely");
    };
    let left = Duration::from_secs_f64(sim.device().report().time_left_ms.max(0.0) / 1e3);
    let round = play::Round::told(seen, std::time::Instant::now() + left);
    let how = play::How {
        order: scramblebot::Order::Longest,
        route: None,
        finish_word_on_stop: false,
    };
    let shots = sim.device().report().screenshots;
    let cpu = bot_cpu();
    let played = round
        .play(&phone, profile, how, None, stop, &mut |_| {})
        .await?
        .played;
    let cpu = bot_cpu().saturating_sub(cpu);
    let report = sim.device().report();
    let secs = played.outcome.elapsed_secs.max(1e-9);
    Ok(PaceRow {
        gap_ms,
        closed_loop,
        words_taken: report.words,
        words_possible: report.words_possible,
        words_entered: played.outcome.words_entered,
        words_entered_again: played.outcome.words_entered_again,
        words_unknown: played.judged.as_ref().map(|j| j.unknown),
        gap_end_ms: played.outcome.gap_ms,
        secs,
        words_taken_per_sec: report.words as f64 / secs,
        screenshots_per_sec: report.screenshots.saturating_sub(shots) as f64 / secs,
        bot_cpu: cpu.as_secs_f64() / secs,
        points_seen: played.points_seen,
        score: report.score,
    })
}

/// CPU time (user and system) of this process's threads named `BOT_THREADS`, from /proc (zero
/// where there is none).
fn bot_cpu() -> Duration {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Duration::ZERO;
    };
    // Clock ticks a second: 100 on every Linux the bot runs on.
    const TICKS: u64 = 100;
    let mut ticks = 0;
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ... utime stime: fields 14 and 15, counted after the comm.
        let Some((comm, rest)) = stat.split_once('(').and_then(|(_, r)| r.rsplit_once(')')) else {
            continue;
        };
        if !comm.starts_with(BOT_THREADS) {
            continue;
        }
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let num = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        ticks += num(11) + num(12);
    }
    Duration::from_millis(ticks * 1000 / TICKS)
}
