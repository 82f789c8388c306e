/*
 * ts2diff.c: a crossdec external subject (docs/reference/subjects.md, protocol
 * version 1) for the family `tsfile-ts2diff`, written in C.
 *
 * It decodes Apache TsFile TS_2DIFF pages of INT32 and INT64 values, ported
 * from crossdec's reference decoder (reference/src/tsfile/ts2diff.rs) and
 * the format notes (formats/tsfile.md, section TS_2DIFF; docs/tsfile.md).
 * It must agree with the reference exactly: the same values and `consumed`
 * for a good page, and for a malformed one the same error kind, field and
 * byte offset (the TsFault / TsField tags of
 * harness/src/families/tsfile/mod.rs).
 *
 * Page layout: blocks until the page's bytes end, each block (big-endian)
 *
 *     writeIndex   i32          deltas in the block (the block holds writeIndex + 1 values)
 *     bitWidth     i32          0..=32 (INT32) or 0..=64 (INT64)
 *     minDeltaBase i32 or i64   not validated (a one-value block writes MAX_VALUE)
 *     firstValue   i32 or i64
 *     packed       ceil(writeIndex * bitWidth / 8) bytes, MSB-first
 *
 * and v[0] = firstValue, v[i] = v[i-1] + minDeltaBase + packed[i-1], with
 * wrapping arithmetic.
 *
 * Protocol: requests and responses are frames (u32 little-endian length,
 * then that many bytes); a response is a status byte and a body. Requests
 * are read through our own buffer with read(2); each response is built in
 * memory and written with write(2) as soon as it is complete, in one call.
 * crossdec pipelines requests and waits for their answers, so a response
 * must never sit in a buffer while we block on input; and writing each one
 * at once (rather than batching until input runs dry) also means that when
 * the process dies (a sanitizer report, a crash), every earlier input has
 * its answer, and crossdec blames the input that was being decoded.
 *
 * Safety rules this file keeps: every read of page bytes is checked against
 * the page's length first; nothing is allocated from a count the input
 * claims (the value array grows as values are decoded, and never past
 * max_values); all arithmetic on values is unsigned (the Java and C++
 * decoders wrap, and signed overflow in C is undefined); no shift is by the
 * type's width or more. It is meant to run under
 * -fsanitize=address,undefined -fno-sanitize-recover=all.
 */

#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* The family's canonical input (TsInput), as the harness parses it.        */
/* ------------------------------------------------------------------------ */

/* TsFile encoding id of TS_2DIFF. */
#define ENCODING_TS2DIFF 4

/* Canonical data type ids (also the tags of the output's value list). */
#define TYPE_INT32 1
#define TYPE_INT64 2
/* TsFile's DATE and TIMESTAMP ids, which the harness reads as INT32 and
 * INT64 (DataType::from_id): accepted here the same way. */
#define TYPE_DATE 9
#define TYPE_TIMESTAMP 8

/* encoding u8, type u8, stop mode u8, count u32, max_values u32. */
#define INPUT_HEADER_LEN 11

/* The harness clamps max_values (and the stop count) to this when it parses
 * an input (MAX_VALUES_CAP), so the reference never sees a larger bound;
 * clamping here too keeps us equal to it even if a frame carries more. */
#define MAX_VALUES_CAP (UINT32_C(1) << 20)

/* The largest writeIndex the reference accepts (MAX_BLOCK_DELTAS). */
#define MAX_BLOCK_DELTAS INT64_C(65536)

/* ------------------------------------------------------------------------ */
/* The family's canonical error (TsFault) and field (TsField) tags.         */
/* ------------------------------------------------------------------------ */

enum ts_fault_tag {
    FAULT_TRUNCATED = 0,       /* field u8, offset u64, bit u8 */
    FAULT_BAD_BIT_WIDTH = 1,   /* width i64, max u32, offset u64 */
    FAULT_BAD_COUNT = 2,       /* field u8, count i64, offset u64 */
    FAULT_TOO_MANY_VALUES = 7, /* max u64, offset u64 */
};

enum ts_field_tag {
    FIELD_WRITE_INDEX = 0,
    FIELD_BIT_WIDTH = 1,
    FIELD_MIN_DELTA_BASE = 2,
    FIELD_FIRST_VALUE = 3,
    FIELD_PACKED = 4,
};

/* One decode error: the kind's tag and whichever fields it has. */
struct ts_fault {
    enum ts_fault_tag tag;
    enum ts_field_tag field; /* TRUNCATED, BAD_COUNT */
    int64_t number;          /* BAD_BIT_WIDTH: the width; BAD_COUNT: the count */
    uint64_t max;            /* BAD_BIT_WIDTH: the type's width; TOO_MANY_VALUES: max_values */
    uint64_t offset;         /* byte offset in the page */
    uint8_t bit;             /* TRUNCATED: bit in that byte (always 0 here: fields are byte-aligned) */
};

/* Response status bytes. */
enum status {
    STATUS_DECODED = 0,
    STATUS_REJECTED = 1,
    STATUS_UNSUPPORTED = 2,
};

/* ------------------------------------------------------------------------ */
/* Small helpers.                                                           */
/* ------------------------------------------------------------------------ */

static void die(const char *what)
{
    fprintf(stderr, "c-ts2diff: %s\n", what);
    exit(2);
}

static void die_errno(const char *what)
{
    fprintf(stderr, "c-ts2diff: %s: %s\n", what, strerror(errno));
    exit(2);
}

/* A growable byte buffer (the response being built). */
struct bytes {
    uint8_t *data;
    size_t len;
    size_t cap;
};

static void bytes_reserve(struct bytes *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len)
        die("buffer size overflow");
    size_t need = b->len + extra;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *data = realloc(b->data, cap);
    if (!data)
        die("out of memory");
    b->data = data;
    b->cap = cap;
}

static void put_u8(struct bytes *b, uint8_t v)
{
    bytes_reserve(b, 1);
    b->data[b->len++] = v;
}

/* `n` bytes of `v`, least significant first (the canonical form is LE). */
static void put_le(struct bytes *b, uint64_t v, unsigned n)
{
    bytes_reserve(b, n);
    for (unsigned i = 0; i < n; i++)
        b->data[b->len++] = (uint8_t)(v >> (8 * i));
}

static void put_raw(struct bytes *b, const void *p, size_t n)
{
    bytes_reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Decoded values as unsigned bit patterns of the page's width (32 or 64),
 * kept between requests so a long run reuses one allocation, the way a
 * reused decoder would. */
struct values {
    uint64_t *items;
    size_t len;
    size_t cap;
};

static void values_push(struct values *v, uint64_t x)
{
    if (v->len == v->cap) {
        /* Grows only as values are decoded, and the decoder never produces
         * more than max_values (<= MAX_VALUES_CAP) of them. */
        size_t cap = v->cap ? v->cap * 2 : 256;
        uint64_t *items = realloc(v->items, cap * sizeof *items);
        if (!items)
            die("out of memory");
        v->items = items;
        v->cap = cap;
    }
    v->items[v->len++] = x;
}

/* ------------------------------------------------------------------------ */
/* The decoder.                                                             */
/* ------------------------------------------------------------------------ */

/* A cursor over the page's bytes. */
struct page {
    const uint8_t *data;
    size_t len;
    size_t pos;
};

/* Read `n` (<= 8) bytes at the cursor as a big-endian unsigned number. A
 * field that runs past the page's end is Truncated at the field's first
 * byte, as the reference reports it (not at the byte that was missing). */
static bool read_be(struct page *p, unsigned n, enum ts_field_tag field, uint64_t *out, struct ts_fault *fault)
{
    if (p->len - p->pos < n) {
        *fault = (struct ts_fault){.tag = FAULT_TRUNCATED, .field = field, .offset = p->pos, .bit = 0};
        return false;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p->data[p->pos + i];
    p->pos += n;
    *out = v;
    return true;
}

/* `width` (0..=64) bits MSB-first starting `bit_pos` bits into `data`. The
 * caller has checked that all of them lie inside the page. Takes at most 8
 * bits per step, so no shift reaches 64. */
static uint64_t read_bits(const uint8_t *data, uint64_t bit_pos, unsigned width)
{
    uint64_t v = 0;
    unsigned left = width;
    while (left > 0) {
        unsigned in_byte = 8 - (unsigned)(bit_pos % 8); /* unread bits of this byte, 1..=8 */
        unsigned take = left < in_byte ? left : in_byte;
        unsigned chunk = ((unsigned)data[bit_pos / 8] >> (in_byte - take)) & ((1u << take) - 1u);
        v = v << take | chunk;
        bit_pos += take;
        left -= take;
    }
    return v;
}

/* The sign-extended value of a big-endian i32 field read as unsigned: the
 * reference checks writeIndex and bitWidth as signed numbers (a negative
 * count or width is reported with its sign). Written without a conversion
 * of an out-of-range value to a signed type. */
static int64_t as_i32(uint64_t u32)
{
    return u32 >= UINT64_C(0x80000000) ? (int64_t)u32 - INT64_C(0x100000000) : (int64_t)u32;
}

/*
 * Decode one TS_2DIFF page of `width`-bit values (32 or 64) into `out`,
 * producing at most `max_values` values. Returns true on success (all the
 * page's bytes are consumed then: blocks run until the page ends), false
 * with `*fault` filled in. On failure `out` holds a partial result, which
 * the caller drops, as the reference returns no values with an error.
 */
static bool decode_ts2diff(const uint8_t *data, size_t len, unsigned width, uint64_t max_values, struct values *out,
                           struct ts_fault *fault)
{
    const unsigned word = width / 8;
    const uint64_t mask = width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
    struct page p = {.data = data, .len = len, .pos = 0};
    out->len = 0;

    while (p.pos < p.len) {
        const size_t block = p.pos;
        uint64_t raw;

        if (!read_be(&p, 4, FIELD_WRITE_INDEX, &raw, fault))
            return false;
        const int64_t write_index = as_i32(raw);
        if (write_index < 0 || write_index > MAX_BLOCK_DELTAS) {
            *fault = (struct ts_fault){
                .tag = FAULT_BAD_COUNT, .field = FIELD_WRITE_INDEX, .number = write_index, .offset = block};
            return false;
        }

        const size_t bit_width_at = p.pos;
        if (!read_be(&p, 4, FIELD_BIT_WIDTH, &raw, fault))
            return false;
        const int64_t bit_width = as_i32(raw);
        if (bit_width < 0 || bit_width > (int64_t)width) {
            *fault = (struct ts_fault){
                .tag = FAULT_BAD_BIT_WIDTH, .number = bit_width, .max = width, .offset = bit_width_at};
            return false;
        }

        uint64_t min_delta, first;
        if (!read_be(&p, word, FIELD_MIN_DELTA_BASE, &min_delta, fault))
            return false;
        if (!read_be(&p, word, FIELD_FIRST_VALUE, &first, fault))
            return false;

        /* The block holds n + 1 values; they must fit in what is left of
         * max_values. Checked before the packed bytes, as the reference
         * does: a block too big for the caller is TooManyValues even when
         * its packed bytes are also missing. */
        const uint64_t n = (uint64_t)write_index;
        if (n >= max_values - out->len) {
            *fault = (struct ts_fault){.tag = FAULT_TOO_MANY_VALUES, .max = max_values, .offset = block};
            return false;
        }

        /* n <= 65536 and bit_width <= 64, so this cannot overflow. */
        const size_t packed_at = p.pos;
        const uint64_t packed_bits = n * (uint64_t)bit_width;
        const uint64_t packed_len = (packed_bits + 7) / 8;
        if (p.len - packed_at < packed_len) {
            /* The reference reads deltas until its bit reader runs out and
             * reports the packed field at its start either way. */
            *fault = (struct ts_fault){.tag = FAULT_TRUNCATED, .field = FIELD_PACKED, .offset = packed_at, .bit = 0};
            return false;
        }

        const uint8_t *packed = data + packed_at;
        uint64_t prev = first & mask;
        values_push(out, prev);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t delta = read_bits(packed, i * (uint64_t)bit_width, (unsigned)bit_width);
            /* Wrapping add, as Java's and C++'s int/long arithmetic. */
            prev = (prev + min_delta + delta) & mask;
            values_push(out, prev);
        }
        /* The padding bits of the last byte are skipped, whatever they hold
         * (the Java encoder can leave stale bits there). */
        p.pos = packed_at + (size_t)packed_len;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* One request: parse, decode, write the response body.                     */
/* ------------------------------------------------------------------------ */

/* Reply status 2 with a reason. */
static void respond_unsupported(struct bytes *body, const char *reason)
{
    put_u8(body, STATUS_UNSUPPORTED);
    put_raw(body, reason, strlen(reason));
}

static void put_fault(struct bytes *body, const struct ts_fault *f)
{
    put_u8(body, STATUS_REJECTED);
    put_u8(body, (uint8_t)f->tag);
    switch (f->tag) {
    case FAULT_TRUNCATED:
        put_u8(body, (uint8_t)f->field);
        put_le(body, f->offset, 8);
        put_u8(body, f->bit);
        break;
    case FAULT_BAD_BIT_WIDTH:
        put_le(body, (uint64_t)f->number, 8);
        put_le(body, f->max, 4);
        put_le(body, f->offset, 8);
        break;
    case FAULT_BAD_COUNT:
        put_u8(body, (uint8_t)f->field);
        put_le(body, (uint64_t)f->number, 8);
        put_le(body, f->offset, 8);
        break;
    case FAULT_TOO_MANY_VALUES:
        put_le(body, f->max, 8);
        put_le(body, f->offset, 8);
        break;
    }
}

/* Handle one request (the canonical TsInput in `req`), appending the
 * response's status byte and body to `body`. */
static void handle_request(const uint8_t *req, size_t len, struct values *values, struct bytes *body)
{
    if (len < INPUT_HEADER_LEN) {
        respond_unsupported(body, "input shorter than the 11-byte TsInput header");
        return;
    }
    if (req[0] != ENCODING_TS2DIFF) {
        respond_unsupported(body, "encoding is not TS_2DIFF (4)");
        return;
    }
    uint8_t type_tag;
    unsigned width;
    switch (req[1]) {
    case TYPE_INT32:
    case TYPE_DATE:
        type_tag = TYPE_INT32;
        width = 32;
        break;
    case TYPE_INT64:
    case TYPE_TIMESTAMP:
        type_tag = TYPE_INT64;
        width = 64;
        break;
    default:
        respond_unsupported(body, "data type is not INT32 or INT64");
        return;
    }
    /* req[2..7] is the stop mode and count: TS_2DIFF pages end with their
     * bytes, so neither matters. */
    uint64_t max_values = get_le32(req + 7);
    if (max_values > MAX_VALUES_CAP)
        max_values = MAX_VALUES_CAP;

    const uint8_t *page = req + INPUT_HEADER_LEN;
    const size_t page_len = len - INPUT_HEADER_LEN;
    struct ts_fault fault;
    if (!decode_ts2diff(page, page_len, width, max_values, values, &fault)) {
        put_fault(body, &fault);
        return;
    }

    /* TsValue: Values (type tag, u64 count, the values), consumed u64. */
    put_u8(body, STATUS_DECODED);
    put_u8(body, type_tag);
    put_le(body, values->len, 8);
    const unsigned value_bytes = width / 8;
    bytes_reserve(body, values->len * value_bytes + 8);
    for (size_t i = 0; i < values->len; i++)
        put_le(body, values->items[i], value_bytes);
    put_le(body, page_len, 8); /* consumed: a successful decode reads the whole page */
}

/* ------------------------------------------------------------------------ */
/* The protocol loop: buffered frames over stdin / stdout.                  */
/* ------------------------------------------------------------------------ */

/* Requests larger than this are read and discarded and answered
 * "unsupported", so a bad length can never make us allocate gigabytes (the
 * cap is crossdec's default --subject-max-response; a TS_2DIFF page of at
 * most 2^20 values that decodes is under 25 MB). */
#define MAX_REQUEST (UINT32_C(256) << 20)

static uint8_t in_buf[1u << 16];
static size_t in_pos, in_len;
static struct bytes out_buf;

static void flush_output(void)
{
    size_t done = 0;
    while (done < out_buf.len) {
        ssize_t n = write(STDOUT_FILENO, out_buf.data + done, out_buf.len - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            die_errno("writing stdout");
        }
        done += (size_t)n;
    }
    out_buf.len = 0;
}

/* Refill the input buffer; returns false at end of input. */
static bool fill_input(void)
{
    for (;;) {
        ssize_t n = read(STDIN_FILENO, in_buf, sizeof in_buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            die_errno("reading stdin");
        }
        in_pos = 0;
        in_len = (size_t)n;
        return n > 0;
    }
}

/* Read exactly `n` bytes (or skip them when `dst` is NULL). Returns the
 * number read, short only at end of input. */
static size_t read_input(uint8_t *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        if (in_pos == in_len && !fill_input())
            break;
        size_t take = in_len - in_pos;
        if (take > n - got)
            take = n - got;
        if (dst)
            memcpy(dst + got, in_buf + in_pos, take);
        in_pos += take;
        got += take;
    }
    return got;
}

int main(void)
{
    uint8_t *request = NULL;
    struct values values = {0};

    for (;;) {
        uint8_t header[4];
        size_t got = read_input(header, 4);
        if (got == 0)
            break; /* crossdec closed our stdin: done */
        if (got < 4)
            die("end of input inside a request's length");
        const uint32_t len = get_le32(header);

        bool too_large = len > MAX_REQUEST;
        if (too_large) {
            if (read_input(NULL, len) < len)
                die("end of input inside a request");
        } else {
            /* Each request gets an allocation of exactly its size, the page
             * being its tail: a read one byte past the page's end is then
             * out of bounds of the allocation, which AddressSanitizer
             * reports (a reused, larger buffer would hide it). */
            request = malloc(len > 0 ? len : 1);
            if (!request)
                die("out of memory");
            if (read_input(request, len) < len)
                die("end of input inside a request");
        }

        /* Room for the response's length, filled in once the body is in. */
        const size_t frame_at = out_buf.len;
        put_le(&out_buf, 0, 4);
        if (too_large)
            respond_unsupported(&out_buf, "request larger than 256 MiB");
        else
            handle_request(request, len, &values, &out_buf);
        free(request);
        request = NULL;

        const size_t response_len = out_buf.len - frame_at - 4;
        if (response_len > UINT32_MAX)
            die("response too large for its frame");
        for (unsigned i = 0; i < 4; i++)
            out_buf.data[frame_at + i] = (uint8_t)(response_len >> (8 * i));

        /* Out before anything else happens: see the top of the file. */
        flush_output();
    }

    free(values.items);
    free(out_buf.data);
    return 0;
}
