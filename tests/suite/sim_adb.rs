//! The virtual phone's adbd over real TCP: a raw client speaking the wire protocol, and
//! Debian's real `adb` server (skipped, with a note, when `adb` is not installed; .ci/run
//! installs it). The adb server runs on its own port with its own HOME and is killed after.

use crate::common;

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use common::{AdbServer, Host, start};
use scramblebot::sim::Model;
use scramblebot::wire::{Command, MAX_PAYLOAD, Message, VERSION};

#[test]
fn each_android_version_answers_its_own_protocol_and_payload() {
    for (model, version, payload) in [
        (Model::Small, 0x0100_0000, 4096),
        (Model::Nexus7, 0x0100_0000, 4096),
        (Model::Pixel, VERSION, MAX_PAYLOAD),
    ] {
        let adbd = start(model);
        let cnxn = Host::connect(adbd.addr()).handshake();
        assert_eq!((cnxn.arg0, cnxn.arg1), (version, payload), "{model:?}");
        // A whole screenshot comes in payloads no larger than that.
        let mut host = Host::ready(adbd.addr());
        let mut shot = host.open("framebuffer:").expect("a framebuffer stream");
        let mut largest = 0;
        while let Some(chunk) = host.read_chunk(&mut shot) {
            largest = largest.max(chunk.len());
        }
        assert_eq!(largest, payload as usize, "{model:?}");
    }
}

#[test]
fn handshake_and_shell_over_raw_tcp() {
    let adbd = start(Model::Nexus7);
    let mut host = Host::connect(adbd.addr());
    let cnxn = host.handshake();
    // Android 5.1's adbd: the first protocol version, 4 KiB payloads.
    assert_eq!(
        (cnxn.command, cnxn.arg0, cnxn.arg1),
        (Command::CNXN, 0x0100_0000, 4096)
    );
    let banner = String::from_utf8(cnxn.payload).unwrap();
    assert!(
        banner.starts_with("device::") && banner.contains("ro.product.model=Nexus 7"),
        "{banner}"
    );
    // Android 5.1's shell goes through a terminal; exec does not.
    assert_eq!(host.run(1, "shell:echo hello"), b"hello\r\n");
    assert_eq!(host.run(2, "exec:echo hello"), b"hello\n");
    assert_eq!(host.run(3, "shell:true"), b"");
    // An unknown service is refused with CLSE(0, local).
    host.send(Message::new(Command::OPEN, 4, 0, &b"jdwp:1234\0"[..]));
    let refused = host.recv().unwrap();
    assert_eq!(
        (refused.command, refused.arg0, refused.arg1),
        (Command::CLSE, 0, 4)
    );
    // The host closing a stream the sim already closed is normal, not an error.
    host.send(Message::new(Command::CLSE, 1, 1, Vec::new()));
    assert_eq!(host.run(5, "exec:echo still here"), b"still here\n");
}

#[test]
fn bad_traffic_ends_only_its_own_connection() {
    let adbd = start(Model::Pixel);
    let mut healthy = Host::connect(adbd.addr());
    healthy.handshake();
    let bad_magic = {
        let mut b = Message::new(Command::OPEN, 1, 0, &b"shell:echo x\0"[..]).encode();
        b[20] ^= 0xff;
        b
    };
    let bad_checksum = {
        let mut b = Message::new(Command::OPEN, 1, 0, &b"shell:echo x\0"[..]).encode();
        b[16] ^= 0x01;
        b
    };
    let too_large = {
        let mut b = Message::new(Command::WRTE, 1, 1, Vec::new()).encode();
        b[12..16].copy_from_slice(&(MAX_PAYLOAD + 1).to_le_bytes());
        b
    };
    let unknown_stream = Message::new(Command::OKAY, 9, 77, Vec::new()).encode();
    // (what, bytes)
    let cases = [
        ("bad magic", bad_magic),
        ("bad checksum", bad_checksum),
        ("too large", too_large),
        ("unknown stream", unknown_stream),
    ];
    for (what, bytes) in cases {
        let mut bad = Host::connect(adbd.addr());
        bad.handshake();
        bad.stream.write_all(&bytes).unwrap();
        assert!(
            bad.recv().is_none(),
            "{what}: the sim should have closed the connection"
        );
        assert_eq!(
            healthy.run(1, "shell:echo alive"),
            b"alive\n",
            "after {what}"
        );
    }
    // A host that vanishes mid-message, and one that never says anything.
    let mut truncated = TcpStream::connect(adbd.addr()).unwrap();
    truncated
        .write_all(&Message::new(Command::CNXN, VERSION, 4096, &b"host::"[..]).encode()[..10])
        .unwrap();
    drop(truncated);
    let _silent = TcpStream::connect(adbd.addr()).unwrap();
    assert_eq!(healthy.run(2, "shell:echo alive"), b"alive\n");
}

#[test]
fn long_output_is_split_and_paced_by_acknowledgements() {
    let adbd = start(Model::Pixel);
    let mut host = Host::connect(adbd.addr());
    // A host that takes small payloads gets many writes, each after the last was acknowledged.
    host.send(Message::new(Command::CNXN, VERSION, 256, &b"host::\0"[..]));
    host.recv().unwrap();
    let word = "x".repeat(100);
    let out = host.run(
        1,
        &format!("exec:echo {}", vec![word.as_str(); 20].join(" ")),
    );
    assert_eq!(out.len(), 20 * 101);
}

#[test]
fn debians_adb_connects_and_runs_shell_commands() {
    let Some(server) = AdbServer::start() else {
        return;
    };
    let adbd = start(Model::Nexus7);
    let serial = adbd.addr().to_string();
    let text = |o: std::process::Output| String::from_utf8_lossy(&o.stdout).into_owned();
    let connect = text(server.adb(&["connect", &serial]));
    assert!(connect.contains("connected to"), "{connect}");
    // The server brings a TCP device online asynchronously.
    let state = server.adb(&["-s", &serial, "wait-for-device"]);
    assert!(state.status.success());
    let devices = text(server.adb(&["devices", "-l"]));
    assert!(
        devices.contains(&serial) && devices.contains("model:Nexus_7"),
        "{devices}"
    );
    assert_eq!(
        text(server.adb(&["-s", &serial, "shell", "echo", "hello"])),
        "hello\r\n"
    );
    assert_eq!(
        text(server.adb(&["-s", &serial, "exec-out", "echo", "raw"])),
        "raw\n"
    );
    let missing = text(server.adb(&["-s", &serial, "shell", "frobnicate"]));
    assert!(
        missing.contains("frobnicate: inaccessible or not found"),
        "{missing}"
    );
}

#[test]
fn adb_client_talks_straight_to_the_sims_port() {
    use adb_client::ADBDeviceExt;
    use adb_client::tcp::ADBTcpDevice;
    let adbd = start(Model::Pixel);
    let addr = adbd.addr();
    let key = std::env::temp_dir().join(format!("scramblebot-adbkey-{}", std::process::id()));
    // adb_client can block forever on a silent peer: keep the call bounded on our side.
    let (tx, rx) = std::sync::mpsc::channel();
    let key_path = key.clone();
    std::thread::spawn(move || {
        let result = (|| -> Result<Vec<u8>, adb_client::RustADBError> {
            let mut device = ADBTcpDevice::new_with_custom_private_key(addr, &key_path)?;
            let mut out = Vec::new();
            device.shell_command(&"echo from adb_client", Some(&mut out), None)?;
            Ok(out)
        })();
        let _ = tx.send(result.map_err(|e| e.to_string()));
    });
    let out = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("adb_client answered in time");
    assert_eq!(out.expect("adb_client shell_command"), b"from adb_client\n");
    let _ = std::fs::remove_file(key);
}

#[test]
fn debians_adb_plays_on_android_13_with_shell_v2_push_and_forward() {
    let Some(server) = AdbServer::start() else {
        return;
    };
    let sim = start(Model::Pixel);
    let serial = sim.addr().to_string();
    let connect = server.adb(&["connect", &serial]);
    assert!(String::from_utf8_lossy(&connect.stdout).contains("connected to"));
    assert!(
        server
            .adb(&["-s", &serial, "wait-for-device"])
            .status
            .success()
    );
    let adb = |args: &[&str]| {
        let mut all = vec!["-s", serial.as_str()];
        all.extend_from_slice(args);
        server.adb(&all)
    };
    // Shell protocol v2: stdout and stderr apart, the exit status passed through.
    let out = adb(&["shell", "echo out; echo err >&2; exit 3"]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(out.stdout, b"out\n");
    assert_eq!(out.stderr, b"err\n");
    // push and pull through the sync service.
    let dir = std::env::temp_dir().join(format!("scramblebot-push-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("words.txt");
    let payload: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&file, &payload).unwrap();
    let push = adb(&["push", file.to_str().unwrap(), "/data/local/tmp/words.txt"]);
    assert!(
        push.status.success(),
        "{}",
        String::from_utf8_lossy(&push.stderr)
    );
    let back = dir.join("back.txt");
    let pull = adb(&["pull", "/data/local/tmp/words.txt", back.to_str().unwrap()]);
    assert!(
        pull.status.success(),
        "{}",
        String::from_utf8_lossy(&pull.stderr)
    );
    assert_eq!(std::fs::read(&back).unwrap(), payload);
    let refused = adb(&["push", file.to_str().unwrap(), "/system/bin/x"]);
    assert!(!refused.status.success());
    let _ = std::fs::remove_dir_all(&dir);
    // A PNG screenshot through exec-out.
    let png = adb(&["exec-out", "screencap", "-p"]).stdout;
    let img = image::load_from_memory(&png).expect("a PNG");
    assert_eq!((img.width(), img.height()), (1080, 2400));
    // The monkey behind `adb forward`: one persistent socket, one line per event.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let fwd = adb(&["forward", &format!("tcp:{port}"), "tcp:1080"]);
    assert!(fwd.status.success());
    assert!(
        adb(&["shell", "monkey --port 1080 >/dev/null 2>&1 &"])
            .status
            .success()
    );
    let reply = |line: &str| -> Option<String> {
        use std::io::BufRead;
        let s = TcpStream::connect(("127.0.0.1", port)).ok()?;
        s.set_nodelay(true).ok()?;
        s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        (&s).write_all(format!("{line}\ndone\n").as_bytes()).ok()?;
        let mut answer = String::new();
        std::io::BufReader::new(&s).read_line(&mut answer).ok()?;
        Some(answer.trim().to_owned()).filter(|a| !a.is_empty())
    };
    // Until the monkey listens, the forwarded connection just closes.
    common::wait_until("the monkey answering", Duration::from_secs(10), || {
        reply("wake").is_some()
    });
    let freeze = scramblebot::sim::layout::Layout::of(Model::Pixel).buttons[0];
    assert_eq!(
        reply(&format!("tap {} {}", freeze.x, freeze.y)).as_deref(),
        Some("OK")
    );
    let game = sim.device().game();
    assert_eq!(game.freezes().len(), 1);
    assert_eq!(
        format!("{:?}", game.strokes().last().unwrap().route),
        "Monkey"
    );
}

/// adb_client's device requests through the real server, as the bot makes them
/// (`ADBServerDevice`). The device is attached with the server's own `adb connect`:
/// adb_client's `ADBServer` runs `adb start-server` before each request without the server's
/// port, which starts (and leaves behind) a second server on adb's default port 5037.
#[test]
fn adb_client_through_the_adb_server() {
    use adb_client::ADBDeviceExt;
    use adb_client::server_device::ADBServerDevice;
    let Some(server) = AdbServer::start() else {
        return;
    };
    let sim = start(Model::Nexus7);
    let serial = sim.addr().to_string();
    let out = server.adb(&["connect", &serial]);
    assert!(out.status.success(), "{out:?}");
    server.wait_for_device(&serial);
    let server_addr = std::net::SocketAddrV4::new([127, 0, 0, 1].into(), server.port);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = (|| -> Result<(String, (u32, u32)), adb_client::RustADBError> {
            let mut device = ADBServerDevice::new(serial, Some(server_addr));
            let mut out = Vec::new();
            device.shell_command(&"getprop ro.product.model", Some(&mut out), None)?;
            let img = device.framebuffer_inner()?;
            Ok((String::from_utf8_lossy(&out).into_owned(), img.dimensions()))
        })();
        let _ = tx.send(result.map_err(|e| e.to_string()));
    });
    let (model, size) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("adb_client answered in time")
        .expect("adb_client through the server");
    assert_eq!(model, "Nexus 7\r\n");
    assert_eq!(size, (800, 1280));
}

#[test]
fn streams_and_connections_run_at_once() {
    let sim = start(Model::Pixel);
    let mut host = Host::connect(sim.addr());
    host.handshake();
    // A slow stream and a quick one on the same connection: the quick one finishes first.
    host.send(Message::new(
        Command::OPEN,
        1,
        0,
        &b"exec:sleep 0.4; echo late\0"[..],
    ));
    let slow = host.recv().unwrap();
    assert_eq!((slow.command, slow.arg1), (Command::OKAY, 1));
    assert_eq!(host.run(2, "exec:echo now"), b"now\n");
    // Meanwhile another connection is served too.
    let mut other = Host::connect(sim.addr());
    other.handshake();
    assert_eq!(other.run(1, "exec:echo other"), b"other\n");
    let late = host.recv().unwrap();
    assert_eq!(
        (late.command, late.arg1, &late.payload[..]),
        (Command::WRTE, 1, &b"late\n"[..])
    );
    host.send(Message::new(Command::OKAY, 1, late.arg0, Vec::new()));
    assert_eq!(host.recv().unwrap().command, Command::CLSE);
}

#[test]
fn a_host_that_floods_a_stream_is_cut_off() {
    let sim = start(Model::Pixel);
    let mut host = Host::connect(sim.addr());
    host.handshake();
    // `sleep` never reads its input, so nothing is acknowledged; a host that keeps writing
    // anyway is breaking flow control and loses its connection instead of growing our memory.
    host.send(Message::new(Command::OPEN, 1, 0, &b"exec:sleep 30\0"[..]));
    let okay = host.recv().unwrap();
    let chunk = vec![b'x'; 64 * 1024];
    let mut closed = false;
    for _ in 0..64 {
        let m = Message::new(Command::WRTE, 1, okay.arg0, chunk.clone());
        if host.stream.write_all(&m.encode()).is_err() {
            closed = true;
            break;
        }
    }
    closed = closed || host.recv().is_none();
    assert!(closed, "the sim kept a flooding host");
    let mut healthy = Host::connect(sim.addr());
    healthy.handshake();
    assert_eq!(healthy.run(1, "exec:echo fine"), b"fine\n");
}
