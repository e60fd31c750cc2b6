//! Interning of string ids (query ids, document ids, user ids) into dense `u32`s.
//!
//! Parsed data keeps only the dense ids in compact columns; the strings live
//! once in the interner. `sorted_rank` gives every id its position in byte-wise
//! order, so trec_eval's tie-break (document id descending, `strcmp`) is a
//! plain integer comparison on the hot path.

use std::collections::HashMap;

#[derive(Clone, Debug, Default)]
pub struct Interner {
    index: HashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

impl Interner {
    pub fn new() -> Self {
        Self::default()
    }

    /// The dense id of `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        let boxed: Box<str> = name.into();
        self.names.push(boxed.clone());
        self.index.insert(boxed, id);
        id
    }

    pub fn get(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }

    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// For every id, its rank when all names are sorted byte-wise ascending.
    pub fn sorted_rank(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.names.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| {
            self.names[a as usize]
                .as_bytes()
                .cmp(self.names[b as usize].as_bytes())
        });
        let mut rank = vec![0u32; order.len()];
        for (r, id) in order.into_iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        rank
    }

    /// Ids in byte-wise ascending order of their names.
    pub fn ids_sorted_by_name(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.names.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| {
            self.names[a as usize]
                .as_bytes()
                .cmp(self.names[b as usize].as_bytes())
        });
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable_and_sorted_rank_is_bytewise() {
        let mut i = Interner::new();
        assert_eq!(i.intern("b"), 0);
        assert_eq!(i.intern("a"), 1);
        assert_eq!(i.intern("b"), 0);
        assert_eq!(i.intern("B"), 2);
        // byte order: "B" < "a" < "b"
        assert_eq!(i.sorted_rank(), vec![2, 1, 0]);
        assert_eq!(i.ids_sorted_by_name(), vec![2, 1, 0]);
        assert_eq!(i.name(1), "a");
    }
}
