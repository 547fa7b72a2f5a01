//! The virtual phone's adbd over real TCP: a raw client speaking the wire protocol, and
//! Debian's real `adb` server (skipped, with a note, when `adb` is not installed; .ci/run
//! installs it). The adb server runs on its own port with its own HOME and is killed after.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command as Process;
use std::time::Duration;

use scramblebot::sim::wire::{Command, Decoder, MAX_PAYLOAD, Message, VERSION};
use scramblebot::sim::{Model, Sim, SimConfig};

fn start(model: Model) -> Sim {
    let config = SimConfig {
        model,
        ..SimConfig::default()
    };
    Sim::start("127.0.0.1:0".parse().unwrap(), config).expect("the sim listens")
}

/// A bare host: writes messages, reads them back with a timeout.
struct Host {
    stream: TcpStream,
    decoder: Decoder,
}

impl Host {
    fn connect(addr: SocketAddr) -> Host {
        let stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        Host {
            stream,
            decoder: Decoder::default(),
        }
    }
    fn send(&mut self, m: Message) {
        self.stream.write_all(&m.encode()).unwrap();
    }
    /// The next message, or None once the sim closes the connection.
    fn recv(&mut self) -> Option<Message> {
        loop {
            if let Some(m) = self
                .decoder
                .decode()
                .expect("the sim sends well-formed messages")
            {
                return Some(m);
            }
            let mut buf = [0u8; 4096];
            match self.stream.read(&mut buf) {
                Ok(0) => return None,
                Ok(n) => self.decoder.feed(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return None,
                Err(e) => panic!("no answer from the sim: {e}"),
            }
        }
    }
    fn handshake(&mut self) -> Message {
        self.send(Message::new(
            Command::CNXN,
            VERSION,
            MAX_PAYLOAD,
            &b"host::features=\0"[..],
        ));
        self.recv().expect("CNXN back")
    }
    /// Opens `service` and returns everything it writes, acknowledging each write.
    fn run(&mut self, local: u32, service: &str) -> Vec<u8> {
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

#[test]
fn handshake_and_shell_over_raw_tcp() {
    let adbd = start(Model::Nexus7);
    let mut host = Host::connect(adbd.addr());
    let cnxn = host.handshake();
    assert_eq!(
        (cnxn.command, cnxn.arg0, cnxn.arg1),
        (Command::CNXN, VERSION, MAX_PAYLOAD)
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

/// The real adb server, on its own port and HOME; None when adb is not installed.
struct AdbServer {
    port: u16,
    home: std::path::PathBuf,
}

impl AdbServer {
    fn start() -> Option<AdbServer> {
        if Process::new("adb").arg("version").output().is_err() {
            eprintln!(
                "note: `adb` is not installed; skipping the real-adb test (apt-get install adb)"
            );
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let home = std::env::temp_dir().join(format!(
            "scramblebot-adb-home-{}-{port}",
            std::process::id()
        ));
        std::fs::create_dir_all(&home).unwrap();
        let server = AdbServer { port, home };
        let out = server.adb(&["start-server"]);
        assert!(
            out.status.success(),
            "adb start-server: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(server)
    }
    fn adb(&self, args: &[&str]) -> std::process::Output {
        Process::new("adb")
            .args(args)
            .env("ANDROID_ADB_SERVER_PORT", self.port.to_string())
            .env("HOME", &self.home)
            .env_remove("ANDROID_SERIAL")
            .output()
            .expect("adb runs")
    }
}

impl Drop for AdbServer {
    fn drop(&mut self) {
        let _ = self.adb(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.home);
    }
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
