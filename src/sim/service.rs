//! The services a host can open on the virtual phone, named as adbd names them, and what each
//! does with its stream: `shell:` (v1), `shell,v2,...:` (framed, with the exit code; only
//! where adbd has it, Android 7 and later), `exec:` (Android 5 and later), `framebuffer:`,
//! `sync:` and `tcp:N`.

use std::io::Write;
use std::sync::Arc;

use super::device::Device;
use super::model::Model;
use super::shell::{self, Framing};
use super::stream::StreamIo;
use super::sync;

/// A service a host can open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Service {
    /// `shell:CMD` or `shell,ARGS:CMD`. Without v2, stderr is mixed into stdout and there is
    /// no exit code; with a terminal (`pty`), LF becomes CRLF.
    Shell { cmd: String, v2: bool, pty: bool },
    /// `exec:CMD` (what `adb exec-out` opens): the command's raw bytes, no terminal.
    Exec(String),
    /// The screen's pixels behind a version 2 header.
    Framebuffer,
    /// File transfer (`adb push`, `adb pull`).
    Sync,
    /// A connection to a device-side socket on loopback port N (`adb forward`).
    Tcp(u16),
}

impl Service {
    /// The service a stream asks for on `model`; `None` for one the phone does not offer (the
    /// stream is refused, as adbd refuses unknown services).
    pub fn parse(name: &str, model: Model) -> Option<Service> {
        if let Some(cmd) = name.strip_prefix("shell:") {
            // Before Android 7 every shell ran through a terminal; after, only interactive ones.
            let pty = model.sdk() < 24 || cmd.trim().is_empty();
            return Some(Service::Shell {
                cmd: cmd.to_owned(),
                v2: false,
                pty,
            });
        }
        if let Some(rest) = name.strip_prefix("shell,") {
            if !model.has_shell_v2() {
                return None;
            }
            let (args, cmd) = rest.split_once(':')?;
            let mut service = Service::Shell {
                cmd: cmd.to_owned(),
                v2: false,
                pty: cmd.trim().is_empty(),
            };
            if let Service::Shell { v2, pty, .. } = &mut service {
                for arg in args.split(',') {
                    match arg {
                        "v2" => *v2 = true,
                        "raw" => *pty = false,
                        "pty" => *pty = true,
                        _ => {} // TERM=..., and options a real adbd ignores too
                    }
                }
            }
            return Some(service);
        }
        if let Some(cmd) = name.strip_prefix("exec:") {
            return model.has_exec().then(|| Service::Exec(cmd.to_owned()));
        }
        match name {
            "framebuffer:" => return Some(Service::Framebuffer),
            "sync:" => return Some(Service::Sync),
            _ => {}
        }
        let port = name.strip_prefix("tcp:")?.parse::<u16>().ok()?;
        (port != 0).then_some(Service::Tcp(port))
    }
}

/// How a shell stream frames its output: v2 packets, through a terminal, or raw.
pub fn framing(v2: bool, pty: bool) -> Framing {
    if v2 {
        Framing::V2 { pty }
    } else if pty {
        Framing::Pty
    } else {
        Framing::Raw
    }
}

/// Runs `service` on its stream until it is done; dropping the stream closes it.
pub fn run(device: &Arc<Device>, service: Service, mut io: StreamIo) {
    match service {
        Service::Shell { cmd, v2, pty } => shell::serve(device, io, &cmd, framing(v2, pty)),
        Service::Exec(cmd) => shell::serve(device, io, &cmd, Framing::Raw),
        Service::Framebuffer => {
            let _ = framebuffer(device, &mut io);
        }
        Service::Sync => sync::serve(device, io),
        // Handed to the port's listener by adbd; nothing runs here.
        Service::Tcp(_) => {}
    }
}

/// Writes the `framebuffer:` answer: a header (version, bpp, from version 2 the colour space,
/// size, width, height, then offset and length of red, blue, green, alpha), then RGBA rows
/// (the screen's own, not copied). adbd builds it from screencap's output, so the version
/// follows screencap's header: 1 before Android 8, 2 (with the data space as colour space)
/// after.
pub fn framebuffer(device: &Device, to: &mut impl Write) -> std::io::Result<()> {
    let img = device.screenshot();
    let (w, h) = img.dimensions();
    let size = w * h * 4;
    let channels = [0, 8, 16, 8, 8, 8, 24, 8];
    let mut header = if device.model().sdk() >= 26 {
        vec![2, 32, 0, size, w, h]
    } else {
        vec![1, 32, size, w, h]
    };
    header.extend_from_slice(&channels);
    let header: Vec<u8> = header.into_iter().flat_map(u32::to_le_bytes).collect();
    to.write_all(&header)?;
    to.write_all(img.as_raw())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_by_name_and_android_version() {
        let shell = |cmd: &str, v2, pty| {
            Some(Service::Shell {
                cmd: cmd.into(),
                v2,
                pty,
            })
        };
        // (name, model, service)
        let cases = [
            (
                "shell:echo hi",
                Model::Pixel,
                shell("echo hi", false, false),
            ),
            (
                "shell:echo hi",
                Model::Nexus7,
                shell("echo hi", false, true),
            ),
            ("shell:", Model::Pixel, shell("", false, true)),
            (
                "shell,v2,TERM=xterm-256color,raw:id",
                Model::Pixel,
                shell("id", true, false),
            ),
            ("shell,v2,pty:", Model::Pixel, shell("", true, true)),
            ("shell,v2,raw:id", Model::Nexus7, None),
            (
                "exec:screencap -p",
                Model::Nexus7,
                Some(Service::Exec("screencap -p".into())),
            ),
            ("exec:screencap -p", Model::Small, None),
            ("framebuffer:", Model::Small, Some(Service::Framebuffer)),
            ("sync:", Model::Pixel, Some(Service::Sync)),
            ("tcp:1080", Model::Nexus7, Some(Service::Tcp(1080))),
            ("tcp:0", Model::Nexus7, None),
            ("tcp:99999", Model::Nexus7, None),
            ("jdwp:1234", Model::Pixel, None),
            ("bogus", Model::Pixel, None),
        ];
        for (name, model, service) in cases {
            assert_eq!(Service::parse(name, model), service, "{name} on {model:?}");
        }
    }
}
