//! Every generator the mint benchmark times, ours, the mutex baselines and the peers, minted
//! from the same helpers the bench uses, must give unique IDs in the layout it was set to.

#[path = "../benches/common/mod.rs"]
mod common;

use std::time::{SystemTime, UNIX_EPOCH};

use common::{assert_unique, mint_each, mint_shared, visit_cases, Mint, Run, Shape, Visit};
use snowmint::{Id, Layout};

/// IDs per case: 200,000 take 50 ms at Twitter's cap of 4,096 per ms.
const TOTAL: u64 = 200_000;
/// How far an ID's time may be from the wall clock around the run. A wrong epoch or field
/// width puts it years or at least seconds off; clocks here agree within a few ms.
const SLACK_MS: u64 = 250;

fn unix_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64
}

/// Checks what the bench relies on: as many IDs as asked, none twice, each thread's in
/// increasing order, and every ID decoding (in the shape's layout) to the expected node and
/// to a time within the run.
fn check(case: &str, run: &Run, layout: Layout, nodes: &[u64], from_ms: u64, to_ms: u64) {
    assert_unique(run, TOTAL, case);
    assert_eq!(run.ids.len(), nodes.len(), "{case}: one list per thread");
    for (thread, (ids, &node)) in run.ids.iter().zip(nodes).enumerate() {
        assert!(!ids.is_empty(), "{case}: thread {thread} minted nothing");
        if let Some(w) = ids.windows(2).find(|w| w[0] >= w[1]) {
            panic!("{case}: thread {thread} minted {} after {}", w[1], w[0]);
        }
        for &id in ids {
            let d = layout.decode(Id::from_u64(id));
            assert_eq!(d.node(), node, "{case}: ID {id:#x} has the wrong node");
            let ms = d.unix_millis();
            assert!(
                ms + SLACK_MS >= from_ms && ms <= to_ms + SLACK_MS,
                "{case}: ID {id:#x} is stamped {ms}, outside the run [{from_ms}, {to_ms}]"
            );
        }
    }
}

/// One thread, one generator.
struct Single {
    shape: Shape,
    checked: Vec<String>,
}

impl Single {
    fn run<M: Mint + Send>(&mut self, name: &str, gen: M) {
        let from = unix_millis();
        let run = mint_each(&mut [gen], TOTAL, true);
        let to = unix_millis();
        let case = format!("1t-{}/{name}", self.shape.name());
        check(&case, &run, self.shape.layout(), &[0], from, to);
        self.checked.push(name.to_owned());
    }
}

impl Visit for Single {
    fn shared<M: Mint + Send + Sync, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        self.run(name, make(0));
    }

    fn local<M: Mint + Send, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        self.run(name, make(0));
    }

    fn unsupported(&mut self, name: &str, _why: &str) {
        self.checked.push(format!("{name} (unsupported)"));
    }
}

/// Two threads sharing one generator.
struct Shared {
    shape: Shape,
    checked: Vec<String>,
}

impl Visit for Shared {
    fn shared<M: Mint + Send + Sync, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        let gen = make(0);
        let from = unix_millis();
        let run = mint_shared(&gen, 2, TOTAL, true);
        let to = unix_millis();
        let case = format!("2t-shared-{}/{name}", self.shape.name());
        check(&case, &run, self.shape.layout(), &[0, 0], from, to);
        self.checked.push(name.to_owned());
    }

    fn local<M: Mint + Send, F: Fn(u64) -> M>(&mut self, name: &str, _make: F) {
        self.checked.push(format!("{name} (not Sync)"));
    }

    fn unsupported(&mut self, name: &str, _why: &str) {
        self.checked.push(format!("{name} (unsupported)"));
    }
}

/// Two threads, each with a generator of its own, nodes 0 and 1.
struct Own {
    shape: Shape,
    checked: Vec<String>,
}

impl Own {
    fn run<M: Mint + Send>(&mut self, name: &str, make: impl Fn(u64) -> M) {
        let mut gens = [make(0), make(1)];
        let from = unix_millis();
        let run = mint_each(&mut gens, TOTAL, true);
        let to = unix_millis();
        let case = format!("2t-own-{}/{name}", self.shape.name());
        check(&case, &run, self.shape.layout(), &[0, 1], from, to);
        self.checked.push(name.to_owned());
    }
}

impl Visit for Own {
    fn shared<M: Mint + Send + Sync, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        self.run(name, make);
    }

    fn local<M: Mint + Send, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        self.run(name, make);
    }

    fn unsupported(&mut self, name: &str, _why: &str) {
        self.checked.push(format!("{name} (unsupported)"));
    }
}

/// Every case of the comparison, in the bench's order: a peer that cannot take a shape must
/// say so through `unsupported`, never vanish from the list.
const CASES: [&str; 12] = [
    "snowmint-ticker",
    "snowmint-exact",
    "std-mutex-tsc",
    "std-mutex-instant",
    "parking_lot-tsc",
    "parking_lot-instant",
    "ferroid-atomic",
    "ferroid-lock",
    "ferroid-basic",
    "snowflake_me",
    "snowdon",
    "snowflaked",
];

fn assert_all_cases(checked: &[String]) {
    let names: Vec<&str> = checked
        .iter()
        .map(|c| c.split(' ').next().unwrap_or(c))
        .collect();
    assert_eq!(names, CASES, "cases offered: {checked:?}");
}

#[test]
fn one_thread_cases_mint_unique_ids_in_their_layout() {
    for shape in [Shape::Uncapped, Shape::Twitter] {
        let mut v = Single {
            shape,
            checked: Vec::new(),
        };
        visit_cases(shape, &mut v);
        assert_all_cases(&v.checked);
    }
}

#[test]
fn two_threads_sharing_a_generator_mint_unique_ids() {
    for shape in [Shape::Uncapped, Shape::Twitter] {
        let mut v = Shared {
            shape,
            checked: Vec::new(),
        };
        visit_cases(shape, &mut v);
        assert_all_cases(&v.checked);
    }
}

#[test]
fn two_threads_with_their_own_generators_mint_unique_ids() {
    for shape in [Shape::Uncapped2Node, Shape::Twitter] {
        let mut v = Own {
            shape,
            checked: Vec::new(),
        };
        visit_cases(shape, &mut v);
        assert_all_cases(&v.checked);
    }
}

#[test]
fn only_snowflaked_lacks_a_shape_and_only_ferroid_basic_is_not_sync() {
    // Offered but not run: only the names are looked at.
    struct Names(Vec<String>);
    impl Visit for Names {
        fn shared<M: Mint + Send + Sync, F: Fn(u64) -> M>(&mut self, name: &str, _: F) {
            self.0.push(name.to_owned());
        }
        fn local<M: Mint + Send, F: Fn(u64) -> M>(&mut self, name: &str, _: F) {
            self.0.push(format!("{name} (not Sync)"));
        }
        fn unsupported(&mut self, name: &str, _: &str) {
            self.0.push(format!("{name} (unsupported)"));
        }
    }
    for shape in [Shape::Uncapped, Shape::Uncapped2Node, Shape::Twitter] {
        let mut names = Names(Vec::new());
        visit_cases(shape, &mut names);
        let odd: Vec<&String> = names.0.iter().filter(|n| n.contains('(')).collect();
        let expected: &[&str] = match shape {
            Shape::Twitter => &["ferroid-basic (not Sync)"],
            _ => &["ferroid-basic (not Sync)", "snowflaked (unsupported)"],
        };
        assert_eq!(odd, expected, "{shape:?}");
    }
}
