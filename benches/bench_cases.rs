//! Every generator the mint benchmark times, ours, the mutex baselines and the peers, minted
//! from the same helpers the bench uses, must give unique IDs in the layout it was set to.

#[path = "common/mod.rs"]
mod common;

use std::time::{SystemTime, UNIX_EPOCH};

use common::{
    assert_unique, mint_each, mint_shared, sharded_layout, visit_cases, Mint, Run, Shape, Visit,
};
use snowmint::{Id, Layout, ShardedGenerator};

/// IDs per case: 200,000 take 50 ms at Twitter's cap of 4,096 per ms.
const TOTAL: u64 = 200_000;
/// How far an ID's time may be from the wall clock around the run. A wrong epoch or field
/// width puts it years off; the clocks agree within ms, but a cheap reading can lag by the
/// ticker's scheduling delay on a loaded machine (54 ms seen here).
const SLACK_MS: u64 = 2_000;

fn unix_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64
}

/// Checks what the bench relies on: as many IDs as asked, none twice, each thread's in
/// increasing order, and every ID decoding (in `layout`) to a time within the run. Returns
/// the nodes each thread's IDs carry.
fn check(case: &str, run: &Run, layout: Layout, from_ms: u64, to_ms: u64) -> Vec<Vec<u64>> {
    assert_unique(run, TOTAL, case);
    let mut nodes = Vec::new();
    for (thread, ids) in run.ids.iter().enumerate() {
        assert!(!ids.is_empty(), "{case}: thread {thread} minted nothing");
        if let Some(w) = ids.windows(2).find(|w| w[0] >= w[1]) {
            panic!("{case}: thread {thread} minted {} after {}", w[1], w[0]);
        }
        let mut seen = Vec::new();
        for &id in ids {
            let d = layout.decode(Id::from_u64(id));
            let ms = d.unix_millis();
            assert!(
                ms + SLACK_MS >= from_ms && ms <= to_ms + SLACK_MS,
                "{case}: ID {id:#x} is stamped {ms}, outside the run [{from_ms}, {to_ms}]"
            );
            if !seen.contains(&d.node()) {
                seen.push(d.node());
            }
        }
        nodes.push(seen);
    }
    nodes
}

/// Each thread's IDs carry exactly the node given for it.
fn assert_nodes(case: &str, nodes: &[Vec<u64>], expected: &[u64]) {
    let want: Vec<Vec<u64>> = expected.iter().map(|&n| vec![n]).collect();
    assert_eq!(nodes, want, "{case}: nodes per thread");
}

/// Each thread of a sharded generator mints on one exclusive shard of its own (there are
/// more free shards than threads), all under node 0.
fn assert_own_shards(case: &str, nodes: &[Vec<u64>], shard_bits: u8) {
    // Node 0's shards are nodes 0 to 2^shard_bits - 1, the last one the overflow shard.
    let overflow = (1 << shard_bits) - 1;
    let mut all = Vec::new();
    for (thread, n) in nodes.iter().enumerate() {
        assert_eq!(n.len(), 1, "{case}: thread {thread} minted on nodes {n:?}");
        assert_eq!(n[0] >> shard_bits, 0, "{case}: node {} is not node 0", n[0]);
        assert!(
            n[0] < overflow,
            "{case}: thread {thread} minted on the overflow shard"
        );
        all.push(n[0]);
    }
    all.sort_unstable();
    all.dedup();
    assert_eq!(
        all.len(),
        nodes.len(),
        "{case}: threads shared a shard: {nodes:?}"
    );
}

/// Two threads minting from one generator they share.
fn run_shared<M: Mint + Sync>(case: &str, gen: &M, layout: Layout) -> Vec<Vec<u64>> {
    let from = unix_millis();
    let run = mint_shared(gen, 2, TOTAL, true);
    let to = unix_millis();
    check(case, &run, layout, from, to)
}

/// One thread, one generator.
struct Single {
    shape: Shape,
    checked: Vec<String>,
}

impl Single {
    fn run<M: Mint + Send>(&mut self, name: &str, gen: M, layout: Layout) -> Vec<Vec<u64>> {
        let from = unix_millis();
        let run = mint_each(&mut [gen], TOTAL, true);
        let to = unix_millis();
        self.checked.push(name.to_owned());
        check(&self.case(name), &run, layout, from, to)
    }

    fn case(&self, name: &str) -> String {
        format!("1t-{}/{name}", self.shape.name())
    }
}

impl Visit for Single {
    fn shared<M: Mint + Send + Sync, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        let nodes = self.run(name, make(0), self.shape.layout());
        assert_nodes(&self.case(name), &nodes, &[0]);
    }

    fn local<M: Mint + Send, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        let nodes = self.run(name, make(0), self.shape.layout());
        assert_nodes(&self.case(name), &nodes, &[0]);
    }

    fn sharded<M: Mint + Send + Sync, F: Fn() -> M>(
        &mut self,
        name: &str,
        layout: Layout,
        _note: Option<&str>,
        make: F,
    ) {
        let nodes = self.run(name, make(), layout);
        let shard_bits = sharded_layout(self.shape).1;
        assert_own_shards(&self.case(name), &nodes, shard_bits);
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
        let case = format!("2t-shared-{}/{name}", self.shape.name());
        let nodes = run_shared(&case, &make(0), self.shape.layout());
        assert_nodes(&case, &nodes, &[0, 0]);
        self.checked.push(name.to_owned());
    }

    fn local<M: Mint + Send, F: Fn(u64) -> M>(&mut self, name: &str, _make: F) {
        self.checked.push(format!("{name} (not Sync)"));
    }

    fn sharded<M: Mint + Send + Sync, F: Fn() -> M>(
        &mut self,
        name: &str,
        layout: Layout,
        _note: Option<&str>,
        make: F,
    ) {
        let case = format!("2t-shared-{}/{name}", self.shape.name());
        let nodes = run_shared(&case, &make(), layout);
        assert_own_shards(&case, &nodes, sharded_layout(self.shape).1);
        self.checked.push(name.to_owned());
    }

    fn unsupported(&mut self, name: &str, _why: &str) {
        self.checked.push(format!("{name} (unsupported)"));
    }
}

/// Two threads, each with a generator of its own, nodes 0 and 1, or sharing one sharded
/// generator.
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
        let nodes = check(&case, &run, self.shape.layout(), from, to);
        assert_nodes(&case, &nodes, &[0, 1]);
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

    fn sharded<M: Mint + Send + Sync, F: Fn() -> M>(
        &mut self,
        name: &str,
        layout: Layout,
        _note: Option<&str>,
        make: F,
    ) {
        let case = format!("2t-own-{}/{name}", self.shape.name());
        let nodes = run_shared(&case, &make(), layout);
        assert_own_shards(&case, &nodes, sharded_layout(self.shape).1);
        self.checked.push(name.to_owned());
    }

    fn unsupported(&mut self, name: &str, _why: &str) {
        self.checked.push(format!("{name} (unsupported)"));
    }
}

/// Every case of the comparison, in the bench's order: a peer that cannot take a shape must
/// say so through `unsupported`, never vanish from the list.
const CASES: [&str; 13] = [
    "snowmint-ticker",
    "snowmint-exact",
    "snowmint-sharded",
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
fn the_one_thread_lease_case_mints_unique_ids_on_an_exclusive_shard() {
    // The mint bench's one-thread groups time one more case after `visit_cases`: an owned shard
    // owned shard of one shard (not Sync, so only there), built as the bench builds it.
    for shape in [Shape::Uncapped, Shape::Twitter] {
        let (layout, shard_bits, _note) = sharded_layout(shape);
        let sharded = ShardedGenerator::builder(layout)
            .shard_bits(shard_bits)
            .build()
            .expect("shard bits fit the layout");
        let owned = sharded.own_shard().expect("a free shard");
        let node = owned.node_field();
        let mut single = Single {
            shape,
            checked: Vec::new(),
        };
        let nodes = single.run("snowmint-owned", owned, layout);
        assert_nodes(&single.case("snowmint-owned"), &nodes, &[node]);
        assert_own_shards(&single.case("snowmint-owned"), &nodes, shard_bits);
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
    for shape in [Shape::Uncapped4Node, Shape::Twitter] {
        let mut v = Own {
            shape,
            checked: Vec::new(),
        };
        visit_cases(shape, &mut v);
        assert_all_cases(&v.checked);
    }
}

#[test]
fn only_snowflaked_lacks_a_shape_only_sharded_changes_one_only_ferroid_basic_is_not_sync() {
    // Offered but not run: only the names are looked at.
    struct Names(Vec<String>);
    impl Visit for Names {
        fn shared<M: Mint + Send + Sync, F: Fn(u64) -> M>(&mut self, name: &str, _: F) {
            self.0.push(name.to_owned());
        }
        fn local<M: Mint + Send, F: Fn(u64) -> M>(&mut self, name: &str, _: F) {
            self.0.push(format!("{name} (not Sync)"));
        }
        fn sharded<M: Mint + Send + Sync, F: Fn() -> M>(
            &mut self,
            name: &str,
            _: Layout,
            note: Option<&str>,
            _: F,
        ) {
            self.0.push(match note {
                Some(_) => format!("{name} (other layout)"),
                None => name.to_owned(),
            });
        }
        fn unsupported(&mut self, name: &str, _: &str) {
            self.0.push(format!("{name} (unsupported)"));
        }
    }
    for shape in [Shape::Uncapped, Shape::Uncapped4Node, Shape::Twitter] {
        let mut names = Names(Vec::new());
        visit_cases(shape, &mut names);
        let odd: Vec<&String> = names.0.iter().filter(|n| n.contains('(')).collect();
        let expected: &[&str] = match shape {
            Shape::Twitter => &["ferroid-basic (not Sync)"],
            Shape::Uncapped => &[
                "snowmint-sharded (other layout)",
                "ferroid-basic (not Sync)",
                "snowflaked (unsupported)",
            ],
            Shape::Uncapped4Node => &["ferroid-basic (not Sync)", "snowflaked (unsupported)"],
        };
        assert_eq!(odd, expected, "{shape:?}");
    }
}
