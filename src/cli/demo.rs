//! `scramblebot demo`: one round against the built-in virtual phone over a direct ADB link,
//! then what the bot did beside what the game's referee saw.

use std::time::Duration;

use anyhow::Context;
use scramblebot::phone::Phone;
use scramblebot::play::{self, RoundOutcome};
use scramblebot::profile::{Profile, Rules};
use scramblebot::sim::game::{FreezeRecord, GameConfig};
use scramblebot::sim::{Model, Sim, SimConfig};
use serde::Serialize;

use super::play::{enter, see_or_ask};
use super::{ModelArg, RoundArgs, ctrl_c_stops, failed, on_round_runtime, print_json, seconds};

#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Which virtual phone to play on.
    #[arg(long, value_enum, default_value_t = ModelArg::Nexus7)]
    pub model: ModelArg,
    /// Seed of the board.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Length of the round in seconds.
    #[arg(
        long,
        default_value_t = 120.0,
        value_name = "SECS",
        allow_negative_numbers = true
    )]
    pub round_secs: f64,
    /// Tap Freeze every this many seconds of round time.
    #[arg(
        long,
        default_value_t = 30.0,
        value_name = "SECS",
        allow_negative_numbers = true
    )]
    pub freeze_every_secs: f64,
    /// Seconds one Freeze adds to the clock.
    #[arg(
        long,
        default_value_t = 15.0,
        value_name = "SECS",
        allow_negative_numbers = true
    )]
    pub freeze_secs: f64,
    /// Show the daemon instead: this many virtual phones at once (the models in turn from
    /// --model: nexus7, pixel, small), each starting its rounds by itself.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=16))]
    pub phones: Option<u32>,
    /// With --phones: rounds each phone plays (a match is three).
    #[arg(long, value_name = "N", default_value_t = 3, requires = "phones",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    #[command(flatten)]
    pub round: RoundArgs,
}

/// What `demo --json` prints.
#[derive(Serialize)]
struct DemoJson {
    model: &'static str,
    board: String,
    route: String,
    bot: RoundOutcome,
    words_per_sec: f64,
    first_touch_ms: Option<f64>,
    referee: RefereeJson,
}

/// The referee's side of a demo.
#[derive(Serialize)]
struct RefereeJson {
    score: u32,
    max_score: u32,
    words: usize,
    words_possible: usize,
    strokes: usize,
    rejected: usize,
    violations: usize,
    freezes: Vec<FreezeRecord>,
}

pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    let model: Model = args.model.into();
    let round = seconds("--round-secs", args.round_secs, 1.0)?;
    let every = seconds("--freeze-every-secs", args.freeze_every_secs, 0.1)?;
    let freeze = seconds("--freeze-secs", args.freeze_secs, 0.0)?;
    let times = Times {
        round,
        every,
        freeze,
    };
    if let Some(phones) = args.phones {
        return daemon_demo(&args, model, phones, times);
    }
    let sim = Sim::start(
        ([127, 0, 0, 1], 0).into(),
        SimConfig {
            model,
            game: GameConfig {
                seed: args.seed,
                round,
                freeze,
                ..GameConfig::default()
            },
            report: None,
            letters: None,
        },
    )
    .context("cannot start the virtual phone")?;
    let bot_start_ms = sim.device().now().as_secs_f64() * 1e3;
    let profile = demo_profile(model, times)?;
    let (outcome, phone_model, board) = on_round_runtime(async {
        let stop = ctrl_c_stops();
        let phone = Phone::connect_direct(sim.addr()).await?;
        let profile = profile.for_screen(phone.screen.0, phone.screen.1)?;
        // The board as `play` gets it: read on the screen.
        let seen = see_or_ask(&phone, &profile, false, &args.round, stop.clone()).await?;
        // The time left, as a user reads it off the game's clock.
        let left = Duration::from_secs_f64(sim.device().report().time_left_ms.max(0.0) / 1e3);
        let board = seen.board;
        let round = play::Round::told(seen, std::time::Instant::now() + left);
        // The demo's game is not the user's: nothing it learns is kept.
        let (played, _) = enter(&phone, &profile, round, &args.round, None, stop).await?;
        anyhow::Ok((played.outcome, phone.model.clone(), board))
    })??;
    let (route, words) = (outcome.routes_text(), outcome.words_planned);
    let report = sim.device().report();
    let first_touch = report.first_touch_ms.map(|t| t - bot_start_ms);
    let words_per_sec = outcome.words_entered as f64 / outcome.elapsed_secs.max(1e-9);
    let rejected = report.rejected();
    let summary = DemoJson {
        model: model.name(),
        board: board.to_string(),
        route,
        bot: outcome,
        words_per_sec,
        first_touch_ms: first_touch,
        referee: RefereeJson {
            score: report.score,
            max_score: report.max_score,
            words: report.words,
            words_possible: report.words_possible,
            strokes: report.strokes.len(),
            rejected,
            violations: report.violations.len(),
            freezes: report.freezes.clone(),
        },
    };
    if args.round.json {
        print_json(&summary)?;
    } else {
        print_text(&summary, &phone_model, model.release(), words)?;
    }
    failed(&summary.bot)
}

/// The summary for a person: the phone, then the referee's side, then the bot's.
fn print_text(s: &DemoJson, phone_model: &str, release: &str, words: usize) -> std::io::Result<()> {
    let (bot, referee) = (&s.bot, &s.referee);
    super::outln!(
        "virtual {} ({phone_model}, Android {release}), board {}, {words} words to enter, route {}",
        s.model,
        s.board,
        s.route
    )?;
    super::outln!(
        "referee: {} words accepted of {} possible, {} points of {} possible",
        referee.words,
        referee.words_possible,
        referee.score,
        referee.max_score
    )?;
    super::outln!(
        "         {} strokes, {} rejected, {} violations, {}",
        referee.strokes,
        referee.rejected,
        referee.violations,
        freezes(&bot.freezes)
    )?;
    super::outln!(
        "bot:     {} words in {:.1} s ({:.1} words/s), {}, first touch {} ms after start",
        bot.words_entered,
        bot.elapsed_secs,
        s.words_per_sec,
        bot.stop.text(),
        s.first_touch_ms
            .map_or("-".to_owned(), |t| format!("{t:.0}"))
    )?;
    Ok(())
}

/// "no freeze", "1 freeze at 30.0 s", "2 freezes at 30.0 and 60.1 s".
fn freezes(at: &[f64]) -> String {
    let times: Vec<String> = at.iter().map(|t| format!("{t:.1}")).collect();
    match times.as_slice() {
        [] => "no freeze".to_owned(),
        [one] => format!("1 freeze at {one} s"),
        [rest @ .., last] => format!("{} freezes at {} and {last} s", at.len(), rest.join(", ")),
    }
}

/// The round's times a demo's phones and profiles share.
#[derive(Clone, Copy)]
struct Times {
    round: Duration,
    every: Duration,
    freeze: Duration,
}

/// A shipped profile with the demo's round times (a profile says how long the game's rounds
/// are).
fn demo_profile(model: Model, t: Times) -> anyhow::Result<Profile> {
    let shipped = Profile::built_in(model.name()).expect("every model has a profile");
    let rules = Rules {
        round_secs: t.round.as_secs_f64(),
        freeze_every_secs: t.every.as_secs_f64(),
        freeze_secs: t.freeze.as_secs_f64(),
        ..shipped.rules().clone()
    };
    Ok(shipped.to_builder().rules(rules).build()?)
}

/// `demo --phones N`: the daemon on N virtual phones at once, over direct links (no adb).
fn daemon_demo(args: &DemoArgs, first: Model, phones: u32, t: Times) -> anyhow::Result<()> {
    use scramblebot::daemon::worker::WorkerOptions;
    use scramblebot::daemon::{self, Options, Profiles};
    let start = Model::ALL.iter().position(|&m| m == first).unwrap_or(0);
    let mut sims = Vec::new();
    let mut profiles = std::collections::HashMap::new();
    for i in 0..phones as usize {
        let model = Model::ALL[(start + i) % Model::ALL.len()];
        let sim = Sim::start(
            ([127, 0, 0, 1], 0).into(),
            SimConfig {
                model,
                game: GameConfig {
                    seed: args.seed + i as u64,
                    round: t.round,
                    freeze: t.freeze,
                    lobby: true,
                    auto_advance: Some(Duration::from_secs(2)),
                    ..GameConfig::default()
                },
                report: None,
                letters: None,
            },
        )
        .context("cannot start a virtual phone")?;
        profiles.insert(sim.addr().to_string(), demo_profile(model, t)?);
        sims.push(sim);
    }
    let connect = sims.iter().map(|s| s.addr()).collect();
    let opts = Options {
        server: std::net::SocketAddrV4::new([127, 0, 0, 1].into(), 5037),
        connect,
        only: None,
        profiles: Profiles::BySerial(profiles),
        cwd: std::env::current_dir()?,
        config_dir: None,
        worker: WorkerOptions {
            order: args.round.order.into(),
            route: args.round.route.map(Into::into),
            rounds: Some(args.rounds),
            unsure_dir: std::env::temp_dir(),
            keep_screens: 200,
            // The demo's games are not the user's: nothing they teach is kept.
            state: None,
        },
        history: None,
        direct: true,
        in_process: Vec::new(),
    };
    let json = args.round.json;
    on_round_runtime(async {
        let stop = ctrl_c_stops();
        let (tx, shown) = super::daemon::display(json);
        let done = daemon::run_direct(opts, stop, tx).await;
        let _ = shown.await;
        done
    })??;
    if !json {
        for sim in &sims {
            let r = sim.device().report();
            let rounds: Vec<String> = r
                .rounds
                .iter()
                .map(|g| format!("{}/{} words", g.words, g.words_possible))
                .chain((r.words > 0).then(|| format!("{}/{} words", r.words, r.words_possible)))
                .collect();
            super::outln!(
                "referee of {} ({}): {}; {} rejected, {} violations",
                sim.addr(),
                r.model.as_deref().unwrap_or("?"),
                rounds.join(", "),
                r.rejected(),
                r.violations.len()
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn freezes_are_said_in_words() {
        let cases: [(&[f64], &str); 4] = [
            (&[], "no freeze"),
            (&[30.04], "1 freeze at 30.0 s"),
            (&[30.0, 60.06], "2 freezes at 30.0 and 60.1 s"),
            (&[1.0, 2.0, 3.0], "3 freezes at 1.0, 2.0 and 3.0 s"),
        ];
        for (at, want) in cases {
            assert_eq!(super::freezes(at), want);
        }
    }
}
