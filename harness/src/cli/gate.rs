//! `crossdec gate`: the native run's manifest and each cross target's,
//! held to each other and to this binary's registry. A cross run counts
//! only if its manifest proves it ran on the named target with the named
//! byte order, ran every registered family and category, ran every kernel
//! its CPU or emulator could run, and agreed with the native run.

use std::path::PathBuf;

use crate::cli::run::read_manifest;
use crate::engine::gate;
use crate::engine::report::{self, Manifest};
use crate::families;

/// `crossdec gate`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct GateArgs {
    /// The native run's manifest (a run of this binary's target).
    #[arg(long)]
    pub native: PathBuf,
    /// Another target's manifest, the byte order it must show and the
    /// target triple it must have been built for (repeatable).
    #[arg(long = "cross", required = true, value_name = "PATH@big|little@TRIPLE")]
    pub cross: Vec<String>,
    /// Also fail if a kernel did not run on a target that could run it, or
    /// if a registered kernel ran on none.
    #[arg(long)]
    pub require_all_kernels: bool,
    /// A kernel no available target can run (AVX-512 without such a CPU,
    /// say) that must still be reported rather than failed.
    #[arg(long, value_name = "FAMILY/KERNEL=REASON")]
    pub exempt: Vec<String>,
}

/// What the gate found: it passes when `problems` is empty.
#[derive(Debug, Default, PartialEq)]
pub struct Verdict {
    pub problems: Vec<String>,
    /// Exemptions, each with its reason.
    pub notices: Vec<String>,
    /// A line per manifest and per external subject in it.
    pub summary: Vec<String>,
}

/// One `--cross` argument.
#[derive(Debug, PartialEq)]
pub struct CrossSpec {
    pub path: PathBuf,
    pub endian: String,
    pub triple: String,
}

/// Parse `PATH@big@TRIPLE` / `PATH@little@TRIPLE` (the path may hold `@`).
pub fn parse_cross(spec: &str) -> Result<CrossSpec, String> {
    let bad = || format!("--cross takes PATH@big@TRIPLE or PATH@little@TRIPLE, not {spec}");
    let (rest, triple) = spec.rsplit_once('@').ok_or_else(bad)?;
    let (path, endian) = rest.rsplit_once('@').ok_or_else(bad)?;
    if path.is_empty() || triple.is_empty() || !matches!(endian, "big" | "little") {
        return Err(bad());
    }
    Ok(CrossSpec {
        path: path.into(),
        endian: endian.into(),
        triple: triple.into(),
    })
}

fn parse_exempt(e: &str) -> Result<(String, String), String> {
    match e.split_once('=') {
        Some((name, reason)) if name.contains('/') && !reason.is_empty() => Ok((name.into(), reason.into())),
        _ => Err(format!("--exempt takes FAMILY/KERNEL=REASON, not {e}")),
    }
}

/// Run the gate; `Err` for a bad command line. A manifest that cannot be
/// read is a problem, not an error.
pub fn gate(args: &GateArgs) -> Result<Verdict, String> {
    let exemptions = args
        .exempt
        .iter()
        .map(|e| parse_exempt(e))
        .collect::<Result<Vec<_>, _>>()?;
    let crosses = args
        .cross
        .iter()
        .map(|c| parse_cross(c))
        .collect::<Result<Vec<_>, _>>()?;
    let mut verdict = Verdict::default();
    let native = match read_manifest(&args.native) {
        Ok(m) => m,
        Err(e) => {
            verdict.problems.push(e);
            return Ok(verdict);
        }
    };
    let registry: Vec<(String, Vec<String>)> = families::all()
        .iter()
        .map(|f| {
            let categories = f.category_names().into_iter().map(String::from).collect();
            (f.name().to_string(), categories)
        })
        .collect();
    verdict.problems.extend(gate::target_is(&native, report::TARGET));
    verdict.problems.extend(gate::registry_coverage(&native, &registry));
    let mut all = vec![native.clone()];
    for cross in &crosses {
        match read_manifest(&cross.path) {
            Ok(m) => {
                verdict.problems.extend(gate::target_is(&m, &cross.triple));
                verdict.problems.extend(gate::compare(&native, &m, &cross.endian));
                verdict.problems.extend(gate::registry_coverage(&m, &registry));
                all.push(m);
            }
            Err(e) => verdict.problems.push(e),
        }
    }
    if args.require_all_kernels {
        for m in &all {
            verdict.problems.extend(gate::kernels_skipped(m));
        }
        let (missing, notices) = gate::kernels_never_ran_except(&all, &exemptions);
        verdict.problems.extend(missing);
        verdict.notices.extend(notices);
    }
    verdict.summary = all.iter().flat_map(summary).collect();
    Ok(verdict)
}

fn summary(m: &Manifest) -> Vec<String> {
    let cases: u64 = m.families.iter().flat_map(|f| f.cases_per_category.values()).sum();
    let mut lines = vec![format!(
        "{} ({}-endian): {} families, {} cases",
        m.target,
        m.target_endian,
        m.families.len(),
        cases
    )];
    for f in &m.families {
        for (name, s) in &f.subjects {
            let role = format!("{:?}", s.role).to_lowercase();
            lines.push(format!(
                "  external subject {name} ({role}) on {}: {} compared, {} unsupported ({})",
                f.family, s.compared, s.unsupported, s.command
            ));
        }
    }
    lines
}
