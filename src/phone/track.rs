//! Following the adb server's device list as it changes: `host:track-devices` on the server's
//! smart socket sends the whole list (a line "SERIAL\tSTATE" per phone) at once and again on
//! every change, an empty list when the last phone goes. (adb_client's `track_devices` skips
//! empty lists, so it cannot see the last phone leave, and it cannot be stopped; this one is a
//! plain tokio socket the caller drops.)

use std::net::SocketAddrV4;
use std::time::Duration;

use super::{PhoneError, host};

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

const REQUEST: &str = "host:track-devices";

/// An open `host:track-devices` request.
pub struct Tracker {
    socket: tokio::net::TcpStream,
}

impl Tracker {
    /// Asks the server at `server` to report its device list. The server must be running.
    pub async fn open(server: SocketAddrV4, limit: Duration) -> Result<Tracker, PhoneError> {
        let socket = tokio::time::timeout(limit, host::open(server, REQUEST))
            .await
            .map_err(|_| PhoneError::Timeout {
                what: REQUEST.into(),
                limit,
            })??;
        Ok(Tracker { socket })
    }

    /// The next device list: the first comes at once, then one on every change. An error
    /// when the server goes away.
    pub async fn next(&mut self) -> Result<Vec<Attached>, PhoneError> {
        Ok(parse_list(
            &host::read_reply(&mut self.socket, REQUEST).await?,
        ))
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
