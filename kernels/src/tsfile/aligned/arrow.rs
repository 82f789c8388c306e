//! The scanner's blocks as Arrow record batches: a `time` column, then one
//! column per requested measurement, nulls as validity. TsFile types map to
//! Arrow as BOOLEAN Boolean, INT32 Int32, INT64 Int64, FLOAT Float32, DOUBLE
//! Float64, TIMESTAMP Timestamp(unit), DATE Int32 (TsFile's `yyyyMMdd`
//! integer, kept as written), TEXT and STRING Utf8, BLOB Binary; the
//! field's metadata `tsfile.type` names the TsFile type. A missing
//! measurement (`None`) is an all-null Int64 column.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, StringBuilder};
use arrow_array::{
    ArrayRef, BooleanArray, Float32Array, Float64Array, Int32Array, Int64Array, RecordBatch, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray, TimestampSecondArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};

use super::{Block, ColumnType, Data};

/// The metadata key naming a field's TsFile type.
pub const TSFILE_TYPE_KEY: &str = "tsfile.type";

/// One requested output column: its name and TsFile type (`None`: the
/// measurement is missing from the group).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputColumn {
    pub name: String,
    pub data_type: Option<ColumnType>,
}

/// The schema of every batch of a scan: `time` (Timestamp of `time_unit`,
/// the file's time precision; milliseconds by TsFile's default), then the
/// columns.
pub fn schema(time_unit: TimeUnit, columns: &[OutputColumn]) -> SchemaRef {
    let mut fields = vec![Field::new("time", DataType::Timestamp(time_unit, None), false)];
    fields.extend(columns.iter().map(|c| {
        let (arrow, name) = match c.data_type {
            Some(ColumnType::Boolean) => (DataType::Boolean, "BOOLEAN"),
            Some(ColumnType::Int32) => (DataType::Int32, "INT32"),
            Some(ColumnType::Date) => (DataType::Int32, "DATE"),
            Some(ColumnType::Int64) => (DataType::Int64, "INT64"),
            Some(ColumnType::Timestamp) => (DataType::Timestamp(time_unit, None), "TIMESTAMP"),
            Some(ColumnType::Float) => (DataType::Float32, "FLOAT"),
            Some(ColumnType::Double) => (DataType::Float64, "DOUBLE"),
            Some(ColumnType::Text) => (DataType::Utf8, "TEXT"),
            Some(ColumnType::String) => (DataType::Utf8, "STRING"),
            Some(ColumnType::Blob) => (DataType::Binary, "BLOB"),
            None => (DataType::Int64, "MISSING"),
        };
        Field::new(&c.name, arrow, true).with_metadata(HashMap::from([(TSFILE_TYPE_KEY.to_string(), name.to_string())]))
    }));
    Arc::new(Schema::new(fields))
}

fn timestamps(unit: TimeUnit, values: Vec<i64>, nulls: Option<NullBuffer>) -> ArrayRef {
    match unit {
        TimeUnit::Second => Arc::new(TimestampSecondArray::new(values.into(), nulls)),
        TimeUnit::Millisecond => Arc::new(TimestampMillisecondArray::new(values.into(), nulls)),
        TimeUnit::Microsecond => Arc::new(TimestampMicrosecondArray::new(values.into(), nulls)),
        TimeUnit::Nanosecond => Arc::new(TimestampNanosecondArray::new(values.into(), nulls)),
    }
}

/// Text bytes as UTF-8, or an error naming the row (TsFile TEXT and STRING
/// are UTF-8; bytes that are not are refused, not replaced).
fn utf8(values: &[Vec<u8>], valid: &[bool], name: &str) -> Result<ArrayRef, ArrowError> {
    let mut b = StringBuilder::new();
    for (r, (v, &ok)) in values.iter().zip(valid).enumerate() {
        if !ok {
            b.append_null();
            continue;
        }
        let text = std::str::from_utf8(v)
            .map_err(|e| ArrowError::InvalidArgumentError(format!("column {name}, row {r}: not UTF-8 ({e})")))?;
        b.append_value(text);
    }
    Ok(Arc::new(b.finish()))
}

impl Block {
    /// This block as a record batch of `schema` (from [`schema`] with the
    /// request's columns). Errors: a TEXT / STRING value that is not UTF-8
    /// (with its column and row), or a schema of another width than the
    /// block.
    pub fn to_record_batch(&self, schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
        if schema.fields().len() != self.columns.len() + 1 {
            return Err(ArrowError::InvalidArgumentError(format!(
                "a schema of {} fields for a block of {} columns and time",
                schema.fields().len(),
                self.columns.len()
            )));
        }
        let DataType::Timestamp(unit, _) = schema.field(0).data_type() else {
            return Err(ArrowError::InvalidArgumentError("field 0 is not the time".into()));
        };
        let mut arrays: Vec<ArrayRef> = vec![timestamps(*unit, self.times.clone(), None)];
        for (column, field) in self.columns.iter().zip(&schema.fields()[1..]) {
            let nulls = Some(NullBuffer::from(column.valid.clone()));
            let array: ArrayRef = match (&column.data, field.data_type()) {
                (Data::Bool(v), DataType::Boolean) => Arc::new(BooleanArray::new(v.clone().into(), nulls)),
                (Data::I32(v), DataType::Int32) => Arc::new(Int32Array::new(v.clone().into(), nulls)),
                (Data::I64(v), DataType::Int64) => Arc::new(Int64Array::new(v.clone().into(), nulls)),
                (Data::I64(v), DataType::Timestamp(u, _)) => timestamps(*u, v.clone(), nulls),
                (Data::F32(v), DataType::Float32) => Arc::new(Float32Array::new(v.clone().into(), nulls)),
                (Data::F64(v), DataType::Float64) => Arc::new(Float64Array::new(v.clone().into(), nulls)),
                (Data::Bytes(v), DataType::Utf8) => utf8(v, &column.valid, field.name())?,
                (Data::Bytes(v), DataType::Binary) => {
                    let mut b = BinaryBuilder::new();
                    for (v, &ok) in v.iter().zip(&column.valid) {
                        if ok {
                            b.append_value(v);
                        } else {
                            b.append_null();
                        }
                    }
                    Arc::new(b.finish())
                }
                (data, t) => {
                    return Err(ArrowError::InvalidArgumentError(format!(
                        "column {} holds {} values, not {t}",
                        field.name(),
                        data.kind()
                    )))
                }
            };
            arrays.push(array);
        }
        RecordBatch::try_new(schema.clone(), arrays)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::aligned::Column;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, TimestampMillisecondType};
    use arrow_array::Array;

    fn block() -> Block {
        Block {
            times: vec![-5, 7, 9],
            columns: vec![
                Column {
                    data: Data::I32(vec![20240101, 0, 20261202]),
                    valid: vec![true, false, true],
                },
                Column {
                    data: Data::Bytes(vec![b"a".to_vec(), Vec::new(), "\u{e9}".as_bytes().to_vec()]),
                    valid: vec![true, false, true],
                },
                Column {
                    data: Data::I64(vec![0; 3]),
                    valid: vec![false; 3],
                },
            ],
        }
    }

    fn columns() -> Vec<OutputColumn> {
        vec![
            OutputColumn {
                name: "day".into(),
                data_type: Some(ColumnType::Date),
            },
            OutputColumn {
                name: "note".into(),
                data_type: Some(ColumnType::String),
            },
            OutputColumn {
                name: "gone".into(),
                data_type: None,
            },
        ]
    }

    #[test]
    fn a_block_becomes_a_batch_with_its_types_nulls_and_tsfile_type_names() {
        let schema = schema(TimeUnit::Millisecond, &columns());
        let batch = block().to_record_batch(&schema).unwrap();
        assert_eq!(batch.num_rows(), 3);
        let time = batch.column(0).as_primitive::<TimestampMillisecondType>();
        assert_eq!(time.values().to_vec(), [-5, 7, 9]);
        let day = batch.column(1).as_primitive::<Int32Type>();
        assert_eq!((day.value(0), day.is_null(1), day.value(2)), (20240101, true, 20261202));
        let note = batch.column(2).as_string::<i32>();
        assert_eq!((note.value(0), note.is_null(1), note.value(2)), ("a", true, "\u{e9}"));
        assert_eq!(batch.column(3).null_count(), 3);
        let names: Vec<&str> = schema.fields()[1..]
            .iter()
            .map(|f| f.metadata()[TSFILE_TYPE_KEY].as_str())
            .collect();
        assert_eq!(names, ["DATE", "STRING", "MISSING"]);
    }

    #[test]
    fn text_that_is_not_utf8_is_refused_with_its_column_and_row() {
        let mut b = block();
        b.columns[1].data = Data::Bytes(vec![b"a".to_vec(), Vec::new(), vec![0xff]]);
        let e = b
            .to_record_batch(&schema(TimeUnit::Millisecond, &columns()))
            .unwrap_err();
        assert!(e.to_string().contains("column note, row 2: not UTF-8"), "{e}");
        // A null row's bytes are never looked at.
        b.columns[1].data = Data::Bytes(vec![b"a".to_vec(), vec![0xff], b"b".to_vec()]);
        assert!(b.to_record_batch(&schema(TimeUnit::Millisecond, &columns())).is_ok());
    }

    #[test]
    fn a_schema_that_does_not_fit_the_block_is_an_error() {
        let e = block()
            .to_record_batch(&schema(TimeUnit::Millisecond, &columns()[..2]))
            .unwrap_err();
        assert!(e.to_string().contains("3 fields for a block of 3 columns"), "{e}");
        let mut wrong = columns();
        wrong[0].data_type = Some(ColumnType::Double);
        let e = block()
            .to_record_batch(&schema(TimeUnit::Millisecond, &wrong))
            .unwrap_err();
        assert!(
            e.to_string().contains("column day holds I32 values, not Float64"),
            "{e}"
        );
    }
}
