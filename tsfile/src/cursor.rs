//! A cursor over bytes already in memory (a chunk, a page, the metadata),
//! reading TsFile's varints, strings and big-endian numbers. Offsets in its
//! errors are file offsets: the cursor knows where its bytes start.

use crate::error::ReadError;

pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// File offset of `data[0]`.
    base: u64,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Cursor { data, pos: 0, base }
    }

    /// File offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.pos == self.data.len()
    }

    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8, ReadError> {
        let b = *self.data.get(self.pos).ok_or(ReadError::Truncated {
            what,
            offset: self.offset(),
        })?;
        self.pos += 1;
        Ok(b)
    }

    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ReadError> {
        if n > self.remaining() {
            return Err(ReadError::Truncated {
                what,
                offset: self.offset(),
            });
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// An unsigned LEB128 varint of at most 64 bits.
    pub fn uvarint(&mut self, what: &'static str) -> Result<u64, ReadError> {
        let start = self.offset();
        let mut v = 0u64;
        for i in 0..10 {
            let b = self.u8(what)?;
            let bits = u64::from(b & 0x7F);
            if i == 9 && bits > 1 {
                break;
            }
            v |= bits << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(ReadError::Malformed {
            what: format!("{what}: varint longer than 64 bits"),
            offset: start,
        })
    }

    /// An unsigned varint that is a size or count held in Java's `int`.
    pub fn uvarint_len(&mut self, what: &'static str) -> Result<u64, ReadError> {
        let start = self.offset();
        let v = self.uvarint(what)?;
        if v > i32::MAX as u64 {
            return Err(ReadError::Malformed {
                what: format!("{what} {v} above 2^31 - 1"),
                offset: start,
            });
        }
        Ok(v)
    }

    /// A zigzag varint (`writeVarInt`) of 32 bits.
    pub fn zigzag32(&mut self, what: &'static str) -> Result<i32, ReadError> {
        let start = self.offset();
        let u = self.uvarint(what)?;
        let u = u32::try_from(u).map_err(|_| ReadError::Malformed {
            what: format!("{what}: zigzag varint above 32 bits"),
            offset: start,
        })?;
        Ok((u >> 1) as i32 ^ -((u & 1) as i32))
    }

    pub fn i32_be(&mut self, what: &'static str) -> Result<i32, ReadError> {
        let b = self.take(4, what)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn i64_be(&mut self, what: &'static str) -> Result<i64, ReadError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    /// A zigzag-varint length then UTF-8 (`ReadWriteIOUtils.writeVar`);
    /// length -1 is Java's `null`.
    pub fn var_string(&mut self, what: &'static str) -> Result<Option<String>, ReadError> {
        let at = self.offset();
        let len = self.zigzag32(what)?;
        if len < -1 {
            return Err(ReadError::Malformed {
                what: format!("{what}: length {len}"),
                offset: at,
            });
        }
        if len == -1 {
            return Ok(None);
        }
        self.utf8(len as usize, what, at).map(Some)
    }

    /// An i32 BE length then UTF-8 (`ReadWriteIOUtils.write(String)`).
    pub fn i32_string(&mut self, what: &'static str) -> Result<Option<String>, ReadError> {
        let at = self.offset();
        let len = self.i32_be(what)?;
        if len < -1 {
            return Err(ReadError::Malformed {
                what: format!("{what}: length {len}"),
                offset: at,
            });
        }
        if len == -1 {
            return Ok(None);
        }
        self.utf8(len as usize, what, at).map(Some)
    }

    fn utf8(&mut self, len: usize, what: &'static str, at: u64) -> Result<String, ReadError> {
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| ReadError::Malformed {
            what: format!("{what}: not UTF-8"),
            offset: at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_at_their_edges() {
        let mut c = Cursor::new(&[0x7F, 0x80, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x07], 100);
        assert_eq!(c.uvarint("a").unwrap(), 127);
        assert_eq!(c.uvarint("b").unwrap(), 128);
        assert_eq!(c.uvarint_len("c").unwrap(), i32::MAX as u64);
        assert!(c.is_empty());
        let mut c = Cursor::new(&[0xFF, 0xFF, 0xFF, 0xFF, 0x08], 0);
        assert!(matches!(
            c.uvarint_len("len"),
            Err(ReadError::Malformed { offset: 0, .. })
        ));
        let max = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01];
        assert_eq!(Cursor::new(&max, 0).uvarint("m").unwrap(), u64::MAX);
        let over = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02];
        assert!(matches!(
            Cursor::new(&over, 7).uvarint("m"),
            Err(ReadError::Malformed { offset: 7, .. })
        ));
        let mut c = Cursor::new(&[0x80], 5);
        assert_eq!(c.uvarint("cut"), Err(ReadError::Truncated { what: "cut", offset: 6 }));
    }

    #[test]
    fn strings_zigzag_and_i32_lengths() {
        // zigzag 4 = length 2; zigzag 1 = -1 (null); i32 BE 2.
        let mut c = Cursor::new(&[4, b's', b'0', 1, 0, 0, 0, 2, b'h', b'i', 3], 0);
        assert_eq!(c.var_string("s").unwrap().as_deref(), Some("s0"));
        assert_eq!(c.var_string("s").unwrap(), None);
        assert_eq!(c.i32_string("s").unwrap().as_deref(), Some("hi"));
        // zigzag 3 = -2: not a length.
        assert!(matches!(
            c.var_string("s"),
            Err(ReadError::Malformed { offset: 10, .. })
        ));
        let mut c = Cursor::new(&[6, b'a'], 0);
        assert!(matches!(c.var_string("s"), Err(ReadError::Truncated { offset: 1, .. })));
    }
}
