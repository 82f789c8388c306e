//! Family `tsfile-aligned`: one TsFile aligned chunk group (a time chunk
//! plus N value chunks) scanned under a filter with offset / limit into
//! blocks, by the row-at-a-time reference scanner and by the kernel scanner
//! (page plan, bulk copy, in-place decode) with and without its
//! optimizations. Compared on every block's times and cells (validity
//! included), block sizes, and errors with their chunk, page and byte
//! offset. Semantics: `docs/families/tsfile-aligned.md`.

/// The files this family is made of (see [`super::Registration`]).
pub const SOURCES: &[&str] = &[
    "kernels/src/tsfile/aligned/",
    "kernels/src/tsfile/minmax.rs",
    "reference/src/tsfile/aligned/",
    "harness/src/families/tsfile_aligned/",
    "harness/tests/integration/tsfile_aligned.rs",
    // The filter language and its depth limit, which the family's filters
    // are read back with.
    "tsfile/src/filter.rs",
];

mod convert;
pub mod generate;
mod types;

pub use convert::{
    filter_of_text, kernel_group, kernel_request, reference_group, reference_request, scanned_from_kernel,
    scanned_through_arrow, Codecs,
};
pub use types::{
    AlignedInput, Block, Cell, Fault, FieldFilter, FieldOp, Request, Scanned, TimeFilter, Unread, ValueChunk,
    MAX_FILTER_DEPTH, WRITER_CPP, WRITER_JAVA,
};

use crossdec_kernels::tsfile::aligned as k;
use crossdec_reference::tsfile::aligned as r;

use crate::engine::{Campaign, Canonical, Category, Outcome, Parse, Spec};

/// The most rows a fuzz execution's blocks may hold: the kernel reserves a
/// fresh block's rows (up to 65,536) by the request's block size, so a
/// fuzzed size would make every execution allocate that much.
pub const FUZZ_MAX_BLOCK_ROWS: u64 = 1 << 12;

/// A kernel variant's scan options.
pub type Options = fn() -> k::ScanOptions;

/// The kernel scanner's variants: the default (plan, bulk copy, in-place
/// decode) and the baseline (plan only), both held to the reference.
pub const KERNELS: [(&str, Options); 2] = [
    ("aligned/planned", k::ScanOptions::default),
    ("aligned/baseline", k::ScanOptions::baseline),
];

/// The promise both scanners document (`docs/families/tsfile-aligned.md`, "Lying
/// statistics"): the kernel trusts page statistics to skip pages and stops
/// at the limit, so damage the reference finds in a page the kernel did not
/// read may be missing from its outcome.
pub const UNREAD_PAGE_PROMISE: &str = "damage-in-an-unread-page";

/// The aligned scan spec.
pub struct AlignedFamily;

/// The family: both kernel variants, and the default one's Arrow record
/// batches read back, against the reference.
pub fn campaign() -> Campaign<AlignedFamily> {
    KERNELS
        .into_iter()
        .fold(Campaign::new(AlignedFamily), |campaign, (name, options)| {
            campaign.kernel_fn(name, move |input: &AlignedInput| kernel_scan(input, options()))
        })
        .kernel_fn("aligned/arrow", |input: &AlignedInput| {
            let (Some(group), Some(request)) = (kernel_group(input), kernel_request(&input.request, input.writer))
            else {
                return kernel_scan(input, k::ScanOptions::default());
            };
            let out = k::scan_with(&group, &request, k::ScanOptions::default(), &Codecs);
            convert::scanned_through_arrow(input, &out)
        })
}

/// Scan with the reference.
pub fn reference_scan(input: &AlignedInput) -> Outcome<AlignedFamily> {
    let Some(group) = reference_group(input) else {
        return Err(Fault::unknown_tag());
    };
    let Some(request) = reference_request(&input.request, input.writer) else {
        return Err(Fault::bad_request());
    };
    match r::scan_with(&group, &request, &Codecs) {
        Ok(blocks) => Ok(Scanned {
            blocks: blocks.iter().map(Block::from_reference).collect(),
            unread: Unread::default(),
        }),
        Err(e) => Err(Fault::from_reference(&e)),
    }
}

/// Scan with the kernel scanner under `options`.
pub fn kernel_scan(input: &AlignedInput, options: k::ScanOptions) -> Outcome<AlignedFamily> {
    let Some(group) = kernel_group(input) else {
        return Err(Fault::unknown_tag());
    };
    let Some(request) = kernel_request(&input.request, input.writer) else {
        return Err(Fault::bad_request());
    };
    scanned_from_kernel(&k::scan_with(&group, &request, options, &Codecs))
}

impl Spec for AlignedFamily {
    type Input = AlignedInput;
    type Output = Scanned;
    type Error = Fault;

    fn name(&self) -> &'static str {
        "tsfile-aligned"
    }

    fn categories(&self) -> Vec<Category<AlignedInput>> {
        let categories = super::named_categories(generate::CATEGORIES, generate::generate);
        super::with_large(categories, generate::LARGE)
    }

    fn reference(&self, input: &AlignedInput) -> Outcome<Self> {
        reference_scan(input)
    }

    fn parse(&self, bytes: &[u8]) -> Option<AlignedInput> {
        AlignedInput::parse(bytes)
    }

    fn shrink(&self, input: &AlignedInput) -> Vec<AlignedInput> {
        generate::shrink(input)
    }

    fn cap_for_fuzzing(&self, input: &mut AlignedInput) {
        input.request.block_rows = input.request.block_rows.min(FUZZ_MAX_BLOCK_ROWS);
    }

    /// The reference reported an error in a page (of a chunk) that the
    /// implementation's outcome says it did not read.
    fn promised_difference(
        &self,
        _input: &AlignedInput,
        expected: &Outcome<Self>,
        got: &Outcome<Self>,
    ) -> Option<&'static str> {
        let Err(error) = expected else { return None };
        let unread = match got {
            Ok(scanned) => &scanned.unread,
            Err(fault) => &fault.unread,
        };
        unread
            .left_unread(error.chunk, error.page)
            .then_some(UNREAD_PAGE_PROMISE)
    }
}

/// The canonical bytes of an input, as corpus files and `crossdec check
/// --hex` take them.
pub fn canonical_input(input: &AlignedInput) -> Vec<u8> {
    input.to_canonical()
}
