//! Following the adb server's device list as it changes: `host:track-devices` on the server's
//! smart socket sends the whole list (a line "SERIAL\tSTATE" per phone) at once and again on
//! every change, an empty list when the last phone goes. (adb_client's `track_devices` skips
//! empty lists, so it cannot see the last phone leave, and it cannot be stopped; this one is a
//! plain tokio socket the caller drops.)

use std::net::SocketAddrV4;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::PhoneError;

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

/// The longest list the server may send (it sends a few lines).
const MAX_LIST: usize = 64 * 1024;

/// An open `host:track-devices` request.
pub struct Tracker {
    socket: tokio::net::TcpStream,
}

fn failed(why: impl ToString) -> PhoneError {
    PhoneError::AdbServer {
        call: "host:track-devices".into(),
        why: why.to_string(),
    }
}

impl Tracker {
    /// Asks the server at `server` to report its device list. The server must be running.
    pub async fn open(server: SocketAddrV4, limit: Duration) -> Result<Tracker, PhoneError> {
        let opened = async {
            let mut socket = tokio::net::TcpStream::connect(server)
                .await
                .map_err(failed)?;
            let request = "host:track-devices";
            let framed = format!("{:04x}{request}", request.len());
            socket.write_all(framed.as_bytes()).await.map_err(failed)?;
            let mut status = [0u8; 4];
            socket.read_exact(&mut status).await.map_err(failed)?;
            if &status != b"OKAY" {
                return Err(failed(String::from_utf8_lossy(&status)));
            }
            Ok(Tracker { socket })
        };
        tokio::time::timeout(limit, opened)
            .await
            .map_err(|_| PhoneError::Timeout {
                what: "host:track-devices".into(),
                limit,
            })?
    }

    /// The next device list: the first comes at once, then one on every change. An error
    /// when the server goes away.
    pub async fn next(&mut self) -> Result<Vec<Attached>, PhoneError> {
        let mut len = [0u8; 4];
        self.socket.read_exact(&mut len).await.map_err(failed)?;
        let n = std::str::from_utf8(&len)
            .ok()
            .and_then(|l| usize::from_str_radix(l, 16).ok())
            .filter(|&n| n <= MAX_LIST)
            .ok_or_else(|| failed(format!("a length of {:?}", String::from_utf8_lossy(&len))))?;
        let mut body = vec![0u8; n];
        self.socket.read_exact(&mut body).await.map_err(failed)?;
        Ok(parse_list(&String::from_utf8_lossy(&body)))
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

#[cfg(test)]
mod tests {
    use super::*;

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
