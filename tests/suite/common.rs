//! Helpers shared by the integration tests that drive the virtual phone over real TCP: a bare
//! ADB host speaking the wire protocol, and Debian's real adb server on an isolated port and
//! HOME (None, with a line saying so, when `adb` is not installed; a failure under CI).

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command as Process;
use std::time::{Duration, Instant};

use scramblebot::sim::{Model, Sim, SimConfig};
use scramblebot::wire::{Command, Decoder, MAX_PAYLOAD, Message, VERSION};

/// Runs `per_core` times as many tests at once as the machine has cores, unless
/// `RUST_TEST_THREADS` is set. Most tests mostly wait for rounds on the wall clock: libtest's
/// default, one test per core, left two cores about 70% idle through them (vmstat, 2 cores).
/// A binary opts in by naming `four_times_the_cores_at_once` in its `.init_array`, which the
/// C runtime calls before `main`: the process has one thread then, so setting the variable
/// races with nothing, and libtest reads it once `main` runs.
fn tests_at_once(per_core: usize) {
    if std::env::var_os("RUST_TEST_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // SAFETY: called before main, while the process has no other thread.
        unsafe { std::env::set_var("RUST_TEST_THREADS", (per_core * cores).to_string()) };
    }
}

/// `tests_at_once(4)`: the suite's tests, four a core.
pub extern "C" fn four_times_the_cores_at_once() {
    tests_at_once(4);
}

/// Puts the calling thread, and the threads it starts from now on, at the lowest priority
/// (nice 19): for a test that keeps the cores busy for seconds, so that it takes only what
/// the tests waiting for rounds on the wall clock leave. libtest runs each test on a thread
/// of its own, so this touches no other test. Linux only; elsewhere it does nothing.
pub fn in_the_background() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid and setpriority take no pointers; raising one's own nice value needs
        // no privilege. A failure leaves the thread at its priority, which is still correct.
        let done =
            unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19) };
        if done != 0 {
            eprintln!(
                "note: this test runs at its usual priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// How often `poll_until` asks.
const POLL_EVERY: Duration = Duration::from_millis(10);

/// Asks `ready` every few milliseconds until it holds or `limit` has passed on the wall
/// clock; whether it held. The one place the wall-clock tests wait: they wait for a
/// condition, never for a time.
pub fn poll_until(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if ready() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(POLL_EVERY);
    }
}

/// `poll_until`, failing the test ("never: `what`") when `limit` passes.
pub fn wait_until(what: &str, limit: Duration, ready: impl FnMut() -> bool) {
    assert!(poll_until(limit, ready), "never within {limit:?}: {what}");
}

/// Waits for `child` to exit and collects what it printed (its stdout and stderr piped, or
/// not), failing the test when it has not exited within `limit`: the child is killed and
/// what it had said is shown. A command that never exits is a failure to tell, not a suite
/// that hangs until CI's own limit cuts it off with nothing said.
pub fn output_within(
    child: std::process::Child,
    limit: Duration,
    what: &str,
) -> std::process::Output {
    match exit_within(child, limit) {
        Ok(out) => out,
        Err(said) => panic!("{what}: still running after {limit:?} (killed); it had said:\n{said}"),
    }
}

/// How long a test waits for a command it runs to its end (the longest take seconds).
const COMMAND_LIMIT: Duration = Duration::from_secs(300);

/// `Command::output`, bounded: stdin empty, stdout and stderr collected, and the test failed
/// with what the command had said should it not end within `COMMAND_LIMIT`.
pub trait OutputBounded {
    fn output_bounded(&mut self) -> std::process::Output;
}

impl OutputBounded for Process {
    fn output_bounded(&mut self) -> std::process::Output {
        let what = std::iter::once(self.get_program())
            .chain(self.get_args())
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ");
        let child = self
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        output_within(child, COMMAND_LIMIT, &what)
    }
}

/// How long a child's pipes are read after it exits, for what it said last.
const PIPES_AFTER_EXIT: Duration = Duration::from_secs(10);

/// `output_within`'s wait; when `limit` passes, the child is killed and what it had said on
/// stderr is the error.
fn exit_within(
    mut child: std::process::Child,
    limit: Duration,
) -> Result<std::process::Output, String> {
    // Drained as it comes, so that a child filling a pipe is not what keeps it from exiting;
    // and kept where the wait can take it, should a process the child started (a daemon)
    // hold the pipe open past its exit.
    type Drained = std::sync::Arc<std::sync::Mutex<Vec<u8>>>;
    fn drain(pipe: Option<impl Read + Send + 'static>) -> (Drained, std::thread::JoinHandle<()>) {
        let bytes = Drained::default();
        let into = bytes.clone();
        let reader = std::thread::spawn(move || {
            let Some(mut pipe) = pipe else { return };
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                into.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        });
        (bytes, reader)
    }
    let taken = |d: &Drained| std::mem::take(&mut *d.lock().unwrap());
    let (stdout, out_reader) = drain(child.stdout.take());
    let (stderr, err_reader) = drain(child.stderr.take());
    let exited = poll_until(limit, || child.try_wait().unwrap().is_some());
    if !exited {
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    poll_until(PIPES_AFTER_EXIT, || {
        out_reader.is_finished() && err_reader.is_finished()
    });
    let (stdout, stderr) = (taken(&stdout), taken(&stderr));
    if !exited {
        return Err(String::from_utf8_lossy(&stderr).into_owned());
    }
    Ok(std::process::Output {
        status,
        stdout,
        stderr,
    })
}

/// An adb server of a test's own on loopback, for what Debian's will not do (fall silent, list
/// no phone): each connection is `serve`d on a thread of its own. Its port.
pub fn fake_adb_server(serve: impl Fn(TcpStream) + Clone + Send + 'static) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for socket in listener.incoming().flatten() {
            let serve = serve.clone();
            std::thread::spawn(move || serve(socket));
        }
    });
    port
}

/// One request on the adb server's socket: four hex digits of length, then the request.
pub fn adb_request(socket: &mut TcpStream) -> std::io::Result<String> {
    let mut len = [0u8; 4];
    socket.read_exact(&mut len)?;
    let len = std::str::from_utf8(&len).map_or(0, |l| usize::from_str_radix(l, 16).unwrap_or(0));
    let mut request = vec![0u8; len];
    socket.read_exact(&mut request)?;
    Ok(String::from_utf8_lossy(&request).into_owned())
}

/// A working directory whose devices/ holds the shipped profiles with rounds of `round_secs`
/// (a profile says how long the game's rounds are).
pub fn workdir(name: &str, round_secs: u64) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("scramblebot-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("devices")).unwrap();
    for model in Model::ALL {
        let shipped = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("devices/{}.toml", model.name())),
        )
        .unwrap();
        let short: String = shipped
            .lines()
            .map(|l| {
                if l.starts_with("round_secs") {
                    format!("round_secs = {round_secs}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        std::fs::write(dir.join(format!("devices/{}.toml", model.name())), short).unwrap();
    }
    dir
}

/// A phone of `model` playing `game`, reached in process on the caller's clock.
pub fn local(
    model: Model,
    game: scramblebot::sim::game::GameConfig,
) -> std::sync::Arc<scramblebot::sim::local::Local> {
    scramblebot::sim::local::Local::start(SimConfig {
        model,
        game,
        report: None,
        letters: None,
    })
}

pub fn start(model: Model) -> Sim {
    let config = SimConfig {
        model,
        ..SimConfig::default()
    };
    start_with(config)
}

/// A phone of `model` playing `game`, without a report file.
pub fn start_game(model: Model, game: scramblebot::sim::game::GameConfig) -> Sim {
    start_with(SimConfig {
        model,
        game,
        report: None,
        letters: None,
    })
}

pub fn start_with(config: SimConfig) -> Sim {
    Sim::start("127.0.0.1:0".parse().unwrap(), config).expect("the sim listens")
}

/// A bare host: writes messages, reads them back with a timeout.
pub struct Host {
    next_local: u32,
    pub stream: TcpStream,
    pub decoder: Decoder,
}

/// How long a test host waits for the sim before it gives up.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

impl Host {
    pub fn connect(addr: SocketAddr) -> Host {
        let stream = TcpStream::connect(addr).unwrap();
        // Small messages back to back: without this, Nagle holds each for the peer's ACK.
        stream.set_nodelay(true).unwrap();
        stream.set_read_timeout(Some(READ_TIMEOUT)).unwrap();
        Host {
            next_local: 100,
            stream,
            decoder: Decoder::default(),
        }
    }
    pub fn send(&mut self, m: Message) {
        self.stream.write_all(&m.encode()).unwrap();
    }
    /// The next message, or None once the sim closes the connection.
    pub fn recv(&mut self) -> Option<Message> {
        self.try_recv()
            .unwrap_or_else(|e| panic!("no answer from the sim: {e}"))
    }
    /// `recv`, with the read's error (a timeout among them) given back.
    fn try_recv(&mut self) -> std::io::Result<Option<Message>> {
        loop {
            if let Some(m) = self
                .decoder
                .decode()
                .expect("the sim sends well-formed messages")
            {
                return Ok(Some(m));
            }
            let mut buf = [0u8; 4096];
            match self.stream.read(&mut buf) {
                Ok(0) => return Ok(None),
                Ok(n) => self.decoder.feed(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Ok(None),
                // A read with a timeout is never restarted after a signal's handler ran
                // (signal(7)), whatever the handler asked. One was interrupted so in CI
                // (a739b15); which signal's handler ran was not found.
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
    pub fn handshake(&mut self) -> Message {
        self.send(Message::new(
            Command::CNXN,
            VERSION,
            MAX_PAYLOAD,
            &b"host::features=\0"[..],
        ));
        self.recv().expect("CNXN back")
    }
    /// Opens `service` and returns everything it writes, acknowledging each write.
    pub fn run(&mut self, local: u32, service: &str) -> Vec<u8> {
        self.send(Message::new(
            Command::OPEN,
            local,
            0,
            format!("{service}\0").into_bytes(),
        ));
        let okay = self.recv().unwrap();
        assert_eq!(
            (okay.command, okay.arg1),
            (Command::OKAY, local),
            "{okay:?}"
        );
        let mut output = Vec::new();
        loop {
            let m = self.recv().unwrap();
            assert_eq!(m.arg1, local);
            match m.command {
                Command::WRTE => {
                    output.extend_from_slice(&m.payload);
                    self.send(Message::new(Command::OKAY, local, m.arg0, Vec::new()));
                }
                Command::CLSE => return output,
                other => panic!("unexpected {other:?}"),
            }
        }
    }
}

/// The real adb server, on its own port and HOME; None when adb is not installed.
pub struct AdbServer {
    pub port: u16,
    pub home: std::path::PathBuf,
}

/// A port for an adb server: free now, never given to another server of this process, and
/// below the kernel's range for sockets bound to port 0 (32768 up on Linux), where every
/// virtual phone's port lies, so that no phone takes it before the server binds it. Probed
/// there in turn, the kernel could hand one port to two tests: both started "their" server
/// on it, `adb start-server` found the first running and said yes, and the test that ended
/// first killed the other's server mid-test ("host:devices: Connection reset by peer",
/// once in CI).
fn unused_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut state = (u64::from(std::process::id()) << 32) ^ u64::from(nanos) ^ given.len() as u64;
    loop {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let port = 20_000 + (state >> 33) as u16 % 12_000;
        if !given.contains(&port) && std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            given.push(port);
            return port;
        }
    }
}

impl AdbServer {
    pub fn start() -> Option<AdbServer> {
        if Process::new("adb").arg("version").output().is_err() {
            scramblebot::testing::skip("Debian's adb server (the command `adb`)", "adb");
            return None;
        }
        // A port found free may be taken by another test's phone or server before this
        // server binds it: another port is tried then, twice at most, and each failure said.
        let mut failures = Vec::new();
        for _ in 0..3 {
            let port = unused_port();
            let home = std::env::temp_dir().join(format!(
                "scramblebot-adb-home-{}-{port}",
                std::process::id()
            ));
            std::fs::create_dir_all(&home).unwrap();
            let server = AdbServer { port, home };
            let out = server.adb(&["start-server"]);
            if out.status.success() {
                return Some(server);
            }
            let why = format!("port {port}: {}", String::from_utf8_lossy(&out.stderr));
            eprintln!("adb start-server failed, trying another port: {why}");
            failures.push(why);
        }
        panic!("adb start-server failed three times: {failures:#?}");
    }
    /// Waits until the server lists `serial` as a device ready for use.
    pub fn wait_for_device(&self, serial: &str) {
        wait_until(&format!("{serial} ready"), Duration::from_secs(20), || {
            let out = self.adb(&["devices"]);
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == [serial, "device"])
        });
    }

    /// Runs the `adb` command with `args` against this server, failing the test when it has
    /// not ended within a minute.
    pub fn adb(&self, args: &[&str]) -> std::process::Output {
        let what = format!("adb {}", args.join(" "));
        output_within(self.adb_command(args), ADB_LIMIT, &what)
    }

    fn adb_command(&self, args: &[&str]) -> std::process::Child {
        Process::new("adb")
            .args(args)
            .env("ANDROID_ADB_SERVER_PORT", self.port.to_string())
            .env("HOME", &self.home)
            .env_remove("ANDROID_SERIAL")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("adb runs")
    }
}

/// How long a test waits for one `adb` command.
const ADB_LIMIT: Duration = Duration::from_secs(60);

impl Drop for AdbServer {
    fn drop(&mut self) {
        // Never a panic here: this may run while a failing test unwinds.
        let _ = exit_within(self.adb_command(&["kill-server"]), ADB_LIMIT);
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

impl Host {
    /// A connected host, past the handshake.
    pub fn ready(addr: SocketAddr) -> Host {
        let mut host = Host::connect(addr);
        host.handshake();
        host
    }

    fn local(&mut self) -> u32 {
        self.next_local += 1;
        self.next_local
    }

    /// Runs a command through `exec:` (no terminal) and returns its output as text.
    pub fn exec(&mut self, cmd: &str) -> String {
        let local = self.local();
        String::from_utf8_lossy(&self.run(local, &format!("exec:{cmd}"))).into_owned()
    }

    /// Runs `cmd` through `shell:` (every Android version has it; before Android 7 through a
    /// terminal) and returns its output, lines ending in LF.
    pub fn shell(&mut self, cmd: &str) -> String {
        let local = self.local();
        String::from_utf8_lossy(&self.run(local, &format!("shell:{cmd}"))).replace("\r\n", "\n")
    }

    /// Runs `service` and returns its raw output.
    pub fn bytes(&mut self, service: &str) -> Vec<u8> {
        let local = self.local();
        self.run(local, service)
    }

    /// Opens a stream; `None` if the sim refused it.
    pub fn open(&mut self, service: &str) -> Option<Stream> {
        let local = self.local();
        self.send(Message::new(
            Command::OPEN,
            local,
            0,
            format!("{service}\0").into_bytes(),
        ));
        let m = self.recv().expect("an answer to OPEN");
        match m.command {
            Command::OKAY => Some(Stream {
                local,
                remote: m.arg0,
                pending: Vec::new(),
            }),
            Command::CLSE => None,
            other => panic!("unexpected {other:?} after OPEN"),
        }
    }

    /// Opens `service`, retrying while it is refused, for up to `wait`.
    pub fn open_retrying(&mut self, service: &str, wait: Duration) -> Stream {
        let mut opened = None;
        wait_until(&format!("{service} open"), wait, || {
            opened = self.open(service);
            opened.is_some()
        });
        opened.expect("opened")
    }

    /// Writes to a stream and waits for the acknowledgement.
    pub fn write(&mut self, s: &mut Stream, data: &[u8]) {
        self.send(Message::new(
            Command::WRTE,
            s.local,
            s.remote,
            data.to_vec(),
        ));
        loop {
            let m = self.recv().expect("an acknowledgement");
            match m.command {
                Command::OKAY => return,
                Command::WRTE => {
                    s.pending.extend_from_slice(&m.payload);
                    self.send(Message::new(Command::OKAY, s.local, s.remote, Vec::new()));
                }
                other => panic!("unexpected {other:?} while writing"),
            }
        }
    }

    /// The next line of a stream, or the read's error (a timeout among them); what is read
    /// of a line is kept in the stream for the next call.
    fn next_line(&mut self, s: &mut Stream) -> std::io::Result<String> {
        loop {
            if let Some(i) = s.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = s.pending.drain(..=i).collect();
                return Ok(String::from_utf8_lossy(&line).trim_end().to_owned());
            }
            let m = self.try_recv()?.expect("more output");
            assert_eq!(m.command, Command::WRTE, "{m:?}");
            s.pending.extend_from_slice(&m.payload);
            self.send(Message::new(Command::OKAY, s.local, s.remote, Vec::new()));
        }
    }

    /// The stream's next write (acknowledged), or None once the phone closes it.
    pub fn read_chunk(&mut self, s: &mut Stream) -> Option<Vec<u8>> {
        if !s.pending.is_empty() {
            return Some(std::mem::take(&mut s.pending));
        }
        let m = self.recv().expect("more output or the stream's end");
        assert_eq!(m.arg1, s.local, "{m:?}");
        match m.command {
            Command::WRTE => {
                self.send(Message::new(Command::OKAY, s.local, s.remote, Vec::new()));
                Some(m.payload)
            }
            Command::CLSE => None,
            other => panic!("unexpected {other:?} on a stream"),
        }
    }

    /// Reads one line from a stream.
    pub fn read_line(&mut self, s: &mut Stream) -> String {
        self.next_line(s)
            .unwrap_or_else(|e| panic!("no answer from the sim: {e}"))
    }

    /// Reads one line from a stream, or None when none comes within `wait` (what is read of
    /// a line meanwhile is kept for the next call).
    pub fn read_line_within(&mut self, s: &mut Stream, wait: Duration) -> Option<String> {
        self.stream.set_read_timeout(Some(wait)).unwrap();
        let line = self.next_line(s);
        self.stream.set_read_timeout(Some(READ_TIMEOUT)).unwrap();
        match line {
            Ok(line) => Some(line),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                None
            }
            Err(e) => panic!("no answer from the sim: {e}"),
        }
    }

    /// Sends a line and returns the one-line answer (the monkey's protocol).
    pub fn ask(&mut self, s: &mut Stream, line: &str) -> String {
        self.write(s, format!("{line}\n").as_bytes());
        self.read_line(s)
    }
}

/// An open stream of a `Host`.
pub struct Stream {
    pub local: u32,
    pub remote: u32,
    pending: Vec<u8>,
}

/// The built binary, with a state directory of its own for this run (fresh each call, under
/// the system's temporary one): what one test's rounds learn (a pace, refused words) never
/// reaches another's, nor the user's own. A test that keeps state across runs sets
/// `XDG_STATE_HOME` again.
pub fn bin() -> Process {
    use std::sync::atomic::{AtomicU32, Ordering};
    static RUNS: AtomicU32 = AtomicU32::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let state = std::env::temp_dir().join(format!("scramblebot-state-{}-{n}", std::process::id()));
    let mut cmd = Process::new(env!("CARGO_BIN_EXE_scramblebot"));
    cmd.env("XDG_STATE_HOME", state);
    cmd
}
