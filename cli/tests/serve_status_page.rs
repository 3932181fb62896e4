//! The status page as a browser renders it: `snowmint serve` is started, given traffic, and
//! its `GET /` loaded in headless Chromium (Debian's `chromium`), whose rendered DOM must
//! show the node and a nonzero rate. Without Chromium the test skips with a reason, unless
//! `SNOWMINT_REQUIRE_CHROMIUM=1` (CI) makes that a failure.

mod serve_support;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use serve_support::Server;

/// The Chromium binary, if installed.
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        })
    })
}

/// Runs headless Chromium on `url` with a fresh profile, and `extra` flags; its stdout.
fn headless(chromium: &PathBuf, url: &str, extra: &[&str]) -> String {
    let profile = std::env::temp_dir().join(format!(
        "snowmint-chromium-{}-{}",
        std::process::id(),
        extra.len()
    ));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            &format!("--user-data-dir={}", profile.display()),
        ])
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .output()
        .expect("run chromium");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text of the element with `id` in `dom`.
fn cell<'a>(dom: &'a str, id: &str) -> Option<&'a str> {
    let open = format!("id=\"{id}\">");
    let start = dom.find(&open)? + open.len();
    let end = dom[start..].find('<')?;
    Some(&dom[start..start + end])
}

#[test]
fn chromium_renders_the_node_and_a_nonzero_rate() {
    let Some(chromium) = chromium() else {
        assert!(
            std::env::var("SNOWMINT_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
            "chromium is not installed and SNOWMINT_REQUIRE_CHROMIUM=1"
        );
        println!("skipped: chromium is not installed (apt-get install chromium)");
        return;
    };
    let mut server = Server::start(&["--workers", "1", "--node", "6"]);
    let port = server.port;
    // Traffic over a few seconds, so that the sampler (once a second) counts some.
    for _ in 0..30 {
        assert_eq!(serve_support::get(port, "/ids?n=100", &[]).status, 200);
        std::thread::sleep(Duration::from_millis(100));
    }
    // The rate shown is the mean over the last minute of sampled seconds: wait for one.
    serve_support::poll(Duration::from_secs(30), "a sampled second", || {
        let page = server.get("/").text();
        cell(&page, "rate").filter(|r| *r != "0").map(|_| ())
    });
    let url = format!("http://127.0.0.1:{port}/");
    let dom = headless(&chromium, &url, &["--dump-dom"]);
    assert!(dom.contains("<svg"), "{dom}");
    assert_eq!(cell(&dom, "node"), Some("6"), "{dom}");
    let rate: f64 = cell(&dom, "rate").expect("rate").parse().expect("a number");
    assert!(rate > 0.0, "{dom}");
    assert_eq!(cell(&dom, "errors"), Some("0"), "{dom}");
    // A screenshot renders too (the docs' picture is made this way).
    if let Some(path) = std::env::var_os("SNOWMINT_STATUS_SCREENSHOT") {
        let arg = format!("--screenshot={}", PathBuf::from(path).display());
        headless(
            &chromium,
            &url,
            &[&arg, "--window-size=760,560", "--hide-scrollbars"],
        );
    }
    server.stop();
}
