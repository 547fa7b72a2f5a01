//! Tests of the screenshots a round keeps: named apart, pruned, and never half written.

use super::*;

#[test]
fn screenshots_kept_in_the_same_second_never_overwrite_each_other() {
    let dir = std::env::temp_dir()
        .join(format!("scramblebot-saved-{}", std::process::id()))
        .join("made");
    let _ = std::fs::remove_dir_all(&dir);
    let one = RgbaImage::from_pixel(3, 2, image::Rgba([200, 10, 10, 255]));
    let two = RgbaImage::from_pixel(3, 2, image::Rgba([10, 10, 200, 255]));
    // As fast as a daemon's two phones could: within one second, almost always.
    let saved: Vec<PathBuf> = [
        (&one, Kept::Unsure),
        (&two, Kept::Unsure),
        (&two, Kept::Unsure),
    ]
    .into_iter()
    .map(|(img, why)| save_screenshot(img, &dir, why, "127.0.0.1:5555").unwrap())
    .collect();
    let names: Vec<String> = saved
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_ne!(names[0], names[1]);
    assert_ne!(names[1], names[2]);
    assert_ne!(names[0], names[2]);
    for name in &names {
        assert!(
            name.starts_with("scramblebot-unsure-127.0.0.1_5555-") && name.ends_with(".png"),
            "{name}"
        );
    }
    // The first picture is still the first, whole.
    assert_eq!(image::open(&saved[0]).unwrap().to_rgba8(), one);
    assert_eq!(image::open(&saved[1]).unwrap().to_rgba8(), two);

    let still = save_screenshot(&one, &dir, Kept::ScoreStill, "emulator-5554").unwrap();
    let name = still.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("scramblebot-score-still-emulator-5554-"),
        "{name}"
    );
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}

#[test]
fn pruning_keeps_the_latest_screenshots_and_nothing_else_is_touched() {
    let dir = std::env::temp_dir().join(format!("scramblebot-pruned-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let start = std::time::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let names = [
        "scramblebot-unsure-a-1.png",
        "scramblebot-dimmed-b-2.png",
        "scramblebot-score-still-a-3.png",
        "scramblebot-unsure-b-4.png",
        "scramblebot-unsure-a-5.png",
        // Not the bot's screenshots: never removed, never counted.
        "holiday.png",
        "scramblebot-unsure-notes.txt",
        "scramblebot-history.png",
    ];
    // Written in an order other than the names': the oldest go first.
    for (i, name) in names.iter().enumerate() {
        let file = std::fs::File::create(dir.join(name)).unwrap();
        let age = [3, 0, 4, 1, 2, 0, 0, 0][i];
        file.set_modified(start + Duration::from_secs(age)).unwrap();
    }
    assert_eq!(prune_screenshots(&dir, 3).unwrap(), 2);
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "holiday.png",
            "scramblebot-history.png",
            "scramblebot-score-still-a-3.png",
            "scramblebot-unsure-a-1.png",
            "scramblebot-unsure-a-5.png",
            "scramblebot-unsure-notes.txt",
        ]
    );
    assert_eq!(prune_screenshots(&dir, 3).unwrap(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_screenshot_that_cannot_be_written_leaves_no_file_and_says_why() {
    let dir = std::env::temp_dir().join(format!("scramblebot-unsaved-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // A PNG cannot hold an image with no pixels: the encoder refuses it.
    let empty = RgbaImage::new(0, 0);
    assert!(save_screenshot(&empty, &dir, Kept::Dimmed, "x").is_err());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
