//! The `serde` visitors that walk the document once: rows, compact and
//! columnar shapes, each cell converted as it is read.

use super::*;

/// Consume any value exactly as serde_json's `Value` parser would.
pub(super) struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(Skip)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(())
    }
}

/// Implements the scalar visits of a visitor that expects a container: the
/// value is recorded as the wrong shape via `self.wrong()`.
macro_rules! wrong_scalars {
    () => {
        fn visit_unit<E>(self) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            self.wrong();
            Ok(())
        }
    };
}

/// Skip a container's content after recording it as the wrong shape.
macro_rules! wrong_seq {
    () => {
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
            self.wrong();
            SkipVisitor.visit_seq(seq)
        }
    };
}
macro_rules! wrong_map {
    () => {
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
            self.wrong();
            SkipVisitor.visit_map(map)
        }
    };
}

macro_rules! expecting {
    () => {
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a Cube result")
        }
    };
}

/// One cell, delivered to the fields reading `slot`.
struct CellSeed<'s, 'k> {
    pub(super) st: &'s mut State<'k>,
    pub(super) slot: usize,
    pub(super) row: u64,
}

impl<'de> DeserializeSeed<'de> for CellSeed<'_, '_> {
    type Value = ();
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl CellSeed<'_, '_> {
    #[inline]
    pub(super) fn put(self, cell: Cell<'_>) {
        self.st.cell(self.slot, self.row, cell);
    }
}

impl<'de> Visitor<'de> for CellSeed<'_, '_> {
    type Value = ();
    expecting!();
    fn visit_unit<E>(self) -> Result<(), E> {
        self.put(Cell::Null);
        Ok(())
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.put(Cell::Bool(v));
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.put(Cell::U64(v));
        Ok(())
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.put(Cell::I64(v));
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.put(Cell::F64(v));
        Ok(())
    }
    #[inline]
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.put(Cell::Str(v));
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        SkipVisitor.visit_seq(seq)?;
        self.put(Cell::Array);
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        SkipVisitor.visit_map(map)?;
        self.put(Cell::Object);
        Ok(())
    }
}

// ---- rows

pub(super) struct RowsTop<'s, 'k>(pub(super) &'s mut State<'k>);

impl RowsTop<'_, '_> {
    fn wrong(self) {
        self.0.top_bad = true;
    }
}

impl<'de> Visitor<'de> for RowsTop<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_map!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let st = self.0;
        loop {
            let row = st.rows;
            if seq.next_element_seed(RowSeed { st: &mut *st, row })?.is_none() {
                break;
            }
            st.rows += 1;
        }
        Ok(())
    }
}

struct RowSeed<'s, 'k> {
    pub(super) st: &'s mut State<'k>,
    pub(super) row: u64,
}

impl RowSeed<'_, '_> {
    fn wrong(self) {
        if self.st.first_bad_entry.is_none() {
            self.st.first_bad_entry = Some(self.row);
        }
    }
}

impl<'de> DeserializeSeed<'de> for RowSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_seq!();
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let st = self.st;
        let row = self.row;
        let previous = std::mem::take(&mut st.order);
        let mut current: Vec<usize> = Vec::with_capacity(previous.len());
        loop {
            let predicted = previous.get(current.len()).copied();
            let Some(slot) = map.next_key_seed(KeySeed {
                st: &mut *st,
                predicted,
            })?
            else {
                break;
            };
            st.bind_slots();
            if st.targets[slot].is_empty() {
                let name = &st.names[slot];
                // The first row with an unknown key names its smallest one.
                let first = match st.unknown_row_key.take() {
                    None => (row, name.to_string()),
                    Some((r, n)) if r == row => (r, std::cmp::min(n, name.to_string())),
                    Some(earlier) => earlier,
                };
                st.unknown_row_key = Some(first);
            }
            map.next_value_seed(CellSeed {
                st: &mut *st,
                slot,
                row,
            })?;
            current.push(slot);
        }
        st.order = current;
        Ok(())
    }
}

/// A row key, resolved to its pivot slot.
struct KeySeed<'s, 'k> {
    pub(super) st: &'s mut State<'k>,
    pub(super) predicted: Option<usize>,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_, '_> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_, '_> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    #[inline]
    fn visit_str<E>(self, v: &str) -> Result<usize, E> {
        Ok(self.st.slot_of(v, self.predicted))
    }
}

// ---- compact and columnar

enum TopKey {
    Members,
    Data,
    Other,
}

struct TopKeySeed(&'static str);

impl<'de> DeserializeSeed<'de> for TopKeySeed {
    type Value = TopKey;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TopKey, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TopKeySeed {
    type Value = TopKey;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, v: &str) -> Result<TopKey, E> {
        Ok(if v == "members" {
            TopKey::Members
        } else if v == self.0 {
            TopKey::Data
        } else {
            TopKey::Other
        })
    }
}

pub(super) struct ObjectTop<'s, 'k>(pub(super) &'s mut State<'k>);

impl ObjectTop<'_, '_> {
    fn wrong(self) {
        self.0.top_bad = true;
    }
}

impl<'de> Visitor<'de> for ObjectTop<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_seq!();
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let st = self.0;
        let data_key = if st.shape == Shape::Compact {
            "dataset"
        } else {
            "columns"
        };
        while let Some(key) = map.next_key_seed(TopKeySeed(data_key))? {
            match key {
                TopKey::Members if !st.second_pass => {
                    if st.data_seen {
                        st.members_after_data = true;
                    }
                    // Each members key replaces the one before; a value
                    // that is not an array leaves none.
                    st.members = MembersState::Missing;
                    map.next_value_seed(MembersSeed(&mut *st))?;
                }
                TopKey::Data => {
                    let k = st.data_occurrences;
                    st.data_occurrences += 1;
                    st.data_seen = true;
                    // A bad members list is an error whatever the data
                    // holds, so its data is decoded anyway (and thrown away).
                    let process = !st.second_pass || k == st.last_data;
                    if process {
                        st.reset_data();
                        st.bind_members();
                        map.next_value_seed(DataSeed(&mut *st))?;
                    } else {
                        map.next_value_seed(Skip)?;
                    }
                }
                _ => map.next_value_seed(Skip)?,
            }
        }
        Ok(())
    }
}

struct MembersSeed<'s, 'k>(&'s mut State<'k>);

impl MembersSeed<'_, '_> {
    /// Nothing to record: the caller set the members to missing before
    /// visiting, and a value of the wrong shape leaves them so.
    fn wrong(self) {}
}

impl<'de> DeserializeSeed<'de> for MembersSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MembersSeed<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_map!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut names: Vec<Arc<str>> = Vec::new();
        let mut non_string = None;
        let mut duplicate = None;
        let mut seen: std::collections::HashSet<Arc<str>> = std::collections::HashSet::new();
        let mut index = 0;
        while let Some(scalar) = seq.next_element_seed(ScalarSeed)? {
            match scalar {
                Scalar::Str(s) => {
                    let name: Arc<str> = s.into();
                    if !seen.insert(name.clone()) && duplicate.is_none() {
                        duplicate = Some(name.to_string());
                    }
                    names.push(name);
                }
                _ => {
                    if non_string.is_none() {
                        non_string = Some(index);
                    }
                }
            }
            index += 1;
        }
        self.0.members = MembersState::List {
            names,
            non_string,
            duplicate,
        };
        Ok(())
    }
}

struct ScalarSeed;

impl<'de> DeserializeSeed<'de> for ScalarSeed {
    type Value = Scalar;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct DataSeed<'s, 'k>(&'s mut State<'k>);

impl DataSeed<'_, '_> {
    /// Nothing to record: `reset_data` set the data to missing before
    /// visiting, and a value of the wrong shape leaves it so.
    fn wrong(self) {}
}

impl<'de> DeserializeSeed<'de> for DataSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DataSeed<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_map!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let st = self.0;
        st.data = DataState::Array;
        let mut index = 0u64;
        while seq.next_element_seed(EntrySeed { st: &mut *st, index })?.is_some() {
            index += 1;
        }
        st.rows = index;
        Ok(())
    }
}

/// One column (columnar) or one row (compact) of the data array.
struct EntrySeed<'s, 'k> {
    pub(super) st: &'s mut State<'k>,
    pub(super) index: u64,
}

impl EntrySeed<'_, '_> {
    fn wrong(self) {
        if self.st.first_bad_entry.is_none() {
            self.st.first_bad_entry = Some(self.index);
        }
        self.st.lengths.push(0);
    }
}

impl<'de> DeserializeSeed<'de> for EntrySeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_, '_> {
    type Value = ();
    expecting!();
    wrong_scalars!();
    wrong_map!();
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let st = self.st;
        let mut n = 0u64;
        if st.shape == Shape::Columnar {
            let slot = self.index as usize;
            while seq
                .next_element_seed(CellSeed {
                    st: &mut *st,
                    slot,
                    row: n,
                })?
                .is_some()
            {
                n += 1;
            }
            st.lengths.push(n);
        } else {
            let row = self.index;
            loop {
                let slot = n as usize;
                if seq
                    .next_element_seed(CellSeed {
                        st: &mut *st,
                        slot,
                        row,
                    })?
                    .is_none()
                {
                    break;
                }
                n += 1;
            }
            let expected = st.targets.len() as u64;
            if n != expected && st.first_ragged.is_none() {
                st.first_ragged = Some((row, n));
            }
        }
        Ok(())
    }
}
