//! How many generator calls a run makes: a wall-clock budget
//! (`crossdec run --time 60s`) spread over families and their categories,
//! and the depth a change gets (`--changed-since`).
//!
//! A budget is spread in two steps. Each family gets a share of the time
//! (equal shares; with a change, the changed families split
//! [`CHANGED_SHARE`] of it and the others the rest). Within a family the
//! categories keep the proportions their scales give them (so a budget run
//! looks like a `--cases` run, only larger or smaller), sized with the
//! per-call cost a short calibration run measured, and never fewer than
//! [`FLOOR_CALLS`] calls.

use std::collections::BTreeMap;

use crate::FamilyReport;

/// Generator calls per category (before scaling) of the calibration's
/// first, rough probe.
pub const PROBE_CASES: u64 = 4;
/// The share of a family's budget its calibration may spend: a call's cost
/// varies with its index (random sizes, index-driven lengths), so a few
/// calls say little, and the calibration runs as many as this share allows.
pub const CALIBRATION_SHARE: f64 = 0.1;
/// The most generator calls per category (before scaling) a calibration
/// runs.
pub const MAX_CALIBRATION_CASES: u64 = 1000;
/// The fewest generator calls a category gets under a budget.
pub const FLOOR_CALLS: u64 = 4;
/// The most generator calls a category gets under a budget, whatever the
/// calibration measured (a category too fast to time would get no bound).
pub const CEILING_CALLS: u64 = 1 << 24;
/// The share of a budget the changed families split between them.
pub const CHANGED_SHARE: f64 = 0.8;
/// Without a budget, a changed family runs this many times `--cases`.
pub const DEPTH_FACTOR: u64 = 8;
/// Without a budget, an unchanged family runs `--cases` divided by this.
pub const SMOKE_DIVISOR: u64 = 10;

/// Seconds from `60s`, `90s`, `2m`, `1h` or plain seconds (`45`, `2.5`).
pub fn parse_duration(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let (number, unit) = match trimmed.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((at, _)) => trimmed.split_at(at),
        None => (trimmed, "s"),
    };
    let factor = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(format!(
                "--time {text:?}: the unit is s, m or h (60s, 2m, or plain seconds)"
            ))
        }
    };
    match number.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n > 0.0 => Ok(n * factor),
        _ => Err(format!(
            "--time {text:?}: not a positive duration (60s, 2m, or plain seconds)"
        )),
    }
}

/// Generator calls per category (before scaling) of the calibration run of
/// a family whose probe of [`PROBE_CASES`] took `probe_seconds` and whose
/// share of the budget is `share_seconds`: what spends about
/// [`CALIBRATION_SHARE`] of the share, within [`PROBE_CASES`] and
/// [`MAX_CALIBRATION_CASES`].
pub fn calibration_cases(probe_seconds: f64, share_seconds: f64) -> u64 {
    let per_case = probe_seconds.max(1e-6) / PROBE_CASES as f64;
    let cases = (share_seconds * CALIBRATION_SHARE / per_case).floor();
    cases.clamp(PROBE_CASES as f64, MAX_CALIBRATION_CASES as f64) as u64
}

/// A category's weight and measured cost.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryCost {
    /// The category.
    pub name: String,
    /// Its scale: the weight it gets.
    pub scale: f64,
    /// Wall time per generator call in the calibration run.
    pub seconds_per_call: f64,
}

/// The costs a calibration `report` measured for the categories it ran,
/// weighted by `scales` (from [`Family::category_scales`](crate::Family::category_scales)).
pub fn costs(report: &FamilyReport, scales: &[(&str, f64)]) -> Vec<CategoryCost> {
    // A call too fast for the clock still costs something: 1 µs bounds the counts.
    const LEAST_SECONDS_PER_CALL: f64 = 1e-6;
    report
        .categories
        .iter()
        .map(|c| CategoryCost {
            name: c.name.clone(),
            scale: scales.iter().find(|(n, _)| *n == c.name).map_or(1.0, |(_, s)| *s),
            seconds_per_call: (c.seconds / c.calls.max(1) as f64).max(LEAST_SECONDS_PER_CALL),
        })
        .collect()
}

/// Generator calls per category that fill `seconds`: proportional to each
/// category's scale, at least [`FLOOR_CALLS`], at most [`CEILING_CALLS`]. A
/// category held at the floor costs its floor, and the others share what is
/// left.
pub fn calls_filling(costs: &[CategoryCost], seconds: f64) -> BTreeMap<String, u64> {
    let mut at_floor = vec![false; costs.len()];
    loop {
        // calls = k * scale for every category above the floor, and they
        // take k * sum(scale * cost) seconds: k is what fills the rest.
        let floors: f64 = costs
            .iter()
            .zip(&at_floor)
            .filter(|(_, floor)| **floor)
            .map(|(c, _)| FLOOR_CALLS as f64 * c.seconds_per_call)
            .sum();
        let seconds_per_k: f64 = costs
            .iter()
            .zip(&at_floor)
            .filter(|(_, floor)| !**floor)
            .map(|(c, _)| c.scale * c.seconds_per_call)
            .sum();
        let k = if seconds_per_k > 0.0 {
            (seconds - floors).max(0.0) / seconds_per_k
        } else {
            0.0
        };
        let mut settled = true;
        for (c, floor) in costs.iter().zip(&mut at_floor) {
            if !*floor && k * c.scale < FLOOR_CALLS as f64 {
                *floor = true;
                settled = false;
            }
        }
        if settled {
            return costs
                .iter()
                .zip(&at_floor)
                .map(|(c, floor)| {
                    let calls = if *floor {
                        FLOOR_CALLS
                    } else {
                        (k * c.scale).floor().min(CEILING_CALLS as f64) as u64
                    };
                    (c.name.clone(), calls)
                })
                .collect();
        }
    }
}

/// Each family's share of `seconds`, in order: the changed ones split
/// [`CHANGED_SHARE`] of it and the others the rest; equal shares when all
/// or none changed.
pub fn shares(changed: &[bool], seconds: f64) -> Vec<f64> {
    let n_changed = changed.iter().filter(|c| **c).count();
    let n_other = changed.len() - n_changed;
    if n_changed == 0 || n_other == 0 {
        return vec![seconds / changed.len().max(1) as f64; changed.len()];
    }
    changed
        .iter()
        .map(|&c| {
            if c {
                seconds * CHANGED_SHARE / n_changed as f64
            } else {
                seconds * (1.0 - CHANGED_SHARE) / n_other as f64
            }
        })
        .collect()
}

/// Without a budget: generator calls per category (before scaling) of a
/// family the change touched, or of one it did not.
pub fn depth_cases(cases: u64, changed: bool) -> u64 {
    if changed {
        cases.saturating_mul(DEPTH_FACTOR)
    } else {
        (cases / SMOKE_DIVISOR).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calibration_spends_a_tenth_of_the_share_within_bounds() {
        // The probe: 4 cases in 0.5 s. A tenth of 100 s is 10 s: 80 cases.
        assert_eq!(calibration_cases(0.5, 100.0), 80);
        assert_eq!(calibration_cases(0.5, 1.0), PROBE_CASES);
        assert_eq!(calibration_cases(0.0, 100.0), MAX_CALIBRATION_CASES);
        assert_eq!(calibration_cases(1e-3, 1e6), MAX_CALIBRATION_CASES);
    }

    #[test]
    fn durations_in_seconds_minutes_hours_or_plain() {
        assert_eq!(parse_duration("60s"), Ok(60.0));
        assert_eq!(parse_duration("90s"), Ok(90.0));
        assert_eq!(parse_duration("2m"), Ok(120.0));
        assert_eq!(parse_duration("1h"), Ok(3600.0));
        assert_eq!(parse_duration("45"), Ok(45.0));
        assert_eq!(parse_duration(" 2.5 "), Ok(2.5));
        for bad in ["", "s", "0", "0s", "-5s", "5x", "5 minutes", "inf", "NaN", "1e999"] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.starts_with(&format!("--time {bad:?}: ")), "{bad}: {e}");
        }
    }

    fn cost(name: &str, scale: f64, seconds_per_call: f64) -> CategoryCost {
        CategoryCost {
            name: name.into(),
            scale,
            seconds_per_call,
        }
    }

    #[test]
    fn calls_keep_the_scales_proportions_and_fill_the_budget() {
        // Binary fractions, so the arithmetic is exact.
        let costs = [cost("a", 1.0, 1.0 / 1024.0), cost("b", 0.5, 1.0 / 256.0)];
        // k * (1.0 / 1024 + 0.5 / 256) = 3 s: k = 1024.
        let calls = calls_filling(&costs, 3.0);
        assert_eq!(calls, BTreeMap::from([("a".into(), 1024), ("b".into(), 512)]));
        let filled: f64 = costs.iter().map(|c| calls[&c.name] as f64 * c.seconds_per_call).sum();
        assert!((filled - 3.0).abs() < 1e-9, "{filled}");
    }

    #[test]
    fn a_category_held_at_the_floor_leaves_the_rest_to_the_others() {
        // "slow" would get about 2 calls: it runs its floor (4 calls of
        // half a second: 2 s), and "fast" fills the other 6 s.
        let costs = [cost("slow", 0.001, 0.5), cost("fast", 1.0, 1.0 / 256.0)];
        assert_eq!(
            calls_filling(&costs, 8.0),
            BTreeMap::from([("slow".into(), FLOOR_CALLS), ("fast".into(), 1536)])
        );
    }

    #[test]
    fn every_category_gets_the_floor_and_no_more_than_the_ceiling() {
        let costs = [cost("slow", 1.0, 10.0), cost("rare", 0.001, 0.001)];
        assert_eq!(
            calls_filling(&costs, 1.0),
            BTreeMap::from([("slow".into(), FLOOR_CALLS), ("rare".into(), FLOOR_CALLS)])
        );
        assert_eq!(calls_filling(&costs, -1.0)["slow"], FLOOR_CALLS);
        assert_eq!(calls_filling(&[cost("free", 1.0, 0.0)], 60.0)["free"], FLOOR_CALLS);
        assert_eq!(calls_filling(&[cost("fast", 1.0, 1e-12)], 60.0)["fast"], CEILING_CALLS);
    }

    #[test]
    fn changed_families_get_most_of_the_budget() {
        let close = |got: Vec<f64>, want: &[f64]| {
            assert_eq!(got.len(), want.len(), "{got:?}");
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9),
                "{got:?} != {want:?}"
            );
        };
        close(shares(&[true, false, false], 10.0), &[8.0, 1.0, 1.0]);
        close(shares(&[true, true, false], 10.0), &[4.0, 4.0, 2.0]);
        assert_eq!(shares(&[false, false], 10.0), [5.0, 5.0]);
        assert_eq!(shares(&[true, true], 10.0), [5.0, 5.0]);
        assert!(shares(&[], 10.0).is_empty());
    }

    #[test]
    fn without_a_budget_changed_families_go_deeper_and_the_rest_smoke() {
        assert_eq!(depth_cases(200, true), 1600);
        assert_eq!(depth_cases(200, false), 20);
        assert_eq!(depth_cases(5, false), 1);
        assert_eq!(depth_cases(u64::MAX, true), u64::MAX);
    }

    #[test]
    fn costs_are_seconds_per_call_weighted_by_scale() {
        use crate::report::CategoryReport;
        let report = FamilyReport {
            family: "f".into(),
            seed: 1,
            cases_per_category_call: 4,
            categories: vec![
                CategoryReport {
                    name: "a".into(),
                    calls: 4,
                    seconds: 0.02,
                    ..Default::default()
                },
                CategoryReport {
                    name: "b".into(),
                    calls: 1,
                    seconds: 0.0,
                    ..Default::default()
                },
            ],
            implementations: vec![],
            allowed_differences: vec![],
            failures_left_out: 0,
            problems: vec![],
            failures: vec![],
            bounds_exceeded: vec![],
            failure_count: 0,
            digest: String::new(),
            seconds: 0.02,
        };
        assert_eq!(
            costs(&report, &[("a", 0.5), ("b", 2.0)]),
            [cost("a", 0.5, 0.005), cost("b", 2.0, 1e-6)]
        );
    }
}
