//! The board reader on screens it was not made for: real captures of three cousin games (from
//! ../shared/screens, skipped when absent) and the virtual phone's screens, all models.

use scramblebot::board::tile_name;
use scramblebot::score::Bonus;
use scramblebot::sim::{Model, Sim, SimConfig};
use scramblebot::testing::skip;
use scramblebot::vision::glyph::Classifier;
use scramblebot::vision::{self, corpus, grid, read};

/// Tile centres measured by eye on a downscaled view of the capture (good to a few pixels):
/// column x and row y, in the capture's pixels.
struct Capture {
    file: &'static str,
    xs: [f32; 4],
    ys: [f32; 4],
}

const CAPTURES: [Capture; 3] = [
    Capture {
        file: "ruzzle_dchen327_ruzzletest.png",
        xs: [143.0, 407.0, 671.0, 935.0],
        ys: [943.0, 1208.0, 1472.0, 1736.0],
    },
    Capture {
        file: "wordhunt_kgerner_sampleWordHuntBoard.jpeg",
        xs: [257.0, 461.0, 664.0, 868.0],
        ys: [905.0, 1109.0, 1313.0, 1516.0],
    },
    Capture {
        file: "wordwhizzle_jdalbey_4x4board.jpg",
        xs: [250.0, 442.0, 634.0, 828.0],
        ys: [597.0, 789.0, 982.0, 1174.0],
    },
];

/// The folder of real captures, or `None` (with a note) when it is absent.
fn captures() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/screens");
    if !dir.is_dir() {
        eprintln!(
            "note: {} is absent; skipping the real captures",
            dir.display()
        );
        return None;
    }
    Some(dir)
}

fn assert_grid(what: &str, found: &grid::Grid, xs: [f32; 4], ys: [f32; 4]) {
    let pitch = (xs[3] - xs[0]) / 3.0;
    for (r, want_y) in ys.iter().enumerate() {
        for (c, want_x) in xs.iter().enumerate() {
            let (x, y) = found.centres[r * 4 + c];
            let off = ((x - want_x).powi(2) + (y - want_y).powi(2)).sqrt();
            assert!(
                off < pitch * 0.12,
                "{what}: tile {r},{c} at ({x:.0},{y:.0}), expected ({want_x},{want_y}): {found:?}"
            );
        }
    }
    assert!(
        (found.pitch.0 / pitch - 1.0).abs() < 0.05,
        "{what}: {found:?}"
    );
}

#[test]
fn the_grid_is_found_on_real_captures_of_other_games() {
    let Some(dir) = captures() else {
        return;
    };
    for cap in &CAPTURES {
        let bytes = std::fs::read(dir.join(cap.file)).unwrap();
        let img = vision::decode(&bytes).unwrap();
        let found = grid::find(&img).unwrap_or_else(|| panic!("{}: no grid", cap.file));
        eprintln!(
            "{}: {} of 16 tiles seen, pitch {:.1}",
            cap.file, found.seen, found.pitch.0
        );
        assert_grid(cap.file, &found, cap.xs, cap.ys);
    }
}

#[test]
fn the_grid_is_found_on_every_virtual_phone() {
    for model in [Model::Nexus7, Model::Pixel, Model::Small] {
        let sim = Sim::start(
            "127.0.0.1:0".parse().unwrap(),
            SimConfig {
                model,
                ..SimConfig::default()
            },
        )
        .unwrap();
        let layout = sim.device().game().layout().clone();
        let img = sim.device().screenshot();
        let found = grid::find(&img).unwrap_or_else(|| panic!("{}: no grid", model.name()));
        let xs = [0, 1, 2, 3].map(|c| layout.centre(c).0);
        let ys = [0, 1, 2, 3].map(|r| layout.centre(r * 4).1);
        assert_grid(model.name(), &found, xs, ys);
        assert_eq!(found.seen, 16, "{}", model.name());
    }
}

#[test]
fn screens_without_a_board_have_no_grid() {
    // A blank screen, noise-free gradients, and the virtual phone's lobby.
    let blank = image::RgbaImage::from_pixel(1080, 2400, image::Rgba([250, 250, 250, 255]));
    assert_eq!(grid::find(&blank), None);
    let gradient = image::RgbaImage::from_fn(720, 1280, |x, y| {
        image::Rgba([(x % 256) as u8, (y % 256) as u8, 128, 255])
    });
    assert_eq!(grid::find(&gradient), None);
    let sim = Sim::start(
        "127.0.0.1:0".parse().unwrap(),
        SimConfig {
            game: scramblebot::sim::game::GameConfig {
                lobby: true,
                ..Default::default()
            },
            ..SimConfig::default()
        },
    )
    .unwrap();
    assert_eq!(grid::find(&sim.device().screenshot()), None);
}

/// The boards of the captures, rows top first (../shared/screens/README.md).
const CAPTURE_BOARDS: [&str; 3] = [
    "OSES/SHEM/AYAR/TNNS",
    "AYTS/SDHC/OOEA/EYLG",
    "HOTG/NUSG/ADKX/JULY",
];

#[test]
fn the_letters_are_read_on_real_captures_of_other_games() {
    let Some(dir) = captures() else {
        return;
    };
    let classifier = Classifier::built_in();
    for (cap, want) in CAPTURES.iter().zip(CAPTURE_BOARDS) {
        let img = vision::decode(&std::fs::read(dir.join(cap.file)).unwrap()).unwrap();
        let reading = read::read(&img, None, &classifier).unwrap();
        let seen: Vec<String> = reading
            .tiles
            .iter()
            .map(|t| format!("{}{:.2}{:?}", tile_name(t.tile), t.confidence, t.bonus))
            .collect();
        eprintln!("{}: {}", cap.file, seen.join(" "));
        assert_eq!(reading.board().to_string(), want, "{}", cap.file);
        // Ruzzle's badges (../shared/screens/README.md): every one read is right, and all
        // but its dark-blue TL at (0,1) on a blue-grey tile are read.
        let badges: Vec<Option<Bonus>> = reading.tiles.iter().map(|t| t.bonus).collect();
        if cap.file.starts_with("ruzzle") {
            use Bonus::*;
            #[rustfmt::skip]
            let truth = [
                Some(DW), Some(TL), Some(TW), None,
                None, None, None, Some(DL),
                Some(DW), None, None, Some(TW),
                Some(TL), None, None, None,
            ];
            for (i, (read, real)) in badges.iter().zip(truth).enumerate() {
                assert!(
                    read.is_none() || *read == real,
                    "tile {i}: {read:?}, not {real:?}"
                );
            }
            let right = badges
                .iter()
                .zip(truth)
                .filter(|(r, t)| r.is_some() && **r == *t);
            assert!(right.count() >= 6, "{badges:?}");
        } else {
            assert!(
                badges.iter().all(Option::is_none),
                "{}: {badges:?}",
                cap.file
            );
        }
    }
}

#[test]
fn every_virtual_phone_board_is_read_exactly_and_surely() {
    for model in [Model::Nexus7, Model::Pixel, Model::Small] {
        for seed in [1, 2, 3] {
            let sim = Sim::start(
                "127.0.0.1:0".parse().unwrap(),
                SimConfig {
                    model,
                    game: scramblebot::sim::game::GameConfig {
                        seed,
                        ..Default::default()
                    },
                    ..SimConfig::default()
                },
            )
            .unwrap();
            let img = sim.device().screenshot();
            let want = sim.device().game().board().to_string();
            let reading = read::read(&img, None, &Classifier::built_in()).unwrap();
            assert_eq!(
                reading.board().to_string(),
                want,
                "{} seed {seed}",
                model.name()
            );
            assert!(reading.sure(), "{} seed {seed}: {reading:?}", model.name());
        }
    }
}

#[test]
fn the_reader_on_typefaces_it_has_no_references_for() {
    crate::common::in_the_background();
    let dir = std::path::Path::new("/usr/share/fonts");
    let faces = corpus::load_faces(dir);
    if faces.len() < 8 {
        skip("the corpus typefaces", corpus::FONT_PACKAGES);
        return;
    }
    let r = corpus::measure(
        corpus::Corpus::Classic,
        &faces,
        7,
        48,
        &Classifier::built_in(),
        |_| {},
    );
    for m in &r.misreads {
        eprintln!("{m}");
    }
    eprintln!(
        "tiles {:.4} boards {:.4} sure-wrong {} refused {}/{} bonuses {}/{} phantom {}",
        r.tile_accuracy(),
        r.board_accuracy(),
        r.boards_wrong_sure,
        r.non_boards_refused,
        r.non_boards,
        r.bonuses_right,
        r.bonuses,
        r.bonuses_phantom
    );
    assert_eq!(
        r.non_boards_refused, r.non_boards,
        "a screen without a board was read"
    );
    assert_eq!(r.boards_wrong_sure, 0, "a wrong board was read as sure");
    // A live board held as dimmed would never be played: the bot waits for an overlay.
    assert_eq!(
        r.live_held, 0,
        "a live board was read as dimmed (never played)"
    );
    // A badge read where there is none would add a bonus the game does not give.
    assert_eq!(r.bonuses_phantom, 0, "a badge was read where there is none");
    // Refusing a board is safe (play asks for the letters); these floors are under what the
    // reader holds today on this corpus (seed 7: every tile and board, 23 of 30 badges), a
    // guard against regressions; the targets are measured on the 400-screen corpus by
    // `scramblebot bench vision` (see docs/vision.md).
    assert!(r.tile_accuracy() >= 0.98, "{:.4}", r.tile_accuracy());
    assert!(r.board_accuracy() >= 0.88, "{:.4}", r.board_accuracy());
    assert!(
        r.bonuses_right * 10 >= r.bonuses * 7,
        "badges {}/{}",
        r.bonuses_right,
        r.bonuses
    );
}

#[test]
fn the_reader_on_the_held_back_family() {
    crate::common::in_the_background();
    let dir = std::path::Path::new("/usr/share/fonts");
    let which = corpus::Corpus::HeldBack;
    let faces = corpus::load_named(dir, which.face_names());
    if faces.len() < 8 {
        skip("the held-back typefaces", corpus::FONT_PACKAGES);
        return;
    }
    let r = corpus::measure(which, &faces, 7, 48, &Classifier::built_in(), |_| {});
    for m in &r.misreads {
        eprintln!("{m}");
    }
    assert_eq!(r.non_boards_refused, r.non_boards, "a non-board was read");
    assert_eq!(r.boards_wrong_sure, 0, "a wrong board was read as sure");
    assert_eq!(r.dimmed_held, r.dimmed, "a dimmed board was read as live");
    assert_eq!(
        r.live_held, 0,
        "a live board was read as dimmed (never played)"
    );
    assert_eq!(r.bonuses_phantom, 0, "a badge was read where there is none");
    // Floors under what it reads today (seed 7: 621/624 tiles, 38/39 boards, 34 of them
    // sure), against regressions; the figures are `scramblebot bench vision` on 400 screens
    // (docs/vision.md).
    assert!(r.tile_accuracy() >= 0.98, "{:.4}", r.tile_accuracy());
    assert!(r.board_accuracy() >= 0.9, "{:.4}", r.board_accuracy());
    assert!(
        r.boards_exact_sure * 100 >= r.boards * 85,
        "{} of {} boards exactly and surely",
        r.boards_exact_sure,
        r.boards
    );
}

/// Boards 1 to `boards` of a game the virtual phone draws in `font`, the grid of its profile,
/// and the classifier that profile gives once board 1 is confirmed (learned, as `read
/// --learn` does).
fn learned_face(
    font: &std::path::Path,
    boards: u64,
) -> (
    Vec<(scramblebot::board::Board, image::RgbaImage)>,
    grid::Grid,
    Classifier,
) {
    use scramblebot::board::Board;
    use scramblebot::profile::Profile;
    use scramblebot::sim::Device;
    use scramblebot::sim::game::GameConfig;
    use scramblebot::sim::screen::Face;
    let face = Face::load(font).unwrap();
    let screens: Vec<(Board, image::RgbaImage)> = (1..=boards)
        .map(|seed| {
            let phone = Device::new(SimConfig {
                model: Model::Pixel,
                game: GameConfig {
                    seed,
                    ..GameConfig::default()
                },
                report: None,
                letters: Some(face.clone()),
            });
            let img = (*phone.screenshot()).clone();
            (Board::parse(&phone.report().board).unwrap(), img)
        })
        .collect();
    let name = font.file_stem().unwrap().to_string_lossy();
    let dir = std::env::temp_dir().join(format!("scramblebot-learn-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("face.toml");
    let devices = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("devices");
    std::fs::copy(devices.join("pixel.toml"), &path).unwrap();
    let profile = Profile::load(&path).unwrap();
    let grid = grid::Grid::from_centres(*profile.centres(), profile.tile());
    let (first, img) = &screens[0];
    scramblebot::calibrate::learn::learn(&profile, img, first, false).unwrap();
    let taught = scramblebot::play::classifier_for(Some(&Profile::load(&path).unwrap())).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (screens, grid, taught)
}

/// Learning a board's glyphs (what a person's confirmation does) must not mislead: in faces
/// where two letters look alike (G and C in Jura and Dosis), a learned C claimed every G,
/// surely, until a template had to be near to be trusted against the references.
#[test]
fn one_confirmed_board_teaches_a_game_face_and_misleads_nothing() {
    crate::common::in_the_background();
    let fonts = std::path::Path::new("/usr/share/fonts");
    let faces: Vec<_> = corpus::wide::HELD_BACK_FACES
        .iter()
        .filter_map(|stem| corpus::font_file(fonts, stem))
        .collect();
    if faces.len() < 8 {
        skip("the held-back typefaces", corpus::FONT_PACKAGES);
        return;
    }
    let (mut sure_before, mut sure_after) = (0, 0);
    for font in &faces {
        let (screens, grid, taught) = learned_face(font, 6);
        for (board, img) in &screens[1..] {
            let before = read::read(img, Some(&grid), &Classifier::built_in()).unwrap();
            let after = read::read(img, Some(&grid), &taught).unwrap();
            let name = font.file_stem().unwrap().to_string_lossy();
            for r in [&before, &after] {
                assert!(
                    !r.sure() || r.board() == *board,
                    "{name}: {board} read as {}, surely",
                    r.board()
                );
            }
            assert!(
                !before.sure() || after.sure(),
                "{name}: {board} was sure before learning, not after"
            );
            sure_before += before.sure() as usize;
            sure_after += after.sure() as usize;
        }
    }
    eprintln!(
        "{} faces, boards read surely before learning: {sure_before}, after: {sure_after}",
        faces.len()
    );
}

/// A face drawn narrower than the references (a monospaced one, its W squeezed into the
/// width of an I) is read, once one board is confirmed, with the glyphs taken as that much
/// narrower too: the letters that board did not show are compared as drawn and as widened,
/// each letter by its nearer. Before, B612 Mono's W was read as V and its N as X, unsure, on
/// 5 of boards 2-12 (`examples/learn_faces.rs`).
#[test]
fn a_condensed_face_is_read_at_its_own_width_after_one_board() {
    let Some(font) = installed_face("B612Mono-Bold", "fonts-b612") else {
        return;
    };
    let (screens, grid, taught) = learned_face(&font, 12);
    read_surely_and_right(&screens[1..], &grid, &taught);
}

/// An installed face by file stem, or `None`, said, when it is not installed.
fn installed_face(stem: &str, package: &str) -> Option<std::path::PathBuf> {
    let found = corpus::font_file(std::path::Path::new("/usr/share/fonts"), stem);
    if found.is_none() {
        skip(&format!("the typeface {stem}"), package);
    }
    found
}

/// A serif game face is far from every sans reference, so its letters not on the confirmed
/// board stayed unsure (Tinos Bold: 7 of 11 boards sure); once its templates show serifs,
/// the serif references join in.
#[test]
fn a_serif_face_is_read_surely_after_one_board() {
    let Some(font) = installed_face("Tinos-Bold", "fonts-croscore") else {
        return;
    };
    let (screens, grid, taught) = learned_face(&font, 12);
    read_surely_and_right(&screens[1..], &grid, &taught);
}

/// A letter the confirmed board did not show may lie far from every reference and still be
/// the face's own (the J of the M+ faces, 0.95 from every reference J): in a face the
/// templates show upright, it is trusted farther out.
#[test]
fn a_learned_upright_face_is_trusted_for_letters_far_from_every_reference() {
    let Some(font) = installed_face("MplusCode60-Medium", "fonts-mplus") else {
        return;
    };
    let (screens, grid, taught) = learned_face(&font, 12);
    read_surely_and_right(&screens[1..], &grid, &taught);
}

/// Slanted letters are read wrong (an italic I as J) where an upright face's are trusted:
/// with the serif references (DejaVu Serif Bold Italic: 10 of 11 boards wrong yet sure) or
/// trusted farther from the references (Lato Bold Italic: 10 of 11). A face whose templates
/// lean gets neither.
#[test]
fn a_leaning_face_learned_is_never_read_wrong_and_sure() {
    for (stem, package) in [
        ("P052-BoldItalic", "fonts-urw-base35"),
        ("C059-BdIta", "fonts-urw-base35"),
        ("Lato-BoldItalic", "fonts-lato"),
    ] {
        let Some(font) = installed_face(stem, package) else {
            continue;
        };
        let (screens, grid, taught) = learned_face(&font, 12);
        for (board, img) in &screens[1..] {
            let r = read::read(img, Some(&grid), &taught).unwrap();
            assert!(
                !r.sure() || r.board() == *board,
                "{stem}: {board} read as {}, surely",
                r.board()
            );
        }
    }
}

/// Asserts that every board of `screens` is read exactly and surely in `grid`.
fn read_surely_and_right(
    screens: &[(scramblebot::board::Board, image::RgbaImage)],
    grid: &grid::Grid,
    classifier: &Classifier,
) {
    for (board, img) in screens {
        let r = read::read(img, Some(grid), classifier).unwrap();
        assert!(
            r.sure() && r.board() == *board,
            "{board} read as {} (sure: {})",
            r.board(),
            r.sure()
        );
    }
}

/// Every held-back typeface (a corpus sample depends on the whole list), or `None`, said,
/// when some is not installed.
fn all_held_back_faces() -> Option<Vec<corpus::Face>> {
    all_faces(corpus::Corpus::HeldBack)
}

/// Every typeface of `which` (a sample depends on the whole list), or `None`, said, when
/// some is not installed.
fn all_faces(which: corpus::Corpus) -> Option<Vec<corpus::Face>> {
    let names = which.face_names();
    let faces = corpus::load_named(std::path::Path::new("/usr/share/fonts"), names);
    if faces.len() < names.len() {
        skip(&format!("the {} typefaces", which.name()), which.packages());
        return None;
    }
    Some(faces)
}

/// Tiles whose face lightens towards its middle (a radial sheen), with no path line over
/// them: the light middle is no line over the glyph, since it reaches no edge of the tile
/// (a path's line runs from tile to tile). Before, it was taken for one, the whole glyph
/// counted as hidden, and these two boards of held-back seed 2 were read right but unsure (an
/// X at 14%; a W and a Qu at 14-15%, each the other's runner-up).
#[test]
fn a_light_middle_of_a_tile_is_no_line_over_its_glyph() {
    use corpus::Corpus;
    let Some(faces) = all_held_back_faces() else {
        return;
    };
    for index in [49, 264] {
        let sample = Corpus::HeldBack.sample(&faces, 2, index);
        let (tiles, _) = sample.board.expect("a board");
        let r = read::read(&sample.image, None, &Classifier::built_in()).unwrap();
        let read: Vec<u8> = r.tiles.iter().map(|t| t.tile).collect();
        assert_eq!(read, tiles.to_vec(), "{}", sample.description);
        let unsure: Vec<String> = r
            .tiles
            .iter()
            .filter(|t| !t.sure())
            .map(|t| format!("{} at {:.2}", tile_name(t.tile), t.confidence))
            .collect();
        assert!(unsure.is_empty(), "{}: {unsure:?}", sample.description);
    }
}

/// A board of the second generator (seed 4, sample 95) in Bebas Neue, whose O is a stadium
/// like its D, with two Qu drawn as a lone Q. Once the Q's tail made its Qu sure, the O was
/// read as D at 50%, surely: alone a coin toss between D and O, the board's own D (a like
/// glyph, not the same one) decided it. A like template of a letter whose runner-up has none
/// now adds nothing to the references' confidence.
#[test]
fn a_round_letter_beside_a_like_letter_of_its_face_is_not_read_wrong_and_sure() {
    let Some((sample, tiles, r)) = second_read(4, 95) else {
        return;
    };
    not_wrong_and_sure(&sample, &tiles, &r);
    // The two lone Qs are read surely: the board's one doubt is the O.
    let unsure: Vec<usize> = (0..16).filter(|&i| !r.tiles[i].sure()).collect();
    assert_eq!(unsure, [14], "{}: {}", sample.description, r.board());
}

/// A tinted bonus tile, its letter the other way round from the board's and its face shaded
/// so that the darker part of it passed for ink in the wider crop: that "glyph", far taller
/// than the board's letters, was read as D at 50%, surely, where the tile shows a W (second
/// seed 13, sample 212). Such a glyph is no letter of the board, and the tile is read the
/// other way round.
#[test]
fn a_tinted_tile_taken_whole_for_a_glyph_is_not_read_wrong_and_sure() {
    let Some((sample, tiles, r)) = second_read(13, 212) else {
        return;
    };
    assert_eq!(tile_name(tiles[15]), "W", "{}", sample.description);
    not_wrong_and_sure(&sample, &tiles, &r);
    assert!(
        !(r.tiles[15].tile == b'D' - b'A' && r.tiles[15].sure()),
        "{}: {:?}",
        sample.description,
        r.tiles[15]
    );
}

/// A pointing hand whose light round end touches a light W on a dark tile: one region with
/// the W, reaching the crop's edge, and neither the glyph's colour at the usual margin nor a
/// wider crop parted them (no glyph: read as A at 0%). Parted by a colour nearer the W's,
/// tried last, it is a W (second seed 11, samples 78 and 282).
#[test]
fn a_letter_a_hand_touches_is_parted_from_it_by_its_colour() {
    for (index, at) in [(78, 12), (282, 10)] {
        let Some((sample, tiles, r)) = second_read(11, index) else {
            return;
        };
        assert!(
            sample.description.contains("hand"),
            "{}",
            sample.description
        );
        assert_eq!(tile_name(tiles[at]), "W", "{}", sample.description);
        assert_eq!(
            tile_name(r.tiles[at].tile),
            "W",
            "{}: {:?}",
            sample.description,
            r.tiles[at]
        );
    }
}

/// A Bebas Neue lone Q, whose tail barely leaves the bowl, was a coin toss with O and fell
/// to O (second seed 11, sample 91: two of them at 0%). Its tail is a Q's mark: between a
/// round letter and Qu, the marks break the tie for Qu, and leave it unsure.
#[test]
fn a_coin_toss_between_o_and_a_marked_q_falls_to_qu_unsure() {
    let Some((sample, tiles, r)) = second_read(11, 91) else {
        return;
    };
    for at in [1, 5] {
        assert_eq!(tile_name(tiles[at]), "Qu", "{}", sample.description);
        let t = r.tiles[at];
        assert_eq!(tile_name(t.tile), "Qu", "{}: {t:?}", sample.description);
        assert!(!t.sure(), "{}: {t:?}", sample.description);
    }
}

/// The second generator's screen `index` of `seed`, its board, and how the reader reads it;
/// `None` (with a line saying so) when its typefaces are not installed.
fn second_read(seed: u64, index: u64) -> Option<(corpus::Sample, [u8; 16], read::Reading)> {
    let faces = all_faces(corpus::Corpus::Second)?;
    let sample = corpus::Corpus::Second.sample(&faces, seed, index);
    let (tiles, _) = sample.board.expect("a board");
    let r = read::read(&sample.image, None, &Classifier::built_in()).expect("a board read");
    Some((sample, tiles, r))
}

/// Fails when `r`, the reading of `sample` (whose board is `tiles`), is wrong yet sure.
fn not_wrong_and_sure(sample: &corpus::Sample, tiles: &[u8; 16], r: &read::Reading) {
    let read: Vec<u8> = r.tiles.iter().map(|t| t.tile).collect();
    assert!(
        read == tiles.to_vec() || !r.sure(),
        "{}: read as {}, surely",
        sample.description,
        r.board()
    );
}

/// A board on tiles 38 pixels wide (a 321x241 crop of held-back seed 5), in Jura, whose D
/// and O are both rounded rectangles: a D was read as O at 21%, surely. On tiles this small
/// a verdict is trusted less (`SMALL_TILE`), and the board is left unsure.
#[test]
fn a_board_on_tiny_tiles_is_not_read_wrong_and_sure() {
    use corpus::Corpus;
    let Some(faces) = all_held_back_faces() else {
        return;
    };
    let sample = Corpus::HeldBack.sample(&faces, 5, 33);
    let (tiles, _) = sample.board.expect("a board");
    let r = read::read(&sample.image, None, &Classifier::built_in()).unwrap();
    assert!(
        r.grid.tile < 40.0,
        "{}: tile {}",
        sample.description,
        r.grid.tile
    );
    not_wrong_and_sure(&sample, &tiles, &r);
}

#[test]
fn a_thin_i_on_a_shaded_face_is_not_read_as_j() {
    // On small screens an I is two or three cells wide, and a face shaded from top to
    // bottom (a gradient) or lighter on its top half (a sheen) made its rim ink at its foot
    // only, when ink was judged against the whole tile's face: a J's hook, read surely (held-
    // back seed 4, sample 33, at 69%; developed seed 1, sample 238, at 89%). Judged against
    // the face beside it, the I is an I.
    for (which, seed, index, at) in [
        (corpus::Corpus::HeldBack, 4, 33, 5),
        (corpus::Corpus::Developed, 1, 238, 15),
    ] {
        // A sample depends on the whole list of its family's faces: with one missing, it is
        // another screen.
        let dir = std::path::Path::new("/usr/share/fonts");
        let names = which.face_names();
        let faces = corpus::load_named(dir, names);
        if faces.len() < names.len() {
            skip(&format!("the {which:?} typefaces"), corpus::FONT_PACKAGES);
            continue;
        }
        let s = which.sample(&faces, seed, index);
        assert!(
            s.description
                .contains(if seed == 4 { "Jura" } else { "OpenSans" }),
            "not the screen meant: {}",
            s.description
        );
        let (tiles, _) = s.board.expect("a board");
        assert_eq!(tile_name(tiles[at]), "I", "{}", s.description);
        let reading = read::read(&s.image, None, &Classifier::built_in()).expect("a board");
        let t = reading.tiles[at];
        assert_eq!(
            tile_name(t.tile),
            "I",
            "{}: read at {}",
            s.description,
            t.confidence
        );
    }
}

/// The round's clock and score as the virtual phone draws them in a game face the reader has
/// no references for: twenty seconds of the clock, looked at four times a second, teach its
/// ten digits, and the score and clock are then read with them, on every model.
#[test]
fn the_clocks_digits_are_learned_and_the_score_read_with_them() {
    crate::common::in_the_background();
    use scramblebot::sim::game::View;
    use scramblebot::sim::layout::{Layout, Rect};
    use scramblebot::sim::screen::{Face, render};
    use scramblebot::vision::digits::{Area, Countdown, ReadNumber, cut};
    let Some(font) = installed_face("Comfortaa-Bold", "fonts-comfortaa") else {
        return;
    };
    let face = Face::load(&font).unwrap();
    let area = |r: Rect| Area {
        x0: r.x0.max(0.0) as u32,
        y0: r.y0.max(0.0) as u32,
        x1: r.x1 as u32,
        y1: r.y1 as u32,
    };
    let view = View::round_at;
    for model in Model::ALL {
        let layout = Layout::of(model);
        let (clock, score) = (area(layout.clock()), area(layout.score()));
        let mut countdown = Countdown::default();
        for k in 0..80u32 {
            let t = f64::from(k) * 0.25;
            let img = render(&layout, &view(117 - t as u64, 0), Some(&face));
            countdown.see(t, &cut(&img, clock));
        }
        let book = countdown
            .book()
            .unwrap_or_else(|| panic!("{}: {countdown:?}", model.name()));
        for (secs, points) in [(95, 0), (61, 1821), (20, 5532), (7, 30_497)] {
            let img = render(&layout, &view(secs, points), Some(&face));
            let sure = |value| Some(ReadNumber { value, sure: true });
            assert_eq!(
                book.number(&cut(&img, score)),
                sure(points),
                "{}",
                model.name()
            );
            assert_eq!(
                book.clock(&cut(&img, clock)),
                sure(secs as u32),
                "{}",
                model.name()
            );
        }
    }
}

/// The regression gallery (`tests/gallery.txt`, `vision::corpus::gallery`): every corpus
/// screen ever read exactly and surely is drawn again and must still be, board and sureness.
/// A screen lost fails the test, named with what it was read as. Drawing and reading all
/// 2,145 takes minutes on two cores (1,932 took 140 s), so a plain `cargo test` reads every
/// fourth, spread over every corpus and seed; `SCRAMBLEBOT_GALLERY=all` reads them all, as a
/// change to the reader should before it lands.
#[test]
fn every_screen_of_the_gallery_is_still_read_exactly_and_surely() {
    crate::common::in_the_background();
    use corpus::gallery;
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/gallery.txt"))
        .expect("tests/gallery.txt");
    let all = std::env::var("SCRAMBLEBOT_GALLERY").is_ok_and(|v| v == "all");
    let entries: Vec<gallery::Entry> = gallery::parse(&text)
        .expect("a well-formed gallery")
        .into_iter()
        .enumerate()
        .filter(|(i, _)| all || i % 4 == 0)
        .map(|(_, e)| e)
        .collect();
    let dir = std::path::Path::new("/usr/share/fonts");
    let mut faces = std::collections::BTreeMap::new();
    for e in &entries {
        faces
            .entry(e.corpus)
            .or_insert_with(|| corpus::load_named(dir, e.corpus.face_names()));
    }
    // A corpus drawn without all its typefaces would draw other screens than those kept.
    for (c, loaded) in &faces {
        if loaded.len() < c.face_names().len() {
            skip(
                &format!("the {} corpus's typefaces", c.name()),
                c.packages(),
            );
            return;
        }
    }
    let classifier = Classifier::built_in();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let lost = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(e) = entries.get(i) else { break };
                    let s = e.corpus.sample(&faces[&e.corpus], e.seed, e.index);
                    let (tiles, _) = s.board.expect("a gallery screen shows a board");
                    let why = match read::read(&s.image, None, &classifier) {
                        Ok(r) if r.tiles.iter().zip(tiles).all(|(t, w)| t.tile == w) => {
                            (!r.playable()).then(|| format!("read exactly, not surely: {r:?}"))
                        }
                        Ok(r) => Some(format!("read as {}", r.board())),
                        Err(err) => Some(format!("refused: {err}")),
                    };
                    if let Some(why) = why {
                        lost.lock()
                            .unwrap()
                            .push(format!("{}: {why}", e.line(&s.description)));
                    }
                }
            });
        }
    });
    let lost = lost.into_inner().unwrap();
    assert!(
        lost.is_empty(),
        "{} of {} gallery screens lost:\n{}",
        lost.len(),
        entries.len(),
        lost.join("\n")
    );
    eprintln!("{} gallery screens read exactly and surely", entries.len());
}

/// A board of dark tiles is read on the negative of the rows around its grid alone: reading
/// it so gives what reading it on the whole screen's negative does, on the ten dark boards
/// among the second generator's first 30 screens of seed 5, which are drawn up to the
/// screen's edges and under every decoration.
#[test]
fn a_dark_board_read_on_its_rows_alone_reads_as_on_the_whole_negative() {
    let dir = std::path::Path::new("/usr/share/fonts");
    let which = corpus::Corpus::Second;
    let faces = corpus::load_named(dir, which.face_names());
    if faces.len() < which.face_names().len() {
        skip("the second generator's typefaces", which.packages());
        return;
    }
    let classifier = Classifier::built_in();
    for index in [5, 6, 10, 13, 16, 24, 26, 27, 28, 29] {
        let s = which.sample(&faces, 5, index);
        let Some(g) = grid::find_either(&s.image).filter(|g| g.polarity == grid::Polarity::Dark)
        else {
            panic!("sample {index} is no longer a board of dark tiles");
        };
        // The whole negative read as it is (light tiles with dark letters), said of the grid
        // as found.
        let as_light = g.clone().with_polarity(grid::Polarity::Light);
        let whole =
            read::read_on(&read::negative(&s.image), Some(&as_light), &classifier, 1).map(|r| {
                read::Reading {
                    grid: g.clone(),
                    ..r
                }
            });
        assert_eq!(
            read::read_on(&s.image, None, &classifier, 1),
            whole,
            "sample {index}"
        );
    }
}
