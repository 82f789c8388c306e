//! `crossdec junit`: one JUnit file for a whole CI gate, from the
//! `report.json` of each target's run (suites prefixed by the target) and
//! the stages the CI script recorded.

use std::path::{Path, PathBuf};

use crate::engine::report::RunReport;
use crate::junit::{self, Suite};

/// `crossdec junit`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct JunitArgs {
    /// The JUnit file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// LABEL=PATH: a run's report.json; its suites are named LABEL/FAMILY (repeatable).
    #[arg(long = "report", value_name = "LABEL=PATH")]
    pub reports: Vec<String>,
    /// A file of CI stages, one per line: NAME<TAB>pass|fail<TAB>SECONDS[<TAB>MESSAGE].
    #[arg(long, value_name = "FILE")]
    pub stages: Option<PathBuf>,
    /// The name of the stages' suite.
    #[arg(long, default_value = "ci/test")]
    pub stages_suite: String,
}

/// Write the JUnit file `args` describes; `Err` for bad input.
pub fn junit(args: &JunitArgs) -> Result<(), String> {
    let suites = suites(args)?;
    let xml = junit::document("crossdec gate", &suites);
    std::fs::write(&args.out, xml).map_err(|e| format!("{}: {e}", args.out.display()))?;
    println!(
        "junit: {} suites, {} test cases in {}",
        suites.len(),
        suites.iter().map(|s| s.cases.len()).sum::<usize>(),
        args.out.display()
    );
    Ok(())
}

fn suites(args: &JunitArgs) -> Result<Vec<Suite>, String> {
    let mut suites = Vec::new();
    if let Some(path) = &args.stages {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let cases = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                junit::parse_stage(line).map(|mut case| {
                    case.classname = args.stages_suite.clone();
                    case
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        suites.push(Suite {
            name: args.stages_suite.clone(),
            seconds: cases.iter().map(|c| c.seconds).sum(),
            cases,
        });
    }
    for spec in &args.reports {
        let Some((label, path)) = spec.split_once('=').filter(|(l, p)| !l.is_empty() && !p.is_empty()) else {
            return Err(format!("--report takes LABEL=PATH, not {spec}"));
        };
        let report = read_report(Path::new(path))?;
        suites.extend(junit::campaign_suites(&format!("{label}/"), &report.families));
    }
    Ok(suites)
}

fn read_report(path: &Path) -> Result<RunReport, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not a crossdec report.json: {e}", path.display()))
}
