//! `refscore compare --pairs`: every line of a JSONL file, in parallel, in
//! order.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use rayon::prelude::*;
use refscore::{EvalInput, Evaluator, Score};
use serde_json::Value;

/// Lines read and scored together; big enough to keep every core busy,
/// small enough to keep memory flat.
const BATCH: usize = 4096;

pub(crate) fn run(
    metric: &dyn Evaluator,
    path: &Path,
    threads: Option<usize>,
) -> anyhow::Result<ExitCode> {
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        Box::new(BufReader::with_capacity(1 << 20, f))
    };
    let pool = crate::pool(threads)?;
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let mut lines = reader.lines();
    let mut number = 0u64;
    let mut scored = 0u64;
    loop {
        let mut batch = Vec::with_capacity(BATCH);
        for line in lines.by_ref() {
            let line =
                line.with_context(|| format!("reading {} after line {number}", path.display()))?;
            number += 1;
            if line.trim().is_empty() {
                continue;
            }
            batch.push((number, line));
            if batch.len() == BATCH {
                break;
            }
        }
        if batch.is_empty() {
            break;
        }
        scored += batch.len() as u64;
        let results: Vec<String> =
            pool.install(|| batch.par_iter().map(|(n, l)| score_line(metric, *n, l)).collect());
        for r in results {
            out.write_all(r.as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    let mut err = std::io::stderr().lock();
    for w in metric.warnings() {
        writeln!(err, "warning: {w}")?;
    }
    if scored == 0 {
        anyhow::bail!("{}: no pairs to compare", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// One output line: the Score as JSON with the pair's `id` first.
fn score_line(metric: &dyn Evaluator, number: u64, line: &str) -> String {
    let (id, scores) = match refscore::json::parse(line) {
        Err(e) => (Value::from(number), vec![invalid(metric, number, &format!("not JSON: {e}"))]),
        Ok(Value::Object(mut obj)) => {
            let id = obj.remove("id").unwrap_or_else(|| Value::from(number));
            let mut input = EvalInput::new();
            for key in ["output", "reference"] {
                match obj.remove(key) {
                    Some(v) => input.set(key, v),
                    None => {
                        let s = invalid(metric, number, &format!("missing `{key}`"));
                        return with_id(&id, &s);
                    }
                }
            }
            for (k, v) in obj {
                input.set(&k, v);
            }
            let scores = match metric.evaluate(&input) {
                Ok(s) => s,
                Err(e) => vec![invalid(metric, number, &e.to_string())],
            };
            (id, scores)
        }
        Ok(other) => {
            let t = refscore::json::type_name(&other);
            (
                Value::from(number),
                vec![invalid(metric, number, &format!("expected an object, got {t}"))],
            )
        }
    };
    scores.iter().map(|s| with_id(&id, s)).collect::<Vec<_>>().join("\n")
}

fn invalid(metric: &dyn Evaluator, number: u64, reason: &str) -> Score {
    Score::invalid(metric.name(), format!("line {number}: {reason}"))
        .with_direction(metric.direction())
        .with_meta("line", number)
}

fn with_id(id: &Value, s: &Score) -> String {
    let body = s.to_json();
    let id = serde_json::to_string(id).unwrap_or_else(|_| String::from("null"));
    match body.strip_prefix('{') {
        Some(rest) => format!("{{\"id\":{id},{rest}"),
        None => body,
    }
}
