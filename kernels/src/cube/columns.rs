//! The typed column buffers cells are appended to, and their Arrow arrays.

use super::*;

pub(super) enum Data {
    Str { offsets: Vec<i32>, bytes: Vec<u8> },
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    I128(Vec<i128>),
}

pub(super) struct Col {
    pub(super) conv: Conv,
    pub(super) member: Arc<str>,
    pub(super) data: Data,
    pub(super) valid: Vec<bool>,
    /// The first cell error of this field: (row, error).
    pub(super) err: Option<(u64, CubeError)>,
}

impl Col {
    pub(super) fn new(conv: Conv, member: Arc<str>) -> Self {
        let data = match conv {
            Conv::Utf8 => Data::Str {
                offsets: vec![0],
                bytes: Vec::new(),
            },
            Conv::Int64 | Conv::Timestamp(_) => Data::I64(Vec::new()),
            Conv::Float64 => Data::F64(Vec::new()),
            Conv::Boolean => Data::Bool(Vec::new()),
            Conv::Decimal { .. } => Data::I128(Vec::new()),
        };
        Col {
            conv,
            member,
            data,
            valid: Vec::new(),
            err: None,
        }
    }

    /// Room for `n` more cells.
    pub(super) fn reserve(&mut self, n: usize) {
        self.valid.reserve(n);
        match &mut self.data {
            Data::Str { offsets, .. } => offsets.reserve(n),
            Data::I64(v) => v.reserve(n),
            Data::F64(v) => v.reserve(n),
            Data::Bool(v) => v.reserve(n),
            Data::I128(v) => v.reserve(n),
        }
    }

    /// Append a valid value to an Int64 or timestamp column.
    #[inline]
    pub(super) fn push_i64(&mut self, value: i64) {
        let Data::I64(v) = &mut self.data else {
            unreachable!("Int64 column")
        };
        v.push(value);
        self.valid.push(true);
    }

    pub(super) fn len(&self) -> usize {
        self.valid.len()
    }

    fn push_null(&mut self) {
        self.valid.push(false);
        match &mut self.data {
            Data::Str { offsets, bytes } => offsets.push(bytes.len() as i32),
            Data::I64(v) => v.push(0),
            Data::F64(v) => v.push(0.0),
            Data::Bool(v) => v.push(false),
            Data::I128(v) => v.push(0),
        }
    }

    fn pop(&mut self) {
        self.valid.pop();
        match &mut self.data {
            Data::Str { offsets, bytes } => {
                offsets.pop();
                bytes.truncate(*offsets.last().expect("offsets start with 0") as usize);
            }
            Data::I64(v) => drop(v.pop()),
            Data::F64(v) => drop(v.pop()),
            Data::Bool(v) => drop(v.pop()),
            Data::I128(v) => drop(v.pop()),
        }
    }

    fn push_str(&mut self, s: &str) -> Result<(), ()> {
        let Data::Str { offsets, bytes } = &mut self.data else {
            unreachable!("Utf8 column")
        };
        let end = bytes.len() + s.len();
        if !fits_i32_offsets(end as u128) {
            return Err(());
        }
        bytes.extend_from_slice(s.as_bytes());
        offsets.push(end as i32);
        self.valid.push(true);
        Ok(())
    }

    /// Append `cell` at `row` (the column is padded with nulls up to `row`).
    /// A value this row already has is replaced: a key repeated in a row
    /// object, last one wins. Only a repeat reaches a row twice, since each
    /// key feeds its own fields (a repeated member is an error anyway).
    #[inline]
    pub(super) fn put(&mut self, field: usize, row: u64, cell: Cell<'_>) {
        if let Some((at, _)) = &self.err {
            // The first error stands, unless it is this row's, being replaced.
            if *at != row {
                return;
            }
            self.err = None;
        }
        let r = row as usize;
        if self.len() == r + 1 {
            self.pop();
        }
        while self.len() < r {
            self.push_null();
        }
        if let Err(e) = self.append(cell) {
            let (member, ty, value) = (self.member.to_string(), self.ty_text(), cell.text());
            let error = match e {
                Some(MapError::Unmappable) => CubeError::Unmappable { member, row, ty, value },
                Some(MapError::Overflow) => CubeError::Overflow { member, row, ty, value },
                None => CubeError::TooLarge { field },
            };
            self.err = Some((row, error));
        }
    }

    fn ty_text(&self) -> String {
        data_type(self.conv).to_string()
    }

    /// Convert and append; `Err(None)` is a string column over i32 offsets.
    #[inline]
    pub(super) fn append(&mut self, cell: Cell<'_>) -> Result<(), Option<MapError>> {
        use MapError::{Overflow as O, Unmappable as U};
        match cell {
            Cell::Null => {
                self.push_null();
                return Ok(());
            }
            Cell::Str(s) => return self.append_str(s),
            _ => {}
        }
        match (&mut self.data, self.conv) {
            (Data::Str { .. }, _) => {
                let r = match cell {
                    Cell::Bool(b) => self.push_str(if b { "true" } else { "false" }),
                    Cell::U64(u) => self.push_str(&u.to_string()),
                    Cell::I64(i) => self.push_str(&i.to_string()),
                    Cell::F64(f) => self.push_str(&number_text(f)),
                    _ => return Err(Some(U)),
                };
                return r.map_err(|_| None);
            }
            (Data::I64(v), Conv::Int64 | Conv::Timestamp(_)) => v.push(match cell {
                Cell::I64(i) => i,
                Cell::U64(u) => i64::try_from(u).map_err(|_| Some(O))?,
                _ => return Err(Some(U)),
            }),
            (Data::F64(v), _) => v.push(match cell {
                Cell::I64(i) => i as f64,
                Cell::U64(u) => u as f64,
                Cell::F64(f) => f,
                _ => return Err(Some(U)),
            }),
            (Data::Bool(v), _) => v.push(match cell {
                Cell::Bool(b) => b,
                _ => return Err(Some(U)),
            }),
            (Data::I128(v), Conv::Decimal { precision, scale }) => {
                v.push(decimal_of(cell, precision, scale).map_err(Some)?)
            }
            _ => unreachable!("column data matches its conversion"),
        }
        self.valid.push(true);
        Ok(())
    }

    /// Convert and append a string cell: Cube sends numbers and timestamps
    /// as strings, so this is the common case.
    #[inline]
    pub(super) fn append_str(&mut self, s: &str) -> Result<(), Option<MapError>> {
        const U: MapError = MapError::Unmappable;
        let b = s.as_bytes();
        match (&mut self.data, self.conv) {
            (Data::Str { .. }, _) => return self.push_str(s).map_err(|_| None),
            (Data::I64(v), Conv::Int64) => v.push(parse_i64(b).map_err(Some)?),
            (Data::I64(v), Conv::Timestamp(digits)) => v.push(parse_timestamp(b, digits).map_err(Some)?),
            (Data::F64(v), _) => v.push(parse_f64(s).ok_or(Some(U))?),
            (Data::Bool(v), _) => v.push(match s {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => return Err(Some(U)),
            }),
            (Data::I128(v), Conv::Decimal { precision, scale }) => {
                v.push(parse_decimal(b, precision, scale).map_err(Some)?)
            }
            _ => unreachable!("column data matches its conversion"),
        }
        self.valid.push(true);
        Ok(())
    }

    pub(super) fn finish(self, rows: usize, ty: &DataType) -> ArrayRef {
        let mut col = self;
        while col.len() < rows {
            col.push_null();
        }
        let nulls = if col.valid.iter().all(|v| *v) {
            None
        } else {
            Some(NullBuffer::from(col.valid))
        };
        match col.data {
            Data::Str { offsets, bytes } => {
                let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
                // SAFETY: `bytes` is a concatenation of `&str` values, so it is
                // valid UTF-8 and every offset (pushed after each value, and
                // checked to fit i32) lies on a char boundary; offsets start
                // at 0, never decrease and end at `bytes.len()`; there is one
                // more offset than validity entries.
                Arc::new(unsafe { StringArray::new_unchecked(offsets, Buffer::from_vec(bytes), nulls) })
            }
            Data::I64(v) => match ty {
                DataType::Int64 => Arc::new(PrimitiveArray::<Int64Type>::new(v.into(), nulls)),
                DataType::Timestamp(TimeUnit::Millisecond, _) => {
                    Arc::new(PrimitiveArray::<TimestampMillisecondType>::new(v.into(), nulls))
                }
                DataType::Timestamp(TimeUnit::Microsecond, _) => {
                    Arc::new(PrimitiveArray::<TimestampMicrosecondType>::new(v.into(), nulls))
                }
                _ => Arc::new(PrimitiveArray::<TimestampNanosecondType>::new(v.into(), nulls)),
            },
            Data::F64(v) => Arc::new(PrimitiveArray::<Float64Type>::new(v.into(), nulls)),
            Data::Bool(v) => Arc::new(BooleanArray::new(v.into(), nulls)),
            Data::I128(v) => {
                let Conv::Decimal { precision, scale } = col.conv else {
                    unreachable!("decimal column")
                };
                Arc::new(
                    PrimitiveArray::<Decimal128Type>::new(v.into(), nulls)
                        .with_precision_and_scale(precision, scale as i8)
                        .expect("precision and scale checked up front"),
                )
            }
        }
    }
}

pub(super) fn data_type(conv: Conv) -> DataType {
    match conv {
        Conv::Utf8 => DataType::Utf8,
        Conv::Int64 => DataType::Int64,
        Conv::Float64 => DataType::Float64,
        Conv::Boolean => DataType::Boolean,
        Conv::Timestamp(3) => DataType::Timestamp(TimeUnit::Millisecond, None),
        Conv::Timestamp(6) => DataType::Timestamp(TimeUnit::Microsecond, None),
        Conv::Timestamp(_) => DataType::Timestamp(TimeUnit::Nanosecond, None),
        Conv::Decimal { precision, scale } => DataType::Decimal128(precision, scale as i8),
    }
}
