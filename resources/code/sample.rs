//! A fixed-capacity least-recently-used cache, and a word counter that keeps the
//! counts of the words it saw most recently.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;

/// A cache of at most `capacity` entries; inserting into a full cache evicts the
/// entry that was used least recently.
pub struct LruCache<K, V> {
    capacity: usize,
    clock: u64,
    entries: HashMap<K, (V, u64)>,
}

impl<K: Hash + Eq + Clone, V> LruCache<K, V> {
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "an LRU cache needs room for at least one entry");
        Self { capacity, clock: 0, entries: HashMap::with_capacity(capacity) }
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    pub fn get(&mut self, key: &K) -> Option<&V> {
        let now = self.tick();
        self.entries.get_mut(key).map(|(value, used)| {
            *used = now;
            &*value
        })
    }

    /// Inserts `value`, returning the entry it evicted, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<(K, V)> {
        let now = self.tick();
        let mut evicted = None;
        if !self.entries.contains_key(&key) && self.entries.len() == self.capacity {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                evicted = self.entries.remove_entry(&oldest).map(|(k, (v, _))| (k, v));
            }
        }
        self.entries.insert(key, (value, now));
        evicted
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for LruCache<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries.iter().map(|(k, (v, _))| (k, v))).finish()
    }
}

/// Counts words case-insensitively, remembering only the most recent ones.
pub fn recent_word_counts(text: &str, capacity: usize) -> LruCache<String, usize> {
    let mut counts = LruCache::new(capacity);
    for word in text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
    {
        let word = word.to_lowercase();
        let seen = counts.get(&word).copied().unwrap_or(0);
        counts.insert(word, seen + 1);
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used_entry() {
        let mut cache = LruCache::new(2);
        cache.insert("a", 1);
        cache.insert("b", 2);
        assert_eq!(cache.get(&"a"), Some(&1));
        assert_eq!(cache.insert("c", 3), Some(("b", 2)));
        assert_eq!(cache.len(), 2);
        assert!(cache.get(&"b").is_none());
    }

    #[test]
    fn counts_words_regardless_of_case() {
        let mut counts = recent_word_counts("The cat saw the other cat. THE END", 8);
        assert_eq!(counts.get(&"the".to_string()), Some(&3));
        assert_eq!(counts.get(&"cat".to_string()), Some(&2));
        assert_eq!(counts.get(&"end".to_string()), Some(&1));
    }
}
