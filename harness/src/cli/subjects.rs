//! `--subject` and `--peer-subject`: external subjects
//! (`docs/subjects.md`) for `run`, `check` and `replay`.

use std::time::Duration;

use crate::budget;
use crate::engine::{Family, Role, SubjectCommand};

/// The options that add external subjects to the families a command runs.
#[derive(clap::Args, Default, Debug, Clone)]
pub struct SubjectArgs {
    /// An external subject held to the reference exactly, as a kernel:
    /// `[FAMILY:]NAME=COMMAND` (FAMILY may be left out when one family is
    /// selected). Repeatable. The protocol is in docs/subjects.md.
    #[arg(long = "subject", value_name = "[FAMILY:]NAME=COMMAND")]
    pub kernels: Vec<String>,
    /// An external subject compared as a peer: the family's
    /// allowed-difference rules for NAME apply, each use counted and
    /// bounded. Repeatable.
    #[arg(long = "peer-subject", value_name = "[FAMILY:]NAME=COMMAND")]
    pub peers: Vec<String>,
    /// How long a subject may take to answer one input (10s, 500ms, 2m).
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    pub subject_timeout: String,
}

impl SubjectArgs {
    /// Whether any subject was given.
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty() && self.peers.is_empty()
    }

    /// Register every subject with its family among `families`.
    pub fn attach<'a>(&self, families: impl IntoIterator<Item = &'a mut Box<dyn Family>>) -> Result<(), String> {
        let mut families: Vec<&'a mut Box<dyn Family>> = families.into_iter().collect();
        let timeout = parse_timeout(&self.subject_timeout)?;
        let given = self.kernels.iter().map(|s| (s, Role::Kernel));
        for (text, role) in given.chain(self.peers.iter().map(|s| (s, Role::Peer))) {
            let (family, name, command) = parse(text)?;
            let index = match family {
                Some(f) => families
                    .iter()
                    .position(|x| x.name() == f)
                    .ok_or_else(|| format!("subject {text}: family {f} is not one this command runs"))?,
                None if families.len() == 1 => 0,
                None => {
                    return Err(format!(
                        "subject {text}: name its family (FAMILY:NAME=COMMAND) when several families run"
                    ))
                }
            };
            let target = &mut families[index];
            if target.implementation_list().iter().any(|i| i.name == name) {
                return Err(format!(
                    "subject {text}: {} already has an implementation {name}",
                    target.name()
                ));
            }
            let mut command = SubjectCommand::new(name, command, role);
            command.timeout = timeout;
            target.add_subject(command);
        }
        Ok(())
    }
}

/// `[FAMILY:]NAME=COMMAND` as (family, name, command).
fn parse(text: &str) -> Result<(Option<&str>, &str, &str), String> {
    let (left, command) = text
        .split_once('=')
        .ok_or_else(|| format!("subject {text}: expected [FAMILY:]NAME=COMMAND"))?;
    let (family, name) = match left.split_once(':') {
        Some((f, n)) => (Some(f), n),
        None => (None, left),
    };
    let valid = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c));
    if !valid(name) || family.is_some_and(|f| !valid(f)) || command.trim().is_empty() {
        return Err(format!("subject {text}: expected [FAMILY:]NAME=COMMAND"));
    }
    Ok((family, name, command))
}

fn parse_timeout(text: &str) -> Result<Duration, String> {
    let seconds = match text.trim().strip_suffix("ms") {
        Some(ms) => ms.trim().parse::<f64>().ok().map(|v| v / 1000.0),
        None => budget::parse_duration(text).ok(),
    };
    seconds
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("--subject-timeout {text}: expected a duration like 10s, 500ms or 2m"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_specs_parse_with_and_without_a_family() {
        assert_eq!(
            parse("pgjdbc=subjects/pgjdbc/run"),
            Ok((None, "pgjdbc", "subjects/pgjdbc/run"))
        );
        assert_eq!(
            parse("pg-bytea:pgjdbc=java -cp a:b X=1"),
            Ok((Some("pg-bytea"), "pgjdbc", "java -cp a:b X=1"))
        );
        for bad in ["pgjdbc", "=cmd", "a b=cmd", "f:=cmd", "name=  "] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn timeouts_take_milliseconds_seconds_and_minutes() {
        assert_eq!(parse_timeout("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_timeout("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_timeout("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_timeout("0s").is_err());
        assert!(parse_timeout("soon").is_err());
    }
}
