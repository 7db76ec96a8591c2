//! The suite loader on arbitrary text, as YAML and as TOML (relative paths
//! resolve in a temporary folder holding the example's rules and schema);
//! a suite that loads scores one fixed pair with each of its code metrics.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use refscore::{EvalInput, Kind, Suite, SuiteFormat};
use serde_json::json;

fn base_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("refscore-fuzz-suite-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(
            dir.join("rules.yaml"),
            include_str!("../../examples/invoices/rules.yaml"),
        );
        let _ = std::fs::write(
            dir.join("invoice.schema.json"),
            include_str!("../../examples/invoices/invoice.schema.json"),
        );
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let text = refscore_fuzz::text(data);
    let pair = EvalInput::pair(
        json!({"total": 12.5, "items": [{"sku": "a", "qty": 1}], "name": "ACME"}),
        json!({"total": 12.0, "items": [{"sku": "a", "qty": 2}], "name": "Acme"}),
    );
    for format in [SuiteFormat::Yaml, SuiteFormat::Toml] {
        let Ok(suite) = Suite::from_str(&text, format, base_dir()) else { continue };
        for e in &suite.evaluators {
            // Judges would send requests; only code metrics are scored.
            let code =
                refscore::metrics::registry::find(&e.metric).is_ok_and(|s| s.kind == Kind::Code);
            if code && suite.judges.is_empty() {
                refscore_fuzz::check(e.evaluator.as_ref(), &pair);
            }
        }
    }
});
