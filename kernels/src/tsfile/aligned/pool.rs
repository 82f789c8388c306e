//! Blocks handed back for the next scan to fill.

use super::column::{Block, Column, Data};
use super::ColumnType;

/// Blocks a caller has read and hands back, so that the next scan writes
/// into their buffers instead of fresh memory. The first touch of fresh
/// memory (a page fault per 4 KiB page) costs more than decoding into it, so
/// a reader that scans group after group and is done with each block before
/// the next scan keeps its blocks' buffers in a pool
/// ([`scan_reusing`](super::scan_reusing)).
#[derive(Debug, Default)]
pub struct BlockPool {
    spare: Vec<Block>,
}

impl BlockPool {
    pub fn new() -> BlockPool {
        BlockPool::default()
    }
    /// Hand blocks back: their rows are dropped, their buffers kept.
    pub fn recycle(&mut self, blocks: impl IntoIterator<Item = Block>) {
        self.spare.extend(blocks);
    }
    /// How many blocks wait to be filled again.
    pub fn len(&self) -> usize {
        self.spare.len()
    }
    pub fn is_empty(&self) -> bool {
        self.spare.is_empty()
    }
    /// An empty block for columns of `types` with room for `rows` rows: a
    /// spare block's buffers where one is left (a column of another type is
    /// built anew), else fresh ones.
    pub(crate) fn take(&mut self, types: &[Option<ColumnType>], rows: usize) -> Block {
        let Some(mut block) = self.spare.pop() else {
            return Block {
                times: Vec::with_capacity(rows),
                columns: types.iter().map(|&t| Column::with_capacity(t, rows)).collect(),
            };
        };
        block.times.clear();
        block.times.reserve(rows);
        block.columns.truncate(types.len());
        for (i, &t) in types.iter().enumerate() {
            let same = |c: &Column| std::mem::discriminant(&c.data) == std::mem::discriminant(&Data::for_type(t));
            match block.columns.get_mut(i) {
                Some(c) if same(c) => {
                    c.data.clear();
                    c.data.reserve(rows);
                    c.valid.clear();
                    c.valid.reserve(rows);
                }
                Some(c) => *c = Column::with_capacity(t, rows),
                None => block.columns.push(Column::with_capacity(t, rows)),
            }
        }
        block
    }
}
