//! `--subject` and `--peer-subject`: external subjects
//! (`docs/reference/subjects.md`) for `run`, `check` and `replay`.

use std::time::Duration;

use crate::budget;
use crate::engine::{Family, Role, SubjectCommand};

/// The options that add external subjects to the families a command runs.
#[derive(clap::Args, Debug, Clone)]
pub struct SubjectArgs {
    /// An external subject held to the reference exactly, as a kernel:
    /// `[FAMILY:]NAME=COMMAND` (FAMILY may be left out when one family is
    /// selected). Repeatable. The protocol is in docs/reference/subjects.md.
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
    /// Categories a subject does not handle: it may answer "unsupported" to
    /// every input there (anywhere else, a subject that compared no case of
    /// a category fails the run). Repeatable.
    #[arg(long, value_name = "NAME=CATEGORY[,CATEGORY...]")]
    pub outside_scope: Vec<String>,
}

impl Default for SubjectArgs {
    /// No subjects, the command line's default timeout.
    fn default() -> Self {
        SubjectArgs {
            kernels: Vec::new(),
            peers: Vec::new(),
            subject_timeout: "10s".into(),
            outside_scope: Vec::new(),
        }
    }
}

impl SubjectArgs {
    /// Whether any subject was given.
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty() && self.peers.is_empty()
    }

    /// Register every subject with its family among `families`.
    pub fn attach<'a>(&self, families: impl IntoIterator<Item = &'a mut Box<dyn Family>>) -> Result<(), String> {
        if self.is_empty() {
            return match self.outside_scope.first() {
                Some(scope) => Err(format!("--outside-scope {scope}: no subject was given")),
                None => Ok(()),
            };
        }
        let scopes = self.scopes()?;
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
            let categories = target.category_names();
            let mut command = SubjectCommand::new(name, command, role);
            command.timeout = timeout;
            for (subject, category) in &scopes {
                if subject == name {
                    if !categories.contains(&category.as_str()) {
                        return Err(format!(
                            "--outside-scope {name}={category}: {} has no category {category}; it has: {}",
                            target.name(),
                            categories.join(", ")
                        ));
                    }
                    command.outside_scope.push(category.clone());
                }
            }
            target.add_subject(command);
        }
        for (subject, _) in &scopes {
            let given = self
                .kernels
                .iter()
                .chain(&self.peers)
                .any(|text| parse(text).is_ok_and(|(_, name, _)| name == subject));
            if !given {
                return Err(format!(
                    "--outside-scope {subject}=...: no subject named {subject} was given"
                ));
            }
        }
        Ok(())
    }

    /// `--outside-scope` as (subject, category) pairs.
    fn scopes(&self) -> Result<Vec<(String, String)>, String> {
        let mut pairs = Vec::new();
        for text in &self.outside_scope {
            let (name, categories) = text
                .split_once('=')
                .filter(|(n, c)| !n.is_empty() && !c.is_empty())
                .ok_or_else(|| format!("--outside-scope {text}: expected NAME=CATEGORY[,CATEGORY...]"))?;
            pairs.extend(categories.split(',').map(|c| (name.to_string(), c.trim().to_string())));
        }
        Ok(pairs)
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
    parse_duration_arg("--subject-timeout", text)
}

/// A duration option's value (10s, 500ms, 2m, or plain seconds), more than
/// zero; the error names `option`.
pub fn parse_duration_arg(option: &str, text: &str) -> Result<Duration, String> {
    let seconds = match text.trim().strip_suffix("ms") {
        Some(ms) => ms.trim().parse::<f64>().ok().map(|v| v / 1000.0),
        None => budget::parse_duration(text).ok(),
    };
    seconds
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("{option} {text}: expected a duration like 10s, 500ms or 2m"))
}

/// The longest request [`serve_reference`] reads.
const MAX_REQUEST: usize = 1 << 30;

/// Serve the protocol of `docs/reference/subjects.md` on `input`/`output` with the
/// family's reference decoder: `crossdec serve-reference --family F`. It is
/// the protocol's own end-to-end check (the reference over the pipe must
/// agree with the reference in-process on every input of every family),
/// the in-process-versus-pipe throughput measure, and a working example of
/// a subject. `Err` on a broken request stream.
pub fn serve_reference(
    family: &dyn Family,
    input: impl std::io::Read,
    output: impl std::io::Write,
) -> Result<(), String> {
    use std::io::{BufRead, Read, Write};
    let mut input = std::io::BufReader::with_capacity(1 << 16, input);
    let mut output = std::io::BufWriter::with_capacity(1 << 16, output);
    let broken = |e: std::io::Error| format!("serve-reference: {e}");
    loop {
        // Flush before blocking on the next request (the protocol's one
        // rule); while requests are already buffered, answers batch up.
        if input.buffer().is_empty() {
            output.flush().map_err(broken)?;
        }
        if input.fill_buf().map_err(broken)?.is_empty() {
            return output.flush().map_err(broken);
        }
        let mut len = [0u8; 4];
        input.read_exact(&mut len).map_err(broken)?;
        let len = u32::from_le_bytes(len) as usize;
        if len > MAX_REQUEST {
            return Err(format!(
                "serve-reference: a request of {len} bytes (at most {MAX_REQUEST})"
            ));
        }
        let mut request = Vec::new();
        (&mut input)
            .take(len as u64)
            .read_to_end(&mut request)
            .map_err(broken)?;
        if request.len() != len {
            return Err("serve-reference: the input ended inside a request".into());
        }
        let answer = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| family.reference_outcome(&request)))
        {
            Ok(Some(outcome)) => outcome,
            Ok(None) => [&[2u8][..], b"not an input of this family"].concat(),
            Err(_) => [&[3u8][..], b"the reference panicked"].concat(),
        };
        let framed = u32::try_from(answer.len()).map_err(|_| "serve-reference: an answer over 4 GiB".to_string())?;
        output.write_all(&framed.to_le_bytes()).map_err(broken)?;
        output.write_all(&answer).map_err(broken)?;
    }
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
    fn no_subjects_attach_nothing_whatever_the_timeout_says() {
        let none = SubjectArgs {
            subject_timeout: String::new(),
            ..SubjectArgs::default()
        };
        assert_eq!(none.attach(std::iter::empty()), Ok(()));
        assert_eq!(SubjectArgs::default().subject_timeout, "10s");
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
