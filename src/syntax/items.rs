//! [`Items`]: the statements of a script, the first in a box of its own.

use std::ops::Deref;

/// The items of a script in source order.
///
/// Most scripts are one query typed at a prompt or passed with `-q`; the
/// one item is held in a box of its own rather than in a list, which keeps
/// the script a few words long: a statement with its inline directory and
/// key tuple is hundreds of bytes, and the script is moved several times
/// on its way out of the parser. A general small-vector type could hold
/// the item inline, but its array parameter makes the AST invariant in its
/// lifetime, and ASTs of different texts could then no longer be compared
/// or passed where a shorter borrow is expected.
///
/// Against a `Vec`, which copies the statement into its buffer, this saves
/// about 7% of the instructions of parsing a line, with the inline lists
/// of [`SmallList`](super::small_list::SmallList) (benches/RESULTS.md).
#[derive(Clone)]
pub struct Items<T>(Repr<T>);

#[derive(Clone, Debug, Default)]
enum Repr<T> {
    #[default]
    Empty,
    One(Box<T>),
    Many(Vec<T>),
}

impl<T> Default for Items<T> {
    fn default() -> Self {
        Items(Repr::Empty)
    }
}

impl<T> Items<T> {
    /// No items, with room for `n` before the list grows.
    pub fn with_capacity(n: usize) -> Items<T> {
        Items(if n > 1 {
            Repr::Many(Vec::with_capacity(n))
        } else {
            Repr::Empty
        })
    }

    /// Adds an item at the end.
    #[inline]
    pub fn push(&mut self, item: T) {
        match &mut self.0 {
            Repr::Empty => self.0 = Repr::One(Box::new(item)),
            Repr::Many(items) => items.push(item),
            Repr::One(_) => self.push_second(item),
        }
    }

    /// [`Items::push`] of a second item: the list replaces the box.
    fn push_second(&mut self, item: T) {
        let Repr::One(first) = std::mem::take(&mut self.0) else {
            unreachable!("called with one item")
        };
        self.0 = Repr::Many(vec![*first, item]);
    }

    /// Adds the item `make` makes, and returns it where it now is, for the
    /// parser to fill in place.
    ///
    /// The first item is made straight into its box: made first and then
    /// boxed, as [`Items::push`] does, it was copied, hundreds of bytes.
    #[inline(always)]
    pub(super) fn push_with(&mut self, make: impl FnOnce() -> T) -> &mut T {
        if let Repr::Empty = self.0 {
            // Allocated first, the box is where the item is made.
            let item = Repr::One(Box::write(Box::new_uninit(), make()));
            // What it replaces is empty: forgotten rather than dropped, it
            // costs no call to the list's drop.
            std::mem::forget(std::mem::replace(&mut self.0, item));
        } else {
            self.push(make());
        }
        match &mut self.0 {
            Repr::One(item) => item,
            Repr::Many(items) => items.last_mut().expect("just pushed"),
            Repr::Empty => unreachable!("just pushed"),
        }
    }

    /// The items as a slice, for matching on their number.
    pub fn as_slice(&self) -> &[T] {
        self
    }

    /// Keeps the first `len` items.
    pub fn truncate(&mut self, len: usize) {
        match &mut self.0 {
            Repr::Many(items) => items.truncate(len),
            Repr::One(_) if len == 0 => self.0 = Repr::Empty,
            _ => {}
        }
    }
}

impl<T> Deref for Items<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.0 {
            Repr::Empty => &[],
            Repr::One(item) => std::slice::from_ref(item),
            Repr::Many(items) => items,
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Items<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for Items<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T> From<Vec<T>> for Items<T> {
    fn from(items: Vec<T>) -> Items<T> {
        Items(Repr::Many(items))
    }
}

impl<T> FromIterator<T> for Items<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Items<T> {
        let mut items = Items::default();
        for item in iter {
            items.push(item);
        }
        items
    }
}

impl<'s, T> IntoIterator for &'s Items<T> {
    type Item = &'s T;
    type IntoIter = std::slice::Iter<'s, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T> IntoIterator for Items<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        match self.0 {
            Repr::Empty => Vec::new(),
            Repr::One(item) => vec![*item],
            Repr::Many(items) => items,
        }
        .into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::Items;

    /// Pushing and truncating across the boxed item and the list keeps
    /// every item in order.
    #[test]
    fn push_and_truncate_keep_order() {
        for capacity in [0, 1, 8] {
            let mut items = Items::with_capacity(capacity);
            let mut expected = Vec::new();
            for n in 0..5 {
                assert_eq!(items.as_slice(), expected.as_slice());
                items.push(n.to_string());
                expected.push(n.to_string());
            }
            for len in (0..5).rev() {
                items.truncate(len);
                expected.truncate(len);
                assert_eq!(items.as_slice(), expected.as_slice());
            }
            let mut one = Items::with_capacity(capacity);
            *one.push_with(|| "7".to_string()) += "!";
            one.truncate(1);
            assert_eq!(one.clone().into_iter().collect::<Vec<_>>(), ["7!"]);
            one.truncate(0);
            assert!(one.is_empty());
        }
    }
}
