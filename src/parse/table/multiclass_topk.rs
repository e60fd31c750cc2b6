//! Multi-class (next-item) top-k lists: `target,pred_1,...,pred_k`.

use super::*;

impl TableState {
    /// One line: the target and the ranked classes (or items).
    pub(super) fn topk_row(&mut self, n: u64, f: &Row) -> Result<(), Problem> {
        let col = |c: usize| -> &[u8] { &f[c] };
        let target = class_id(n, self.truth, col(self.truth), "a target class")?;
        let t = self.ids_a.intern(target);
        let mut position = 0u32;
        let mut first = u32::MAX;
        for (i, &c) in self.models.iter().enumerate() {
            let v = col(c);
            if v.is_empty() {
                continue;
            }
            let class = class_id(n, c, v, "a class or item id")?;
            let id = self.ids_a.intern(class);
            if i == 0 {
                first = id;
            }
            if id == t && position == 0 {
                position = i as u32 + 1;
            }
        }
        self.targets.push(t);
        self.mc.list_positions.push(position);
        self.mc.list_first.push(first);
        Ok(())
    }
}
