//! The map of the public surface in ARCHITECTURE.md ("The public surface") is hand-kept:
//! this test holds it against the crate's exports, so that neither can change without the
//! other. It reads the exports from the source: the `pub use` and `pub mod` lines of
//! `src/lib.rs` for the root, and each public module's own public items, and theirs
//! (`node::EnvVar`, `integrations::serde::as_u64`), every feature counted; `#[doc(hidden)]`
//! items are not surface. It also holds the root to its budget of 30 names and every item to
//! one path.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The source with comments, string and char literals blanked, so that braces and `pub`
/// are only ever code.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').map_or(b.len(), |n| i + n);
            i = end;
        } else if let Some(raw) = rest.strip_prefix("r#\"") {
            let end = raw.find("\"#").map_or(b.len(), |n| i + 3 + n + 2);
            out.push_str("\"\"");
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = j + 1;
        } else if rest.starts_with("'{'") || rest.starts_with("'}'") {
            out.push_str("' '");
            i += 3;
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// A public item at the top level of a module file: its name, and for a `pub use`, the path
/// it was taken from.
struct Item {
    name: String,
    from: Option<String>,
    inline_module: bool,
}

/// The leaves of a use tree (`self::a::{b, c::{d, e as f}}`), each with its whole path.
fn use_leaves(prefix: &str, tree: &str, out: &mut Vec<(String, String)>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap()];
        let prefix = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_leaves(&prefix, &inner[start..k], out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        use_leaves(&prefix, &inner[start..], out);
    } else if !tree.is_empty() {
        let (path, name) = match tree.split_once(" as ") {
            Some((path, alias)) => (path.trim(), alias.trim()),
            None => (tree, tree.rsplit("::").next().unwrap()),
        };
        out.push((name.to_string(), join(prefix, path)));
    }
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}::{b}"),
    }
}

/// The public items at the top level of `file`.
fn public_items(file: &Path) -> Vec<Item> {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let code = code_of(&text);
    let mut items = Vec::new();
    let mut depth = 0_i32;
    let mut hidden = false;
    let mut i = 0;
    let bytes = code.as_bytes();
    while i < bytes.len() {
        let rest = &code[i..];
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            _ if depth == 0 && rest.starts_with("#[doc(hidden)]") => hidden = true,
            _ if depth == 0 && rest.starts_with("pub ") && at_word_start(&code, i) => {
                let words: Vec<&str> = rest.split_whitespace().take(5).collect();
                let skip = words
                    .iter()
                    .take_while(|w| ["pub", "async", "const", "unsafe"].contains(w))
                    .count();
                let (kind, name) = (words[skip], words.get(skip + 1).copied().unwrap_or(""));
                if kind == "use" {
                    let end = rest.find(';').unwrap();
                    let mut leaves = Vec::new();
                    use_leaves("", &rest["pub use ".len()..end], &mut leaves);
                    if !hidden {
                        items.extend(leaves.into_iter().map(|(name, from)| Item {
                            name,
                            from: Some(from),
                            inline_module: false,
                        }));
                    }
                    hidden = false;
                    i += end;
                    continue;
                }
                if [
                    "fn", "struct", "enum", "trait", "type", "mod", "const", "static", "union",
                ]
                .contains(&kind)
                {
                    let name: String = name
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let inline_module = kind == "mod"
                        && rest.find(['{', ';']).is_some_and(|k| bytes[i + k] == b'{');
                    if !hidden {
                        items.push(Item {
                            name,
                            from: None,
                            inline_module,
                        });
                    }
                }
                hidden = false;
            }
            b';' if depth == 0 => hidden = false,
            _ => {}
        }
        i += 1;
    }
    items
}

fn at_word_start(code: &str, i: usize) -> bool {
    i == 0 || code.as_bytes()[i - 1].is_ascii_whitespace()
}

/// The file of module `path` (`fleet::node`) under `src/`, if it has one.
fn module_file(path: &str) -> Option<PathBuf> {
    let rel = path.replace("::", "/");
    let src = manifest_dir().join("src");
    [src.join(format!("{rel}.rs")), src.join(&rel).join("mod.rs")]
        .into_iter()
        .find(|p| p.exists())
}

/// The crate path (`layout::shape::Layout`) a `pub use` in module `module` (`layout`) names.
fn crate_path(module: &str, from: &str) -> String {
    if let Some(rest) = from.strip_prefix("crate::") {
        rest.to_string()
    } else if let Some(rest) = from.strip_prefix("self::") {
        join(module, rest)
    } else if let Some(rest) = from.strip_prefix("super::") {
        join(module.rsplit_once("::").map_or("", |(up, _)| up), rest)
    } else {
        join(module, from)
    }
}

/// The public items of the module at crate path `module`, under the public path `public`,
/// and of every public module among them, all counted as exported from `folder`.
fn walk(module: &str, public: &str, folder: &str, surface: &mut BTreeMap<String, String>) {
    let Some(file) = module_file(module) else {
        return;
    };
    for sub in public_items(&file) {
        let path = join(public, &sub.name);
        let inner = match &sub.from {
            Some(from) => crate_path(module, from),
            None => join(module, &sub.name),
        };
        surface.insert(path.clone(), folder.to_string());
        if !sub.inline_module {
            walk(&inner, &path, folder, surface);
        }
    }
}

/// The crate's surface as the source says: each path (`Id`, `node`, `node::EnvVar`,
/// `integrations::serde::as_u64`), with the folder under `src/` its root item is exported
/// from.
fn exports() -> BTreeMap<String, String> {
    let mut surface = BTreeMap::new();
    for item in public_items(&manifest_dir().join("src/lib.rs")) {
        let inner = item
            .from
            .as_deref()
            .map(|f| f.trim_start_matches("self::").to_string())
            .unwrap_or_else(|| item.name.clone());
        let folder = format!("src/{}/", inner.split("::").next().unwrap());
        surface.insert(item.name.clone(), folder.clone());
        if !item.inline_module {
            walk(&inner, &item.name, &folder, &mut surface);
        }
    }
    surface
}

/// The fleet's root names as they will be once the fleet's move lands (a branch of its own):
/// the fence's items under `fence`, the node's under `node`, the lease layer (`lease`,
/// `redis`, `etcd`) in a crate of its own. `None`: not a fleet name.
fn fleet_root_name(from: &str) -> Option<Option<&'static str>> {
    let rest = from.trim_start_matches("self::").strip_prefix("fleet::")?;
    Some(match rest.split("::").next().unwrap() {
        "fence" => Some("fence"),
        "node" => Some("node"),
        _ => None,
    })
}

/// The names at the crate's root, every feature on, hidden ones left out.
fn root_names() -> BTreeSet<String> {
    public_items(&manifest_dir().join("src/lib.rs"))
        .into_iter()
        .filter_map(
            |item| match item.from.as_deref().and_then(fleet_root_name) {
                Some(fleet) => fleet.map(str::to_string),
                None => Some(item.name),
            },
        )
        .collect()
}

/// ARCHITECTURE.md's table: each path with the folder of its row.
fn mapped() -> BTreeMap<String, String> {
    let text = fs::read_to_string(manifest_dir().join("ARCHITECTURE.md")).unwrap();
    let section = text
        .split("\n## The public surface\n")
        .nth(1)
        .expect("ARCHITECTURE.md has a section \"The public surface\"");
    let section = section.split("\n## ").next().unwrap();
    let mut map = BTreeMap::new();
    for row in section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| layer"))
    {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        let folder = cells[1].trim_matches('`').to_string();
        for token in cells[2].split('`').skip(1).step_by(2) {
            match token.split_once("::{") {
                Some((module, names)) => {
                    for name in names.trim_end_matches('}').split(',') {
                        map.insert(format!("{module}::{}", name.trim()), folder.clone());
                    }
                }
                None => {
                    map.insert(token.to_string(), folder.clone());
                }
            }
        }
    }
    map
}

#[test]
fn the_map_of_the_public_surface_is_the_crate_s_exports() {
    let exports = exports();
    let mapped = mapped();
    let names = |m: &BTreeMap<String, String>| m.keys().cloned().collect::<BTreeSet<_>>();
    let unmapped: Vec<_> = names(&exports)
        .difference(&names(&mapped))
        .cloned()
        .collect();
    let gone: Vec<_> = names(&mapped)
        .difference(&names(&exports))
        .cloned()
        .collect();
    assert!(
        unmapped.is_empty() && gone.is_empty(),
        "ARCHITECTURE.md's public surface and the exports differ:\n  exported, not in the table: {unmapped:?}\n  in the table, not exported: {gone:?}"
    );
    let misplaced: Vec<_> = mapped
        .iter()
        .filter(|(path, folder)| exports[*path] != **folder)
        .map(|(path, folder)| {
            format!(
                "{path}: the table says {folder}, exported from {}",
                exports[path]
            )
        })
        .collect();
    assert!(
        misplaced.is_empty(),
        "rows in the wrong layer: {misplaced:#?}"
    );
}

/// The root holds the everyday names only: at most 30, every feature on, modules counted
/// (`src/lib.rs`'s docs say how they are chosen).
#[test]
fn the_root_holds_at_most_thirty_names() {
    let names = root_names();
    assert!(
        names.len() <= 30,
        "the crate's root exports {} names, more than 30: {names:?}",
        names.len()
    );
}

/// One path per item: no name is exported under two paths (the fleet's, which its move
/// rewrites, left out until then).
#[test]
fn no_item_has_two_paths() {
    let fleet = ["etcd", "lease", "redis", "node", "NodeError", "NodeSource"];
    let fence = public_items(&manifest_dir().join("src/lib.rs"))
        .into_iter()
        .filter(|item| item.from.as_deref().and_then(fleet_root_name) == Some(Some("fence")))
        .map(|item| item.name)
        .collect::<Vec<_>>();
    let mut paths: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in exports().into_keys() {
        let top = path.split("::").next().unwrap();
        if fleet.contains(&top) || fence.iter().any(|f| f == top) {
            continue;
        }
        let name = path.rsplit("::").next().unwrap().to_string();
        paths.entry(name).or_default().push(path);
    }
    let twice: Vec<_> = paths.values().filter(|p| p.len() > 1).collect();
    assert!(
        twice.is_empty(),
        "items exported under two paths: {twice:?}"
    );
}

#[test]
fn the_reader_finds_what_the_source_holds() {
    // The parser itself, on a known piece: nested use trees, a rename, a hidden item, an
    // inline module, methods inside an impl left out.
    let dir = std::env::temp_dir().join(format!("snowmint-surface-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("m.rs");
    fs::write(
        &file,
        "pub use self::a::{B, c::{D, E as F}};\n#[doc(hidden)]\npub fn hidden() {}\n\
         pub mod inline {}\npub(crate) fn mine() {}\nimpl X { pub fn method(&self) { let _ = \"{\"; } }\n\
         pub async fn wait() {}\n",
    )
    .unwrap();
    let names: Vec<String> = public_items(&file).into_iter().map(|i| i.name).collect();
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(names, ["B", "D", "F", "inline", "wait"]);
}
