//! `scramblebot play`: one round on a phone through the adb server. The workflow is the
//! library's (`scramblebot::play`); this file turns flags into its options, shows its events
//! (a spinner while waiting, a progress bar while entering), asks for the letters when the
//! board is not read surely, and prints the summary.

use std::path::PathBuf;

use scramblebot::phone::Phone;
use scramblebot::play::{self, BoardSource, RoundOutcome, Seen, Sight};
use scramblebot::profile::Profile;
use scramblebot::state::State;
use serde::Serialize;
use tokio::sync::watch;

use super::{
    BadInput, Interrupted, NotSure, PhoneArgs, RoundArgs, START, chosen_profile, connect,
    ctrl_c_stops, failed, game_board, on_round_runtime, print_json, seconds, show_event,
    typed_board, words_bar,
};

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Device profile by name (required, or --profile): ./devices/NAME.toml, then
    /// $XDG_CONFIG_HOME/scramblebot/devices/NAME.toml, then the built-in ones (nexus7, pixel,
    /// small).
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with = "profile",
        required_unless_present = "profile"
    )]
    pub device: Option<String>,
    /// Device profile file.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// The board, as `solve` takes it; without it, the board is read on the phone's screen.
    #[arg(long, value_name = "LETTERS")]
    pub board: Option<String>,
    /// Wait for a board to show on the screen (four looks a second), so that the bot can be
    /// started before the round.
    #[arg(long, conflicts_with = "board")]
    pub watch: bool,
    /// Enter the --board given even where the screen reads tiles surely as other letters
    /// (otherwise refused, naming them: a typo or an old board is not the round's).
    #[arg(long, requires = "board")]
    pub force: bool,
    #[command(flatten)]
    pub phone: PhoneArgs,
    /// Seconds left on the game's clock now (default: the profile's whole round, as when the
    /// bot starts with the round). No word is started that would end after the clock.
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub time_left: Option<f64>,
    #[command(flatten)]
    pub round: RoundArgs,
}

/// What `play --json` prints.
#[derive(Serialize)]
struct PlayJson {
    phone: String,
    board: String,
    board_from: BoardSource,
    bonuses: Option<String>,
    route: String,
    first_touch_ms: Option<f64>,
    /// Whether the game's score moved after the first words (with a profile that knows
    /// where the score is); false: the game took none of them.
    score_moved: Option<bool>,
    /// The score the game showed after the round's words (with a profile that has learned
    /// the game's digits: `calibrate`); the bot's own count is `bot.points_entered`.
    points_seen: Option<u32>,
    /// The game's clock, in seconds, on the look that read the board: the round was played
    /// to it (null when not read).
    clock_seen: Option<u32>,
    /// Which words the game took, told from its score looked at as they went in (null when
    /// the score was not read, or the looks did not fit one account of them).
    words_taken: Option<usize>,
    words_not_taken: Option<usize>,
    /// Words it did not take even entered again alone and unhurried: not in its list. Kept
    /// per game (`scramblebot words --refused`) and not entered on it again.
    words_refused: Option<usize>,
    refused: Vec<String>,
    /// Words the looks at the score could not tell of (two of equal points gone in together,
    /// one of them taken): counted in neither of the above.
    words_unknown: Option<usize>,
    /// Words on the board left out as the game refused them in an earlier round.
    words_left_out: usize,
    bot: RoundOutcome,
}

pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    let profile = chosen_profile(args.device.as_deref(), args.profile.as_deref())?
        .ok_or_else(|| BadInput(anyhow::anyhow!("give --device NAME or --profile FILE")))?;
    let opts = args.phone.options()?;
    let typed = args.board.as_deref().map(game_board).transpose()?;
    let time_left = args
        .time_left
        .map(|t| seconds("--time-left", t, 0.0))
        .transpose()?;
    let (played, left_out, phone_line, seen, phone_serial) = on_round_runtime(async {
        let stop = ctrl_c_stops();
        let (phone, _held) = connect_and_hold(&opts).await?;
        let profile = profile
            .for_screen(phone.screen.0, phone.screen.1)
            .map_err(|e| fitting_profile(e, phone.screen))?;
        let seen = match typed {
            Some(board) => {
                let hidden = indicatif::ProgressBar::hidden();
                play::check_typed(&phone, &profile, board, args.force, &mut |e| {
                    show_event(&args.round, &hidden, e)
                })
                .await
                .map_err(|e| match e {
                    e @ play::PlayError::NotOnScreen(_) => BadInput(e.into()).into(),
                    e => anyhow::Error::from(e),
                })?
            }
            None => see_or_ask(&phone, &profile, args.watch, &args.round, stop.clone()).await?,
        };
        // The round's end, fixed once: by --time-left, counted from when the command was
        // typed; else by what was seen (`Seen::deadline`).
        let round = match time_left {
            Some(left) => play::Round::told(seen, *START + left),
            None => {
                let whole = std::time::Duration::from_secs_f64(profile.rules().round_secs);
                play::Round::new(seen, whole)
            }
        };
        if args.round.talk()
            && let Some(line) = round.clock_line(&profile)
        {
            super::errln!("{line}");
        }
        let seen = round.seen.clone();
        let state = State::from_env();
        let (played, left_out) =
            enter(&phone, &profile, round, &args.round, state.as_ref(), stop).await?;
        let line = format!(
            "{} ({}, sdk {}, {}x{}), profile {}",
            phone.serial,
            phone.model,
            phone.sdk,
            phone.screen.0,
            phone.screen.1,
            profile.name()
        );
        anyhow::Ok((played, left_out, line, seen, phone.serial))
    })??;
    if let Some(check) = played.score.as_ref().filter(|c| !c.moved) {
        let saved = std::env::current_dir()
            .map_err(anyhow::Error::from)
            .and_then(|dir| {
                let why = play::Kept::ScoreStill;
                Ok(play::save_screenshot(
                    &check.screenshot,
                    &dir,
                    why,
                    &phone_serial,
                )?)
            });
        super::errln!(
            "WARNING: the game's score has not moved after {} words: the game is not taking them; what follows counts words sent, not scored (check the profile against {})",
            check.after_words,
            match &saved {
                Ok(p) => format!("the screenshot saved as {}", p.display()),
                Err(e) => format!("the screen; cannot save the screenshot: {e:#}"),
            }
        );
    }
    let outcome = played.outcome;
    if let Some(seen) = played.points_seen {
        warn_if_short(seen, outcome.points_entered);
    }
    let route = outcome.routes_text();
    // From the start of this process: what a user waits before the game sees a finger.
    let first_touch_ms = played
        .first_touch
        .map(|t| t.saturating_duration_since(*START).as_secs_f64() * 1e3);
    if args.round.json {
        print_json(&PlayJson {
            phone: phone_line,
            board: seen.board.to_string(),
            board_from: seen.source,
            bonuses: seen.bonus_text(),
            route,
            first_touch_ms,
            score_moved: played.score.as_ref().map(|c| c.moved),
            points_seen: played.points_seen,
            clock_seen: seen.clock.map(|(_, secs)| secs),
            words_taken: played.judged.as_ref().map(|j| j.taken),
            words_not_taken: played.judged.as_ref().map(|j| j.not_taken.len()),
            words_refused: played.judged.as_ref().map(|j| j.refused.len()),
            refused: played
                .judged
                .as_ref()
                .map(|j| j.refused.clone())
                .unwrap_or_default(),
            words_unknown: played.judged.as_ref().map(|j| j.unknown),
            words_left_out: left_out,
            bot: outcome.clone(),
        })?;
        return failed(&outcome);
    }
    super::outln!(
        "{phone_line}, board {}{} ({}), route {route}",
        seen.board,
        seen.bonus_text()
            .map(|b| format!(" with {b}"))
            .unwrap_or_default(),
        match seen.source {
            BoardSource::Typed => "typed",
            BoardSource::Screen => "screen",
            BoardSource::ScreenTyped => "screen, typed",
            BoardSource::TypedSeen => "typed, on the screen",
        }
    )?;
    if let Some(ms) = first_touch_ms {
        super::outln!("first touch {ms:.0} ms after start")?;
    }
    super::outln!(
        "{} ({} points as scored by the solver) in {:.1} s, {} {}, {}",
        entered_text(
            outcome.words_entered,
            outcome.words_entered_again,
            outcome.words_planned
        ),
        outcome.points_entered,
        outcome.elapsed_secs,
        outcome.freezes.len(),
        play::plural(outcome.freezes.len(), "freeze", "freezes"),
        outcome.stop.text()
    )?;
    super::outln!(
        "{}",
        score_line(
            played.points_seen,
            played.judged.as_ref(),
            played.score_looked
        )
    )?;
    failed(&outcome)
}

/// "entered 178 of 178 words", and ", 22 of them twice" when some went in again: `entered`
/// counts every word acknowledged, `again` those that were a word's second entry (play's
/// second pass; not the daemon's, which also counts strokes cut by a phone's going).
fn entered_text(entered: usize, again: usize, planned: usize) -> String {
    let words = entered.saturating_sub(again);
    let mut text = format!(
        "entered {words} of {planned} {}",
        scramblebot::play::plural(planned, "word", "words")
    );
    if again > 0 {
        text += &format!(", {again} of them twice");
    }
    text
}

/// What play's closing line says of the game's score: what it showed and which words it
/// took, or that it was never read surely (the profile reads it), or not read at all.
fn score_line(points_seen: Option<u32>, judged: Option<&play::Judged>, looked: bool) -> String {
    match (points_seen, judged) {
        (Some(seen), Some(j)) => format!(
            "the game shows {seen} points; it took {} {}{}{}{}",
            j.taken,
            play::plural(j.taken, "word", "words"),
            match j.refused.len() {
                0 => String::new(),
                n => format!(", refused {n} not in its list ({})", j.refused.join(", ")),
            },
            match j.not_taken.len() - j.refused.len() {
                0 => String::new(),
                n => format!(", {n} more not taken"),
            },
            match j.unknown {
                0 => String::new(),
                n => format!(", {n} not told apart by the score"),
            }
        ),
        (Some(seen), None) => format!("the game shows {seen} points"),
        (None, _) if looked => "the game's score was not read surely on any look; the points above are what was entered, not what the game counted".into(),
        (None, _) => "the game's score was not read (calibrate learns where it is and its digits); the points above are what was entered".into(),
    }
}

/// A profile of another shape than the phone's screen, with the profile that fits it named
/// when there is one (yours, then the shipped ones).
fn fitting_profile(e: scramblebot::profile::ProfileError, screen: (u32, u32)) -> anyhow::Error {
    let cwd = std::env::current_dir().unwrap_or_default();
    let (fits, _) = Profile::for_screen_size(screen, &cwd, super::config_dir().as_deref());
    match fits {
        Some(p) => anyhow::anyhow!(
            "{e}; the profile {} fits a {}x{} screen: --device {}",
            p.name(),
            screen.0,
            screen.1,
            p.name()
        ),
        None => e.into(),
    }
}

/// Warns, on stderr, when the game shows much less than the bot entered.
fn warn_if_short(seen: u32, entered: u32) {
    if play::seen_short(seen, entered) {
        super::errln!(
            "WARNING: the game shows {seen} points, {:.0}% of the {entered} points entered: it did not take every word (too fast for it, words not in its list, or touches missed)",
            f64::from(seen) * 100.0 / f64::from(entered.max(1))
        );
    }
}

/// Plays the round (`play::Round::play`), with a progress bar for a person watching.
pub(super) async fn enter(
    phone: &Phone,
    profile: &Profile,
    round: play::Round,
    args: &super::RoundArgs,
    state: Option<&State>,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<(play::Played, usize)> {
    // Its length comes with the first word's progress (refused words are left out).
    let bar = words_bar(args.show_progress(), 0);
    let how = play::How {
        order: args.order.into(),
        route: args.route.map(Into::into),
        finish_word_on_stop: false,
    };
    let done = round
        .play(phone, profile, how, state, stop, &mut |e| {
            show_event(args, &bar, e)
        })
        .await;
    bar.finish_and_clear();
    let done = done?;
    if let Some(why) = done.not_kept {
        super::errln!("WARNING: what the round learned is not kept: {why}");
    }
    Ok((done.played, done.left_out))
}

/// Reads the board on the phone's screen (with `watch`, once one shows). A board not read
/// surely is never played: the screenshot is saved in the current directory, what was read is
/// shown, and the letters are asked for on the terminal; without a terminal, `NotSure`.
pub(super) async fn see_or_ask(
    phone: &Phone,
    profile: &Profile,
    watch: bool,
    round: &RoundArgs,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<Seen> {
    if watch && round.talk() {
        super::errln!("waiting for a board on the screen (Ctrl-C to stop)");
    }
    let spinner = if watch && round.show_progress() {
        indicatif::ProgressBar::new_spinner()
    } else {
        indicatif::ProgressBar::hidden()
    };
    let sight = play::see(phone, profile, watch, stop, &mut |e| {
        show_event(round, &spinner, e)
    })
    .await;
    spinner.finish_and_clear();
    let (look, why) = match sight {
        Ok(Sight::Sure { seen, .. }) => return Ok(seen),
        Ok(Sight::Unsure { look, why }) => (look, why),
        Err(play::PlayError::Stopped) => return Err(Interrupted.into()),
        Err(e) => return Err(e.into()),
    };
    let saved = std::env::current_dir()
        .map_err(anyhow::Error::from)
        .and_then(|dir| {
            let why = play::Kept::Unsure;
            Ok(play::save_screenshot(
                &look.image,
                &dir,
                why,
                &phone.serial,
            )?)
        });
    let saved_text = match &saved {
        Ok(p) => format!("the screenshot is saved as {}", p.display()),
        Err(e) => format!("cannot save the screenshot: {e:#}"),
    };
    if let Ok(r) = &look.reading {
        super::errs!(
            "read on the screen ({}):\n{}",
            look.timing(),
            play::reading_text(r)
        );
    }
    super::errln!("the board is not read surely: {why}; {saved_text}");
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() {
        return Err(NotSure(format!(
            "the board on the screen is not read surely ({why}); {saved_text}; give it with --board"
        ))
        .into());
    }
    // The letters typed, the badges read (when a grid was read at all).
    let bonuses = look
        .reading
        .as_ref()
        .map_or(scramblebot::Bonuses::none(), |r| r.bonuses());
    // Tiles the screen does read surely hold the letters typed to account.
    let board = loop {
        let board = tokio::task::spawn_blocking(typed_board).await??;
        let reading = look.reading.as_ref().ok();
        match reading.and_then(|r| r.contradicting_tiles(&board)) {
            Some(tiles) => super::errln!("not the board on the screen: {tiles}; type it again"),
            None => break board,
        }
    };
    // What a person typed for a screen is the game's letters in the game's font: learned, so
    // they are not asked for again.
    if look.reading.is_ok() {
        match profile.source() {
            Some(_) => {
                match scramblebot::calibrate::learn::learn(profile, &look.image, &board, false) {
                    Ok(learned) => super::errln!("{}: {}", profile.name(), learned.text()),
                    Err(e) => super::errln!("the letters typed are not learned: {e}"),
                }
            }
            None => super::errln!(
                "the built-in profile {} keeps no glyphs: calibrate one of your own (`scramblebot calibrate --board LETTERS`) for the bot to learn this game's letters",
                profile.name()
            ),
        }
    }
    Ok(Seen {
        board,
        bonuses,
        source: BoardSource::ScreenTyped,
        // The board was showing when the look began; when it came up is not known.
        at: look.began.into_std(),
        after: None,
        behind: false,
        clock: None,
        score: None,
    })
}

/// Connects to the phone and holds it for this process: a daemon or another `play` on it is
/// said, with exit 2 (one process per phone).
async fn connect_and_hold(
    opts: &scramblebot::phone::ServerOptions,
) -> anyhow::Result<(
    scramblebot::phone::Phone,
    Option<scramblebot::state::HeldPhone>,
)> {
    let phone = connect(opts).await?;
    let held = scramblebot::state::hold_phone(State::from_env().as_ref(), &phone.serial)
        .map_err(|why| BadInput(anyhow::anyhow!("{}: {why}", phone.serial)))?;
    Ok((phone, held))
}

#[cfg(test)]
#[path = "play_tests.rs"]
mod tests;
