//! Device profiles (devices/*.toml): where one phone shows the game's tiles and lifeline
//! buttons, how to enter words on it, and the round's rules. Parsed once into a checked
//! `Profile`: a profile with a zero pitch, a tile off the screen or overlapping tiles never
//! exists, and every refusal names the file, the line and a hint. Pure: `from_toml_str` does
//! the work; `load` only reads the file; `find` looks in the places a user keeps profiles.
//!
//! A file each, each using only those before it: `model` (what a profile is), `check` (its
//! parts put together and checked), `form` (the TOML file, read and written); here, where
//! profiles are found.

mod check;
mod form;
mod model;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

pub use check::ProfileBuilder;
pub use model::{
    Clock, Glyphs, Input, MAX_GLYPHS, Point, Profile, ProfileError, Route, Rules, SCRAMBLE_PACKAGE,
    SIDE, ScreenBox, game_package, glyphs_table,
};

/// The profiles built into the binary (the same files as devices/).
pub const BUILT_IN: [(&str, &str); 3] = [
    ("nexus7", include_str!("../../devices/nexus7.toml")),
    ("pixel", include_str!("../../devices/pixel.toml")),
    ("small", include_str!("../../devices/small.toml")),
];

impl Profile {
    /// Reads and checks a profile file.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let text = crate::files::read_text(path, crate::files::Kind::Config).map_err(|e| {
            ProfileError {
                file: path.display().to_string(),
                line: None,
                message: e.to_string(),
                hint: None,
            }
        })?;
        let mut profile = Profile::from_toml_str(&text, &path.display().to_string())?;
        profile.source = Some(path.to_owned());
        Ok(profile)
    }

    /// A profile built into the binary.
    pub fn built_in(name: &str) -> Option<Profile> {
        BUILT_IN.iter().find(|(n, _)| *n == name).map(|(n, text)| {
            Profile::from_toml_str(text, &format!("(built-in {n}.toml)"))
                .expect("shipped profiles are tested")
        })
    }

    /// The profile for a `width`x`height` screen: the first, by name, in ./devices, then in
    /// `config_dir/devices`, then built in, whose screen is that size. Files that do not load
    /// are passed over (each is named in the second list, with why).
    pub fn for_screen_size(
        (width, height): (u32, u32),
        cwd: &Path,
        config_dir: Option<&Path>,
    ) -> (Option<Profile>, Vec<ProfileError>) {
        let mut refused = Vec::new();
        let dirs =
            std::iter::once(cwd.join("devices")).chain(config_dir.map(|d| d.join("devices")));
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut paths: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            paths.sort();
            for path in paths {
                match Profile::load(&path) {
                    Ok(p) if p.screen() == (width, height) => return (Some(p), refused),
                    Ok(_) => {}
                    Err(e) => refused.push(e),
                }
            }
        }
        let built_in = BUILT_IN
            .iter()
            .filter_map(|(n, _)| Profile::built_in(n))
            .find(|p| p.screen() == (width, height));
        (built_in, refused)
    }

    /// Finds `--device NAME`: ./devices, then `config_dir/devices` (the user's
    /// `$XDG_CONFIG_HOME/scramblebot`), then the built-in profiles.
    pub fn find(
        name: &str,
        cwd: &Path,
        config_dir: Option<&Path>,
    ) -> Result<Profile, ProfileError> {
        if !Profile::valid_name(name) {
            return Err(ProfileError {
                file: name.to_owned(),
                line: None,
                message: "not a device name".into(),
                hint: Some("letters, digits, - and _".into()),
            });
        }
        let mut tried: Vec<PathBuf> = vec![cwd.join("devices")];
        tried.extend(config_dir.map(|d| d.join("devices")));
        for dir in &tried {
            let path = dir.join(format!("{name}.toml"));
            if path.is_file() {
                return Profile::load(&path);
            }
        }
        Profile::built_in(name).ok_or_else(|| ProfileError {
            file: format!("{name}.toml"),
            line: None,
            message: format!(
                "no profile named {name:?} in {} or built in ({})",
                tried
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                BUILT_IN.map(|(n, _)| n).join(", ")
            ),
            hint: Some("run `scramblebot calibrate --name NAME` for a new phone".into()),
        })
    }
}
