//! Interning of string ids (query ids, document ids, user ids) into dense `u32`s.
//!
//! Parsed data keeps only the dense ids in compact columns. The names live once
//! in one byte arena (plus a 4-byte offset each) behind an open-addressing hash
//! table of (id, hash tag) slots, so 20M distinct document ids cost their bytes
//! plus ~20 bytes each, not two heap allocations each.

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Interner {
    /// The names, in id order.
    names: Names,
    /// Slots hold (id + 1, 32-bit hash tag); id 0 marks an empty slot. The tag
    /// both places the slot (its low bits) and lets a probe skip mismatches
    /// without touching the arena; the length is a power of two (< 2^32).
    #[serde(with = "crate::raw")]
    table: Vec<(u32, u32)>,
    /// The last id looked up: ids repeat on consecutive lines (runs are grouped by query).
    #[serde(skip)]
    last: Option<u32>,
}

impl Default for Interner {
    fn default() -> Self {
        Interner {
            names: Names::default(),
            table: vec![(0, 0); 16],
            last: None,
        }
    }
}

#[inline]
pub fn hash(bytes: &[u8]) -> u64 {
    // FNV-1a over 8-byte words, then a final mix: fast and good enough for ids
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = (h ^ u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .wrapping_mul(0x0000_0100_0000_01b3);
        h ^= h >> 29;
    }
    for &b in chunks.remainder() {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

impl Interner {
    pub fn new() -> Self {
        Self::default()
    }

    /// (slot, tag, id if present)
    fn slot(&self, name: &str) -> (usize, u32, Option<u32>) {
        let tag = (hash(name.as_bytes()) >> 32) as u32;
        let mask = self.table.len() - 1;
        let mut i = tag as usize & mask;
        loop {
            match self.table[i] {
                (0, _) => return (i, tag, None),
                (id1, t) => {
                    if t == tag && self.name(id1 - 1) == name {
                        return (i, tag, Some(id1 - 1));
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let size = self.table.len() * 2;
        let mut table = vec![(0u32, 0u32); size];
        for &(id1, tag) in &self.table {
            if id1 == 0 {
                continue;
            }
            // the slot index comes from the stored tag: growth never rehashes names
            let mut i = tag as usize & (size - 1);
            while table[i].0 != 0 {
                i = (i + 1) & (size - 1);
            }
            table[i] = (id1, tag);
        }
        self.table = table;
    }

    /// The dense id of `name`, adding it if new. The check against the last
    /// id is inlined into the callers (a parser's loop over lines): most lines
    /// repeat the previous line's id.
    #[inline]
    pub fn intern(&mut self, name: &str) -> u32 {
        match self.last {
            Some(id) if self.name(id) == name => id,
            _ => self.look_up(name),
        }
    }

    /// [`Interner::intern`] past the last id: the table.
    fn look_up(&mut self, name: &str) -> u32 {
        let (slot, tag, found) = self.slot(name);
        let id = match found {
            Some(id) => id,
            None => {
                let id = self.names.len() as u32;
                self.names.push(name);
                self.table[slot] = (id + 1, tag);
                if self.names.len() * 2 > self.table.len() {
                    self.grow();
                }
                id
            }
        };
        self.last = Some(id);
        id
    }

    /// Whether the invariants every lookup relies on hold (for an interner read
    /// back from bytes): names on char boundaries, ends ascending, a power-of-two
    /// table at most half full holding each id exactly once.
    pub fn is_consistent(&self) -> bool {
        let n = self.names.len();
        if !self.names.is_consistent() {
            return false;
        }
        if !self.table.len().is_power_of_two() || n * 2 > self.table.len() {
            return false;
        }
        let mut seen = vec![false; n];
        for &(id1, _) in &self.table {
            if id1 == 0 {
                continue;
            }
            match seen.get_mut(id1 as usize - 1) {
                Some(s) if !*s => *s = true,
                _ => return false,
            }
        }
        seen.into_iter().all(|s| s)
    }

    /// [`Interner::is_consistent`], and every name found by a lookup under
    /// its own id (each slot's tag is its name's hash, no name twice): for an
    /// interner from a file of unknown origin.
    pub fn is_sound(&self) -> bool {
        self.is_consistent()
            && (0..self.names.len()).all(|i| self.get(self.names.get(i)) == Some(i as u32))
    }

    pub fn get(&self, name: &str) -> Option<u32> {
        self.slot(name).2
    }

    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Ids in byte-wise ascending order of their names.
    pub fn ids_sorted_by_name(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        self.sort_by_name(&mut order);
        order
    }

    /// Sorts `ids` in byte-wise ascending order of their names (the one
    /// instance of this sort in the page).
    pub fn sort_by_name(&self, ids: &mut [u32]) {
        let name = |i: usize| self.name(ids[i]).as_bytes();
        let sorted: Vec<u32> = crate::order(ids.len(), &|a, b| name(a).cmp(name(b)))
            .into_iter()
            .map(|i| ids[i])
            .collect();
        ids.copy_from_slice(&sorted);
    }

    /// Bytes held (arena, offsets and table), for memory reports.
    pub fn heap_bytes(&self) -> usize {
        self.names.heap_bytes() + 8 * self.table.capacity()
    }
}

/// Names stored once each, in order, in one arena (4 bytes of offset per name,
/// no lookup table): the per-row document ids of a run or qrels. Documents are
/// matched per query when a run is prepared, so no global document table exists.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Names {
    #[serde(with = "crate::raw::text")]
    arena: String,
    #[serde(with = "crate::raw")]
    ends: Vec<u32>,
}

impl Names {
    /// Room for `names` more names of `bytes` more text in all, if memory
    /// allows (otherwise the columns grow as they go).
    pub fn try_reserve(&mut self, names: usize, bytes: usize) {
        let _ = self.arena.try_reserve(bytes);
        let _ = self.ends.try_reserve(names);
    }

    /// Bytes of name text held.
    pub fn text_len(&self) -> usize {
        self.arena.len()
    }

    pub fn push(&mut self, name: &str) {
        self.arena.push_str(name);
        self.ends.push(self.arena.len() as u32);
    }

    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.arena[start..self.ends[i] as usize]
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Ends ascending, within the arena and on char boundaries (for bytes read back).
    pub fn is_consistent(&self) -> bool {
        let mut prev = 0u32;
        self.ends.iter().all(|&e| {
            let ok = e >= prev
                && (e as usize) <= self.arena.len()
                && self.arena.is_char_boundary(e as usize);
            prev = e;
            ok
        })
    }

    pub fn heap_bytes(&self) -> usize {
        self.arena.capacity() + 4 * self.ends.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slot whose tag is not its name's hash, or a name held twice, passes
    /// the structural check but not the sound one (a lookup would miss it).
    #[test]
    fn a_tampered_table_is_not_sound() {
        let mut i = Interner::new();
        for n in ["q1", "q2", "q3"] {
            i.intern(n);
        }
        assert!(i.is_consistent() && i.is_sound());
        let mut bad = i.clone();
        let slot = bad.table.iter().position(|s| s.0 != 0).unwrap();
        bad.table[slot].1 ^= 1 << 31;
        assert!(bad.is_consistent() && !bad.is_sound());
        let mut twice = Interner::new();
        twice.intern("a");
        twice.intern("b");
        twice.names = Names::default();
        twice.names.push("a");
        twice.names.push("a");
        assert!(!twice.is_sound());
    }

    #[test]
    fn interning_is_stable_and_ordering_is_bytewise() {
        let mut i = Interner::new();
        assert_eq!(i.intern("b"), 0);
        assert_eq!(i.intern("a"), 1);
        assert_eq!(i.intern("b"), 0);
        assert_eq!(i.intern("B"), 2);
        assert_eq!(i.intern(""), 3);
        assert_eq!(i.intern(""), 3);
        // byte order: "" < "B" < "a" < "b"
        assert_eq!(i.ids_sorted_by_name(), vec![3, 2, 1, 0]);
        assert_eq!(i.name(1), "a");
        assert_eq!(i.get("zz"), None);
    }

    #[test]
    fn many_names_survive_growth() {
        let mut i = Interner::new();
        for n in 0..100_000u32 {
            assert_eq!(i.intern(&format!("doc-{n}")), n);
        }
        for n in (0..100_000u32).step_by(7) {
            assert_eq!(i.get(&format!("doc-{n}")), Some(n));
            assert_eq!(i.intern(&format!("doc-{n}")), n);
            assert_eq!(i.name(n), format!("doc-{n}"));
        }
        assert!(i.heap_bytes() < 100_000 * 40);
    }
}
