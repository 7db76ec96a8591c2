//! `refscore metrics [NAME]`: the registry, listed or described.

use std::io::Write;
use std::process::ExitCode;

use refscore::metrics::registry;

use crate::args::MetricsArgs;

pub(crate) fn run(args: &MetricsArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let Some(name) = &args.name else {
        if args.json {
            writeln!(out, "{}", serde_json::to_string_pretty(registry::all())?)?;
            return Ok(ExitCode::SUCCESS);
        }
        let width = registry::names().map(str::len).max().unwrap_or(0);
        for spec in registry::all() {
            writeln!(out, "{:width$}  {}", spec.name, spec.description)?;
        }
        return Ok(ExitCode::SUCCESS);
    };
    let spec = registry::find(name)?;
    if args.json {
        // As one element of `metrics --json`: the metric's own options,
        // with `"json": true` when the shared JSON options apply too.
        writeln!(out, "{}", serde_json::to_string_pretty(spec)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{}: {}", spec.name, spec.description)?;
    let direction = match spec.direction {
        refscore::Direction::Minimize => "lower is better",
        refscore::Direction::Maximize => "higher is better",
        refscore::Direction::Neutral => "informational",
    };
    let threshold = spec.threshold.map_or_else(|| String::from("none"), |t| t.to_string());
    let kind = serde_json::to_value(spec.kind)?;
    let kind = kind.as_str().unwrap_or("code");
    writeln!(out, "kind: {kind}; {direction}; default threshold: {threshold}")?;
    if !spec.extra_scores.is_empty() {
        writeln!(out, "also returns: {}", spec.extra_scores.join(", "))?;
    }
    writeln!(out, "\ninputs:")?;
    if spec.inputs.is_empty() {
        writeln!(out, "  the template's {{placeholders}}, each a required text input")?;
    }
    for i in spec.inputs {
        let need = if i.required { "required" } else { "optional" };
        writeln!(out, "  {:<10} {:<8} {need:<8}  {}", i.name, i.kind.as_str(), i.description)?;
    }
    writeln!(out, "\noptions:")?;
    for o in spec.all_options() {
        let default = o.default.map_or_else(String::new, |d| format!(" (default {d})"));
        writeln!(out, "  {:<18} {}{default}\n      {}", o.name, o.kind.describe(), o.description)?;
    }
    writeln!(out, "\nexample (suite evaluator):\n")?;
    for line in spec.example.lines() {
        writeln!(out, "  {line}")?;
    }
    Ok(ExitCode::SUCCESS)
}
