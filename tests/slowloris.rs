//! The virtual phone under attack: hundreds of connections that send a few bytes of a
//! message and stop, hosts that open screenshots by the thousand and never read them, sockets
//! that drip a byte at a time. Its adbd serves at most its caps at once, drops each stalled
//! host after its stall limit, its threads and memory stay bounded and come back down, a real
//! host still gets in, and its warnings do not flood the log. In a file of its own, one test
//! at a time, so that no other test's threads or memory are counted.

#[path = "suite/common.rs"]
mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use scramblebot::sim::{Limits, Sim, SimConfig};
use scramblebot::wire::{Command, MAX_PAYLOAD, Message, VERSION};

/// One test at a time: each counts the process's threads and memory.
fn alone() -> MutexGuard<'static, ()> {
    static ONE: Mutex<()> = Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Everything the sim logs, from the first call on (one subscriber for the whole process).
fn log() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOG: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOG.get_or_init(|| {
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::INFO)
            .with_ansi(false)
            .with_writer(move || Sink(sink.clone()))
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("one subscriber");
        log
    })
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The log's lines since `from` bytes, and its length now.
fn log_since(from: usize) -> (Vec<String>, usize) {
    let log = log().lock().unwrap();
    let text = String::from_utf8_lossy(&log[from.min(log.len())..]).into_owned();
    (text.lines().map(str::to_owned).collect(), log.len())
}

/// This process's threads and resident memory in kB (Linux's /proc).
fn threads_and_rss() -> (usize, usize) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| -> usize {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("Threads:"), field("VmRSS:"))
}

/// A virtual phone on a free loopback port with `limits`.
fn sim_with(limits: Limits) -> Sim {
    Sim::start_limited("127.0.0.1:0".parse().unwrap(), SimConfig::default(), limits)
        .expect("the sim listens")
}

/// Waits up to 5 s for the process's threads to come back down to `before`.
fn threads_come_back_to(before: usize) {
    let back = common::poll_until(Duration::from_secs(5), || threads_and_rss().0 <= before);
    assert!(
        back,
        "{} threads remain, {before} before",
        threads_and_rss().0
    );
}

#[test]
fn a_slowloris_of_hundreds_of_sockets_holds_no_more_than_the_cap() {
    let _alone = alone();
    const SOCKETS: usize = 400;
    let limits = Limits {
        connections: 32,
        stall: Duration::from_millis(800),
        ..Limits::default()
    };
    let sim = sim_with(limits);
    let (threads_before, rss_before) = threads_and_rss();
    let mut sockets: Vec<TcpStream> = (0..SOCKETS)
        .map(|_| {
            let mut s = TcpStream::connect(sim.addr()).unwrap();
            // Ten bytes of a 24-byte header, then nothing.
            s.write_all(b"CNXN\0\0\0\x01\0\0").unwrap();
            s
        })
        .collect();
    // Counted from the last connect: a burst of 400 overflows the kernel's listen backlog,
    // and a connect whose SYN was dropped is retried 1 s (then 2 s) later, before the phone
    // ever sees it.
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(200));
    let (threads_during, rss_during) = threads_and_rss();
    // One thread per connection served, at most the cap (and the accept loop, already there),
    // and one or two of those that made room for the next, on their way out.
    assert!(
        threads_during <= threads_before + limits.connections + 2,
        "{threads_during} threads with {SOCKETS} sockets open, {threads_before} before"
    );
    assert!(
        rss_during < rss_before + 64 * 1024,
        "{rss_during} kB resident, {rss_before} kB before"
    );
    // Every socket is closed by the phone: the ones past the cap at once, the others when
    // they have stalled for the limit.
    for s in &mut sockets {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut byte = [0u8; 1];
        match s.read(&mut byte) {
            Ok(0) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            other => panic!("a stalled socket was not closed: {other:?}"),
        }
    }
    let all_closed = started.elapsed();
    assert!(
        all_closed < limits.stall * 4,
        "{all_closed:?} to close them all"
    );
    drop(sockets);
    // Its threads go with them, and a real host is served.
    threads_come_back_to(threads_before);
    let mut host = common::Host::ready(sim.addr());
    assert!(host.exec("echo hello").contains("hello"));
    eprintln!(
        "{SOCKETS} stalled sockets: {} threads at most ({threads_before} before), {} kB more resident, all closed in {all_closed:?}",
        threads_during,
        rss_during.saturating_sub(rss_before)
    );
}

/// A host past the handshake that never reads what the phone sends it.
fn deaf_host(addr: std::net::SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    let cnxn = Message::new(
        Command::CNXN,
        VERSION,
        MAX_PAYLOAD,
        &b"host::features=\0"[..],
    );
    s.write_all(&cnxn.encode()).unwrap();
    s
}

#[test]
fn hosts_opening_screenshots_they_never_read_hold_bounded_memory_and_threads() {
    let _alone = alone();
    const HOSTS: usize = 50;
    const STREAMS: u32 = 20;
    let limits = Limits {
        stall: Duration::from_secs(3),
        ..Limits::default()
    };
    let sim = sim_with(limits);
    // The screen drawn once before counting: it is the phone's, shared by every screenshot.
    common::Host::ready(sim.addr()).exec("echo warm");
    let screen = sim.device().screenshot().as_raw().len();
    let (threads_before, rss_before) = threads_and_rss();
    let hosts: Vec<TcpStream> = (0..HOSTS)
        .map(|_| {
            let mut s = deaf_host(sim.addr());
            for local in 1..=STREAMS {
                let open = Message::new(Command::OPEN, local, 0, &b"exec:screencap\0"[..]);
                s.write_all(&open.encode()).unwrap();
            }
            s
        })
        .collect();
    // Every service has begun its screenshot by now.
    std::thread::sleep(Duration::from_millis(1500));
    let (threads_during, rss_during) = threads_and_rss();
    let grown = rss_during.saturating_sub(rss_before) / 1024;
    eprintln!(
        "{HOSTS} hosts x {STREAMS} screenshots never read ({} MiB a screen): {} threads more, {grown} MiB more resident",
        screen >> 20,
        threads_during.saturating_sub(threads_before)
    );
    // One thread per connection and per stream within the budget; a payload (1 MiB) per
    // stream. Before the budget and the bounded writes: 1,052 threads, 11.4 GB.
    assert!(
        threads_during <= threads_before + HOSTS + limits.streams + 4,
        "{threads_during} threads, {threads_before} before"
    );
    let bound_mib = limits.streams + 64;
    assert!(
        grown < bound_mib,
        "{grown} MiB more resident with {HOSTS} x {STREAMS} streams; the bound is {bound_mib}"
    );
    // Hosts that do not read are dropped once the stall limit passes, and the streams they
    // held go with them: a real host is served again while the rest stay connected. The
    // limit bounds a whole message's write: when it bounded each write call, a window
    // opening a crack now and then kept hosts on for 7.8 s past this point (a 3 s limit).
    let mut host = common::Host::ready(sim.addr());
    let mut shot = host.open_retrying("exec:screencap", limits.stall * 2);
    let mut bytes = Vec::new();
    while let Some(chunk) = host.read_chunk(&mut shot) {
        bytes.extend_from_slice(&chunk);
    }
    let want = scramblebot::sim::shell::raw_screencap(
        sim.device().model().sdk(),
        &sim.device().screenshot(),
    );
    assert!(
        bytes == want,
        "a whole raw screenshot: {} bytes",
        bytes.len()
    );
    drop((host, hosts));
    threads_come_back_to(threads_before);
}

#[test]
fn sockets_dripping_bytes_do_not_lock_out_a_real_adb_connect() {
    let _alone = alone();
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let limits = Limits {
        connections: 8,
        stall: Duration::from_secs(1),
        ..Limits::default()
    };
    let sim = sim_with(limits);
    let (_, log_start) = log_since(0);
    // Twice as many drippers as slots, each sending a byte of a handshake every 300 ms and
    // coming back when it is dropped.
    let stop = Arc::new(AtomicBool::new(false));
    let addr = sim.addr();
    let drippers: Vec<_> = (0..2 * limits.connections)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let cnxn = Message::new(Command::CNXN, VERSION, MAX_PAYLOAD, &b"host::\0"[..]);
                let bytes = cnxn.encode();
                while !stop.load(Ordering::SeqCst) {
                    let Ok(mut s) = TcpStream::connect(addr) else {
                        continue;
                    };
                    for b in bytes.iter().cycle() {
                        if stop.load(Ordering::SeqCst) || s.write_all(&[*b]).is_err() {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(300));
                    }
                }
            })
        })
        .collect();
    // Every slot is a dripper's once the phone has had to make room for one.
    common::wait_until("every slot taken", Duration::from_secs(10), || {
        let (lines, _) = log_since(log_start);
        lines.iter().any(|l| l.contains("to serve a new one"))
    });
    let serial = addr.to_string();
    let started = Instant::now();
    let connect = server.adb(&["connect", &serial]);
    let said = String::from_utf8_lossy(&connect.stdout).into_owned();
    assert!(said.contains("connected to"), "adb connect: {said}");
    server.wait_for_device(&serial);
    let echo = server.adb(&["-s", &serial, "shell", "echo", "in"]);
    let in_after = started.elapsed();
    // Drip on for a few stall limits, with adb still attached.
    std::thread::sleep(limits.stall * 3);
    let again = server.adb(&["-s", &serial, "shell", "echo", "still"]);
    stop.store(true, Ordering::SeqCst);
    for d in drippers {
        d.join().unwrap();
    }
    assert_eq!(String::from_utf8_lossy(&echo.stdout).trim(), "in");
    assert_eq!(String::from_utf8_lossy(&again.stdout).trim(), "still");
    let (lines, _) = log_since(log_start);
    let making_room = lines
        .iter()
        .filter(|l| l.contains("to serve a new one"))
        .count();
    // adb was never turned away: a dripper made room for it.
    let refused: Vec<_> = lines
        .iter()
        .filter(|l| l.contains("refusing a connection"))
        .collect();
    assert!(refused.is_empty(), "{refused:#?}");
    eprintln!(
        "16 drippers on 8 slots: adb connected and ran a command in {in_after:?}; {making_room} log lines about making room"
    );
    // One line per WARN_EVERY (10 s) at most, however many connections came and went.
    assert!(
        making_room <= 2,
        "{making_room} lines:\n{}",
        lines.join("\n")
    );
}

#[test]
fn refused_connections_are_warned_about_once_per_ten_seconds() {
    let _alone = alone();
    let limits = Limits {
        connections: 4,
        ..Limits::default()
    };
    let sim = sim_with(limits);
    let (_, log_start) = log_since(0);
    // Every slot held by a host that finished its handshake and is quiet: nothing to make
    // room from, so the rest are refused.
    let held: Vec<_> = (0..limits.connections)
        .map(|_| common::Host::ready(sim.addr()))
        .collect();
    for _ in 0..300 {
        let mut s = TcpStream::connect(sim.addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut byte = [0u8; 1];
        assert!(matches!(s.read(&mut byte), Ok(0) | Err(_)), "refused");
    }
    let (lines, _) = log_since(log_start);
    let warnings: Vec<_> = lines
        .iter()
        .filter(|l| l.contains("refusing a connection"))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    drop(held);
}

#[test]
fn a_host_dripping_a_message_is_dropped_at_the_stall_limit() {
    let _alone = alone();
    let limits = Limits {
        stall: Duration::from_secs(1),
        ..Limits::default()
    };
    let sim = sim_with(limits);
    for handshake_first in [false, true] {
        let mut s = if handshake_first {
            common::Host::ready(sim.addr()).stream
        } else {
            TcpStream::connect(sim.addr()).unwrap()
        };
        // An OPEN whose bytes come one every 200 ms: never a second without one.
        let open = Message::new(Command::OPEN, 1, 0, &b"exec:echo hi\0"[..]).encode();
        let started = Instant::now();
        let dropped = open.iter().any(|b| {
            std::thread::sleep(Duration::from_millis(200));
            s.write_all(&[*b]).is_err()
        });
        let after = started.elapsed();
        assert!(
            dropped && after < limits.stall * 3,
            "handshake first: {handshake_first}; dropped: {dropped} after {after:?}"
        );
    }
}
