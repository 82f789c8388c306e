//! The `crossdec` command line: its commands and options, in the library
//! so that tests can parse every command the documentation shows.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::cli::gate::GateArgs;
use crate::cli::junit::JunitArgs;
use crate::cli::run::RunArgs;
use crate::cli::subjects::SubjectArgs;

/// `--hex`: bytes, or what is wrong with the text and where.
pub fn hex_arg(text: &str) -> Result<Vec<u8>, String> {
    crate::engine::parse_hex(text)
}

#[derive(Parser)]
#[command(
    name = "crossdec",
    version,
    about = "Prove optimized decoders agree with their reference, on every architecture",
    arg_required_else_help = true
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// `--writer`: whose layouts to read where the official writers' differ.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum WriterArg {
    /// The C++ library (PyPI `tsfile`, the C and Python APIs).
    Cpp,
    /// The Java library (IoTDB, the Java API).
    Java,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run differential campaigns (every family when no --family is given).
    Run(RunArgs),
    /// Write one JUnit XML file from runs' report.json files and CI stages.
    Junit(JunitArgs),
    /// List families, their categories and implementations.
    List,
    /// Check one case (a reproducer) against the reference and every implementation.
    ///
    /// Each step's canonical input is given as hex (--hex) or as a file of
    /// its bytes (--file); every available implementation, or the ones named
    /// with --impl, decodes it. Prints the reference's outcome and each
    /// implementation's verdict. Exit 1 unless every one compared every
    /// step and agreed.
    Check {
        /// The family whose input this is.
        #[arg(long)]
        family: String,
        /// A step's canonical input, in hex (repeat for a case of several
        /// steps, decoded in order by one decoder).
        #[arg(long, value_name = "HEX", required_unless_present = "file", value_parser = hex_arg)]
        hex: Vec<Vec<u8>>,
        /// A file holding a step's canonical input (repeatable).
        #[arg(long, value_name = "FILE", conflicts_with = "hex")]
        file: Vec<PathBuf>,
        /// Only this implementation (repeatable; a subject given with
        /// --subject is one too).
        #[arg(long = "impl", value_name = "NAME")]
        implementations: Vec<String>,
        /// Report an implementation named with --impl that this host cannot
        /// run instead of refusing the command.
        #[arg(long)]
        allow_unavailable: bool,
        /// External subjects (docs/reference/subjects.md).
        #[command(flatten)]
        subjects: SubjectArgs,
    },
    /// Read real TsFiles with the reference and every kernel, and compare.
    ///
    /// Files or directories of *.tsfile: decode every
    /// page with the reference and every kernel, compare, print a summary per
    /// encoding; exit 1 on a disagreement (each written out with the command
    /// that reproduces it) or a page nothing could read. With --filter: scan
    /// the aligned devices under the filter with the reference and each
    /// aligned-scanner kernel, compare the rows, print the page plan's
    /// statistics.
    Tsfile {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Where disagreeing pages are written.
        #[arg(long, default_value = "target/crossdec/tsfile-repro")]
        repro_dir: PathBuf,
        /// The writer, where the Java and C++ layouts differ (RLBE floats,
        /// SPRINTZ INT64 / DOUBLE): cpp (the PyPI / C / Python library) or java.
        #[arg(long, value_enum, default_value_t = WriterArg::Cpp)]
        writer: WriterArg,
        /// The time column's encoding in non-aligned chunks (not recorded in
        /// the file): the writer's setting.
        #[arg(long, default_value = "TS_2DIFF")]
        time_encoding: String,
        /// Most values one page may decode to.
        #[arg(long)]
        max_page_values: Option<u64>,
        /// Largest uncompressed page, in bytes.
        #[arg(long)]
        max_page_bytes: Option<u64>,
        /// Scan aligned devices under this filter, e.g.
        /// "time >= 1000 and time < 2000 and s1 > 3.5" ("" for every row;
        /// grammar in docs/families/tsfile-aligned.md).
        #[arg(long)]
        filter: Option<String>,
        /// With --filter: the devices to scan (as the index names them,
        /// `table.tag`); default every aligned device.
        #[arg(long)]
        device: Vec<String>,
        /// With --filter: the columns, comma-separated; default every column
        /// the scanners read.
        #[arg(long, value_delimiter = ',')]
        columns: Vec<String>,
        /// With --filter: matching rows to drop first.
        #[arg(long, default_value_t = 0)]
        offset: u64,
        /// With --filter: the most rows returned.
        #[arg(long)]
        limit: Option<u64>,
        /// With --filter: rows per output block.
        #[arg(long, default_value_t = 4096)]
        block_rows: u64,
        /// With --filter: rows to print per device.
        #[arg(long, default_value_t = 5)]
        print_rows: usize,
        /// With --filter: scans per implementation; the median time is printed.
        #[arg(long, default_value_t = 1)]
        repeat: usize,
    },
    /// Write a seed corpus for a fuzz target from the family's generators.
    Corpus {
        #[arg(long)]
        family: String,
        #[arg(long)]
        out: PathBuf,
        /// Generator calls per category.
        #[arg(long, default_value_t = 20)]
        cases: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// raw (canonical inputs) or structured (byte strings for the structured target).
        #[arg(long, default_value = "raw")]
        mode: String,
    },
    /// Replay corpus or crash files through the differential engine.
    ///
    /// Without libFuzzer: on any target, under QEMU or Miri. The fuzz target comes
    /// from --target, else --family (its raw target), else each file's
    /// directory name (`fuzz/corpus/<target>/...`).
    Replay {
        paths: Vec<PathBuf>,
        #[arg(long)]
        target: Option<String>,
        #[arg(long)]
        family: Option<String>,
        #[command(flatten)]
        subjects: SubjectArgs,
    },
    /// Be an external subject that answers with the family's reference decoder.
    ///
    /// On stdin and stdout, in the subject protocol (docs/reference/subjects.md): the
    /// protocol's own check and example.
    ServeReference {
        #[arg(long)]
        family: String,
    },
    /// List the fuzz targets: name, family, mode, peers.
    FuzzTargets,
    /// Check every family's digests against the committed golden file.
    ///
    /// Or rewrite it (--update) after an intended change.
    Golden {
        #[arg(long, default_value = "harness/tests/golden.json")]
        file: PathBuf,
        #[arg(long)]
        update: bool,
    },
    /// Compare manifests from different targets; fail unless they agree.
    Gate(GateArgs),
    /// Write a release certificate from a certification run.
    ///
    /// JSON, Markdown, JUnit XML and SVG, from the run's manifests, fuzz
    /// report, mutation summary, bug zoo and performance targets, with this
    /// build's golden check; exit 1 unless everything passed.
    Certify(crate::cli::certify::CertifyArgs),
}
