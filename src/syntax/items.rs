//! [`Items`]: the statements of a script, with room for one inline.

use std::ops::Deref;

use super::ast::Item;

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
#[derive(Clone, Default)]
pub struct Items<'a>(Repr<'a>);

#[derive(Clone, Debug, Default)]
enum Repr<'a> {
    #[default]
    Empty,
    One(Box<Item<'a>>),
    Many(Vec<Item<'a>>),
}

impl<'a> Items<'a> {
    /// No items, with room for `n` before the list grows.
    pub fn with_capacity(n: usize) -> Items<'a> {
        Items(if n > 1 {
            Repr::Many(Vec::with_capacity(n))
        } else {
            Repr::Empty
        })
    }

    /// Adds an item at the end.
    #[inline]
    pub fn push(&mut self, item: Item<'a>) {
        match &mut self.0 {
            Repr::Empty => self.0 = Repr::One(Box::new(item)),
            Repr::Many(items) => items.push(item),
            Repr::One(_) => self.push_second(item),
        }
    }

    /// [`Items::push`] of a second item: the list replaces the box.
    fn push_second(&mut self, item: Item<'a>) {
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
    pub(super) fn push_with(&mut self, make: impl FnOnce() -> Item<'a>) -> &mut Item<'a> {
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
    pub fn as_slice(&self) -> &[Item<'a>] {
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

impl<'a> Deref for Items<'a> {
    type Target = [Item<'a>];

    fn deref(&self) -> &[Item<'a>] {
        match &self.0 {
            Repr::Empty => &[],
            Repr::One(item) => std::slice::from_ref(item),
            Repr::Many(items) => items,
        }
    }
}

impl std::fmt::Debug for Items<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Items<'_> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<'a> From<Vec<Item<'a>>> for Items<'a> {
    fn from(items: Vec<Item<'a>>) -> Items<'a> {
        Items(Repr::Many(items))
    }
}

impl<'a> FromIterator<Item<'a>> for Items<'a> {
    fn from_iter<I: IntoIterator<Item = Item<'a>>>(iter: I) -> Items<'a> {
        let mut items = Items::default();
        for item in iter {
            items.push(item);
        }
        items
    }
}

impl<'s, 'a> IntoIterator for &'s Items<'a> {
    type Item = &'s Item<'a>;
    type IntoIter = std::slice::Iter<'s, Item<'a>>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for Items<'a> {
    type Item = Item<'a>;
    type IntoIter = std::vec::IntoIter<Item<'a>>;

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
    use crate::syntax::ast::{Item, Meta, MetaKind, Span};

    fn meta(n: usize) -> Item<'static> {
        Item::Meta(Meta {
            kind: MetaKind::Commit,
            span: Span::at(n),
        })
    }

    /// Pushing and truncating across the inline item and the list keeps
    /// every item in order.
    #[test]
    fn push_and_truncate_keep_order() {
        for capacity in [0, 1, 8] {
            let mut items = Items::with_capacity(capacity);
            let mut expected = Vec::new();
            for n in 0..5 {
                assert_eq!(items.as_slice(), expected.as_slice());
                items.push(meta(n));
                expected.push(meta(n));
            }
            for len in (0..5).rev() {
                items.truncate(len);
                expected.truncate(len);
                assert_eq!(items.as_slice(), expected.as_slice());
            }
            let mut one = Items::with_capacity(capacity);
            one.push(meta(7));
            one.truncate(1);
            assert_eq!(one.clone().into_iter().collect::<Vec<_>>(), vec![meta(7)]);
            one.truncate(0);
            assert!(one.is_empty());
        }
    }
}
