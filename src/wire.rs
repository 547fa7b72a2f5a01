//! The ADB wire format, as the device side speaks it: 24-byte message headers (six
//! little-endian u32: command, arg0, arg1, payload length, payload checksum, magic) followed by
//! the payload. Pure: encodes messages to bytes and decodes bytes into messages, refusing
//! malformed ones with a reason; it never touches a socket.

use std::fmt;

/// Protocol version the sim speaks (the one that may omit checksums, Android 9 and later).
pub const VERSION: u32 = 0x0100_0001;
/// Largest payload the sim accepts or sends (what adbd advertises since Android 9).
pub const MAX_PAYLOAD: u32 = 1024 * 1024;
/// Header length in bytes.
pub const HEADER_LEN: usize = 24;

/// A message's command, as its four ASCII letters read little-endian.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Command(pub u32);

impl Command {
    pub const CNXN: Command = Command::from_name(b"CNXN");
    pub const AUTH: Command = Command::from_name(b"AUTH");
    pub const OPEN: Command = Command::from_name(b"OPEN");
    pub const OKAY: Command = Command::from_name(b"OKAY");
    pub const WRTE: Command = Command::from_name(b"WRTE");
    pub const CLSE: Command = Command::from_name(b"CLSE");
    pub const STLS: Command = Command::from_name(b"STLS");
    const KNOWN: [Command; 7] = [
        Command::CNXN,
        Command::AUTH,
        Command::OPEN,
        Command::OKAY,
        Command::WRTE,
        Command::CLSE,
        Command::STLS,
    ];

    const fn from_name(name: &[u8; 4]) -> Command {
        Command(u32::from_le_bytes(*name))
    }
}

impl fmt::Debug for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0.to_le_bytes();
        if b.iter().all(u8::is_ascii_uppercase) {
            write!(f, "{}", String::from_utf8_lossy(&b))
        } else {
            write!(f, "{:#010x}", self.0)
        }
    }
}

/// One message.
#[derive(Clone, PartialEq, Eq)]
pub struct Message {
    pub command: Command,
    pub arg0: u32,
    pub arg1: u32,
    pub payload: Vec<u8>,
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?}({:#x}, {:#x}, {} bytes)",
            self.command,
            self.arg0,
            self.arg1,
            self.payload.len()
        )
    }
}

impl Message {
    pub fn new(command: Command, arg0: u32, arg1: u32, payload: impl Into<Vec<u8>>) -> Message {
        Message {
            command,
            arg0,
            arg1,
            payload: payload.into(),
        }
    }

    /// The message as bytes, checksum always filled in (older hosts check it).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.payload.len());
        out.extend_from_slice(&header(self.command, self.arg0, self.arg1, &self.payload));
        out.extend_from_slice(&self.payload);
        out
    }
}

/// The header of a message carrying `payload`, to be sent right before it (so a payload is
/// sent from where it lies, not copied into a message).
pub fn header(command: Command, arg0: u32, arg1: u32, payload: &[u8]) -> [u8; HEADER_LEN] {
    let mut out = [0u8; HEADER_LEN];
    let fields = [
        command.0,
        arg0,
        arg1,
        payload.len() as u32,
        checksum(payload),
        command.0 ^ 0xffff_ffff,
    ];
    for (at, v) in out.chunks_exact_mut(4).zip(fields) {
        at.copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// The payload checksum: the unsigned sum of its bytes.
pub fn checksum(payload: &[u8]) -> u32 {
    payload.iter().map(|&b| b as u32).fold(0, u32::wrapping_add)
}

/// Why bytes are not a message. Any of these ends the connection they came on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("bad magic {magic:#010x} for command {command:?}")]
    BadMagic { command: Command, magic: u32 },
    #[error("unknown command {0:?}")]
    UnknownCommand(Command),
    #[error("payload of {len} bytes is over the maximum of {max}")]
    TooLarge { len: u32, max: u32 },
    #[error("payload checksum {got:#x} does not match its bytes ({want:#x})")]
    BadChecksum { got: u32, want: u32 },
}

/// Turns a byte stream into messages. Holds at most one header and one payload of at most
/// `max_payload` bytes, so a peer cannot make it hold more.
#[derive(Debug)]
pub struct Decoder {
    buf: Vec<u8>,
    max_payload: u32,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder::new(MAX_PAYLOAD)
    }
}

impl Decoder {
    pub fn new(max_payload: u32) -> Decoder {
        Decoder {
            buf: Vec::new(),
            max_payload,
        }
    }

    /// How many more bytes `decode` needs before it can say anything (header, then payload).
    pub fn wanted(&self) -> usize {
        if self.buf.len() < HEADER_LEN {
            return HEADER_LEN - self.buf.len();
        }
        let len = u32::from_le_bytes(self.buf[12..16].try_into().unwrap()) as usize;
        (HEADER_LEN + len).saturating_sub(self.buf.len()).max(1)
    }

    /// Bytes of a message begun and not yet whole (0 between messages).
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// Takes bytes from the stream. Feed at most `wanted()` at a time, so nothing is held
    /// past the message being read.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole message, `Ok(None)` if more bytes are needed, or why the stream is bad.
    /// A header is judged as soon as it is complete, before its payload is read.
    pub fn decode(&mut self) -> Result<Option<Message>, WireError> {
        if self.buf.len() < HEADER_LEN {
            return Ok(None);
        }
        let field = |i: usize| u32::from_le_bytes(self.buf[4 * i..4 * i + 4].try_into().unwrap());
        let command = Command(field(0));
        let (arg0, arg1, len, check, magic) = (field(1), field(2), field(3), field(4), field(5));
        if magic != command.0 ^ 0xffff_ffff {
            return Err(WireError::BadMagic { command, magic });
        }
        if !Command::KNOWN.contains(&command) {
            return Err(WireError::UnknownCommand(command));
        }
        if len > self.max_payload {
            return Err(WireError::TooLarge {
                len,
                max: self.max_payload,
            });
        }
        let total = HEADER_LEN + len as usize;
        if self.buf.len() < total {
            return Ok(None);
        }
        let payload = self.buf[HEADER_LEN..total].to_vec();
        // Since protocol 0x01000001 a sender may leave the checksum 0; a wrong one is refused.
        let want = checksum(&payload);
        if check != 0 && check != want {
            return Err(WireError::BadChecksum { got: check, want });
        }
        self.buf.drain(..total);
        Ok(Some(Message {
            command,
            arg0,
            arg1,
            payload,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(bytes: &[u8], chunk: usize) -> Result<Vec<Message>, WireError> {
        let mut d = Decoder::default();
        let mut out = Vec::new();
        for piece in bytes.chunks(chunk) {
            d.feed(piece);
            while let Some(m) = d.decode()? {
                out.push(m);
            }
        }
        Ok(out)
    }

    #[test]
    fn messages_round_trip_in_any_chunking() {
        let msgs = vec![
            Message::new(
                Command::CNXN,
                VERSION,
                MAX_PAYLOAD,
                &b"host::features=shell_v2\0"[..],
            ),
            Message::new(Command::OPEN, 1, 0, &b"shell:echo hi\0"[..]),
            Message::new(Command::OKAY, 7, 1, Vec::new()),
            Message::new(Command::WRTE, 7, 1, vec![0xff; 5000]),
            Message::new(Command::CLSE, 7, 1, Vec::new()),
        ];
        let bytes: Vec<u8> = msgs.iter().flat_map(Message::encode).collect();
        for chunk in [1, 3, 24, 25, 4096, bytes.len()] {
            assert_eq!(
                decode_all(&bytes, chunk).unwrap(),
                msgs,
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn header_layout_is_the_documented_one() {
        let bytes = Message::new(Command::OKAY, 1, 2, &b"ab"[..]).encode();
        assert_eq!(&bytes[0..4], b"OKAY");
        assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 2);
        assert_eq!(
            u32::from_le_bytes(bytes[16..20].try_into().unwrap()),
            97 + 98
        );
        assert_eq!(
            u32::from_le_bytes(bytes[20..24].try_into().unwrap()),
            u32::from_le_bytes(*b"OKAY") ^ 0xffff_ffff
        );
    }

    #[test]
    fn malformed_messages_are_refused_with_the_reason() {
        let good = Message::new(Command::WRTE, 1, 2, &b"hello"[..]).encode();
        let with = |i: usize, v: u32| {
            let mut b = good.clone();
            b[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
            b
        };
        let unknown = {
            let mut b = with(0, u32::from_le_bytes(*b"XXXX"));
            b[20..24].copy_from_slice(&(u32::from_le_bytes(*b"XXXX") ^ 0xffff_ffff).to_le_bytes());
            b
        };
        // (bytes, error)
        let cases = [
            (with(5, 0), "bad magic 0x00000000 for command WRTE"),
            (unknown, "unknown command XXXX"),
            (
                with(3, MAX_PAYLOAD + 1),
                "payload of 1048577 bytes is over the maximum of 1048576",
            ),
            (
                with(4, 1),
                "payload checksum 0x1 does not match its bytes (0x214)",
            ),
        ];
        for (bytes, message) in cases {
            assert_eq!(decode_all(&bytes, 7).unwrap_err().to_string(), message);
        }
        // A zero checksum is the newer protocol's "not computed", not an error.
        assert_eq!(decode_all(&with(4, 0), 7).unwrap().len(), 1);
        // A truncated message is simply incomplete.
        assert_eq!(decode_all(&good[..good.len() - 1], 5).unwrap(), vec![]);
    }

    #[test]
    fn an_oversized_header_is_refused_before_its_payload_arrives() {
        let mut d = Decoder::new(16);
        d.feed(&Message::new(Command::WRTE, 1, 2, vec![0; 17]).encode()[..HEADER_LEN]);
        assert!(matches!(
            d.decode(),
            Err(WireError::TooLarge { len: 17, max: 16 })
        ));
    }
}
