//! The little of Android's shell the virtual phone runs: command lists (`;`, `&&`, `||`,
//! newlines, `&` to run in the background), quoting, `$?`, redirections to files and
//! /dev/null, `sh -c`, and the commands the bot and its users need (`echo`, `true`, `false`,
//! `exit`, `sleep`, `wm`, `getprop`, `settings`, `cat`, `id`, `screencap`, `dumpsys power`
//! (the screen's wakefulness), plus `input`,
//! `sendevent`, `getevent` and `monkey` from `input`). Anything else gets Android's
//! "inaccessible or not found" on stderr and exit status 127.
//!
//! Output reaches the host as the service frames it: raw, through a terminal (LF becomes
//! CRLF), or as shell protocol v2 packets with the exit status at the end.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

pub mod ctx;
pub mod input;

use crate::sim::device::Device;
use crate::sim::model::Model;
use crate::sim::stream::StreamIo;
pub use ctx::Ctx;

/// How a shell's output is framed on its stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// Bytes as the command wrote them, stderr mixed in (`exec:`, `shell:` without a terminal).
    Raw,
    /// Through a terminal: stderr mixed in, every LF written as CRLF.
    Pty,
    /// Shell protocol v2: stdout and stderr in separate packets, then the exit status.
    V2 { pty: bool },
}

/// Shell protocol v2 packet ids.
const V2_STDIN: u8 = 0;
const V2_STDOUT: u8 = 1;
const V2_STDERR: u8 = 2;
const V2_EXIT: u8 = 3;
const V2_CLOSE_STDIN: u8 = 4;

/// What a shell runs on: its stream's two directions, and whether the host has gone.
pub trait Pipe: Read + Write {
    fn is_closed(&self) -> bool;
}

impl Pipe for StreamIo {
    fn is_closed(&self) -> bool {
        StreamIo::is_closed(self)
    }
}

/// A pipe in memory: no input (its end at once), output kept for the caller.
struct Captured(Rc<RefCell<Vec<u8>>>);

impl Read for Captured {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Ok(0)
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Pipe for Captured {
    fn is_closed(&self) -> bool {
        false
    }
}

/// The service's end of the stream, shared by the writers of stdout and stderr.
struct Term {
    io: Box<dyn Pipe>,
    framing: Framing,
    /// Shell protocol v2 input not yet parsed into a packet.
    v2_in: Vec<u8>,
    stdin_closed: bool,
}

impl Term {
    /// Writes `data` a piece at a time (a packet each under v2), so that a screenful of
    /// pixels through a terminal is never copied whole.
    fn write(&mut self, fd: u8, data: &[u8]) -> io::Result<()> {
        const PIECE: usize = 64 * 1024;
        let pty = matches!(self.framing, Framing::Pty | Framing::V2 { pty: true });
        for piece in data.chunks(PIECE) {
            let owned;
            let piece = if pty {
                owned = crlf(piece);
                &owned[..]
            } else {
                piece
            };
            if let Framing::V2 { .. } = self.framing {
                self.io.write_all(&[fd])?;
                self.io.write_all(&(piece.len() as u32).to_le_bytes())?;
            }
            self.io.write_all(piece)?;
        }
        Ok(())
    }

    /// Reads stdin: raw bytes, or the stdin packets of shell protocol v2.
    fn read_stdin(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !matches!(self.framing, Framing::V2 { .. }) {
            return self.io.read(buf);
        }
        loop {
            if self.stdin_closed {
                return Ok(0);
            }
            if self.v2_in.len() >= 5 {
                let len = u32::from_le_bytes(self.v2_in[1..5].try_into().unwrap()) as usize;
                if self.v2_in.len() >= 5 + len {
                    let id = self.v2_in[0];
                    let packet: Vec<u8> = self.v2_in.drain(..5 + len).skip(5).collect();
                    match id {
                        V2_STDIN if !packet.is_empty() => {
                            // Whatever does not fit is put back as a smaller stdin packet.
                            let n = packet.len().min(buf.len());
                            buf[..n].copy_from_slice(&packet[..n]);
                            if n < packet.len() {
                                let rest = &packet[n..];
                                let mut back = vec![V2_STDIN];
                                back.extend_from_slice(&(rest.len() as u32).to_le_bytes());
                                back.extend_from_slice(rest);
                                self.v2_in.splice(..0, back);
                            }
                            return Ok(n);
                        }
                        V2_CLOSE_STDIN => self.stdin_closed = true,
                        _ => {} // window size changes and empty packets
                    }
                    continue;
                }
            }
            let mut chunk = [0u8; 4096];
            let n = self.io.read(&mut chunk)?;
            if n == 0 {
                return Ok(0);
            }
            self.v2_in.extend_from_slice(&chunk[..n]);
        }
    }
}

/// Where one of a command's outputs goes.
#[derive(Clone)]
enum Target {
    Term(Rc<RefCell<Term>>, u8),
    Buffer(Rc<RefCell<Vec<u8>>>),
}

impl Write for Target {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Target::Term(t, fd) => t.borrow_mut().write(*fd, buf)?,
            Target::Buffer(b) => b.borrow_mut().extend_from_slice(buf),
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Target::Term(t, _) => t.borrow_mut().io.flush(),
            _ => Ok(()),
        }
    }
}

/// A terminal on `io`, and its stdout and stderr.
fn term(io: Box<dyn Pipe>, framing: Framing) -> (Rc<RefCell<Term>>, Target, Target) {
    let term = Rc::new(RefCell::new(Term {
        io,
        framing,
        v2_in: Vec::new(),
        stdin_closed: false,
    }));
    let out = Target::Term(term.clone(), V2_STDOUT);
    let err = Target::Term(
        term.clone(),
        if matches!(framing, Framing::V2 { .. }) {
            V2_STDERR
        } else {
            V2_STDOUT
        },
    );
    (term, out, err)
}

/// Runs `cmd` to its end on `device` with no input, and returns what the stream would carry
/// (framed as `framing`). For the phone reached in process, on the caller's clock.
pub fn run_captured(device: &Arc<Device>, cmd: &str, framing: Framing) -> Vec<u8> {
    let output = Rc::new(RefCell::new(Vec::new()));
    serve(device, Captured(output.clone()), cmd, framing);
    output.take()
}

/// The prompt of an interactive shell on `device`.
pub fn prompt(device: &Device) -> String {
    let (_, _, name) = device.model().product();
    format!("shell@{name}:/ $ ")
}

/// Runs one line typed into an interactive shell (`shell` keeps its state between lines) on
/// `device`, to its end, and returns what the stream would carry: its output, then the
/// prompt again unless it exited. For the phone reached in process, on the caller's clock.
pub fn type_line(device: &Arc<Device>, shell: &mut Shell, framing: Framing, line: &str) -> Vec<u8> {
    let output = Rc::new(RefCell::new(Vec::new()));
    let (_, mut out, mut err) = term(Box::new(Captured(output.clone())), framing);
    typed(device, shell, &mut out, &mut err, &|| true, line);
    drop(out);
    drop(err);
    output.take()
}

/// Runs a line typed into an interactive shell, with no input of its own, then shows the
/// prompt again unless the line exited the shell.
fn typed(
    device: &Arc<Device>,
    shell: &mut Shell,
    out: &mut Target,
    err: &mut Target,
    alive: &dyn Fn() -> bool,
    line: &str,
) {
    let mut null_in = io::empty();
    let mut ctx = Ctx {
        device,
        out,
        err,
        stdin: &mut null_in,
        alive,
    };
    shell.run(&mut ctx, line);
    if !shell.exited {
        let _ = out.write_all(prompt(device).as_bytes());
        let _ = out.flush();
    }
}

/// Runs `cmd` on a stream with `framing`, then closes it.
pub fn serve(device: &Arc<Device>, io: impl Pipe + 'static, cmd: &str, framing: Framing) {
    let (term, mut out, mut err) = term(Box::new(io), framing);
    let mut stdin = StdinReader(term.clone());
    let alive_term = term.clone();
    let alive = move || !alive_term.borrow().io.is_closed();
    let mut shell = Shell::default();
    let status = if cmd.trim().is_empty() {
        interactive(device, &mut shell, &mut out, &mut err, &mut stdin, &alive)
    } else {
        let mut ctx = Ctx {
            device,
            out: &mut out,
            err: &mut err,
            stdin: &mut stdin,
            alive: &alive,
        };
        shell.run(&mut ctx, cmd)
    };
    let mut t = term.borrow_mut();
    if let Framing::V2 { .. } = t.framing {
        let _ = t.io.write_all(&[V2_EXIT, 1, 0, 0, 0, status as u8]);
    }
    let _ = t.io.flush();
}

struct StdinReader(Rc<RefCell<Term>>);

impl Read for StdinReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.borrow_mut().read_stdin(buf)
    }
}

/// An interactive shell: a prompt, a line, its output, until `exit` or end of input.
fn interactive(
    device: &Arc<Device>,
    shell: &mut Shell,
    out: &mut Target,
    err: &mut Target,
    stdin: &mut StdinReader,
    alive: &dyn Fn() -> bool,
) -> i32 {
    let mut line = Vec::new();
    let _ = out.write_all(prompt(device).as_bytes());
    let _ = out.flush();
    let mut byte = [0u8; 1];
    while let Ok(1) = stdin.read(&mut byte) {
        if byte[0] != b'\n' && byte[0] != b'\r' {
            line.push(byte[0]);
            continue;
        }
        let text = String::from_utf8_lossy(&line).into_owned();
        line.clear();
        typed(device, shell, out, err, alive, &text);
        if shell.exited {
            break;
        }
    }
    shell.status
}

/// A shell's state between commands.
#[derive(Debug, Default)]
pub struct Shell {
    status: i32,
    exited: bool,
}

/// Stands for `$?` inside a word until the command runs (a private-use character).
const STATUS_MARK: char = '\u{e000}';

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    /// `;` or a newline.
    Seq,
    And,
    Or,
    Background,
    Pipe,
    /// A redirection: which fd (0, 1, 2, or 3 for both), append, and what follows.
    Redirect {
        fd: u8,
        append: bool,
    },
    /// `2>&1` style: fd to the same place as another fd.
    Dup {
        fd: u8,
        to: u8,
    },
}

/// Splits a script into tokens as a POSIX shell does (the part of it Android's mksh uses
/// here): blanks separate words, quotes keep them together, a backslash escapes one
/// character, `#` starts a comment, `$?` is the last status and other variables are empty.
fn tokenize(script: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word: Option<String> = None;
    // The word so far was typed bare (so "2" before ">" is a file descriptor).
    let mut bare = true;
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let mut quote: Option<char> = None;
    let end_word = |tokens: &mut Vec<Token>, word: &mut Option<String>, bare: &mut bool| {
        if let Some(w) = word.take() {
            tokens.push(Token::Word(w));
        }
        *bare = true;
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        i += 1;
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => word.get_or_insert_default().push(c),
            (Some('"'), '\\') if matches!(next, Some('"' | '\\' | '$')) => {
                word.get_or_insert_default().push(next.unwrap_or('\\'));
                i += 1;
            }
            (_, '$') if next == Some('?') => {
                word.get_or_insert_default().push(STATUS_MARK);
                i += 1;
            }
            (_, '$') if next.is_some_and(|n| n.is_ascii_alphabetic() || n == '_') => {
                // Unset variables expand to nothing.
                while chars
                    .get(i)
                    .is_some_and(|n| n.is_ascii_alphanumeric() || *n == '_')
                {
                    i += 1;
                }
                word.get_or_insert_default();
            }
            (Some(_), c) => word.get_or_insert_default().push(c),
            (None, '\\') => {
                if let Some(n) = next {
                    if n != '\n' {
                        word.get_or_insert_default().push(n);
                    }
                    i += 1;
                    bare = false;
                }
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                bare = false;
                word.get_or_insert_default();
            }
            (None, '#') if word.is_none() => {
                while chars.get(i).is_some_and(|&n| n != '\n') {
                    i += 1;
                }
            }
            (None, ';' | '\n') => {
                end_word(&mut tokens, &mut word, &mut bare);
                tokens.push(Token::Seq);
            }
            (None, '&') => {
                end_word(&mut tokens, &mut word, &mut bare);
                match next {
                    Some('&') => {
                        tokens.push(Token::And);
                        i += 1;
                    }
                    Some('>') => {
                        tokens.push(Token::Redirect {
                            fd: 3,
                            append: false,
                        });
                        i += 1;
                    }
                    _ => tokens.push(Token::Background),
                }
            }
            (None, '|') => {
                end_word(&mut tokens, &mut word, &mut bare);
                if next == Some('|') {
                    tokens.push(Token::Or);
                    i += 1;
                } else {
                    tokens.push(Token::Pipe);
                }
            }
            (None, '>' | '<') => {
                let fd = match word.as_deref() {
                    Some("1") if bare => 1,
                    Some("2") if bare => 2,
                    _ => {
                        end_word(&mut tokens, &mut word, &mut bare);
                        if c == '>' { 1 } else { 0 }
                    }
                };
                word = None;
                bare = true;
                if c == '>'
                    && next == Some('&')
                    && let Some(to @ ('1' | '2')) = chars.get(i + 1)
                {
                    tokens.push(Token::Dup {
                        fd,
                        to: *to as u8 - b'0',
                    });
                    i += 2;
                    continue;
                }
                let append = c == '>' && next == Some('>');
                if append {
                    i += 1;
                }
                tokens.push(Token::Redirect { fd, append });
            }
            (None, c) if c.is_whitespace() => end_word(&mut tokens, &mut word, &mut bare),
            (None, c) => word.get_or_insert_default().push(c),
        }
    }
    end_word(&mut tokens, &mut word, &mut bare);
    tokens
}

/// One simple command of a list and how the next one follows it.
#[derive(Debug, Default)]
struct Simple {
    words: Vec<String>,
    /// Redirections in the order written (the order matters: `>f 2>&1` is not `2>&1 >f`).
    redirects: Vec<Redirect>,
    /// How it is joined to the one before: `;`, `&&` or `||`.
    joined: Join,
    background: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Redirect {
    /// fd 0, 1, 2, or 3 for both outputs, to a file.
    File { fd: u8, append: bool, path: String },
    /// fd to wherever `to` goes now.
    Dup { fd: u8, to: u8 },
}

/// Where an output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Dest {
    Out,
    Err,
    File(String, bool),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Join {
    #[default]
    Always,
    IfOk,
    IfFailed,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SyntaxError {
    #[error("syntax error: '{0}' unexpected")]
    Unexpected(&'static str),
    #[error("pipes are not supported on this virtual phone")]
    Pipe,
}

/// How many simple commands `script` holds, or its syntax error, without running anything:
/// the shell's parser on its own, for fuzzing and tests.
pub fn syntax(script: &str) -> Result<usize, SyntaxError> {
    parse(tokenize(script)).map(|list| list.len())
}

fn parse(tokens: Vec<Token>) -> Result<Vec<Simple>, SyntaxError> {
    let mut list = Vec::new();
    let mut cur = Simple::default();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(t) = tokens.next() {
        let push = |cur: &mut Simple, join: Join, list: &mut Vec<Simple>, what| {
            if cur.words.is_empty() {
                if join == Join::Always && !cur.background && cur.redirects.is_empty() {
                    return Ok(()); // empty command between `;`s
                }
                return Err(SyntaxError::Unexpected(what));
            }
            list.push(std::mem::take(cur));
            cur.joined = join;
            Ok(())
        };
        match t {
            Token::Word(w) => cur.words.push(w),
            Token::Seq => push(&mut cur, Join::Always, &mut list, ";")?,
            Token::And => push(&mut cur, Join::IfOk, &mut list, "&&")?,
            Token::Or => push(&mut cur, Join::IfFailed, &mut list, "||")?,
            Token::Background => {
                cur.background = true;
                push(&mut cur, Join::Always, &mut list, "&")?;
            }
            Token::Pipe => return Err(SyntaxError::Pipe),
            Token::Redirect { fd, append } => match tokens.next() {
                Some(Token::Word(path)) => cur.redirects.push(Redirect::File { fd, append, path }),
                _ => return Err(SyntaxError::Unexpected("newline")),
            },
            Token::Dup { fd, to } => cur.redirects.push(Redirect::Dup { fd, to }),
        }
    }
    if !cur.words.is_empty() {
        list.push(cur);
    } else if cur.joined != Join::Always {
        return Err(SyntaxError::Unexpected("end of file"));
    }
    Ok(list)
}

impl Shell {
    /// Whether `exit` ended it.
    pub fn exited(&self) -> bool {
        self.exited
    }

    /// Runs a script; returns its status (that of the last command run).
    pub fn run(&mut self, ctx: &mut Ctx, script: &str) -> i32 {
        let list = match parse(tokenize(script)) {
            Ok(list) => list,
            Err(e) => {
                let _ = writeln!(ctx.err, "/system/bin/sh: {e}");
                self.status = 2;
                return 2;
            }
        };
        for simple in list {
            let run = match simple.joined {
                Join::Always => true,
                Join::IfOk => self.status == 0,
                Join::IfFailed => self.status != 0,
            };
            if !run {
                continue;
            }
            let words: Vec<String> = simple
                .words
                .iter()
                .map(|w| w.replace(STATUS_MARK, &self.status.to_string()))
                .collect();
            if simple.background {
                background(ctx.device, words);
                self.status = 0;
                continue;
            }
            self.status = self.run_redirected(ctx, &words, &simple);
            let _ = ctx.out.flush();
            if self.exited || !(ctx.alive)() {
                break;
            }
        }
        self.status
    }

    /// Runs one command with its redirections applied. Redirected output is collected and
    /// delivered when the command ends.
    fn run_redirected(&mut self, ctx: &mut Ctx, words: &[String], simple: &Simple) -> i32 {
        let mut dest = [Dest::Out, Dest::Err];
        for r in &simple.redirects {
            match r {
                Redirect::File { fd: 0, .. } => {
                    let _ = writeln!(
                        ctx.err,
                        "/system/bin/sh: input redirection is not supported"
                    );
                    return 1;
                }
                Redirect::File { fd, append, path } => {
                    let d = Dest::File(path.clone(), *append);
                    if *fd != 2 {
                        dest[0] = d.clone();
                    }
                    if *fd != 1 {
                        dest[1] = d;
                    }
                }
                Redirect::Dup { fd, to } => {
                    let (fd, to) = (*fd as usize - 1, *to as usize - 1);
                    dest[fd] = dest[to].clone();
                }
            }
        }
        if dest == [Dest::Out, Dest::Err] {
            return self.command(ctx, words);
        }
        let out_buf: Rc<RefCell<Vec<u8>>> = Rc::default();
        let err_buf = if dest[1] == dest[0] {
            out_buf.clone()
        } else {
            Rc::default()
        };
        let status = {
            let mut out = Target::Buffer(out_buf.clone());
            let mut err = Target::Buffer(err_buf.clone());
            let mut sub = Ctx {
                device: ctx.device,
                out: &mut out,
                err: &mut err,
                stdin: ctx.stdin,
                alive: ctx.alive,
            };
            self.command(&mut sub, words)
        };
        let shared = Rc::ptr_eq(&out_buf, &err_buf);
        let deliveries = [(&dest[0], out_buf.take()), (&dest[1], err_buf.take())];
        for (i, (to, bytes)) in deliveries.into_iter().enumerate() {
            if i == 1 && shared {
                break;
            }
            let written = match to {
                Dest::Out => ctx.out.write_all(&bytes).map_err(|_| None),
                Dest::Err => ctx.err.write_all(&bytes).map_err(|_| None),
                Dest::File(path, append) => ctx
                    .device
                    .write_file(path, &bytes, *append)
                    .map_err(|e| Some((path, e))),
            };
            if let Err(Some((path, e))) = written {
                let _ = writeln!(ctx.err, "/system/bin/sh: can't create {path}: {e}");
                return 1;
            }
        }
        status
    }

    /// Runs one command.
    fn command(&mut self, ctx: &mut Ctx, words: &[String]) -> i32 {
        let Some((name, args)) = words.split_first() else {
            return 0;
        };
        let name = name.strip_prefix("/system/bin/").unwrap_or(name);
        let out = &mut *ctx.out;
        let result = match name {
            "echo" => {
                let (newline, args) = match args.first().map(String::as_str) {
                    Some("-n") => (false, &args[1..]),
                    _ => (true, args),
                };
                let _ = write!(out, "{}{}", args.join(" "), if newline { "\n" } else { "" });
                0
            }
            "true" => 0,
            "false" => 1,
            "exit" => {
                self.exited = true;
                args.first()
                    .and_then(|a| a.parse().ok())
                    .unwrap_or(self.status)
            }
            "sleep" => match args.first().and_then(|a| a.parse::<f64>().ok()) {
                Some(secs) if secs >= 0.0 && secs.is_finite() => {
                    if ctx.sleep(Duration::from_secs_f64(secs.min(1e6))) {
                        0
                    } else {
                        130
                    }
                }
                _ => {
                    let _ = writeln!(
                        ctx.err,
                        "sleep: invalid number '{}'",
                        args.first().map_or("", String::as_str)
                    );
                    1
                }
            },
            "sh" => match args {
                [c, script, ..] if c == "-c" => {
                    let mut sub = Shell::default();
                    sub.run(ctx, script)
                }
                [] => {
                    let mut script = String::new();
                    let _ = ctx.stdin.read_to_string(&mut script);
                    let mut sub = Shell::default();
                    sub.run(ctx, &script)
                }
                [file, ..] => match ctx.device.read_file(file) {
                    Some(bytes) => {
                        let mut sub = Shell::default();
                        sub.run(ctx, &String::from_utf8_lossy(&bytes))
                    }
                    None => {
                        let _ = writeln!(ctx.err, "sh: {file}: No such file or directory");
                        127
                    }
                },
            },
            "id" => {
                let _ = writeln!(
                    out,
                    "uid=2000(shell) gid=2000(shell) groups=1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats)"
                );
                0
            }
            "wm" => wm(ctx, args),
            "dumpsys" => dumpsys(ctx, args),
            "getprop" => getprop(ctx, args),
            "settings" => settings(ctx, args),
            "cat" => cat(ctx, args),
            "screencap" => screencap(ctx, args),
            "input" => input::input_command(ctx, args),
            "sendevent" => input::sendevent(ctx, args),
            "getevent" => input::getevent(ctx, args),
            "monkey" => input::monkey(ctx, args),
            _ => {
                let _ = writeln!(ctx.err, "/system/bin/sh: {name}: inaccessible or not found");
                127
            }
        };
        let _ = ctx.out.flush();
        result
    }
}

/// Runs a command detached from its stream (`cmd &`): its output goes nowhere, and it keeps
/// running after the stream closes.
/// On the caller's clock (the phone reached in process) nothing runs beside the caller: the
/// command runs to its end first.
fn background(device: &Arc<Device>, words: Vec<String>) {
    let run = move |device: &Arc<Device>| {
        let (mut out, mut err, mut stdin) = (io::sink(), io::sink(), io::empty());
        let alive = || true;
        let mut ctx = Ctx {
            device,
            out: &mut out,
            err: &mut err,
            stdin: &mut stdin,
            alive: &alive,
        };
        Shell::default().command(&mut ctx, &words);
    };
    if device.clock().is_caller() {
        return run(device);
    }
    let device = device.clone();
    let spawned = std::thread::Builder::new()
        .name("sh-background".into())
        .spawn(move || run(&device));
    if let Err(e) = spawned {
        tracing::warn!("cannot start a background command: {e}");
    }
}

/// `dumpsys power`: the power manager's state, as far as the screen goes (the lines a
/// phone prints there, in its format: `mWakefulness=Awake` or `Asleep`).
fn dumpsys(ctx: &mut Ctx, args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        Some("power") => {
            let on = ctx.device.game().screen_on(ctx.device.now());
            let _ = write!(
                ctx.out,
                "POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n  \
                 mWakefulness={}\n  mWakefulnessChanging=false\n  mIsPowered=true\n  \
                 mPlugType=2\n  mStayOn=false\n  mBootCompleted=true\n  mSystemReady=true\n",
                if on { "Awake" } else { "Asleep" }
            );
            0
        }
        // The window manager's policy, as far as the lock screen goes, in the version's own
        // fields (`phone::parse_keyguard` lists them).
        Some("window") => {
            let (device, sdk) = (ctx.device, ctx.device.model().sdk());
            let showing = device.game().keyguard_showing(device.now());
            let _ = writeln!(
                ctx.out,
                "WINDOW MANAGER POLICY STATE (dumpsys window policy)"
            );
            let _ = writeln!(
                ctx.out,
                "    mSafeMode=false mSystemReady=true mSystemBooted=true"
            );
            // Each model prints its version's fields: Android 4.4 the old one; 5.1 the old
            // one, false (the keyguard is drawn in the status bar from Android 5), and the
            // status bar's; 13 the keyguard service's. Where each field starts and stops
            // between those versions is not modelled with care.
            if sdk < 24 {
                let old = showing && sdk < 21;
                let _ = writeln!(
                    ctx.out,
                    "    mShowingLockscreen={old} mShowingDream=false mDreamingLockscreen={old}"
                );
            }
            if (21..29).contains(&sdk) {
                let _ = writeln!(ctx.out, "    mStatusBar=Window{{3f2a1c u0 StatusBar}}");
                let _ = write!(ctx.out, "    isStatusBarKeyguard={showing}");
                let _ = writeln!(
                    ctx.out,
                    "    mNavigationBar=Window{{2b9e0d u0 NavigationBar}}"
                );
            }
            if sdk >= 26 {
                let _ = writeln!(
                    ctx.out,
                    "    KeyguardServiceDelegate\n      showing={showing}\n      \
                     inputRestricted={showing}\n      occluded=false"
                );
            }
            let _ = writeln!(ctx.out, "    mTopIsFullscreen=true");
            0
        }
        // Services this phone does not have print nothing, as dumpsys does for an unknown one
        // (but for a line on stderr).
        Some(service) => {
            let _ = writeln!(ctx.err, "Can't find service: {service}");
            0
        }
        None => {
            let _ = writeln!(
                ctx.err,
                "dumpsys: name a service (this phone has: power, window)"
            );
            1
        }
    }
}

fn wm(ctx: &mut Ctx, args: &[String]) -> i32 {
    let model = ctx.device.model();
    let layout = ctx.device.layout();
    match args.first().map(String::as_str) {
        Some("size") if args.len() == 1 => {
            let _ = writeln!(ctx.out, "Physical size: {}x{}", layout.width, layout.height);
            0
        }
        Some("density") if args.len() == 1 => {
            let _ = writeln!(ctx.out, "Physical density: {}", model.density());
            0
        }
        // From Android 7 (`wm` had no such command before).
        Some("dismiss-keyguard") if model.sdk() >= 24 => {
            let device = ctx.device;
            device.game().dismiss_keyguard(device.now());
            0
        }
        _ => {
            let _ = writeln!(
                ctx.err,
                "usage: wm [subcommand] [options]\n       wm size [reset|WxH]\n       wm density [reset|DENSITY]"
            );
            1
        }
    }
}

/// The system properties a phone reports.
fn properties(model: Model) -> Vec<(&'static str, String)> {
    let (name, product, device) = model.product();
    vec![
        ("ro.build.version.release", model.release().to_owned()),
        ("ro.build.version.sdk", model.sdk().to_string()),
        ("ro.product.brand", "google".to_owned()),
        ("ro.product.cpu.abi", model.abi().to_owned()),
        ("ro.product.device", device.to_owned()),
        ("ro.product.manufacturer", "scramblebot".to_owned()),
        ("ro.product.model", product.to_owned()),
        ("ro.product.name", name.to_owned()),
        ("ro.sf.lcd_density", model.density().to_string()),
    ]
}

fn getprop(ctx: &mut Ctx, args: &[String]) -> i32 {
    let props = properties(ctx.device.model());
    match args.first() {
        None => {
            for (k, v) in props {
                let _ = writeln!(ctx.out, "[{k}]: [{v}]");
            }
        }
        Some(key) => {
            let value = props
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str());
            let default = args.get(1).map_or("", String::as_str);
            let _ = writeln!(ctx.out, "{}", value.unwrap_or(default));
        }
    }
    0
}

fn settings(ctx: &mut Ctx, args: &[String]) -> i32 {
    let namespaces = ["system", "secure", "global"];
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["put", ns, key, value, ..] if namespaces.contains(ns) => {
            ctx.device
                .set_setting(format!("{ns}/{key}"), (*value).to_owned());
            0
        }
        ["get", ns, key] if namespaces.contains(ns) => {
            let v = ctx.device.setting(&format!("{ns}/{key}"));
            let _ = writeln!(ctx.out, "{}", v.as_deref().unwrap_or("null"));
            0
        }
        _ => {
            let _ = writeln!(
                ctx.err,
                "usage:  settings [--user <USER_ID> | current] get namespace key\n        settings [--user <USER_ID> | current] put namespace key value\n\n'namespace' is one of {{system, secure, global}}, case-insensitive"
            );
            1
        }
    }
}

fn cat(ctx: &mut Ctx, args: &[String]) -> i32 {
    if args.is_empty() {
        let _ = io::copy(ctx.stdin, ctx.out);
        return 0;
    }
    let mut status = 0;
    for path in args {
        match ctx.device.read_file(path) {
            Some(bytes) => {
                let _ = ctx.out.write_all(&bytes);
            }
            None => {
                let _ = writeln!(ctx.err, "{path}: No such file or directory");
                status = 1;
            }
        }
    }
    status
}

/// `screencap [-p] [FILE]`: the screen as PNG, or raw (a header of width, height, pixel
/// format 1 = RGBA_8888, and from Android 8 the data space, then RGBA rows).
fn screencap(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut png = false;
    let mut file = None;
    for a in args {
        match a.as_str() {
            "-p" => png = true,
            "-h" => {
                let _ = writeln!(
                    ctx.err,
                    "usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n   -p: save the file as a png.\nIf FILENAME ends with .png it will be saved as a png.\nIf FILENAME is not given, the results will be printed to stdout."
                );
                return 0;
            }
            f => file = Some(f.to_owned()),
        }
    }
    if file.as_deref().is_some_and(|f| f.ends_with(".png")) {
        png = true;
    }
    let img = ctx.device.screenshot();
    let sdk = ctx.device.model().sdk();
    let Some(path) = file else {
        // Straight to the stream: the pixels are the screen's own (shared), never copied.
        let written = if png {
            write_png(&img, &mut *ctx.out)
        } else {
            ctx.out
                .write_all(&raw_header(sdk, &img))
                .and_then(|()| ctx.out.write_all(img.as_raw()))
                .map_err(image::ImageError::IoError)
        };
        // A host that closed the stream is not told why.
        return match written {
            Err(image::ImageError::IoError(_)) | Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(ctx.err, "screencap: {e}");
                1
            }
        };
    };
    let mut bytes = Vec::new();
    let written = if png {
        write_png(&img, &mut bytes)
    } else {
        bytes = raw_screencap(sdk, &img);
        Ok(())
    };
    if let Err(e) = written {
        let _ = writeln!(ctx.err, "screencap: {e}");
        return 1;
    }
    match ctx.device.write_file(&path, &bytes, false) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(ctx.err, "Error opening file: {path} ({e})");
            1
        }
    }
}

fn write_png(img: &image::RgbaImage, to: impl Write) -> image::ImageResult<()> {
    image::ImageEncoder::write_image(
        image::codecs::png::PngEncoder::new(to),
        img.as_raw(),
        img.width(),
        img.height(),
        image::ExtendedColorType::Rgba8,
    )
}

/// A raw screencap's header: width, height, pixel format 1 (RGBA_8888), and from Android 8
/// (sdk 26) the data space.
fn raw_header(sdk: u32, img: &image::RgbaImage) -> Vec<u8> {
    let mut out = Vec::with_capacity(16);
    out.extend_from_slice(&img.width().to_le_bytes());
    out.extend_from_slice(&img.height().to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    if sdk >= 26 {
        // HAL_DATASPACE_SRGB? Android reports 0 (unknown) for most screens.
        out.extend_from_slice(&0u32.to_le_bytes());
    }
    out
}

/// A raw screencap dump: 12-byte header before Android 8 (sdk 26), 16-byte after.
pub fn raw_screencap(sdk: u32, img: &image::RgbaImage) -> Vec<u8> {
    let mut out = raw_header(sdk, img);
    out.extend_from_slice(img.as_raw());
    out
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
mod tests;
