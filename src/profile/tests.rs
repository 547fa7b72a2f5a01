//! The profile's tests: the shipped ones, refusals, the TOML form.

use super::*;

const GOOD: &str = r#"name = "test"
[screen]
width = 800
height = 1280
[grid]
origin = [100, 300]
pitch = 200
tile = 184
[buttons]
freeze = [200, 1200]
inspire = [400, 1200]
radius = 70
[input]
route = "monkey"
sample_ms = 20
[rules]
round_secs = 120
min_len = 2
freeze_every_secs = 30
"#;

#[test]
fn every_shipped_profile_loads_and_matches_its_file() {
    for (name, text) in BUILT_IN {
        let p = Profile::from_toml_str(text, name).unwrap();
        assert_eq!(p.name, name);
        let on_disk = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("devices")
            .join(format!("{name}.toml"));
        let mut loaded = Profile::load(&on_disk).unwrap();
        assert_eq!(loaded.source.as_deref(), Some(on_disk.as_path()));
        loaded.source = None;
        assert_eq!(loaded, p);
    }
    let n7 = Profile::built_in("nexus7").unwrap();
    assert_eq!((n7.width, n7.height), (800, 1280));
    assert_eq!(n7.centres[0], (100.0, 300.0));
    assert_eq!(n7.centres[15], (700.0, 900.0));
    assert_eq!(n7.freeze(), Some((200.0, 1200.0)));
    let others: Vec<Point> = n7.buttons[1..].iter().map(|b| b.1).collect();
    assert_eq!(others, [(400.0, 1200.0), (600.0, 1200.0)]);
}

#[test]
fn bad_profiles_are_refused_with_line_and_hint() {
    // (replace, with, line, message contains)
    let cases = [
        (
            "pitch = 200",
            "pitch = 0",
            Some(7),
            "pitch 0 must be positive",
        ),
        ("tile = 184", "tile = 250", Some(8), "overlap"),
        (
            "tile = 184",
            "tile = 184\nletters = \"white\"",
            Some(9),
            "neither \"dark\" nor \"light\"",
        ),
        (
            "origin = [100, 300]",
            "origin = [50, 300]",
            Some(6),
            "off the 800x1280 screen",
        ),
        (
            "route = \"monkey\"",
            "route = \"telepathy\"",
            Some(14),
            "unknown variant",
        ),
        (
            "sample_ms = 20",
            "sample_ms = 20\nspeed = 3",
            Some(16),
            "unknown field `speed`",
        ),
        ("width = 800", "width = 2000", Some(2), "landscape"),
        (
            "freeze = [200, 1200]",
            "freeze = [300, 500]",
            Some(10),
            "overlaps tile",
        ),
        ("min_len = 2", "min_len = 1", Some(18), "min_len 1"),
        ("pitch = 200\n", "", Some(5), "either origin and pitch"),
        (
            "pitch = 200",
            "pitch = 1e300",
            Some(7),
            "pitch 1e300 is out of range: pixels from 0 to 20000",
        ),
        (
            "tile = 184",
            "tile = -3",
            Some(8),
            "tile size -3 is out of range",
        ),
        (
            "radius = 70",
            "radius = 1e40",
            Some(12),
            "radius 1e40 is out of range",
        ),
        (
            "round_secs = 120",
            "round_secs = 0",
            Some(16),
            "round_secs 0 is out of range: seconds over 0 to 3600",
        ),
        (
            "freeze_every_secs = 30",
            "freeze_every_secs = 1e300",
            Some(16),
            "freeze_every_secs 1e300 is out of range",
        ),
        (
            "inspire = [400, 1200]",
            "inspire = [790, 1200]",
            Some(11),
            "button inspire at (790, 1200) with radius 70 is off the 800x1280 screen",
        ),
    ];
    for (from, to, line, message) in cases {
        let text = GOOD.replace(from, to);
        let e = Profile::from_toml_str(&text, "devices/test.toml").unwrap_err();
        assert_eq!(e.line, line, "{to}: {e}");
        assert!(e.message.contains(message), "{to}: {e}");
        assert!(e.to_string().starts_with("devices/test.toml:"), "{e}");
    }
}

#[test]
fn strings_are_written_as_toml_escapes_them() {
    // Found by fuzzing: `{:?}` wrote "\u{f1f1}", which TOML refuses.
    let text = GOOD.to_owned()
        + "[glyphs]\nfile = \"gl\\uf1f1yphs \\\"q\\\".png\"\nboard = \"RBEN/STLA/EOUO/NCAQu\"\n";
    let p = Profile::from_toml_str(&text, "t").unwrap();
    assert_eq!(p.glyphs().unwrap().file, "gl\u{f1f1}yphs \"q\".png");
    assert_eq!(Profile::from_toml_str(&p.to_toml("x"), "again").unwrap(), p);
    // And a name is a device name, or refused.
    let odd = GOOD.replace("name = \"test\"", "name = \"a b\"");
    let e = Profile::from_toml_str(&odd, "t").unwrap_err();
    assert!(e.message.contains("not a device name"), "{e}");
}

#[test]
fn centres_must_form_the_grid_row_by_row() {
    let grid = |centres: &[(f32, f32)]| {
        let list: Vec<String> = centres
            .iter()
            .map(|c| format!("[{}, {}]", c.0, c.1))
            .collect();
        GOOD.replace(
            "origin = [100, 300]\npitch = 200",
            &format!("centres = [{}]", list.join(", ")),
        )
    };
    let good: Vec<(f32, f32)> = (0..16)
        .map(|i| {
            (
                100.0 + 200.0 * (i % 4) as f32,
                300.0 + 200.0 * (i / 4) as f32,
            )
        })
        .collect();
    assert!(Profile::from_toml_str(&grid(&good), "t").is_ok());
    // A few pixels off, as a hand-measured grid is: accepted.
    let mut measured = good.clone();
    measured[5].0 += 6.0;
    measured[10].1 -= 5.0;
    assert!(Profile::from_toml_str(&grid(&measured), "t").is_ok());
    // (what is wrong, the centres, the message)
    let mut swapped = good.clone();
    swapped.swap(4, 5);
    let mut rows = good.clone();
    rows.swap(1, 5);
    let mut wide = good.clone();
    wide[3].0 += 120.0;
    let cases = [
        (
            swapped,
            "tile 5 (row 1, col 1) at (100, 500) is not right of tile 4 (row 1, col 0) at (300, 500)",
        ),
        (
            rows,
            "tile 5 (row 1, col 1) at (300, 300) is not below tile 1 (row 0, col 1) at (300, 500)",
        ),
        (
            wide,
            "tile 3 (row 0, col 3) at (820, 300) is 320 px from tile 2 (row 0, col 2) at (500, 300), where neighbours are 200 px apart",
        ),
    ];
    for (centres, want) in cases {
        let e = Profile::from_toml_str(&grid(&centres), "t").unwrap_err();
        assert!(e.message.contains(want), "{e}");
        assert!(e.hint.is_some(), "{e}");
    }
}

#[test]
fn a_screen_of_the_same_shape_scales_another_is_refused() {
    let p = Profile::from_toml_str(GOOD, "t").unwrap();
    let big = p.for_screen(1200, 1920).unwrap();
    assert_eq!(big.centres[0], (150.0, 450.0));
    assert_eq!(big.freeze(), Some((300.0, 1800.0)));
    assert_eq!(big.tile, 276.0);
    let e = p.for_screen(1080, 2400).unwrap_err();
    assert!(e.to_string().contains("calibrate"), "{e}");
}

#[test]
fn to_toml_reads_back_to_the_same_profile() {
    for (name, _) in BUILT_IN {
        let p = Profile::built_in(name).unwrap();
        let text = p.to_toml("written by a test\nsecond line");
        assert!(text.starts_with("# written by a test\n# second line\n"));
        assert_eq!(Profile::from_toml_str(&text, "x").unwrap(), p, "{text}");
    }
    let mut odd = Profile::built_in("pixel").unwrap();
    odd.centres[5].0 += 0.3;
    odd.tile = 221.7;
    odd.rules.freeze_uses = Some(2);
    odd.input.route = Route::Monkey;
    odd.glyphs = Some(Glyphs {
        file: "odd.glyphs.png".into(),
        tiles: crate::board::Board::parse("LQuRE/SLUS/ATIC/NREN")
            .unwrap()
            .tiles()
            .to_vec(),
    });
    odd.advance = Some((540.0, 1770.5));
    odd.clock = Some(Clock {
        area: ScreenBox {
            x0: 40.0,
            y0: 300.5,
            x1: 378.0,
            y1: 430.0,
        },
        digits: Some("odd \"digits\".png".into()),
    });
    let text = odd.to_toml("");
    assert_eq!(Profile::from_toml_str(&text, "x").unwrap(), odd, "{text}");
    // An advance button off the screen is refused with its line.
    let off = text.replace("at = [540, 1770.5]", "at = [540, 9999]");
    let e = Profile::from_toml_str(&off, "x").unwrap_err();
    assert!(e.message.contains("advance"), "{e}");
    assert_eq!(
        e.line,
        off.lines()
            .position(|l| l
                == "[advance]           # the results screen's Play/Next, tapped between rounds")
            .map(|i| i + 1),
        "{e}"
    );
}

#[test]
fn a_clock_is_a_box_on_the_screen_with_its_digits_beside_the_profile() {
    let clock = |rest: &str| format!("{GOOD}\n[clock]\n{rest}\n");
    let p = Profile::from_toml_str(&clock("box = [40, 90, 280, 170]"), "t").unwrap();
    let c = p.clock().unwrap();
    assert_eq!(
        (c.area.x0, c.area.y1, c.digits.as_deref()),
        (40.0, 170.0, None)
    );
    assert_eq!(
        p.for_screen(1200, 1920).unwrap().clock().unwrap().area.x1,
        420.0
    );
    // (the table's rest, message contains)
    let cases = [
        (
            "box = [280, 90, 40, 170]",
            "clock box [280, 90, 40, 170] is not a box",
        ),
        ("box = [40, 90, 280, 1700]", "on the 800x1280 screen"),
        (
            "box = [40, 90, 280, 170]\ndigits = \"../d.png\"",
            "not a file name beside",
        ),
        ("box = [40, 90, 280, 170]\nfont = 3", "unknown field `font`"),
    ];
    for (rest, message) in cases {
        let text = clock(rest);
        let e = Profile::from_toml_str(&text, "t").unwrap_err();
        assert!(e.message.contains(message), "{rest}: {e}");
        let line = text.lines().position(|l| l == "[clock]").unwrap() + 1;
        assert!(e.line.is_some_and(|l| l >= line), "{rest}: {e}");
    }
}

#[test]
fn the_fence_is_tiles_and_buttons() {
    let p = Profile::from_toml_str(GOOD, "t").unwrap();
    // (point, inside)
    let cases = [
        ((100.0, 300.0), true),
        ((190.0, 300.0), true),
        ((200.0, 300.0), true), // the gap between two tiles, which swipes cross
        ((100.0, 195.0), false), // above the grid
        ((200.0, 1200.0), true),
        ((600.0, 1200.0), false), // no such button in this profile
        ((10.0, 10.0), false),
    ];
    for (point, inside) in cases {
        assert_eq!(p.in_fence(point), inside, "{point:?}");
    }
}

#[test]
fn lookup_prefers_the_working_directory_then_the_config_dir_then_built_in() {
    let base = std::env::temp_dir().join(format!("scramblebot-profiles-{}", std::process::id()));
    let (cwd, config) = (base.join("cwd"), base.join("config"));
    for d in [&cwd, &config] {
        std::fs::create_dir_all(d.join("devices")).unwrap();
    }
    std::fs::write(
        cwd.join("devices/mine.toml"),
        GOOD.replace("\"test\"", "\"mine\""),
    )
    .unwrap();
    std::fs::write(config.join("devices/mine.toml"), "broken").unwrap();
    std::fs::write(config.join("devices/theirs.toml"), GOOD).unwrap();
    assert_eq!(
        Profile::find("mine", &cwd, Some(&config)).unwrap().name,
        "mine"
    );
    assert_eq!(
        Profile::find("theirs", &cwd, Some(&config)).unwrap().name,
        "test"
    );
    assert_eq!(
        Profile::find("nexus7", &cwd, Some(&config)).unwrap().name,
        "nexus7"
    );
    let e = Profile::find("nokia", &cwd, Some(&config)).unwrap_err();
    assert!(e.to_string().contains("calibrate"), "{e}");
    assert!(Profile::find("../etc/passwd", &cwd, None).is_err());
    let _ = std::fs::remove_dir_all(base);
}

/// `letters = "light"` says a game draws light letters on dark tiles: its grid is read on the
/// negative, and the profile writes it back; without it (or with "dark") letters are dark.
#[test]
fn a_profile_says_which_way_round_its_letters_are() {
    use crate::vision::grid::Polarity;
    let dark = Profile::from_toml_str(GOOD, "x").unwrap();
    assert_eq!(dark.grid().polarity, Polarity::Light);
    assert!(!dark.to_toml("").contains("letters"));
    let said = GOOD.replace("tile = 184", "tile = 184\nletters = \"dark\"");
    assert_eq!(Profile::from_toml_str(&said, "x").unwrap(), dark);
    let light = GOOD.replace("tile = 184", "tile = 184\nletters = \"light\"");
    let p = Profile::from_toml_str(&light, "x").unwrap();
    assert_eq!(p.grid().polarity, Polarity::Dark);
    assert_eq!(
        p.for_screen(1600, 2560).unwrap().grid().polarity,
        Polarity::Dark
    );
    assert_eq!(Profile::from_toml_str(&p.to_toml(""), "x").unwrap(), p);
}
