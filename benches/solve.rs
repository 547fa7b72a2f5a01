//! Criterion benchmarks of the solver: each board set (uniform letters, New Boggle dice, near
//! the near-optimal `perslatgsineters`) in score-only and full mode, one thread, ENABLE; plus
//! the classic alternative structures on the dice set, and loading the built-in dictionary.
//! Throughput is in boards per second. `scramblebot bench` reports the same searches. And the
//! board reader on a 1080x2400 frame.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use scramblebot::sample::BoardSet;
use scramblebot::solve::Lexicon;
use scramblebot::structures::{PrefixSet, SortedWords};
use scramblebot::{Board, Bonuses, Rules, Solution, Solver, Trie};

const BOARDS: usize = 1000;

fn modes<L: Lexicon>(c: &mut Criterion, group_name: &str, lexicon: &L, sets: &[BoardSet]) {
    let rules = Rules::boggle();
    let none = Bonuses::none();
    let mut group = c.benchmark_group(group_name);
    group.throughput(Throughput::Elements(BOARDS as u64));
    for &set in sets {
        let boards: Vec<Board> = set.boards(BOARDS, set.default_seed());
        let mut solver = Solver::new(lexicon);
        group.bench_function(format!("{}/score-only", set.name()), |b| {
            b.iter(|| {
                boards
                    .iter()
                    .map(|bd| solver.tally(bd, &rules, &none).points)
                    .sum::<u32>()
            })
        });
        let mut out = Solution::new(boards[0]);
        group.bench_function(format!("{}/full", set.name()), |b| {
            b.iter(|| {
                boards
                    .iter()
                    .map(|bd| {
                        solver.solve_into(bd, &rules, &none, &mut out);
                        out.len()
                    })
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

fn solve(c: &mut Criterion) {
    let trie = Trie::enable();
    modes(c, "trie", &trie, &BoardSet::ALL);
    modes(c, "sorted", &SortedWords::new(&trie), &[BoardSet::Dice]);
    modes(c, "prefixes", &PrefixSet::new(&trie), &[BoardSet::Dice]);
    c.bench_function("load-enable", |b| b.iter(Trie::enable));
}

/// Reading a 1080x2400 frame of decoded pixels (the Pixel virtual phone's round): finding the
/// grid alone; the whole read, grid search included (the 25 ms target), with the tiles
/// read on every core (at most four) as `read` does, and on one thread; the read in a profile's
/// grid, as `play` does it.
fn vision(c: &mut Criterion) {
    use scramblebot::sim::{Model, Sim, SimConfig};
    use scramblebot::vision::{glyph::Classifier, grid::Grid, read};
    let sim = Sim::start(
        "127.0.0.1:0".parse().expect("an address"),
        SimConfig {
            model: Model::Pixel,
            ..SimConfig::default()
        },
    )
    .expect("the virtual phone starts");
    let frame = sim.device().screenshot();
    c.bench_function("vision/grid_1080x2400", |b| {
        b.iter(|| scramblebot::vision::grid::find(&frame).expect("a grid"))
    });
    let classifier = Classifier::built_in();
    let board = *sim.device().game().board();
    let check = |r: read::Reading| {
        assert_eq!(r.board(), board, "the frame is read right");
        r
    };
    c.bench_function("vision/read_1080x2400", |b| {
        b.iter(|| check(read::read(&frame, None, &classifier).expect("a board")))
    });
    c.bench_function("vision/read_1080x2400_one_thread", |b| {
        b.iter(|| check(read::read_on(&frame, None, &classifier, 1).expect("a board")))
    });
    let profile = scramblebot::profile::Profile::built_in("pixel").expect("shipped");
    let grid = Grid::from_centres(*profile.centres(), profile.tile());
    c.bench_function("vision/read_1080x2400_profile_grid", |b| {
        b.iter(|| check(read::read(&frame, Some(&grid), &classifier).expect("a board")))
    });
}

criterion_group!(benches, solve, vision);
criterion_main!(benches);
