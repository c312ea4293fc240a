//! Interval lists of TSN offsets (a SACK's gap blocks, the runs a sender keeps): what
//! one list covers that another does not. Shared by the single-path SACK pass
//! (`sack/single.rs`) and CMT's pass by destination (`cmt/lists.rs`): SACK after SACK
//! both compare this SACK's blocks with the runs gap-acked before it.

/// One sweep over `a` and `b` (sorted, disjoint, inclusive intervals of offsets; `a`'s
/// from a cumulative TSN `shift` above `b`'s, all at least 1): the parts only in `a`
/// go to `only_a`, those only in `b` to `only_b`, both as offsets from `a`'s cumulative
/// TSN. What `b` holds at or below `shift` (acked cumulatively since) is neither.
/// Equal blocks (most of them, SACK after SACK) cost one comparison each.
pub(super) fn diff(
    a: &[(u32, u32)],
    b: &[(u32, u32)],
    shift: u32,
    only_a: &mut Vec<(u32, u32)>,
    only_b: &mut Vec<(u32, u32)>,
) {
    if b.is_empty() {
        // No previous blocks (and then `shift` may be anything).
        only_a.extend_from_slice(a);
        return;
    }
    let (mut i, mut j) = (0, 0);
    while j < b.len() && b[j].1 <= shift {
        j += 1;
    }
    // Everything below `at` (in `b`'s offsets) is decided.
    let mut at = shift + 1;
    while i < a.len() && j < b.len() {
        let (alo, ahi) = (a[i].0 + shift, a[i].1 + shift);
        let (blo, bhi) = b[j];
        if alo == blo && ahi == bhi && alo >= at {
            at = ahi + 1;
            i += 1;
            j += 1;
            continue;
        }
        let (alo, blo) = (alo.max(at), blo.max(at));
        if alo < blo {
            let e = ahi.min(blo - 1);
            only_a.push((alo - shift, e - shift));
            at = e + 1;
            i += usize::from(e == ahi);
        } else if blo < alo {
            let e = bhi.min(alo - 1);
            only_b.push((blo - shift, e - shift));
            at = e + 1;
            j += usize::from(e == bhi);
        } else {
            let e = ahi.min(bhi);
            at = e + 1;
            i += usize::from(e == ahi);
            j += usize::from(e == bhi);
        }
    }
    for &(lo, hi) in &a[i..] {
        only_a.push(((lo + shift).max(at) - shift, hi));
    }
    for &(lo, hi) in &b[j..] {
        only_b.push((lo.max(at) - shift, hi - shift));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_by_hand() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        // [1,10] against [3,4] and [8,12]: only in the first 1-2 and 5-7, only in the
        // second 11-12.
        diff(&[(1, 10)], &[(3, 4), (8, 12)], 0, &mut a, &mut b);
        assert_eq!(
            (a.as_slice(), b.as_slice()),
            (&[(1, 2), (5, 7)][..], &[(11, 12)][..])
        );
        // Blocks that grew by one at their ends (the usual CMT SACK after the last):
        // only the new TSNs 5 and 9; a block gone (12-13) is only in the second.
        a.clear();
        b.clear();
        diff(
            &[(2, 5), (7, 9)],
            &[(2, 4), (7, 8), (12, 13)],
            0,
            &mut a,
            &mut b,
        );
        assert_eq!(
            (a.as_slice(), b.as_slice()),
            (&[(5, 5), (9, 9)][..], &[(12, 13)][..])
        );
        // Equal lists: nothing either way; one side empty: all of the other.
        a.clear();
        b.clear();
        diff(&[(3, 4), (6, 6)], &[(3, 4), (6, 6)], 0, &mut a, &mut b);
        diff(&[], &[(1, 6)], 0, &mut a, &mut b);
        assert_eq!((a.as_slice(), b.as_slice()), (&[][..], &[(1, 6)][..]));
        // The cumulative TSN moved by 3 since the second list: its offsets 2-3 are
        // acked cumulatively now (neither side), its 4-6, 8-9 and 12 are this list's
        // 1-3, 5-6 and 9. This list acks 2 and 5-7: 7 is new; 1, 3 and 9 are no longer
        // acked.
        a.clear();
        b.clear();
        diff(
            &[(2, 2), (5, 7)],
            &[(2, 6), (8, 9), (12, 12)],
            3,
            &mut a,
            &mut b,
        );
        assert_eq!(
            (a.as_slice(), b.as_slice()),
            (&[(7, 7)][..], &[(1, 1), (3, 3), (9, 9)][..])
        );
        // Everything of the second list below the new cumulative TSN; a large shift
        // with no previous blocks.
        a.clear();
        b.clear();
        diff(&[(1, 2)], &[(1, 3)], 3, &mut a, &mut b);
        diff(&[(4, 4)], &[], u32::MAX, &mut a, &mut b);
        assert_eq!(
            (a.as_slice(), b.as_slice()),
            (&[(1, 2), (4, 4)][..], &[][..])
        );
    }
}
