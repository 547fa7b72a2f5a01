//! The scramblebot binary: parses the command line, sets up logging once, runs the command and
//! turns its result into an exit code: 0 ok, 2 bad input (what the user typed), 1 any other
//! failure. Errors print their whole cause chain on one line.

#![forbid(unsafe_code)]

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    std::sync::LazyLock::force(&cli::START);
    let args = cli::Cli::parse();
    let level = match args.verbose {
        0 => tracing::Level::WARN,
        1 => tracing::Level::INFO,
        2 => tracing::Level::DEBUG,
        _ => tracing::Level::TRACE,
    };
    // Colours only for a person at a terminal: a log file or a pipe gets plain text.
    tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let result = cli::run(args.command);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`scramblebot solve ... | head`) is not an error worth a message.
            // (`--json` output is written by serde_json, whose error carries the I/O one.)
            let broken =
                |kind: Option<std::io::ErrorKind>| kind == Some(std::io::ErrorKind::BrokenPipe);
            if err.chain().any(|e| {
                broken(e.downcast_ref::<std::io::Error>().map(std::io::Error::kind))
                    || broken(
                        e.downcast_ref::<serde_json::Error>()
                            .and_then(serde_json::Error::io_error_kind),
                    )
            }) {
                return ExitCode::SUCCESS;
            }
            if err.is::<cli::Interrupted>() {
                cli::errln!("{err}");
                return ExitCode::from(130);
            }
            if err.is::<cli::NotSure>() {
                cli::errln!("{err}");
                return ExitCode::from(3);
            }
            cli::errln!("error: {}", chain_text(&err));
            if err.is::<cli::BadInput>() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// The error and its causes, "outer: inner: ...", each cause said once: an error whose own
/// message already ends with its cause's (thiserror's `{source}` in the message, common in
/// the crates below) is not followed by it again.
fn chain_text(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let said = cause.to_string();
        if text.ends_with(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::chain_text;

    #[test]
    fn a_cause_already_in_the_message_is_said_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot write x.png: {source}")]
        struct Write {
            source: std::io::Error,
        }
        let io = || std::io::Error::other("File too large (os error 27)");
        let err = anyhow::Error::from(Write { source: io() });
        assert_eq!(
            chain_text(&err),
            "cannot write x.png: File too large (os error 27)"
        );
        let err = anyhow::Error::from(io()).context("cannot read y");
        assert_eq!(
            chain_text(&err),
            "cannot read y: File too large (os error 27)"
        );
    }
}
