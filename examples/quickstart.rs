//! The classic snowflake walkthrough: mint an ID on node 1 and show it in every form.
//!
//! `cargo run --release --example quickstart`

use snowmint::{Encoding, Generator, Layout};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Twitter's layout: 41 bits of milliseconds since 2010-11-04, 10 node bits, 12 sequence bits.
    let layout = Layout::TWITTER;
    let node = Generator::new(layout, 1)?;

    let id = node.next_id()?;
    let parts = layout.decode(id);

    println!("Int64  ID: {}", id.to_i64().unwrap_or_default());
    println!("String ID: {id}");
    println!("Base2  ID: {}", id.encode(Encoding::Base2));
    println!("Base32 ID: {}", id.encode(Encoding::Base32));
    println!("Base36 ID: {}", id.encode(Encoding::Base36));
    println!("Base58 ID: {}", id.encode(Encoding::Base58));
    println!("Base64 ID: {}", id.encode(Encoding::Base64));
    println!("Bytes  ID: {:?}", id.to_bytes());
    println!("ID Time  : {} ms since the Unix epoch", parts.unix_millis());
    println!("ID Node  : {}", parts.node());
    println!("ID Step  : {}", parts.sequence());

    // Twenty more, strictly increasing, from the same node.
    let mut last = id;
    for _ in 0..20 {
        let next = node.next_id()?;
        assert!(next > last);
        last = next;
    }
    println!("21 IDs, strictly increasing; the last: {last}");
    println!(
        "layout expires {} ms after the Unix epoch; {} IDs/s per node at most",
        layout.expiry_unix_millis(),
        layout.capacity_per_second()
    );
    Ok(())
}
