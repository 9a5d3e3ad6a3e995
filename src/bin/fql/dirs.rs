//! `fql count`, `fql tree` and `fql dir`: directories looked over and
//! administered. The work is the library's (`fql::directory`); this
//! module reads the arguments and prints.

use std::io::IsTerminal;
use std::sync::Arc;

use fql::directory::{self, DirectoryLayer, TreeNode};
use fql::kv::{Activity, DatabaseExt, Observed, RetryOptions};
use fql::plan::Root;
use fql::syntax::bytes_literal;
use serde_json::{Value, json};

use crate::args::{CountArgs, DirCommand, Format, StoreArgs, TreeArgs};
use crate::error::{CliError, Exit};
use crate::output;
use crate::progress::Progress;
use crate::store::{self, Missing, Opened};

/// `fql count DIR [--estimate]`.
pub fn count(
    args: &CountArgs,
    root: Option<&str>,
    store: &StoreArgs,
    color: bool,
) -> Result<(), CliError> {
    let root = crate::session::root(root, color)?;
    let dir = crate::schema::directory(&args.dir, &root, color)?;
    let opened = store::open_as(store, Missing::Refuse)?;
    let retry = retry(&opened);
    let shown = directory::show(&dir);
    let format = args.format.unwrap_or_default();
    if args.estimate {
        let node = DirectoryLayer::new()
            .tree(&*opened.db, retry, &dir, Some(0))
            .map_err(failed)?;
        let bytes = node.estimated_bytes.unwrap_or_default();
        return output::print(&match format {
            Format::Text => format!("estimated bytes: {bytes}\n"),
            Format::Json | Format::Jsonl => {
                format!(
                    "{}\n",
                    json!({"directory": shown, "estimated_bytes": bytes})
                )
            }
        });
    }
    // A count of a large directory takes a while: on a terminal, the
    // progress line shows the keys read so far, as for a long query.
    let activity = Arc::new(Activity::default());
    let db = Observed::new(opened.db, activity.clone());
    let progress = Progress::start(activity, std::io::stderr().is_terminal());
    let counted = directory::count(&db, retry, &dir, |_| {});
    drop(progress);
    let counted = counted.map_err(failed)?;
    if counted.transactions > 1 {
        crate::error::warn(format_args!(
            "fql: counted in {} transactions, each at its own version: writes made meanwhile may be counted in part",
            counted.transactions
        ));
    }
    output::print(&match format {
        Format::Text => format!("keys: {}\nbytes: {}\n", counted.keys, counted.bytes),
        Format::Json | Format::Jsonl => format!(
            "{}\n",
            json!({
                "directory": shown,
                "keys": counted.keys,
                "bytes": counted.bytes,
                "transactions": counted.transactions,
            })
        ),
    })
}

/// `fql tree [DIR] [--depth N]`.
pub fn tree(
    args: &TreeArgs,
    root: Option<&str>,
    store: &StoreArgs,
    color: bool,
) -> Result<(), CliError> {
    let root = crate::session::root(root, color)?;
    let dir = match args.dir.as_deref() {
        None => Vec::new(),
        Some(text) => top(text, &root, color)?,
    };
    let opened = store::open_as(store, Missing::Refuse)?;
    let node = DirectoryLayer::new()
        .tree(&*opened.db, retry(&opened), &dir, args.depth)
        .map_err(failed)?;
    output::print(&tree_output(&node, args.format.unwrap_or_default()))
}

/// The directory `text` names from `root`; `/` itself is allowed here.
fn top(text: &str, root: &Root, color: bool) -> Result<Vec<String>, CliError> {
    match root.change(text) {
        Ok(dir) if dir.names().is_empty() => Ok(Vec::new()),
        _ => crate::schema::directory(text, root, color),
    }
}

/// The tree as `format` prints it.
pub fn tree_output(node: &TreeNode, format: Format) -> String {
    match format {
        Format::Text => tree_text(node),
        Format::Json => format!("{}\n", tree_json(node)),
        Format::Jsonl => {
            let mut out = String::new();
            each_line(node, &mut out);
            out
        }
    }
}

/// The tree drawn with box-drawing characters: the top directory's
/// path, then each subdirectory's name under its parent's.
pub fn tree_text(node: &TreeNode) -> String {
    let mut out = format!("{}{}\n", directory::show(&node.path), details(node));
    branches(node, "", &mut out);
    out
}

fn branches(node: &TreeNode, indent: &str, out: &mut String) {
    let shown = node.children.len() + usize::from(node.hidden > 0);
    for (i, child) in node.children.iter().enumerate() {
        let last = i + 1 == shown;
        let (branch, below) = if last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        out.push_str(&format!(
            "{indent}{branch}{}{}\n",
            name(child),
            details(child)
        ));
        branches(child, &format!("{indent}{below}"), out);
    }
    if node.hidden > 0 {
        let plural = if node.hidden == 1 { "y" } else { "ies" };
        out.push_str(&format!(
            "{indent}└── … {} more director{plural} below --depth\n",
            node.hidden
        ));
    }
}

/// The last name of the path as FQL writes it: bare, or quoted with its
/// control characters escaped.
fn name(node: &TreeNode) -> String {
    let last = node
        .path
        .last()
        .map(std::slice::from_ref)
        .unwrap_or_default();
    directory::show(last).trim_start_matches('/').to_string()
}

/// `  layer "x"  prefix 0x1511  12.3 KB`, each part present when known.
fn details(node: &TreeNode) -> String {
    let mut out = String::new();
    if !node.layer.is_empty() {
        out.push_str(&format!("  layer {}", layer_text(&node.layer)));
    }
    if let Some(prefix) = &node.prefix {
        out.push_str(&format!("  prefix {}", bytes_literal(prefix)));
    }
    if let Some(bytes) = node.estimated_bytes {
        out.push_str(&format!("  ~{}", human(bytes)));
    }
    out
}

/// A layer as an FQL string, escaped, or as hex when it is not UTF-8.
fn layer_text(layer: &[u8]) -> String {
    match std::str::from_utf8(layer) {
        Ok(s) => fql::syntax::quote(s),
        Err(_) => bytes_literal(layer),
    }
}

/// Bytes in decimal units, as FDB reports sizes: `812 B`, `12.3 KB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KB", "MB", "GB", "TB", "PB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut size = bytes as f64 / 1000.0;
    let mut unit = 0;
    while size >= 999.95 && unit + 1 < UNITS.len() {
        size /= 1000.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

/// One directory as JSON, without its children.
fn node_json(node: &TreeNode) -> Value {
    let layer = match std::str::from_utf8(&node.layer) {
        Ok(s) => s.to_string(),
        Err(_) => bytes_literal(&node.layer),
    };
    json!({
        "path": directory::show(&node.path),
        "layer": layer,
        "prefix": node.prefix.as_deref().map(bytes_literal),
        "estimated_bytes": node.estimated_bytes,
        "hidden": node.hidden,
    })
}

fn tree_json(node: &TreeNode) -> Value {
    let mut value = node_json(node);
    value["children"] = node.children.iter().map(tree_json).collect();
    value
}

fn each_line(node: &TreeNode, out: &mut String) {
    out.push_str(&format!("{}\n", node_json(node)));
    for child in &node.children {
        each_line(child, out);
    }
}

/// `fql dir mkdir|mv|rm`.
pub fn admin(
    command: &DirCommand,
    write: bool,
    root: Option<&str>,
    store: &StoreArgs,
    color: bool,
) -> Result<(), CliError> {
    let root = crate::session::root(root, color)?;
    let word = match command {
        DirCommand::Mkdir { .. } => "mkdir",
        DirCommand::Mv { .. } => "mv",
        DirCommand::Rm { .. } => "rm",
    };
    let path = |text: &str| crate::schema::directory(text, &root, color);
    let (first, second) = match command {
        DirCommand::Mkdir { path: p, .. } | DirCommand::Rm { path: p, .. } => (path(p)?, None),
        DirCommand::Mv { src, dst, .. } => (path(src)?, Some(path(dst)?)),
    };
    if !write {
        return Err(CliError::Usage(format!(
            "dir {word} writes; pass -w/--write to allow writes"
        )));
    }
    let missing = match command {
        DirCommand::Mkdir { .. } => Missing::Create,
        _ => Missing::Refuse,
    };
    let opened = store::open_as(store, missing)?;
    let db = &*opened.db;
    let retry = retry(&opened);
    let layers = DirectoryLayer::new();
    let shown = directory::show(&first);
    let message = match command {
        DirCommand::Mkdir {
            layer, partition, ..
        } => {
            let layer = match (partition, layer) {
                (true, _) => b"partition".to_vec(),
                (false, layer) => layer.clone().unwrap_or_default().into_bytes(),
            };
            db.run_with(retry, |tx, _| layers.create(tx, &first, &layer))
                .map_err(failed)?;
            format!("created {shown}\n")
        }
        DirCommand::Mv { .. } => {
            let to = second.expect("a move has a destination");
            db.run_with(retry, |tx, _| layers.move_to(tx, &first, &to))
                .map_err(failed)?;
            format!("moved {shown} to {}\n", directory::show(&to))
        }
        DirCommand::Rm { force, .. } => {
            let (refused, _) = db
                .run_with(retry, |tx, _| {
                    let holds = layers.holdings(tx, &first)?;
                    if !force && !holds.is_empty() {
                        return Ok(Some(holds));
                    }
                    layers.remove(tx, &first).map(|()| None)
                })
                .map_err(failed)?;
            if let Some(holds) = refused {
                return Err(CliError::failed(
                    Exit::Unmet,
                    format!(
                        "{shown} holds {}; pass --force to remove it with all of that",
                        holdings_text(holds)
                    ),
                ));
            }
            format!("removed {shown}\n")
        }
    };
    output::print(&message)
}

/// `2 subdirectories and key-values`, as the refusal of `rm` says it.
fn holdings_text(holds: directory::Holdings) -> String {
    let subdirectories = match holds.subdirectories {
        0 => None,
        1 => Some("1 subdirectory".to_string()),
        n => Some(format!("{n} subdirectories")),
    };
    match (subdirectories, holds.keys) {
        (Some(s), true) => format!("{s} and key-values"),
        (Some(s), false) => s,
        (None, _) => "key-values".to_string(),
    }
}

fn retry(opened: &Opened) -> RetryOptions {
    RetryOptions::default().with_timeout(opened.timeout)
}

/// A failure of the directory layer; its exit status is the database's
/// for a transaction error, else 4.
fn failed(e: directory::Error) -> CliError {
    let exit = match &e {
        directory::Error::Kv(e) => store::exit_of(e),
        _ => Exit::Failed,
    };
    CliError::failed(exit, e.to_string())
}
