//! `refscore compare`: one pair from two files, or every pair of a JSONL file.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::bail;
use refscore::limits::{
    MAX_CONFIG_BYTES, MAX_TEXT_BYTES, ReadError, ReadErrorKind, read_text, read_text_from,
};
use refscore::metrics::{self, BuildContext, MetricSpec};
use refscore::{EvalInput, Evaluator};
use serde_json::{Map, Value};

use crate::args::CompareArgs;

pub(crate) fn run(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let spec = metrics::registry::find(&args.metric)?;
    // `compare` has no suite, so no judge: say so, not "add one to the
    // suite".
    if spec.kind == refscore::Kind::Llm {
        bail!(
            "metric `{}` asks an LLM judge, and `compare` has none: score it with `refscore run` and a suite that sets `judge: {{model: ...}}` (see docs/judges.md)",
            spec.name
        );
    }
    let options = options(args, spec)?;
    let ctx = BuildContext {
        base_dir: std::env::current_dir().ok(),
        define_judge: Some(
            "`compare` has none: score it with `refscore run` and a suite that sets `judge: {model: ...}` (see docs/judges.md)",
        ),
        ..BuildContext::default()
    };
    let metric = metrics::build(&args.metric, &options, &ctx)?;
    // `--all`, or `--opt details=all`: the passed details the metric
    // reports are kept on every score line, as for one pair.
    let all = args.all || options.get("details").and_then(Value::as_str) == Some("all");
    match &args.pairs {
        Some(path) => {
            crate::pairs::run(metric, spec.name, path, args.threads, all, args.value_reader)
        }
        None => one(metric.as_ref(), args),
    }
}

/// Metric options from the flags.
fn options(args: &CompareArgs, spec: &MetricSpec) -> anyhow::Result<Map<String, Value>> {
    let mut o = Map::new();
    for kv in &args.opts {
        let Some((k, v)) = kv.split_once('=') else {
            bail!("--opt `{kv}`: expected KEY=VALUE");
        };
        let value = serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_owned()));
        o.insert(k.trim().to_owned(), value);
    }
    if let Some(path) = &args.weights {
        let text = read(path, MAX_CONFIG_BYTES)?;
        let w =
            refscore::json::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        o.insert(String::from("weights"), w);
    }
    if let Some(rules) = &args.rules {
        o.insert(String::from("rules"), Value::String(rules.to_string_lossy().into_owned()));
    }
    if let Some(mode) = &args.decode {
        o.insert(String::from("decode"), Value::String(mode.clone()));
    }
    if args.strict {
        if spec.json {
            o.insert(String::from("decode"), Value::String(String::from("json")));
        } else {
            o.insert(String::from("strict"), Value::Bool(true));
        }
    }
    if args.repair {
        o.insert(String::from("repair"), Value::Bool(true));
    }
    if let Some(key) = &args.target_key {
        o.insert(String::from("target_output_key"), Value::String(key.clone()));
    }
    if args.all && spec.option("details").is_some() && !o.contains_key("details") {
        o.insert(String::from("details"), Value::String(String::from("all")));
    }
    Ok(o)
}

/// Reads a file, or standard input for `-`, without the UTF-8 byte-order
/// mark a Windows editor may put at its start: no metric sees it. Nothing
/// past `limit` bytes (and a mark) is read: a longer file is an error
/// naming it and the limit, exit code 2 (for OUTPUT and REFERENCE, whose
/// limit is [`MAX_TEXT_BYTES`], as when a metric refuses a longer input).
fn read(path: &Path, limit: usize) -> anyhow::Result<String> {
    const BOM: char = '\u{feff}';
    let name = if path.as_os_str() == "-" { Path::new("standard input") } else { path };
    let with_bom = limit + BOM.len_utf8();
    let read = if path.as_os_str() == "-" {
        read_text_from(std::io::stdin().lock(), name, with_bom)
    } else {
        read_text(path, with_bom)
    };
    // The limit named is the one on the text, without the mark.
    let too_large = |bytes| ReadError {
        path: name.to_path_buf(),
        kind: ReadErrorKind::TooLarge { bytes, limit },
    };
    let mut text = read.map_err(|e| match e.kind {
        ReadErrorKind::TooLarge { bytes, .. } => too_large(bytes),
        _ => e,
    })?;
    let bytes = text.len();
    if text.starts_with(BOM) {
        text.drain(..BOM.len_utf8());
    }
    if text.len() > limit {
        return Err(too_large(Some(bytes as u64)).into());
    }
    Ok(text)
}

fn one(metric: &dyn Evaluator, args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let (Some(out_path), Some(ref_path)) = (&args.output, &args.reference) else {
        bail!("compare needs OUTPUT and REFERENCE files, or --pairs FILE");
    };
    if out_path.as_os_str() == "-" && ref_path.as_os_str() == "-" {
        bail!("only one of OUTPUT and REFERENCE can be standard input");
    }
    let (output, reference) = (read(out_path, MAX_TEXT_BYTES)?, read(ref_path, MAX_TEXT_BYTES)?);
    let input = EvalInput::pair(Value::String(output), Value::String(reference));
    // An input the metric cannot use (an empty file, say) fails the pair,
    // as it fails a line of --pairs: exit 1, not a usage error.
    // The files, named as given (`-` is standard input).
    let pair = format!("output {}, reference {}", out_path.display(), ref_path.display());
    let evaluation = match metric.evaluate(&input) {
        Ok(evaluation) => evaluation,
        Err(e) => {
            eprintln!("refscore: {}: {e}", metric.name());
            eprintln!("refscore: the pair ({pair}) could not be scored");
            return Ok(ExitCode::from(1));
        }
    };
    let mut out = std::io::stdout().lock();
    for s in &evaluation.scores {
        if args.json {
            writeln!(out, "{}", serde_json::to_string_pretty(s)?)?;
        } else {
            crate::render::score(&mut out, s, crate::color::Palette::detect())?;
        }
    }
    // As with --pairs: an output that could not be scored fails the command.
    if evaluation.main().is_none_or(|s| s.score.is_none()) {
        drop(out);
        eprintln!("refscore: the pair ({pair}) could not be scored (see its `invalid` score)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
