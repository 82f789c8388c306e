//! External subjects: a decoder in another process, in any language,
//! speaking the protocol of `docs/reference/subjects.md` over its stdin and stdout.
//!
//! [`Subject`] owns the processes (one per worker thread that uses it,
//! kept for the whole run) and turns a batch of canonical inputs into one
//! [`RawAnswer`] per input. A batch is written by a writer thread while the
//! calling thread collects responses from a reader thread, so the subject
//! never waits for crossdec and crossdec never blocks on a subject that
//! stopped reading: every wait has the timeout. A crash, a hang or a broken
//! frame is the failure of the input being answered; the process is killed
//! (its whole process group, so a wrapper script's child goes too) and a new
//! one answers the rest.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::campaign::Role;
use crate::canonical::FromCanonical;
use crate::spec::{Outcome, Spec};

/// The protocol version crossdec speaks (`CROSSDEC_PROTOCOL`).
pub const PROTOCOL_VERSION: u32 = 1;

/// Failures in a row (crashes, hangs, garbage; no answer between them)
/// after which a campaign declares a subject broken: it is asked nothing
/// more, its remaining inputs are counted as not asked, and the run fails.
/// A restart per failure is what a data-dependent crash costs; a subject
/// that crashes on input after input would otherwise cost a restart per
/// input for the whole run, and bury its one finding under thousands of
/// copies. Minimizing and `check` ask one input at a time and never
/// declare it broken.
pub const BROKEN_AFTER: u32 = 5;

/// Bytes of a subject's stderr kept for failure messages: its beginning
/// (a sanitizer's or an exception's first line says what happened) and
/// its end.
const STDERR_HEAD: usize = 1024;
const STDERR_TAIL: usize = 2048;

/// What a subject wrote to stderr: the first and the last bytes.
#[derive(Default)]
struct StderrKept {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
}

impl StderrKept {
    fn keep(&mut self, mut bytes: &[u8]) {
        let room = STDERR_HEAD - self.head.len();
        let to_head = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..to_head]);
        bytes = &bytes[to_head..];
        self.tail.extend(bytes);
        let excess = self.tail.len().saturating_sub(STDERR_TAIL);
        self.tail.drain(..excess);
        self.dropped += excess as u64;
    }

    fn text(&self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        let tail = String::from_utf8_lossy(&Vec::from(self.tail.clone())).into_owned();
        let joined = if self.dropped > 0 {
            format!("{head} [... {} bytes ...] {tail}", self.dropped)
        } else {
            format!("{head}{tail}")
        };
        joined.trim().to_string()
    }
}

/// How to run an external subject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubjectCommand {
    /// Its name in reports (and the name allowed-difference rules match).
    pub name: String,
    /// The shell command that starts it (`sh -c COMMAND`).
    pub command: String,
    /// Kernel (exact comparison) or peer (allowed differences apply).
    pub role: Role,
    /// How long one response may take.
    pub timeout: Duration,
    /// The longest response accepted, in bytes.
    pub max_response: usize,
    /// Categories it does not handle: it may answer "unsupported" to every
    /// input there without failing the run.
    pub outside_scope: Vec<String>,
}

impl SubjectCommand {
    /// A subject with the default timeout (10 s) and response limit (256 MiB).
    pub fn new(name: impl Into<String>, command: impl Into<String>, role: Role) -> Self {
        SubjectCommand {
            name: name.into(),
            command: command.into(),
            role,
            timeout: Duration::from_secs(10),
            max_response: 256 << 20,
            outside_scope: Vec::new(),
        }
    }
}

/// One response as it came over the pipe, or the failure that took its
/// place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawAnswer {
    /// Status byte and body of a well-framed response.
    Response {
        /// 0 decoded, 1 rejected, 2 unsupported, 3 failed in its own words.
        status: u8,
        /// What follows the status byte.
        body: Vec<u8>,
    },
    /// The subject crashed, hung or broke the framing on this input.
    Failed(String),
    /// The subject was declared broken before this input, which was not
    /// sent (see [`BROKEN_AFTER`]).
    NotAsked(String),
}

/// What a subject said about one input, in a spec's terms.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<S: Spec + ?Sized> {
    /// A value or an error, comparable with the reference's.
    Outcome(Outcome<S>),
    /// The subject does not handle this input (counted, not compared).
    Unsupported(String),
    /// A failure: a crash, a hang, garbage, or its own words where the spec
    /// has no error for them.
    Failed(String),
    /// Not sent: the subject had been declared broken (not compared).
    NotAsked(String),
}

impl RawAnswer {
    /// This answer in `S`'s terms: the body read back as exactly one
    /// canonical output or error, a status-3 message through
    /// [`Spec::subject_error`].
    pub fn typed<S: Spec + ?Sized>(self, family: &str) -> Answer<S> {
        let (status, body) = match self {
            RawAnswer::Failed(message) => return Answer::Failed(message),
            RawAnswer::NotAsked(why) => return Answer::NotAsked(why),
            RawAnswer::Response { status, body } => (status, body),
        };
        let garbage = |what: &str| {
            Answer::Failed(format!(
                "garbage: status {status} but the body is not one canonical {what} of {family} ({} bytes: {})",
                body.len(),
                clipped_hex(&body)
            ))
        };
        match status {
            0 => S::Output::from_canonical(&body).map_or_else(|| garbage("output"), |v| Answer::Outcome(Ok(v))),
            1 => S::Error::from_canonical(&body).map_or_else(|| garbage("error"), |e| Answer::Outcome(Err(e))),
            2 => Answer::Unsupported(String::from_utf8_lossy(&body).into_owned()),
            3 => {
                let message = String::from_utf8_lossy(&body).into_owned();
                match S::subject_error(&message) {
                    Some(e) => Answer::Outcome(Err(e)),
                    None => Answer::Failed(format!("failed in its own words: {message}")),
                }
            }
            other => Answer::Failed(format!("garbage: unknown status {other}")),
        }
    }
}

fn clipped_hex(bytes: &[u8]) -> String {
    if bytes.len() <= 64 {
        hex::encode(bytes)
    } else {
        format!("{}...", hex::encode(&bytes[..64]))
    }
}

/// A running subject process.
struct Process {
    child: Child,
    /// Batches of frames for the writer thread; dropping it closes stdin.
    requests: Option<Sender<Vec<u8>>>,
    /// Runs of responses (or the failure that ended them) from the reader
    /// thread, and those received but not yet taken.
    responses: Receiver<Vec<Result<Vec<u8>, String>>>,
    received: VecDeque<Result<Vec<u8>, String>>,
    stderr: Arc<Mutex<StderrKept>>,
}

/// An external subject: its command and its running processes.
pub struct Subject {
    command: SubjectCommand,
    family: String,
    idle: Mutex<Vec<Process>>,
    failures_in_a_row: AtomicU32,
    ever_answered: AtomicBool,
    broken: AtomicBool,
    not_asked: AtomicU64,
    last_failure: Mutex<String>,
}

impl Subject {
    /// A subject of `family`; no process starts until it is asked something.
    pub fn new(command: SubjectCommand, family: &str) -> Self {
        Subject {
            command,
            family: family.to_string(),
            idle: Mutex::new(Vec::new()),
            failures_in_a_row: AtomicU32::new(0),
            ever_answered: AtomicBool::new(false),
            broken: AtomicBool::new(false),
            not_asked: AtomicU64::new(0),
            last_failure: Mutex::new(String::new()),
        }
    }

    /// How it runs.
    pub fn command(&self) -> &SubjectCommand {
        &self.command
    }

    /// The family it answers for.
    pub fn family(&self) -> &str {
        &self.family
    }

    /// Whether a campaign declared it broken ([`BROKEN_AFTER`] failures in
    /// a row).
    pub fn is_broken(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }

    /// Whether it ever answered an input with a well-framed response.
    pub fn ever_answered(&self) -> bool {
        self.ever_answered.load(Ordering::Relaxed)
    }

    /// Inputs not sent because it had been declared broken.
    pub fn not_asked(&self) -> u64 {
        self.not_asked.load(Ordering::Relaxed)
    }

    /// Its last failure, as the failure message describes it (empty if none).
    pub fn last_failure(&self) -> String {
        self.last_failure.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// [`exchange`](Self::exchange) for a campaign: once the subject has
    /// failed [`BROKEN_AFTER`] times in a row it is broken, and every input
    /// after that is answered [`RawAnswer::NotAsked`] without being sent.
    pub fn exchange_in_campaign(&self, inputs: &[Vec<u8>]) -> Vec<RawAnswer> {
        self.exchange_inner(inputs, true)
    }

    /// One answer per input, in order: the inputs' canonical bytes are sent
    /// as one pipelined batch to a process of this thread's (started if
    /// there is none idle); a failure restarts the process for the rest.
    pub fn exchange(&self, inputs: &[Vec<u8>]) -> Vec<RawAnswer> {
        self.exchange_inner(inputs, false)
    }

    fn exchange_inner(&self, inputs: &[Vec<u8>], may_break: bool) -> Vec<RawAnswer> {
        let mut answers = Vec::with_capacity(inputs.len());
        let mut process: Option<Process> = None;
        while answers.len() < inputs.len() {
            if may_break && !self.is_broken() && self.failures_in_a_row.load(Ordering::Relaxed) >= BROKEN_AFTER {
                self.broken.store(true, Ordering::Relaxed);
            }
            if may_break && self.is_broken() {
                let why = format!(
                    "subject broken after {BROKEN_AFTER} failures in a row; the last: {}",
                    self.last_failure()
                );
                let left = inputs.len() - answers.len();
                self.not_asked.fetch_add(left as u64, Ordering::Relaxed);
                answers.resize(inputs.len(), RawAnswer::NotAsked(why));
                break;
            }
            let mut running = match process.take().or_else(|| self.checkout()) {
                Some(p) => p,
                None => match self.start() {
                    Ok(p) => p,
                    Err(message) => {
                        self.failed(&message);
                        answers.push(RawAnswer::Failed(message));
                        continue;
                    }
                },
            };
            match self.send_and_collect(&mut running, &inputs[answers.len()..], &mut answers) {
                Ok(()) => process = Some(running),
                Err(message) => {
                    let message = self.stop(running, &message);
                    self.failed(&message);
                    answers.push(RawAnswer::Failed(message));
                }
            }
        }
        if let Some(p) = process {
            self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(p);
        }
        answers
    }

    fn checkout(&self) -> Option<Process> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop()
    }

    fn failed(&self, message: &str) {
        self.failures_in_a_row.fetch_add(1, Ordering::Relaxed);
        *self.last_failure.lock().unwrap_or_else(|p| p.into_inner()) = message.to_string();
    }

    /// Send `inputs` and push their responses onto `answers` until one
    /// fails: `Err` describes that failure (the process is then unusable).
    fn send_and_collect(
        &self,
        process: &mut Process,
        inputs: &[Vec<u8>],
        answers: &mut Vec<RawAnswer>,
    ) -> Result<(), String> {
        let mut batch = Vec::with_capacity(inputs.iter().map(|i| i.len() + 4).sum());
        for input in inputs {
            let len = u32::try_from(input.len())
                .map_err(|_| format!("input of {} bytes is too long to send", input.len()))?;
            batch.extend_from_slice(&len.to_le_bytes());
            batch.extend_from_slice(input);
        }
        let sender = process.requests.as_ref().ok_or("stdin already closed")?;
        // A send fails only when the writer thread has ended (the subject
        // closed its stdin): the responses below then say how it ended.
        let _ = sender.send(batch);
        for _ in inputs {
            if process.received.is_empty() {
                match process.responses.recv_timeout(self.command.timeout) {
                    Ok(run) => process.received.extend(run),
                    Err(RecvTimeoutError::Timeout) => {
                        return Err(format!("hang: no response within {:?}", self.command.timeout))
                    }
                    Err(RecvTimeoutError::Disconnected) => return Err("crash: its output ended".into()),
                }
            }
            match process.received.pop_front().expect("a run holds at least one response") {
                Ok(frame) => {
                    self.ever_answered.store(true, Ordering::Relaxed);
                    self.failures_in_a_row.store(0, Ordering::Relaxed);
                    answers.push(RawAnswer::Response {
                        status: frame[0],
                        body: frame[1..].to_vec(),
                    });
                }
                Err(message) => return Err(message),
            }
        }
        Ok(())
    }

    fn start(&self) -> Result<Process, String> {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(&self.command.command)
            .env("CROSSDEC_PROTOCOL", PROTOCOL_VERSION.to_string())
            .env("CROSSDEC_FAMILY", &self.family)
            .env("CROSSDEC_SUBJECT", &self.command.name)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command
            .spawn()
            .map_err(|e| format!("could not start `{}`: {e}", self.command.command))?;
        let (stdin, stdout, stderr) = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
            (Some(i), Some(o), Some(e)) => (i, o, e),
            _ => return Err("the subject's pipes were not set up".into()),
        };
        let (requests, batches) = mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || write_batches(stdin, batches));
        let (frames, responses) = mpsc::channel();
        let max = self.command.max_response;
        std::thread::spawn(move || read_frames(stdout, max, frames));
        let tail = Arc::new(Mutex::new(StderrKept::default()));
        let keep = tail.clone();
        std::thread::spawn(move || keep_tail(stderr, keep));
        Ok(Process {
            child,
            requests: Some(requests),
            responses,
            received: VecDeque::new(),
            stderr: tail,
        })
    }

    /// Kill a failed process and describe the failure: `what`, how it
    /// ended, the tail of its stderr.
    fn stop(&self, mut process: Process, what: &str) -> String {
        process.requests = None;
        // A crash: give it a moment to be reaped so its status is known.
        let deadline = Instant::now() + Duration::from_millis(200);
        let mut status = process.child.try_wait().ok().flatten();
        while status.is_none() && Instant::now() < deadline && !what.starts_with("hang") {
            std::thread::sleep(Duration::from_millis(5));
            status = process.child.try_wait().ok().flatten();
        }
        kill_group(&mut process.child);
        let status = status.or_else(|| process.child.wait().ok());
        // The stderr thread sees end of file once every holder of the pipe
        // is gone; a short wait lets it take the last lines.
        std::thread::sleep(Duration::from_millis(20));
        let tail = process.stderr.lock().unwrap_or_else(|p| p.into_inner()).text();
        let mut message = format!("subject `{}` {what}", self.command.name);
        if let Some(status) = status {
            message.push_str(&format!(" ({})", describe_exit(status)));
        }
        if !tail.is_empty() {
            message.push_str(&format!("; stderr: {tail}"));
        }
        message
    }
}

impl Drop for Subject {
    fn drop(&mut self) {
        let processes = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner()));
        let mut running: Vec<Process> = processes
            .into_iter()
            .map(|mut p| {
                // Closing stdin is the end of the conversation.
                p.requests = None;
                p
            })
            .collect();
        let deadline = Instant::now() + Duration::from_secs(2);
        for p in &mut running {
            while matches!(p.child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            kill_group(&mut p.child);
            let _ = p.child.wait();
        }
    }
}

fn kill_group(child: &mut Child) {
    // The child leads its own process group (`process_group(0)`), so
    // signalling the group takes a wrapper script's children (a JVM, say)
    // with it. A system call, not a `kill` command: a fork in a
    // multi-threaded program under qemu-user can leave the forked copy stuck
    // on a lock before it reaches `exec`, and a stop must never wait on one.
    #[cfg(unix)]
    {
        let _ =
            rustix::process::kill_process_group(rustix::process::Pid::from_child(child), rustix::process::Signal::KILL);
    }
    let _ = child.kill();
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "ended".into(),
    }
}

fn write_batches(mut stdin: std::process::ChildStdin, batches: Receiver<Vec<u8>>) {
    for batch in batches {
        if stdin.write_all(&batch).and_then(|()| stdin.flush()).is_err() {
            return;
        }
    }
}

/// Read response frames until the output ends or a frame is broken, the
/// last message an `Err` saying which. Frames go out in runs: a frame is
/// held back only while the next one is already whole in the buffer, so a
/// burst of answers costs one hand-over, and an answer never waits on one
/// that has not fully arrived.
fn read_frames(stdout: std::process::ChildStdout, max: usize, runs: Sender<Vec<Result<Vec<u8>, String>>>) {
    let mut stdout = std::io::BufReader::with_capacity(1 << 16, stdout);
    let mut run = Vec::new();
    loop {
        match read_frame(&mut stdout, max) {
            Err(ended) => {
                run.push(Err(ended));
                let _ = runs.send(run);
                return;
            }
            Ok(frame) => {
                run.push(Ok(frame));
                if !whole_frame_buffered(stdout.buffer()) && runs.send(std::mem::take(&mut run)).is_err() {
                    return;
                }
            }
        }
    }
}

/// Whether `buffer` starts with a whole frame (its length and every byte
/// the length announces).
fn whole_frame_buffered(buffer: &[u8]) -> bool {
    match buffer.get(..4) {
        Some(len) => buffer.len() - 4 >= u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize,
        None => false,
    }
}

/// One response frame: its status byte and body. (The status is judged
/// with the body, in [`RawAnswer::typed`]: a frame with an unknown status
/// still leaves the stream in step.)
fn read_frame(stdout: &mut impl Read, max: usize) -> Result<Vec<u8>, String> {
    let mut len = Vec::with_capacity(4);
    match stdout.by_ref().take(4).read_to_end(&mut len) {
        Ok(0) => return Err("crash: closed its output before answering".into()),
        Ok(4) => {}
        Ok(n) => return Err(format!("garbage: output ended {n} bytes into a length")),
        Err(e) => return Err(format!("crash: reading its output failed: {e}")),
    }
    let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
    if len == 0 || len > max {
        return Err(format!(
            "garbage: a response of {len} bytes (a response is 1 to {max} bytes)"
        ));
    }
    // Read as the bytes arrive: the declared length is not trusted with an
    // allocation.
    let mut frame = Vec::new();
    match stdout.take(len as u64).read_to_end(&mut frame) {
        Ok(n) if n == len => Ok(frame),
        Ok(n) => Err(format!("crash: output ended {n} bytes into a {len}-byte response")),
        Err(e) => Err(format!("crash: reading its output failed: {e}")),
    }
}

fn keep_tail(mut stderr: std::process::ChildStderr, kept: Arc<Mutex<StderrKept>>) {
    let mut buf = [0u8; 1024];
    while let Ok(n) = stderr.read(&mut buf) {
        if n == 0 {
            return;
        }
        kept.lock().unwrap_or_else(|p| p.into_inner()).keep(&buf[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_whole_once_its_length_and_bytes_are_buffered() {
        assert!(!whole_frame_buffered(&[]));
        assert!(!whole_frame_buffered(&[1, 0, 0]));
        assert!(!whole_frame_buffered(&[1, 0, 0, 0]));
        assert!(whole_frame_buffered(&[1, 0, 0, 0, 9]));
        assert!(whole_frame_buffered(&[1, 0, 0, 0, 9, 2]));
        assert!(!whole_frame_buffered(&[3, 0, 0, 0, 9, 9]));
        assert!(!whole_frame_buffered(&[0, 0, 0, 1, 9, 9, 9, 9, 9]));
    }

    #[test]
    fn long_bodies_are_quoted_by_their_first_64_bytes() {
        assert_eq!(clipped_hex(&[0xab, 1]), "ab01");
        assert_eq!(clipped_hex(&[7; 64]), "07".repeat(64));
        assert_eq!(clipped_hex(&[7; 65]), format!("{}...", "07".repeat(64)));
    }

    #[test]
    fn stderr_keeps_its_first_and_last_bytes() {
        let mut kept = StderrKept::default();
        kept.keep(b"ERROR: first line\n");
        assert_eq!(kept.text(), "ERROR: first line");
        let mut kept = StderrKept::default();
        kept.keep(b"ERROR: first line\n");
        kept.keep(&[b'.'; 5000]);
        kept.keep(b"SUMMARY: last line");
        let text = kept.text();
        assert!(text.starts_with("ERROR: first line"), "{text}");
        assert!(text.ends_with("SUMMARY: last line"), "{text}");
        assert!(text.len() < STDERR_HEAD + STDERR_TAIL + 40, "{}", text.len());
        let dropped = 18 + 5000 + 18 - STDERR_HEAD - STDERR_TAIL;
        assert!(text.contains(&format!("[... {dropped} bytes ...]")), "{text}");
    }
}
