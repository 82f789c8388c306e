//! The ids a TsFile stores for data types, encodings and compressions
//! (`formats/tsfile.md`, Java `TSDataType`, `TSEncoding`, `CompressionType`).

use std::fmt;

macro_rules! id_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $id:literal => $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($variant),*
        }

        impl $name {
            /// Every value, in id order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The id the file stores.
            pub fn id(self) -> u8 {
                match self {
                    $($name::$variant => $id),*
                }
            }

            /// The value of a stored id, if it names one.
            pub fn from_id(id: u8) -> Option<Self> {
                match id {
                    $($id => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// The official library's name for it.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),*
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

id_enum!(
    /// A column's data type.
    DataType {
        Boolean = 0 => "BOOLEAN",
        Int32 = 1 => "INT32",
        Int64 = 2 => "INT64",
        Float = 3 => "FLOAT",
        Double = 4 => "DOUBLE",
        Text = 5 => "TEXT",
        Vector = 6 => "VECTOR",
        Timestamp = 8 => "TIMESTAMP",
        Date = 9 => "DATE",
        Blob = 10 => "BLOB",
        String = 11 => "STRING",
    }
);

id_enum!(
    /// A page encoding.
    Encoding {
        Plain = 0 => "PLAIN",
        Dictionary = 1 => "DICTIONARY",
        Rle = 2 => "RLE",
        Diff = 3 => "DIFF",
        Ts2Diff = 4 => "TS_2DIFF",
        Bitmap = 5 => "BITMAP",
        GorillaV1 = 6 => "GORILLA_V1",
        Regular = 7 => "REGULAR",
        Gorilla = 8 => "GORILLA",
        Zigzag = 9 => "ZIGZAG",
        Chimp = 11 => "CHIMP",
        Sprintz = 12 => "SPRINTZ",
        Rlbe = 13 => "RLBE",
        Camel = 14 => "CAMEL",
    }
);

id_enum!(
    /// A page compression.
    Compression {
        Uncompressed = 0 => "UNCOMPRESSED",
        Snappy = 1 => "SNAPPY",
        Gzip = 2 => "GZIP",
        Lzo = 3 => "LZO",
        Sdt = 4 => "SDT",
        Paa = 5 => "PAA",
        Pla = 6 => "PLA",
        Lz4 = 7 => "LZ4",
        Zstd = 8 => "ZSTD",
        Lzma2 = 9 => "LZMA2",
    }
);

/// How a value column's cells are laid out in memory, whatever the type's
/// name: TIMESTAMP is an INT64, DATE an INT32, TEXT / STRING / BLOB bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Physical {
    Boolean,
    Int32,
    Int64,
    Float,
    Double,
    Binary,
}

impl DataType {
    /// The cells' physical type; `None` for VECTOR (the aligned time
    /// column's marker type, which has no values of its own).
    pub fn physical(self) -> Option<Physical> {
        Some(match self {
            DataType::Boolean => Physical::Boolean,
            DataType::Int32 | DataType::Date => Physical::Int32,
            DataType::Int64 | DataType::Timestamp => Physical::Int64,
            DataType::Float => Physical::Float,
            DataType::Double => Physical::Double,
            DataType::Text | DataType::Blob | DataType::String => Physical::Binary,
            DataType::Vector => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_match_the_format_notes() {
        for &t in DataType::ALL {
            assert_eq!(DataType::from_id(t.id()), Some(t));
        }
        for &e in Encoding::ALL {
            assert_eq!(Encoding::from_id(e.id()), Some(e));
        }
        for &c in Compression::ALL {
            assert_eq!(Compression::from_id(c.id()), Some(c));
        }
        assert_eq!(DataType::from_id(7), None);
        assert_eq!(Encoding::from_id(10), None);
        assert_eq!(Compression::from_id(10), None);
        assert_eq!(Encoding::Gorilla.id(), 8);
        assert_eq!(Encoding::Camel.id(), 14);
        assert_eq!(Compression::Lzma2.id(), 9);
        assert_eq!(DataType::String.id(), 11);
        assert_eq!(DataType::Timestamp.physical(), Some(Physical::Int64));
        assert_eq!(DataType::Date.physical(), Some(Physical::Int32));
        assert_eq!(DataType::Vector.physical(), None);
    }
}
