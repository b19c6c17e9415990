//! A small least-recently-used cache, written as a sample for chunktui's code
//! presets: several items (a struct, impl blocks, free functions, tests).

use std::collections::HashMap;
use std::hash::Hash;

/// Keeps at most `capacity` entries, dropping the one used longest ago.
pub struct LruCache<K, V> {
    capacity: usize,
    tick: u64,
    entries: HashMap<K, (V, u64)>,
}

impl<K: Eq + Hash + Clone, V> LruCache<K, V> {
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "a cache needs room for one entry");
        LruCache { capacity, tick: 0, entries: HashMap::new() }
    }

    /// Returns the value and marks it as recently used.
    pub fn get(&mut self, key: &K) -> Option<&V> {
        self.tick += 1;
        let tick = self.tick;
        match self.entries.get_mut(key) {
            Some(entry) => {
                entry.1 = tick;
                Some(&entry.0)
            }
            None => None,
        }
    }

    /// Inserts a value, evicting the least recently used entry when full.
    pub fn put(&mut self, key: K, value: V) {
        self.tick += 1;
        if self.entries.len() == self.capacity && !self.entries.contains_key(&key) {
            if let Some(oldest) = self.oldest_key() {
                self.entries.remove(&oldest);
            }
        }
        self.entries.insert(key, (value, self.tick));
    }

    fn oldest_key(&self) -> Option<K> {
        self.entries.iter().min_by_key(|(_, (_, t))| *t).map(|(k, _)| k.clone())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Counts how often each word occurs, using the cache to skip repeats.
pub fn word_frequencies(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used() {
        let mut cache = LruCache::new(2);
        cache.put("a", 1);
        cache.put("b", 2);
        cache.get(&"a");
        cache.put("c", 3);
        assert!(cache.get(&"b").is_none());
        assert_eq!(cache.get(&"a"), Some(&1));
    }

    #[test]
    fn counts_words_case_insensitively() {
        let counts = word_frequencies("The cat and the hat");
        assert_eq!(counts["the"], 2);
    }
}
