//! `scramblebot words --refused`: the words each game refused, as the bot learned them from
//! the game's score (a word not taken when entered again alone and unhurried is not in the
//! game's list). They are kept per game, in the state directory, and never entered on that
//! game again; `--forget` takes words back off the list.

use scramblebot::profile::{SCRAMBLE_PACKAGE, game_package};
use scramblebot::state::State;
use serde::Serialize;

use super::BadInput;

#[derive(clap::Args, Debug)]
pub struct WordsArgs {
    /// List the words the games refused (every game's, or --game's).
    #[arg(long, required = true)]
    pub refused: bool,
    /// Only this game, by its Android package (a profile's `[rules] game`; Scramble With
    /// Friends is com.zynga.scramble).
    #[arg(long, value_name = "PACKAGE")]
    pub game: Option<String>,
    /// Take these words off the game's refused list, so they are entered again (needs
    /// --game, or takes Scramble With Friends').
    #[arg(long, value_name = "WORD", num_args = 1..)]
    pub forget: Vec<String>,
    /// Print one JSON object: each game's refused words.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct WordsJson {
    state: std::path::PathBuf,
    games: std::collections::BTreeMap<String, Vec<String>>,
}

pub fn run(args: WordsArgs) -> anyhow::Result<()> {
    let state = State::from_env().ok_or_else(|| {
        BadInput(anyhow::anyhow!(
            "no state directory: set HOME or XDG_STATE_HOME"
        ))
    })?;
    if let Some(game) = args.game.as_deref().filter(|g| !game_package(g)) {
        return Err(BadInput(anyhow::anyhow!(
            "--game {game:?} is not an Android package name (for example {SCRAMBLE_PACKAGE})"
        ))
        .into());
    }
    if !args.forget.is_empty() {
        let game = args.game.as_deref().unwrap_or(SCRAMBLE_PACKAGE);
        let n = state.forget_refused(game, args.forget.iter().map(String::as_str))?;
        super::errln!(
            "{n} of {} {} taken off the words {game} refused",
            args.forget.len(),
            scramblebot::play::plural(args.forget.len(), "word", "words")
        );
    }
    let games = match &args.game {
        Some(g) => vec![g.clone()],
        None => state.games()?,
    };
    let mut all = std::collections::BTreeMap::new();
    for g in games {
        let words: Vec<String> = state.refused(&g)?.into_iter().collect();
        all.insert(g, words);
    }
    if args.json {
        let json = WordsJson {
            state: state.dir().to_owned(),
            games: all,
        };
        super::outln!("{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(());
    }
    if all.values().all(Vec::is_empty) {
        super::errln!(
            "no game has refused a word yet (they are kept in {})",
            state.dir().join("refused").display()
        );
        return Ok(());
    }
    for (game, words) in &all {
        super::outln!(
            "{game}: {} refused {}",
            words.len(),
            scramblebot::play::plural(words.len(), "word", "words")
        )?;
        for w in words {
            super::outln!("  {w}")?;
        }
    }
    Ok(())
}
