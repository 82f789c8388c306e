//! The decoding state the visitors share: members, fields, the first error
//! of each kind, and literal scalars.

use super::*;

/// An owned JSON scalar (literal fields).
#[derive(Clone)]
pub(super) enum Scalar {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
    Nested,
}

impl Scalar {
    pub(super) fn cell(&self) -> Cell<'_> {
        match self {
            Scalar::Null => Cell::Null,
            Scalar::Bool(b) => Cell::Bool(*b),
            Scalar::U64(u) => Cell::U64(*u),
            Scalar::I64(i) => Cell::I64(*i),
            Scalar::F64(f) => Cell::F64(*f),
            Scalar::Str(s) => Cell::Str(s),
            Scalar::Nested => Cell::Array,
        }
    }
}

pub(super) struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar::U64(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar::I64(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar::F64(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Str(v.to_string()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(Scalar::Nested)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        while map.next_key_seed(Skip)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(Scalar::Nested)
    }
}

/// Parse a literal field's text into a scalar, if it is one.
pub(super) fn parse_literal(text: &str) -> Option<Scalar> {
    let mut de = serde_json::Deserializer::from_str(text);
    let scalar = de.deserialize_any(ScalarVisitor).ok()?;
    de.end().ok()?;
    match scalar {
        Scalar::Nested => None,
        s => Some(s),
    }
}

/// What the members list of a compact/columnar document turned out to be.
#[derive(Default)]
pub(super) enum MembersState {
    /// No members array: the key is absent or its value is not an array
    /// (the same error either way).
    #[default]
    Missing,
    /// Names, first non-string index, first repeated name.
    List {
        names: Vec<Arc<str>>,
        non_string: Option<usize>,
        duplicate: Option<String>,
    },
}

#[derive(Default)]
pub(super) enum DataState {
    /// No data array: the key is absent or its value is not an array.
    #[default]
    Missing,
    Array,
}

pub(super) struct State<'k> {
    pub(super) shape: Shape,
    pub(super) cols: Vec<Col>,
    /// Field indices reading each slot (member index or pivot key slot).
    pub(super) targets: Vec<Vec<usize>>,
    /// Field indices by member name (member fields only).
    pub(super) by_name: HashMap<Arc<str>, Vec<usize>>,
    // Rows.
    pub(super) top_bad: bool,
    pub(super) first_bad_entry: Option<u64>,
    pub(super) rows: u64,
    pub(super) unknown_row_key: Option<(u64, String)>,
    pub(super) keys: &'k mut HashMap<Box<str>, usize>,
    pub(super) names: &'k mut Vec<Box<str>>,
    /// Slot order of the previous row, to predict keys without hashing.
    pub(super) order: Vec<usize>,
    // Compact / columnar.
    pub(super) members: MembersState,
    pub(super) data: DataState,
    pub(super) lengths: Vec<u64>,
    pub(super) first_ragged: Option<(u64, u64)>,
    pub(super) data_seen: bool,
    pub(super) members_after_data: bool,
    pub(super) data_occurrences: usize,
    pub(super) second_pass: bool,
    pub(super) last_data: usize,
}

impl State<'_> {
    /// Forget decoded data (a data key seen again: the last one wins).
    pub(super) fn reset_data(&mut self) {
        for col in &mut self.cols {
            *col = Col::new(col.conv, col.member.clone());
        }
        self.lengths.clear();
        self.first_ragged = None;
        self.first_bad_entry = None;
        self.rows = 0;
        self.data = DataState::Missing;
    }

    /// Point member slots at the fields that read them.
    pub(super) fn bind_members(&mut self) {
        self.targets.clear();
        if let MembersState::List { names, .. } = &self.members {
            for name in names {
                self.targets.push(self.by_name.get(name).cloned().unwrap_or_default());
            }
        }
    }

    #[inline]
    pub(super) fn cell(&mut self, slot: usize, row: u64, cell: Cell<'_>) {
        if let Some(fields) = self.targets.get(slot) {
            for &f in fields {
                self.cols[f].put(f, row, cell);
            }
        }
    }

    /// The pivot slot of a row key, learning new keys.
    #[inline]
    pub(super) fn slot_of(&mut self, key: &str, predicted: Option<usize>) -> usize {
        if let Some(predicted) = predicted {
            if &*self.names[predicted] == key {
                return predicted;
            }
        }
        if let Some(&slot) = self.keys.get(key) {
            return slot;
        }
        let slot = self.names.len();
        self.names.push(key.into());
        self.keys.insert(key.into(), slot);
        slot
    }

    /// Make sure `targets` covers every known pivot slot.
    pub(super) fn bind_slots(&mut self) {
        while self.targets.len() < self.names.len() {
            let name = &self.names[self.targets.len()];
            self.targets
                .push(self.by_name.get(&**name).cloned().unwrap_or_default());
        }
    }
}
