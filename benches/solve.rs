//! Criterion benchmarks of the solver: each board set (uniform letters, New Boggle dice, near
//! the near-optimal `perslatgsineters`) in score-only and full mode, one thread, ENABLE; plus
//! the classic alternative structures on the dice set, and loading the built-in dictionary.
//! Throughput is in boards per second. `scramblebot bench` reports the same searches.

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

/// Finding the grid on a 1080x2400 frame of decoded pixels (the Pixel virtual phone's round).
fn find_grid(c: &mut Criterion) {
    use scramblebot::sim::{Model, Sim, SimConfig};
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
}

criterion_group!(benches, solve, find_grid);
criterion_main!(benches);
