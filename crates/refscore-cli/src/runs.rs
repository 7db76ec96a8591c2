//! `refscore runs`: the recorded runs of a store.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use refscore::history::{Comparison, RunEntry, RunStatus, Store};

use crate::args::RunsCommand;
use crate::color::Palette;
use crate::history::{Recorded, load_run};
use crate::output_lock::Writer;
use crate::table::{fmt, painted, printable, table};

pub(crate) fn run(cmd: &RunsCommand) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let p = Palette::detect();
    match cmd {
        RunsCommand::List(a) => {
            let at = Recorded::locate(&a.at)?;
            let store = at.read()?;
            let runs = store.list(at.suite.as_deref(), Some(a.limit))?;
            if a.format.format == "json" {
                let listed: Vec<serde_json::Value> = runs.iter().map(entry_json).collect();
                writeln!(out, "{}", serde_json::to_string_pretty(&listed)?)?;
            } else if runs.is_empty() {
                let shown = crate::table::printable_path(store.path());
                // Say what was asked for when runs are recorded but none
                // is listed: a suite of no run, or `--limit 0`.
                let recorded =
                    (at.suite.is_some() || a.limit == 0) && store.latest(None)?.is_some();
                match &at.suite {
                    Some(suite) if recorded && a.limit > 0 => writeln!(
                        out,
                        "no runs of suite `{}` recorded in {shown} (it holds runs of other suites: \
                         `refscore runs list --store {shown}` lists them)",
                        printable(suite)
                    )?,
                    _ if recorded => writeln!(out, "--limit 0: no runs listed")?,
                    _ => writeln!(out, "no runs recorded in {shown}")?,
                }
            } else {
                list(&mut out, &runs, p)?;
            }
        }
        RunsCommand::Show(a) => {
            let at = Recorded::locate(&a.at)?;
            let store = at.read()?;
            let id = at.run(&store, &a.run)?;
            let entry = store.get(id)?;
            let summary: Option<serde_json::Value> =
                store.summary(id).ok().and_then(|s| serde_json::from_str(&s).ok());
            if a.format.format == "json" {
                let v = serde_json::json!({"run": entry_json(&entry), "summary": summary});
                writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
            } else {
                show(&mut out, &entry, summary.as_ref(), p)?;
            }
        }
        RunsCommand::Pin(a) | RunsCommand::Unpin(a) => {
            let pin = matches!(cmd, RunsCommand::Pin(_));
            let at = Recorded::locate(&a.at)?;
            let store = at.open()?;
            let id = at.run(&store, &a.run)?;
            let before = store.get(id)?;
            if !pin && !before.pinned {
                // Nothing to undo: say so, and which run is pinned instead.
                let suite = printable(&before.suite);
                let other = match store.pinned(&before.suite)? {
                    Some(p) => format!("run {p} is the pinned baseline of suite `{suite}`"),
                    None => format!("no run of suite `{suite}` is pinned"),
                };
                writeln!(out, "run {id} was not pinned; {other}")?;
            } else {
                store.pin(id, pin)?;
                let entry = store.get(id)?;
                let what =
                    if pin { "pinned as the baseline of suite" } else { "unpinned from suite" };
                // Later runs are compared with it: say that it did not pass.
                let failed = if pin && entry.gate_passed == Some(false) {
                    format!(
                        " ({}: later runs are compared with a run that did not pass)",
                        crate::history::GATE_FAILED
                    )
                } else {
                    String::new()
                };
                writeln!(out, "run {id} {what} `{}`{failed}", printable(&entry.suite))?;
            }
        }
        RunsCommand::Diff(a) => {
            let at = Recorded::locate(&a.at)?;
            // A diff of two folders needs no store.
            let store = at.if_any(Recorded::read)?;
            let store = store.as_ref().map_err(String::as_str);
            let suite = at.suite.as_deref();
            let (base, info) = load_run(store, &a.a, suite)?;
            let (current, current_info) = load_run(store, &a.b, suite)?;
            // The later run's own regression settings, when it is a run of
            // the store.
            let policy = match (store, current_info.folder, current_info.run_id) {
                (Ok(s), None, Some(id)) => s.policy(id).ok(),
                _ => None,
            }
            .unwrap_or_default();
            let c = Comparison::new(&base, info, &current, &policy);
            if a.format.format == "json" {
                writeln!(out, "{}", serde_json::to_string_pretty(&c)?)?;
            } else {
                crate::regression::comparison(&mut out, &c, p)?;
            }
        }
        RunsCommand::Prune(a) => {
            let at = Recorded::locate(&a.at)?;
            let store = at.open()?;
            // The folders of abandoned runs stay locked against a resume
            // until the runs are deleted.
            let (abandoned, _locks) = abandoned(&store)?;
            let gone = store.prune_with(a.keep, &abandoned, at.suite.as_deref())?;
            writeln!(
                out,
                "deleted {} run(s) from {}",
                gone.len(),
                crate::table::printable_path(store.path())
            )?;
            // The runs are deleted either way; a file that could not be
            // made smaller is said, not a failure.
            if !gone.is_empty()
                && let Err(e) = store.compact()
            {
                eprintln!("warning: the store's file was not made smaller: {e}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The runs still marked `running` that no process is writing: a run
/// holds its output folder's lock (`results.jsonl`, see `output_lock`)
/// from before it is recorded until it ends, however it ends, so a
/// `running` run whose folder this process can lock for reading, or whose
/// `results.jsonl` is gone, was killed outright (SIGKILL, a crash, a power
/// loss). The read locks are returned: held until the prune is committed,
/// they keep a `--resume` of those runs from starting meanwhile. A run
/// whose folder is locked by a run, cannot be opened, or is not recorded
/// counts as live.
fn abandoned(store: &Store) -> anyhow::Result<(Vec<i64>, Vec<std::fs::File>)> {
    let mut ids = Vec::new();
    let mut locks = Vec::new();
    for run in store.list(None, None)? {
        if let Some(lock) = gone(&run) {
            ids.push(run.id);
            locks.extend(lock);
        }
    }
    Ok((ids, locks))
}

/// A run as `--format json` gives it: its record, with `process_gone`
/// set on a run marked `running` that no process is writing (see
/// [`gone`]).
fn entry_json(run: &RunEntry) -> serde_json::Value {
    let mut v = serde_json::to_value(run).unwrap_or(serde_json::Value::Null);
    if let Some(o) = v.as_object_mut().filter(|_| gone(run).is_some()) {
        o.insert(String::from("process_gone"), serde_json::Value::Bool(true));
    }
    v
}

/// A run's status in words: `running (process gone)` for a run marked
/// `running` that no process is writing, `(damaged)` after a damaged one.
fn status_words(run: &RunEntry) -> String {
    let status = run.status.as_str();
    match &run.damaged {
        Some(_) => format!("{status} (damaged)"),
        None if gone(run).is_some() => format!("{status} (process gone)"),
        None => status.to_owned(),
    }
}

/// Whether `run` is marked `running` with no process writing it (see
/// [`abandoned`]): then the read lock on its folder, when it has one. A
/// folder whose lock cannot be tested counts as a run going on.
pub(crate) fn gone(run: &RunEntry) -> Option<Option<std::fs::File>> {
    if run.status != RunStatus::Running || run.damaged.is_some() {
        return None;
    }
    let folder = run.info.output.as_deref()?;
    match crate::output_lock::writer(Path::new(folder)) {
        Writer::NoFile => Some(None),
        Writer::Free(lock) => Some(Some(lock)),
        Writer::Held | Writer::Unknown { .. } => None,
    }
}

fn list(out: &mut impl Write, runs: &[RunEntry], p: Palette) -> std::io::Result<()> {
    let mut rows = vec![
        ["ID", "SUITE", "STARTED", "STATUS", "GATE", "ROWS", "SECONDS", "COMMIT", "TAGS"]
            .map(String::from)
            .to_vec(),
    ];
    for r in runs {
        let gate = match r.gate_passed {
            Some(true) => "passed",
            Some(false) => "failed",
            None => "—",
        };
        let id = if r.pinned { format!("{} (pinned)", r.id) } else { r.id.to_string() };
        let commit = r.git_commit.as_deref().map_or("—", |c| &c[..c.len().min(10)]);
        let tags: Vec<String> = r.info.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
        rows.push(vec![
            id,
            r.suite.clone(),
            r.started_at.clone(),
            status_words(r),
            gate.to_owned(),
            r.rows.to_string(),
            format!("{:.1}", r.duration_s),
            commit.to_owned(),
            tags.join(" "),
        ]);
    }
    painted(out, &rows, p, &[(4, paint_gate)])
}

/// A gate's word (`passed`, `failed`) in its colour.
fn paint_gate(p: Palette, word: &str) -> String {
    match word {
        "passed" => p.green(word),
        "failed" => p.red(word),
        _ => word.to_owned(),
    }
}

fn show(
    out: &mut impl Write,
    r: &RunEntry,
    summary: Option<&serde_json::Value>,
    p: Palette,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{} {}{}",
        p.bold(&format!("Run {}", r.id)),
        printable(&r.suite),
        if r.pinned { " (pinned)" } else { "" }
    )?;
    let i = &r.info;
    let kv = [
        ("status", status_words(r)),
        ("started", i.started_at.clone()),
        ("ended", r.ended_at.clone().unwrap_or_else(|| "—".to_owned())),
        ("rows", r.rows.to_string()),
        ("duration", format!("{:.2}s", r.duration_s)),
        ("suite file", format!("{} ({})", i.suite_path, short(&i.suite_hash))),
        ("dataset", format!("{} ({})", i.dataset, short(&i.dataset_hash))),
        (
            "git",
            i.git.as_ref().map_or_else(
                || "—".to_owned(),
                |g| {
                    format!(
                        "{}{}{}",
                        g.commit,
                        g.branch.as_ref().map(|b| format!(" on {b}")).unwrap_or_default(),
                        if g.dirty { " (uncommitted changes)" } else { "" }
                    )
                },
            ),
        ),
        ("version", i.version.clone()),
        ("output", i.output.clone().unwrap_or_else(|| "—".to_owned())),
    ];
    for (k, v) in kv {
        writeln!(out, "  {k:<11} {}", printable(&v))?;
    }
    for (k, v) in &i.tags {
        writeln!(out, "  tag         {}={}", printable(k), printable(v))?;
    }
    for (k, v) in &i.links {
        writeln!(out, "  link        {}: {}", printable(k), printable(v))?;
    }
    let Some(s) = summary else {
        let resume = format!("`refscore run {} --resume {}`", printable(&i.suite_path), r.id);
        let writer = i.output.as_deref().map(|o| crate::output_lock::writer(Path::new(o)));
        match writer {
            _ if r.status != RunStatus::Running => {
                writeln!(out, "\n  not finished: continue it with {resume}")?;
            }
            Some(Writer::Held) => {
                writeln!(out, "\n  still running: its process holds its output folder")?;
            }
            Some(Writer::NoFile | Writer::Free(_)) => writeln!(
                out,
                "\n  did not finish: its process is gone (killed or crashed); continue it with \
                 {resume}"
            )?,
            None | Some(Writer::Unknown { .. }) => writeln!(
                out,
                "\n  not finished: whether its process is still going cannot be told here; if \
                 it is gone, continue it with {resume}"
            )?,
        }
        return Ok(());
    };
    writeln!(out)?;
    let mut rows =
        vec![["EVALUATOR", "METRIC", "MEAN", "PASS RATE", "FAILED"].map(String::from).to_vec()];
    for e in s["evaluators"].as_array().into_iter().flatten() {
        rows.push(vec![
            e["name"].as_str().unwrap_or_default().to_owned(),
            e["metric"].as_str().unwrap_or_default().to_owned(),
            e["mean"].as_f64().map_or_else(|| "—".to_owned(), fmt),
            e["pass_rate"]
                .as_f64()
                .map_or_else(|| "—".to_owned(), |x| format!("{:.1}%", x * 100.0)),
            e["failed"].as_u64().unwrap_or(0).to_string(),
        ]);
    }
    table(out, &rows, p)?;
    let passed = s["gate"]["passed"].as_bool() == Some(true);
    writeln!(
        out,
        "\n{} {}",
        p.bold("Gate"),
        if passed { p.green("PASSED") } else { p.red("FAILED") }
    )?;
    if let Some(c) =
        s.get("comparison").and_then(|c| serde_json::from_value::<Comparison>(c.clone()).ok())
    {
        crate::regression::comparison(out, &c, p)?;
    }
    Ok(())
}

/// A recorded hash as shown: `blake3` and its first 12 digits, or why
/// there is none.
pub(crate) fn short(h: &str) -> String {
    if h.is_empty() {
        String::from("not hashed: a pipe or a device")
    } else {
        format!("blake3 {}", h.chars().take(12).collect::<String>())
    }
}
