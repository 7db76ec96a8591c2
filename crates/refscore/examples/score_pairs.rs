//! Scores a JSON Lines file of cases and prints one result per line.
//!
//! Each input line is an object
//! `{"metric": "...", "options": {...}, "output": ..., "reference": ..., "weights": ...}`
//! (`options` and `weights` are optional; any other member is passed to the
//! metric as an extra input). Each output line is
//! `{"score": x|null, "label": ..., "explanation": ...}`, or the whole score
//! with `--full`, or `{"error": "..."}` when the line cannot be scored.
//!
//! ```text
//! cargo run -p refscore --example score_pairs -- cases.jsonl [--full]
//! cargo run -p refscore --example score_pairs < cases.jsonl
//! ```

use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};

use refscore::json::{Doc, compact, parse};
use refscore::metrics::{BuildContext, build};
use refscore::{EvalInput, Evaluator};
use serde_json::{Map, Value, json};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let full = args.iter().any(|a| a == "--full");
    let file = args.iter().find(|a| !a.starts_with("--"));
    let reader: Box<dyn Read> = match file {
        Some(path) => match std::fs::File::open(path) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("cannot open {path}: {e}");
                std::process::exit(2);
            }
        },
        None => Box::new(std::io::stdin()),
    };
    let mut metrics: HashMap<String, Result<Box<dyn Evaluator>, String>> = HashMap::new();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (n, line) in BufReader::new(reader).lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("line {}: {e}", n + 1);
                std::process::exit(2);
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let result = score_line(&line, &mut metrics, full);
        if writeln!(out, "{result}").is_err() {
            return;
        }
    }
}

fn score_line(
    line: &str,
    metrics: &mut HashMap<String, Result<Box<dyn Evaluator>, String>>,
    full: bool,
) -> String {
    let case = match parse(line) {
        Ok(Value::Object(m)) => m,
        Ok(other) => {
            drop(Doc(other));
            return error("a line must be a JSON object");
        }
        Err(e) => return error(&format!("bad line: {e}")),
    };
    let Some(metric) = case.get("metric").and_then(Value::as_str).map(str::to_owned) else {
        return error("missing \"metric\"");
    };
    let options = case.get("options").and_then(Value::as_object).cloned().unwrap_or_default();
    let key = format!("{metric}\u{0}{}", compact(&Value::Object(options.clone())));
    let evaluator = metrics.entry(key).or_insert_with(|| {
        build(&metric, &options, &BuildContext::default()).map_err(|e| e.to_string())
    });
    let evaluator = match evaluator {
        Ok(m) => m,
        Err(e) => return error(e),
    };
    let mut input = EvalInput::new();
    for (name, value) in case {
        if name == "metric" || name == "options" || (name == "weights" && value.is_null()) {
            continue;
        }
        input.set(&name, value);
    }
    match evaluator.evaluate(&input) {
        Err(e) => error(&e.to_string()),
        Ok(scores) => match scores.scores.first() {
            None => error("no score"),
            Some(s) if full => s.to_json(),
            Some(s) => {
                let mut m = Map::new();
                m.insert(String::from("score"), s.score.map_or(Value::Null, Value::from));
                m.insert(String::from("label"), s.label.clone().map_or(Value::Null, Value::from));
                m.insert(
                    String::from("explanation"),
                    s.explanation.clone().map_or(Value::Null, Value::from),
                );
                Value::Object(m).to_string()
            }
        },
    }
}

fn error(msg: &str) -> String {
    json!({ "error": msg }).to_string()
}
