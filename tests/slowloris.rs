//! The virtual phone under a slowloris: hundreds of connections that send a few bytes of a
//! message and stop. Its adbd serves at most its cap at once (the rest are closed at once),
//! drops each stalled one after its stall limit, and its threads and memory come back down;
//! a real host is served afterwards. In a file of its own, so that no other test's threads
//! are counted.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use scramblebot::sim::{Limits, Sim, SimConfig};

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

#[test]
fn a_slowloris_of_hundreds_of_sockets_holds_no_more_than_the_cap() {
    const SOCKETS: usize = 400;
    let limits = Limits {
        connections: 32,
        stall: Duration::from_millis(800),
    };
    let sim = Sim::start_limited("127.0.0.1:0".parse().unwrap(), SimConfig::default(), limits)
        .expect("the sim listens");
    let (threads_before, rss_before) = threads_and_rss();
    let started = Instant::now();
    let mut sockets: Vec<TcpStream> = (0..SOCKETS)
        .map(|_| {
            let mut s = TcpStream::connect(sim.addr()).unwrap();
            // Ten bytes of a 24-byte header, then nothing.
            s.write_all(b"CNXN\0\0\0\x01\0\0").unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let (threads_during, rss_during) = threads_and_rss();
    // One thread per connection served, at most the cap (and the accept loop, already there).
    assert!(
        threads_during <= threads_before + limits.connections,
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
    let deadline = Instant::now() + Duration::from_secs(5);
    while threads_and_rss().0 > threads_before {
        assert!(
            Instant::now() < deadline,
            "{} threads remain, {threads_before} before",
            threads_and_rss().0
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut host = common::Host::ready(sim.addr());
    assert!(host.exec("echo hello").contains("hello"));
    eprintln!(
        "{SOCKETS} stalled sockets: {} threads at most ({threads_before} before), {} kB more resident, all closed in {all_closed:?}",
        threads_during,
        rss_during.saturating_sub(rss_before)
    );
}
