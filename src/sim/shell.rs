//! The services a stream can open on the virtual phone, and the little of Android's shell
//! they run so far: `echo`, `true`, and Android's answer to anything else. Pure: takes a
//! service name and a model, returns the bytes the service writes.

use super::Model;

/// A service a host can open, as adbd names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Service {
    /// `shell:CMD`: the command through a shell, its stderr mixed into its stdout; before
    /// Android 7 through a terminal, which turns LF into CRLF.
    Shell(String),
    /// `exec:CMD` (what `adb exec-out` opens): the same command, raw bytes, no terminal.
    Exec(String),
}

impl Service {
    /// The service a stream asks for; `None` for one this phone does not offer (the stream is
    /// refused, as adbd refuses unknown services). An empty `shell:` would be an interactive
    /// shell, which the virtual phone does not offer.
    pub fn parse(name: &str) -> Option<Service> {
        if let Some(cmd) = name.strip_prefix("shell:") {
            return (!cmd.trim().is_empty()).then(|| Service::Shell(cmd.to_owned()));
        }
        name.strip_prefix("exec:")
            .map(|cmd| Service::Exec(cmd.to_owned()))
    }
}

/// What the service writes back.
pub fn run(service: &Service, model: &Model) -> Vec<u8> {
    match service {
        Service::Exec(cmd) => execute(cmd),
        Service::Shell(cmd) => {
            let out = execute(cmd);
            if model.sdk() < 24 { crlf(&out) } else { out }
        }
    }
}

/// Runs one command line and returns what it prints (stdout and stderr together).
fn execute(line: &str) -> Vec<u8> {
    let words = split_words(line);
    let Some((name, args)) = words.split_first() else {
        return Vec::new();
    };
    match name.as_str() {
        "echo" => format!("{}\n", args.join(" ")).into_bytes(),
        "true" => Vec::new(),
        _ => format!("/system/bin/sh: {name}: inaccessible or not found\n").into_bytes(),
    }
}

/// Splits a command line into words as a shell does: blanks separate words, 'single' and
/// "double" quotes keep blanks inside one, a backslash outside single quotes takes the next
/// character as it is. An unclosed quote runs to the end of the line.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => word.get_or_insert_default().push(c),
            (_, '\\') => {
                if let Some(next) = chars.next() {
                    word.get_or_insert_default().push(next);
                }
            }
            (Some(_), c) => word.get_or_insert_default().push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_default();
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_default().push(c),
        }
    }
    words.extend(word);
    words
}

/// What a terminal does to output: every LF becomes CRLF.
fn crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 8);
    for &b in bytes {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_a_shell_splits_them() {
        // (line, words)
        let cases: &[(&str, &[&str])] = &[
            ("echo hi  there", &["echo", "hi", "there"]),
            ("echo 'a b' \"c d\"", &["echo", "a b", "c d"]),
            ("echo a\\ b", &["echo", "a b"]),
            ("echo '' x", &["echo", "", "x"]),
            ("echo 'it\"s'", &["echo", "it\"s"]),
            ("echo \"unclosed here", &["echo", "unclosed here"]),
            ("", &[]),
        ];
        for (line, words) in cases {
            assert_eq!(split_words(line), *words, "{line}");
        }
    }

    #[test]
    fn services_and_commands() {
        // (service, model, output)
        let cases: &[(&str, Model, &[u8])] = &[
            ("shell:echo hi there", Model::Pixel, b"hi there\n"),
            ("shell:echo hi", Model::Nexus7, b"hi\r\n"),
            ("exec:echo hi", Model::Nexus7, b"hi\n"),
            ("shell:echo 'a b' \"c\"", Model::Pixel, b"a b c\n"),
            ("shell:true", Model::Pixel, b""),
            (
                "shell:frobnicate now",
                Model::Pixel,
                b"/system/bin/sh: frobnicate: inaccessible or not found\n",
            ),
        ];
        for (name, model, output) in cases {
            let service = Service::parse(name).expect(name);
            assert_eq!(run(&service, model), output.to_vec(), "{name} on {model:?}");
        }
        for refused in [
            "shell:",
            "shell:  ",
            "sync:",
            "tcp:1234",
            "shell,v2,raw:echo hi",
            "bogus",
        ] {
            assert_eq!(Service::parse(refused), None, "{refused}");
        }
    }
}
