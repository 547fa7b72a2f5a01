//! Every integration test but the virtual phone under attack (`tests/slowloris.rs`, which
//! counts its process's threads and memory), in one binary: one link instead of ten, and one
//! pool of tests at once, so that the tests that wait for rounds on the wall clock and those
//! that keep the cores busy reading screens run beside each other instead of one binary after
//! the other. The busy ones run at the lowest priority (`common::in_the_background`), so a
//! round on the wall clock gets the cores when it needs them.

mod common;

mod cli;
mod daemon;
mod daemon_in_process;
mod fuzz_corpus;
mod oracle;
mod play_in_process;
mod properties;
mod sim_adb;
mod sim_game;

/// Named to sort first: libtest starts tests in the order of their names, and the reader's
/// are the long, busy ones (the gallery alone keeps two cores busy for about 45 s), best
/// started while the rest wait on the wall clock.
#[path = "vision.rs"]
mod a_vision;

/// Most tests wait on the wall clock: four times as many run at once as there are cores.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static AT_ONCE: extern "C" fn() = common::four_times_the_cores_at_once;
