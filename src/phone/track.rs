//! Following the adb server's device list as it changes: `host:track-devices` on the server's
//! smart socket sends the whole list (a line "SERIAL\tSTATE" per phone) at once and again on
//! every change, an empty list when the last phone goes. (adb_client's `track_devices` skips
//! empty lists, so it cannot see the last phone leave, and it cannot be stopped; this one is a
//! plain tokio socket the caller drops.)

use std::net::SocketAddrV4;
use std::time::Duration;

use super::PhoneError;
use super::host::{self, Attached, parse_list};

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
