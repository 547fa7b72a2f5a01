//! The phones the virtual phone can be: each model's screen, Android version and what that
//! version offers (services, shell protocol, the cost of a JVM start). A leaf: it imports
//! nothing else of the simulator.

use std::time::Duration;

/// The phones the simulator can be, each with its own Android version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// Nexus 7 (2012): 800x1280, Android 5.1 (sdk 22), the phone the original bot drove.
    Nexus7,
    /// A recent Pixel: 1080x2400, Android 13 (sdk 33).
    Pixel,
    /// A small old phone: 480x800, Android 4.4 (sdk 19).
    Small,
}

impl Model {
    pub const ALL: [Model; 3] = [Model::Nexus7, Model::Pixel, Model::Small];

    /// The name users type (`--model nexus7`).
    pub fn name(self) -> &'static str {
        match self {
            Model::Nexus7 => "nexus7",
            Model::Pixel => "pixel",
            Model::Small => "small",
        }
    }

    /// The Android API level.
    pub fn sdk(self) -> u32 {
        match self {
            Model::Nexus7 => 22,
            Model::Pixel => 33,
            Model::Small => 19,
        }
    }

    /// ro.build.version.release
    pub fn release(self) -> &'static str {
        match self {
            Model::Nexus7 => "5.1.1",
            Model::Pixel => "13",
            Model::Small => "4.4.4",
        }
    }

    /// ro.product.cpu.abi
    pub fn abi(self) -> &'static str {
        match self {
            Model::Pixel => "arm64-v8a",
            Model::Nexus7 | Model::Small => "armeabi-v7a",
        }
    }

    /// (ro.product.name, ro.product.model, ro.product.device)
    pub fn product(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Model::Nexus7 => ("nakasi", "Nexus 7", "grouper"),
            Model::Pixel => ("panther", "Pixel 7", "panther"),
            Model::Small => ("scramblebot_small", "Small Phone", "small"),
        }
    }

    /// Screen density in dpi (`wm density`).
    pub fn density(self) -> u32 {
        match self {
            Model::Nexus7 => 213,
            Model::Pixel => 420,
            Model::Small => 240,
        }
    }

    /// What starting a Java tool (`input`, `monkey`) costs on this phone: a JVM per call,
    /// hundreds of milliseconds before Android 12, tens after.
    pub fn jvm_start(self) -> Duration {
        Duration::from_millis(match self {
            Model::Nexus7 => 350,
            Model::Pixel => 60,
            Model::Small => 500,
        })
    }

    /// Whether adbd has the `exec:` service, a command without a terminal (`adb exec-out`;
    /// Android 5.0, sdk 21, and later).
    pub fn has_exec(self) -> bool {
        self.sdk() >= 21
    }

    /// Whether adbd speaks shell protocol v2 (Android 7, sdk 24, and later).
    pub fn has_shell_v2(self) -> bool {
        self.sdk() >= 24
    }

    /// What adbd says of itself in its CNXN. Only features the sim implements are claimed: a
    /// host that sees a feature uses it.
    /// The protocol version and largest payload its adbd answers a host's CNXN with: before
    /// Android 7 version 0x01000000 with 4 KiB, Android 7 and 8 256 KiB, from Android 9
    /// 0x01000001 (checksums no longer checked) with 1 MiB. What a phone sends goes out in
    /// messages of at most this much, so a screenshot's bytes take turns with a touch's
    /// acknowledgement at this grain on the cable.
    pub fn adb_protocol(self) -> (u32, u32) {
        match self.sdk() {
            ..24 => (0x0100_0000, 4 * 1024),
            24..28 => (0x0100_0000, 256 * 1024),
            _ => (0x0100_0001, 1024 * 1024),
        }
    }

    pub fn banner(self) -> String {
        let (name, model, device) = self.product();
        let features = if self.has_shell_v2() { "shell_v2" } else { "" };
        format!(
            "device::ro.product.name={name};ro.product.model={model};ro.product.device={device};features={features}"
        )
    }
}
