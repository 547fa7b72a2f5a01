//! The daemon's config file (`--config daemon.toml`): which phones, which profiles, how many
//! rounds, which TCP phones to keep connected, where the history goes. Pure: parsed from text
//! into checked values; the command line merges it with its flags (flags win).
//!
//! ```toml
//! rounds = 3
//! connect = ["127.0.0.1:5555", "127.0.0.1:5557"]
//! history = "/var/tmp/scramblebot.jsonl"
//! [phones]
//! "127.0.0.1:5555" = "nexus7"
//! "R58M12345" = "pixel"
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

/// A checked config.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DaemonConfig {
    pub rounds: Option<u32>,
    pub connect: Vec<std::net::SocketAddr>,
    pub history: Option<PathBuf>,
    /// Profile names by serial.
    pub phones: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    rounds: Option<u32>,
    #[serde(default)]
    connect: Vec<String>,
    history: Option<PathBuf>,
    #[serde(default)]
    phones: BTreeMap<String, String>,
}

/// Why a config was refused: where and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ConfigError {
    pub file: String,
    pub message: String,
}

/// A TOML error as a person fixes it: the line, the key on it, and what is wrong ("line 1:
/// rounds: invalid type: string \"three\", expected u32").
fn located(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim();
    let Some(span) = e.span() else {
        return message.to_owned();
    };
    let start = span.start.min(text.len());
    let line = text[..start].matches('\n').count() + 1;
    let line_text = text.lines().nth(line - 1).unwrap_or("");
    match line_text.split_once('=') {
        Some((key, _)) if !key.trim().is_empty() => {
            format!("line {line}: {}: {message}", key.trim())
        }
        _ => format!("line {line}: {message}"),
    }
}

impl DaemonConfig {
    /// Parses and checks a config; `file` names it in errors.
    pub fn from_toml_str(text: &str, file: &str) -> Result<DaemonConfig, ConfigError> {
        let err = |message: String| ConfigError {
            file: file.to_owned(),
            message,
        };
        let raw: Raw = toml::from_str(text).map_err(|e| err(located(text, &e)))?;
        if raw.rounds == Some(0) {
            return Err(err(
                "rounds = 0 plays nothing: leave it out to play until stopped".into(),
            ));
        }
        let connect = raw
            .connect
            .iter()
            .map(|c| {
                c.parse::<std::net::SocketAddr>()
                    .map_err(|_| err(format!("connect: {c:?} is not IP:PORT ([IPV6]:PORT)")))
            })
            .collect::<Result<_, _>>()?;
        for (serial, name) in &raw.phones {
            if !crate::profile::Profile::valid_name(name) {
                return Err(err(format!(
                    "phones: {serial:?} = {name:?} is not a profile name (letters, digits, - and _)"
                )));
            }
        }
        Ok(DaemonConfig {
            rounds: raw.rounds,
            connect,
            history: raw.history,
            phones: raw.phones,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_are_parsed_and_checked() {
        let good = DaemonConfig::from_toml_str(
            "rounds = 3\nconnect = [\"127.0.0.1:5555\"]\n[phones]\n\"127.0.0.1:5555\" = \"nexus7\"\n",
            "d.toml",
        )
        .unwrap();
        assert_eq!(good.rounds, Some(3));
        assert_eq!(good.connect, ["127.0.0.1:5555".parse().unwrap()]);
        assert_eq!(good.phones["127.0.0.1:5555"], "nexus7");
        assert_eq!(
            DaemonConfig::from_toml_str("", "e.toml"),
            Ok(DaemonConfig::default())
        );
        // (text, part of the message)
        let bad = [
            ("rounds = 0", "plays nothing"),
            ("connect = [\"localhost\"]", "not IP:PORT"),
            ("[phones]\nx = \"../evil\"", "not a profile name"),
            ("colour = 1", "unknown field"),
            (
                "# mine\nrounds = \"three\"",
                "line 2: rounds: invalid type: string \"three\", expected u32",
            ),
        ];
        for (text, want) in bad {
            let e = DaemonConfig::from_toml_str(text, "b.toml").unwrap_err();
            assert!(e.to_string().contains(want), "{text}: {e}");
        }
    }
}
