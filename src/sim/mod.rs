//! The virtual phone: a simulated Android device that real ADB software can drive. So far it
//! holds the device side of the ADB protocol (`wire`, `adbd`) and the first shell commands
//! (`shell`); the game, its screens and its referee are still to come. It must behave like a
//! real phone: the bot may never know it is talking to a simulator.

pub mod adbd;
pub mod shell;
pub mod wire;

/// The phones the simulator can be, each with its own Android version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Nexus 7 (2012): 800x1280, Android 5.1 (sdk 22), the phone the original bot drove.
    Nexus7,
    /// A recent Pixel: 1080x2400, Android 13 (sdk 33).
    Pixel,
    /// A small old phone: 480x800, Android 4.4 (sdk 19).
    Small,
}

impl Model {
    /// The Android API level.
    pub fn sdk(self) -> u32 {
        match self {
            Model::Nexus7 => 22,
            Model::Pixel => 33,
            Model::Small => 19,
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

    /// What adbd says of itself in its CNXN. No features are claimed: the sim offers none of
    /// the optional protocols yet (shell_v2 and the others come with their services), and a
    /// host that sees a feature uses it.
    pub fn banner(self) -> String {
        let (name, model, device) = self.product();
        format!(
            "device::ro.product.name={name};ro.product.model={model};ro.product.device={device};features="
        )
    }
}
