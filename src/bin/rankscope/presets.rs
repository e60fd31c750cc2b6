//! `rankscope presets` (each tool's conventions as a named preset) and the
//! definitions' fingerprints the JSON output carries.

use std::process::ExitCode;

use rankscope::core::evaluate::Report;
use rankscope::core::fingerprint;
use rankscope::core::presets::{Checked, PRESETS};

/// The presets, one per line: name, tool and version, what it changes, how checked.
pub fn list() -> ExitCode {
    let mut text = String::new();
    for p in PRESETS {
        let a = p.about();
        let checked = match a.checked {
            Checked::Run => "checked by running it".to_string(),
            Checked::Source(cite) => format!("from the source: {cite}"),
            Checked::Via(what) => format!("checked via {what}"),
        };
        text.push_str(&format!(
            "{:<20} {} {}\n{:<20} sets: {}\n{:<20} {}; {checked}\n",
            p.name,
            a.peer,
            a.version,
            "",
            p.changes(),
            "",
            a.note
        ));
    }
    // a closed pipe (`| head`) ends the listing quietly
    let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
    ExitCode::SUCCESS
}

/// Each column's fingerprint (`fingerprint::fingerprint`): the metric's
/// definition under the report's conventions, as a JSON object.
pub fn fingerprints(report: &Report) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> = report
        .columns
        .iter()
        .filter_map(|c| {
            fingerprint::of_text(report.kind, c, &report.conventions)
                .map(|f| (c.clone(), serde_json::Value::String(f)))
        })
        .collect();
    serde_json::Value::Object(map)
}

/// `rankscope explain-number`: the settings that reproduce a printed value.
pub fn explain_number(a: crate::args::Args, asked: crate::args::Asked) -> ExitCode {
    use rankscope::core::evaluate::Dataset;
    use rankscope::core::finder;
    use rankscope::core::registry::{Kind, MetricId};

    let (ws, warnings) = match crate::load(&a) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let data = match crate::one_dataset(&ws) {
        Ok(Dataset::Ranking(d)) => d,
        Ok(_) => return crate::fail(
            "explain-number: the presets are ranking conventions; the files are not ranking data",
        ),
        Err(e) => return crate::fail(e),
    };
    let metric = match MetricId::parse(&asked.metric, Kind::Ranking) {
        Ok(m) => m,
        Err(e) => return crate::fail(format!("--metric {}: {e}", asked.metric)),
    };
    let run = match &asked.model {
        Some(name) => match data.runs.iter().position(|r| &r.name == name) {
            Some(i) => i,
            None => {
                let names: Vec<&str> = data.runs.iter().map(|r| r.name.as_str()).collect();
                return crate::fail(format!("--model {name}: the runs are {}", names.join(", ")));
            }
        },
        None if data.runs.len() == 1 => 0,
        None => {
            let names: Vec<&str> = data.runs.iter().map(|r| r.name.as_str()).collect();
            return crate::fail(format!(
                "several runs ({}): name one with --model",
                names.join(", ")
            ));
        }
    };
    let started = std::time::Instant::now();
    let found = finder::find(
        data,
        run,
        &metric,
        asked.target,
        asked.decimals,
        asked.limit,
    );
    let seconds = started.elapsed().as_secs_f64();
    let printed = format!("{:.*}", asked.decimals, asked.target);
    let describe = |c: &finder::Candidate| -> String {
        let start = c.preset.unwrap_or("Rankscope's defaults");
        let mut s = if c.changes.is_empty() {
            format!("preset {start}")
        } else {
            format!("preset {start}, changed:")
        };
        for (key, value, meaning) in &c.changes {
            s.push_str(&format!("\n      {key}={value}"));
            if !meaning.is_empty() {
                s.push_str(&format!(" ({meaning})"));
            }
        }
        s
    };
    let mut text = String::new();
    if a.format == crate::args::OutputFormat::Json {
        let item = |c: &finder::Candidate| {
            serde_json::json!({
                "preset": c.preset,
                "changes": c.changes.iter().map(|(k, v, m)| serde_json::json!({"key": k, "value": v, "means": m})).collect::<Vec<_>>(),
                "value": c.value,
                "fingerprint": c.fingerprint,
                "conventions": c.conventions,
            })
        };
        let doc = serde_json::json!({
            "metric": metric.to_string(),
            "value": asked.target,
            "decimals": asked.decimals,
            "matches": found.matches.iter().map(item).collect::<Vec<_>>(),
            "nearest": found.nearest.iter().map(item).collect::<Vec<_>>(),
            "tried": found.tried,
            "seconds": seconds,
        });
        text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
    } else if found.matches.is_empty() {
        text.push_str(&format!(
            "No setting of the {} definitions tried gives {metric} = {printed}. The nearest:\n",
            found.tried
        ));
        for c in &found.nearest {
            text.push_str(&format!(
                "  {:.*}  {}\n",
                asked.decimals + 2,
                c.value,
                describe(c)
            ));
        }
    } else {
        text.push_str(&format!(
            "{metric} = {printed} ({} definitions tried), fewest changes from a preset first:\n",
            found.tried
        ));
        for (i, c) in found.matches.iter().enumerate() {
            text.push_str(&format!(
                "{:>2}. {:.*}  {}  [{}]\n",
                i + 1,
                asked.decimals + 2,
                c.value,
                describe(c),
                c.fingerprint
            ));
        }
    }
    let _ = std::io::Write::write_all(
        &mut std::io::stdout(),
        rankscope::text::terminal_safe(&text).as_bytes(),
    );
    crate::warn(&warnings);
    ExitCode::SUCCESS
}
