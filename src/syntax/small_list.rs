//! [`SmallList`]: a list that holds its first few items inline.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};

use thin_vec::ThinVec;

/// A value that fills the unused inline slots of a [`SmallList`]. It should
/// own nothing, so that making and dropping it costs a few stores and a
/// test.
pub trait Blank {
    /// The filler.
    fn blank() -> Self;

    /// Whether the value owns nothing, like a blank, so that dropping it
    /// would do nothing: most names and elements of a query borrow their
    /// text, and a test is cheaper than the drop.
    fn owns_nothing(&self) -> bool {
        false
    }
}

/// A list whose first `N` items are stored in the list itself; past `N`,
/// all of them move to a [`ThinVec`].
///
/// Directory paths and key tuples are short: held inline, parsing a short
/// query allocates no list for them, and dropping it frees none, which
/// was a fifth of the cost of parsing one. A general small-vector type
/// would do the same, but its array parameter makes the AST invariant in
/// its lifetime, and ASTs of different texts could then no longer be
/// compared or passed where a shorter borrow is expected.
///
/// The slots past the length hold [`Blank`] values rather than nothing,
/// which keeps the type free of unsafe code. The list derefs to a slice.
#[derive(Clone)]
pub struct SmallList<T: Blank, const N: usize> {
    /// How many items there are, inline or not.
    len: u32,
    /// Whether an inline item may own something, so that the drop must
    /// look at the items. Set by a push of such an item and by any mutable
    /// borrow of the items; most lists of a query borrow all their text,
    /// and their drop then does nothing. Held in the padding after `len`.
    may_own: bool,
    /// The items while there are at most `N`; blanks after them. Only the
    /// items are dropped (see the `Drop` impl): dropping every slot cost a
    /// call per blank, more than the rest of the drop of a short query's
    /// key tuple.
    inline: ManuallyDrop<[T; N]>,
    /// Every item once there are more than `N`; empty until then.
    heap: ThinVec<T>,
}

impl<T: Blank, const N: usize> SmallList<T, N> {
    /// The items as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        self
    }
}

impl<T: Blank, const N: usize> SmallList<T, N> {
    /// An empty list.
    #[inline]
    pub fn new() -> SmallList<T, N> {
        SmallList {
            len: 0,
            may_own: false,
            inline: ManuallyDrop::new(std::array::from_fn(|_| T::blank())),
            heap: ThinVec::new(),
        }
    }

    /// Adds an item at the end.
    #[inline]
    pub fn push(&mut self, item: T) {
        let len = self.len as usize;
        if len < N {
            // Mostly known where the push is inlined, from the branch that
            // made the item: no test is left. Items on the heap are its
            // own to drop.
            self.may_own |= !item.owns_nothing();
            // The slot holds a blank, which owns nothing: forgotten, it
            // costs no drop.
            std::mem::forget(std::mem::replace(&mut self.inline[len], item));
        } else {
            self.push_to_heap(item);
        }
        self.len += 1;
    }

    /// [`SmallList::push`] past the inline slots: on the first, the inline
    /// items move to the heap.
    #[cold]
    fn push_to_heap(&mut self, item: T) {
        if self.heap.is_empty() {
            self.heap.reserve(2 * N.max(2));
            self.heap.extend(
                self.inline
                    .iter_mut()
                    .map(|t| std::mem::replace(t, T::blank())),
            );
        }
        self.heap.push(item);
    }

    /// Keeps the first `len` items.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len() {
            return;
        }
        if self.len() > N {
            self.heap.truncate(len);
            if len <= N {
                self.may_own = true;
                let heap = std::mem::take(&mut self.heap);
                for (slot, item) in self.inline.iter_mut().zip(heap) {
                    *slot = item;
                }
            }
        } else {
            self.inline[len..].fill_with(T::blank);
        }
        self.len = len as u32;
    }
}

impl<T: Blank, const N: usize> Drop for SmallList<T, N> {
    fn drop(&mut self) {
        // The blanks own nothing and are left undropped; once the items
        // are on the heap, its own drop drops them.
        let len = self.len as usize;
        if len <= N && self.may_own {
            for slot in &mut self.inline[..len] {
                if !slot.owns_nothing() {
                    drop(std::mem::replace(slot, T::blank()));
                }
            }
        }
    }
}

impl<T: Blank, const N: usize> Default for SmallList<T, N> {
    #[inline]
    fn default() -> Self {
        SmallList::new()
    }
}

impl<T: Blank, const N: usize> Deref for SmallList<T, N> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        let len = self.len as usize;
        if len <= N {
            &self.inline[..len]
        } else {
            &self.heap
        }
    }
}

impl<T: Blank, const N: usize> DerefMut for SmallList<T, N> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // The caller may put in items that own something.
        self.may_own = true;
        let len = self.len as usize;
        if len <= N {
            &mut self.inline[..len]
        } else {
            &mut self.heap
        }
    }
}

impl<T: Blank + std::fmt::Debug, const N: usize> std::fmt::Debug for SmallList<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Blank + PartialEq, const N: usize> PartialEq for SmallList<T, N> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Blank, const N: usize> Extend<T> for SmallList<T, N> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl<T: Blank, const N: usize> FromIterator<T> for SmallList<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut list = SmallList::new();
        list.extend(iter);
        list
    }
}

impl<T: Blank, const N: usize> From<Vec<T>> for SmallList<T, N> {
    fn from(items: Vec<T>) -> Self {
        items.into_iter().collect()
    }
}

impl<'s, T: Blank, const N: usize> IntoIterator for &'s SmallList<T, N> {
    type Item = &'s T;
    type IntoIter = std::slice::Iter<'s, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'s, T: Blank, const N: usize> IntoIterator for &'s mut SmallList<T, N> {
    type Item = &'s mut T;
    type IntoIter = std::slice::IterMut<'s, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T: Blank, const N: usize> IntoIterator for SmallList<T, N> {
    type Item = T;
    type IntoIter =
        std::iter::Chain<std::iter::Take<std::array::IntoIter<T, N>>, thin_vec::IntoIter<T>>;

    fn into_iter(mut self) -> Self::IntoIter {
        // The inline items, or else the heap's: the heap is empty while
        // the items are inline. Blanks are left in their place, for the
        // list's drop.
        let len = self.len as usize;
        let inline_len = if len <= N { len } else { 0 };
        let inline: [T; N] =
            std::array::from_fn(|k| std::mem::replace(&mut self.inline[k], T::blank()));
        self.len = 0;
        let heap = std::mem::take(&mut self.heap);
        inline.into_iter().take(inline_len).chain(heap)
    }
}

#[cfg(test)]
mod tests {
    use super::{Blank, SmallList};

    impl Blank for u32 {
        fn blank() -> u32 {
            0
        }
    }

    /// Pushing, truncating and iterating across the inline slots and the
    /// heap keeps every item in order.
    #[test]
    fn push_truncate_and_iterate_keep_order() {
        let mut list = SmallList::<u32, 3>::new();
        let mut expected = Vec::new();
        for n in 1..=8 {
            assert_eq!(*list, *expected);
            list.push(n);
            expected.push(n);
            let owned: Vec<u32> = list.clone().into_iter().collect();
            assert_eq!(owned, expected);
        }
        for len in (0..8).rev() {
            list.truncate(len);
            expected.truncate(len);
            assert_eq!(*list, *expected);
            let owned: Vec<u32> = list.clone().into_iter().collect();
            assert_eq!(owned, expected);
            list.push(100);
            expected.push(100);
            assert_eq!(*list, *expected);
            list.truncate(len);
            expected.truncate(len);
        }
        let collected: SmallList<u32, 3> = (1..=5).collect();
        assert_eq!(*collected, [1, 2, 3, 4, 5]);
        assert_eq!(format!("{collected:?}"), "[1, 2, 3, 4, 5]");
    }

    impl Blank for Option<std::rc::Rc<()>> {
        fn blank() -> Self {
            None
        }
    }

    /// Every item is dropped once, whether the list is dropped, truncated
    /// or iterated, inline or on the heap.
    #[test]
    fn items_are_dropped_once() {
        let rc = std::rc::Rc::new(());
        for n in 0..7 {
            let fill = || {
                (0..n)
                    .map(|_| Some(rc.clone()))
                    .collect::<SmallList<_, 3>>()
            };
            drop(fill());
            assert_eq!(std::rc::Rc::strong_count(&rc), 1);
            let mut list = fill();
            list.truncate(n / 2);
            assert_eq!(std::rc::Rc::strong_count(&rc), 1 + n / 2);
            drop(list);
            assert_eq!(std::rc::Rc::strong_count(&rc), 1);
            let mut iter = fill().into_iter();
            iter.next();
            drop(iter);
            assert_eq!(std::rc::Rc::strong_count(&rc), 1);
            drop(fill().clone());
            assert_eq!(std::rc::Rc::strong_count(&rc), 1);
        }
    }
}
