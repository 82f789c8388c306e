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
    // The native run is this binary's target: its byte order is known here,
    // so a native manifest claiming another one (or none) proves nothing.
    if gate::byte_order(&native).is_empty() && native.target_endian != report::endian() {
        verdict.problems.push(format!(
            "native manifest says {}-endian, but {} is {}-endian",
            native.target_endian,
            report::TARGET,
            report::endian()
        ));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A complete manifest as a person would write it by hand, of this
    /// binary's target and byte order.
    fn hand_written() -> serde_json::Value {
        let text = format!(
            r#"{{
                "crossdec_version": "0.1.0",
                "target": "{target}",
                "target_endian": "{endian}",
                "pointer_width": 64,
                "cpu_features": [],
                "seed": 1,
                "cases": 2,
                "families": [{{
                    "family": "qwp-ts",
                    "implementations": {{"qwp/word64": true}},
                    "kernels": ["qwp/word64"],
                    "kernels_available": ["qwp/word64"],
                    "kernels_ran": ["qwp/word64"],
                    "cases_per_category": {{"random": 2}},
                    "calls_per_category": {{"random": 2}},
                    "category_digests": {{"random": "ab"}},
                    "digest": "ab",
                    "tolerated": {{}},
                    "compared": {{"qwp/word64": 4}},
                    "failures": 0
                }}],
                "failures": 0
            }}"#,
            target = report::TARGET,
            endian = report::endian()
        );
        serde_json::from_str(&text).expect("valid JSON")
    }

    /// The fields a manifest cannot be read without: every one but those
    /// older manifests may lack (which read as empty or zero).
    const REQUIRED: &[&str] = &[
        "crossdec_version",
        "target",
        "target_endian",
        "seed",
        "cases",
        "families",
        "failures",
    ];
    const REQUIRED_PER_FAMILY: &[&str] = &[
        "family",
        "implementations",
        "kernels",
        "kernels_ran",
        "cases_per_category",
        "digest",
        "failures",
    ];

    /// The gate's problems with `native` as the native manifest and the
    /// complete one as the cross run.
    fn problems_with(native: &serde_json::Value, name: &str) -> Vec<String> {
        let dir = std::env::temp_dir().join(format!("crossdec-gate-fields-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let native_path = dir.join("native.json");
        let cross_path = dir.join("cross.json");
        std::fs::write(&native_path, native.to_string()).unwrap();
        std::fs::write(&cross_path, hand_written().to_string()).unwrap();
        let verdict = gate(&GateArgs {
            native: native_path,
            cross: vec![format!(
                "{}@{}@{}",
                cross_path.display(),
                report::endian(),
                report::TARGET
            )],
            require_all_kernels: false,
            exempt: Vec::new(),
        })
        .expect("a valid command line");
        std::fs::remove_dir_all(&dir).ok();
        verdict.problems
    }

    #[test]
    fn the_complete_hand_written_manifest_is_read() {
        let problems = problems_with(&hand_written(), "complete");
        assert!(
            problems
                .iter()
                .all(|p| !p.contains("not a crossdec manifest") && !p.contains("byte order") && !p.contains("endian")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_manifest_missing_a_required_field_is_refused_naming_it() {
        for field in REQUIRED {
            let mut m = hand_written();
            m.as_object_mut().unwrap().remove(*field);
            let problems = problems_with(&m, field);
            assert!(
                problems.iter().any(|p| p.contains(&format!("`{field}`"))),
                "a manifest without {field}: {problems:?}"
            );
        }
        for field in REQUIRED_PER_FAMILY {
            let mut m = hand_written();
            m["families"][0].as_object_mut().unwrap().remove(*field);
            let problems = problems_with(&m, &format!("family-{field}"));
            assert!(
                problems.iter().any(|p| p.contains(&format!("`{field}`"))),
                "a family without {field}: {problems:?}"
            );
        }
    }

    #[test]
    fn a_native_manifest_with_no_or_another_byte_order_is_refused() {
        let other = if report::endian() == "little" { "big" } else { "little" };
        for (endian, says) in [
            ("", "target_endian"),
            ("middle", "target_endian"),
            (other, "-endian, but"),
        ] {
            let mut m = hand_written();
            m["target_endian"] = endian.into();
            let problems = problems_with(&m, &format!("endian-{endian}"));
            assert!(problems.iter().any(|p| p.contains(says)), "{endian:?}: {problems:?}");
        }
    }
}
