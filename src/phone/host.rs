//! The adb server's own requests (`host:devices`, `host:connect:`, `host:track-devices`),
//! spoken on its smart socket over tokio, and starting the server when none answers.
//! adb_client's `ADBServer` runs `adb start-server` before every request it makes, without the
//! server's port (so a server on any port but 5037 is never started, and one on 5037 may be
//! started that nobody asked for), and lets adb's "daemon started" lines onto our stderr. Here
//! the server is started once, on its own port, only when it does not answer, with adb's
//! output kept for the error.

use std::net::SocketAddrV4;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::PhoneError;

/// The longest reply the server sends to a host request (a device list, a message).
const MAX_REPLY: usize = 64 * 1024;
/// How long a host request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// How long `adb start-server` may take (it waits for the server to answer).
const START_TIMEOUT: Duration = Duration::from_secs(20);

fn failed(call: &str, why: impl ToString) -> PhoneError {
    PhoneError::AdbServer {
        call: call.to_owned(),
        why: why.to_string(),
    }
}

/// Sends `request` to the server at `server` and reads its status: the socket, past "OKAY",
/// for what follows; the server's message when it says "FAIL".
pub(super) async fn open(server: SocketAddrV4, request: &str) -> Result<TcpStream, PhoneError> {
    let mut socket = TcpStream::connect(server)
        .await
        .map_err(|e| PhoneError::NoServer {
            server,
            why: e.to_string(),
        })?;
    let framed = format!("{:04x}{request}", request.len());
    socket
        .write_all(framed.as_bytes())
        .await
        .map_err(|e| failed(request, e))?;
    let mut status = [0u8; 4];
    socket
        .read_exact(&mut status)
        .await
        .map_err(|e| failed(request, e))?;
    match &status {
        b"OKAY" => Ok(socket),
        b"FAIL" => {
            let why = read_reply(&mut socket, request).await?;
            Err(failed(request, why))
        }
        other => Err(failed(
            request,
            format!("a status of {:?}", String::from_utf8_lossy(other)),
        )),
    }
}

/// One reply: four hex digits of length, then that many bytes.
pub(super) async fn read_reply(socket: &mut TcpStream, call: &str) -> Result<String, PhoneError> {
    let mut len = [0u8; 4];
    socket
        .read_exact(&mut len)
        .await
        .map_err(|e| failed(call, e))?;
    let n = std::str::from_utf8(&len)
        .ok()
        .and_then(|l| usize::from_str_radix(l, 16).ok())
        .filter(|&n| n <= MAX_REPLY)
        .ok_or_else(|| {
            failed(
                call,
                format!("a length of {:?}", String::from_utf8_lossy(&len)),
            )
        })?;
    let mut body = vec![0u8; n];
    socket
        .read_exact(&mut body)
        .await
        .map_err(|e| failed(call, e))?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// A request answered by one reply, bounded in time.
async fn ask(server: SocketAddrV4, request: &str) -> Result<String, PhoneError> {
    let asked = async {
        let mut socket = open(server, request).await?;
        read_reply(&mut socket, request).await
    };
    tokio::time::timeout(REQUEST_TIMEOUT, asked)
        .await
        .map_err(|_| PhoneError::Timeout {
            what: request.to_owned(),
            limit: REQUEST_TIMEOUT,
        })?
}

/// A phone on the server's list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attached {
    pub serial: String,
    /// `device` when ready; `offline`, `unauthorized`, `authorizing`, `connecting`...
    pub state: String,
}

impl Attached {
    pub fn ready(&self) -> bool {
        self.state == "device"
    }
}

/// "SERIAL\tSTATE" lines.
pub fn parse_list(text: &str) -> Vec<Attached> {
    text.lines()
        .filter_map(|l| {
            let (serial, state) = l.split_once('\t')?;
            Some(Attached {
                serial: serial.trim().to_owned(),
                state: state.trim().to_owned(),
            })
        })
        .filter(|a| !a.serial.is_empty())
        .collect()
}

/// The phones attached to the server (`adb devices`); `NoServer` when none answers.
pub async fn devices(server: SocketAddrV4) -> Result<Vec<Attached>, PhoneError> {
    Ok(parse_list(&ask(server, "host:devices").await?))
}

/// Asks the server to connect the TCP phone at `target` (`adb connect`).
pub async fn connect(server: SocketAddrV4, target: std::net::SocketAddr) -> Result<(), PhoneError> {
    let said = ask(server, &format!("host:connect:{target}")).await?;
    if said.starts_with("connected to") || said.starts_with("already connected to") {
        Ok(())
    } else {
        Err(PhoneError::Connect {
            addr: target,
            why: said,
        })
    }
}

/// Makes sure a server answers at `server`: when none does and the address is this machine's,
/// starts one there (`adb -P PORT start-server`), as adb itself does.
pub async fn ensure_server(server: SocketAddrV4) -> Result<(), PhoneError> {
    let why = match devices(server).await {
        Ok(_) => return Ok(()),
        Err(PhoneError::NoServer { why, .. }) => why,
        Err(other) => return Err(other),
    };
    if !(server.ip().is_loopback() || server.ip().is_unspecified()) {
        return Err(PhoneError::NoServer { server, why });
    }
    start_server(server.port())
        .await
        .map_err(|why| PhoneError::NoServer { server, why })?;
    devices(server).await.map(drop)
}

/// Runs `adb -P PORT start-server`; what adb said when it fails.
async fn start_server(port: u16) -> Result<(), String> {
    let mut command = tokio::process::Command::new("adb");
    command
        .args(["-P", &port.to_string(), "start-server"])
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(START_TIMEOUT, command.output())
        .await
        .map_err(|_| format!("`adb start-server` took over {START_TIMEOUT:?}"))?
        .map_err(|e| format!("cannot run `adb`: {e}"))?;
    if out.status.success() {
        tracing::info!(port, "started an adb server");
        Ok(())
    } else {
        let said = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "`adb -P {port} start-server` failed ({}): {}",
            out.status,
            said.trim()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-request server on loopback that answers with `reply` and records the request.
    async fn fake_server(reply: &'static [u8]) -> (SocketAddrV4, tokio::task::JoinHandle<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let std::net::SocketAddr::V4(addr) = listener.local_addr().unwrap() else {
            unreachable!()
        };
        let served = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut len = [0u8; 4];
            s.read_exact(&mut len).await.unwrap();
            let n = usize::from_str_radix(std::str::from_utf8(&len).unwrap(), 16).unwrap();
            let mut req = vec![0u8; n];
            s.read_exact(&mut req).await.unwrap();
            s.write_all(reply).await.unwrap();
            String::from_utf8(req).unwrap()
        });
        (addr, served)
    }

    #[tokio::test]
    async fn replies_and_refusals_are_read() {
        let (addr, served) = fake_server(b"OKAY0022127.0.0.1:5555\tdevice\nR58\toffline\n").await;
        let list = devices(addr).await.unwrap();
        assert_eq!(served.await.unwrap(), "host:devices");
        let got: Vec<_> = list
            .iter()
            .map(|a| (a.serial.as_str(), a.ready()))
            .collect();
        assert_eq!(got, [("127.0.0.1:5555", true), ("R58", false)]);

        let target: std::net::SocketAddr = "127.0.0.1:7".parse().unwrap();
        let (addr, served) = fake_server(b"OKAY0024failed to connect to 127.0.0.1:7: no").await;
        let err = connect(addr, target).await.unwrap_err();
        assert_eq!(served.await.unwrap(), "host:connect:127.0.0.1:7");
        // An IPv6 phone is asked for as adb writes it, in brackets.
        let target: std::net::SocketAddr = "[::1]:5555".parse().unwrap();
        let (addr, served) = fake_server(b"OKAY0017connected to [::1]:5555").await;
        connect(addr, target).await.unwrap();
        assert_eq!(served.await.unwrap(), "host:connect:[::1]:5555");
        assert!(matches!(err, PhoneError::Connect { .. }), "{err}");

        let (addr, _) = fake_server(b"FAIL0007no such").await;
        let err = devices(addr).await.unwrap_err().to_string();
        assert!(err.ends_with("no such"), "{err}");

        let (addr, _) = fake_server(b"OKAYzzzz").await;
        let err = devices(addr).await.unwrap_err().to_string();
        assert!(err.contains("a length of \"zzzz\""), "{err}");
    }

    #[tokio::test]
    async fn no_server_is_told_apart() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, port);
        let err = devices(addr).await.unwrap_err();
        assert!(matches!(err, PhoneError::NoServer { .. }), "{err}");
    }

    #[test]
    fn device_lists_parse_line_by_line() {
        let cases: &[(&str, &[(&str, &str)])] = &[
            ("", &[]),
            ("127.0.0.1:5555\tdevice\n", &[("127.0.0.1:5555", "device")]),
            (
                "emulator-5554\toffline\nR58M\tunauthorized\n",
                &[("emulator-5554", "offline"), ("R58M", "unauthorized")],
            ),
            ("garbage without a tab\n", &[]),
        ];
        for (text, want) in cases {
            let got: Vec<(String, String)> = parse_list(text)
                .into_iter()
                .map(|a| (a.serial, a.state))
                .collect();
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            assert_eq!(got, want, "{text:?}");
        }
    }
}
