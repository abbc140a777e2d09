//! Exact numerics as parameters: sent as their text, bound as `SQL_NUMERIC` wide enough for
//! the widest integer part and the largest scale of the column's values.

use super::{Binding, ParamValue};
use crate::ffi;

pub(super) fn decimal_binding(rows: &[Vec<ParamValue>], c: usize) -> Binding {
    let (mut int_digits, mut scale, mut longest) = (1usize, 0i16, 1usize);
    for r in rows {
        if let ParamValue::Decimal {
            text,
            precision,
            scale: s,
        } = &r[c]
        {
            let s = (*s).max(0);
            int_digits = int_digits.max((*precision as usize).saturating_sub(s as usize));
            scale = scale.max(s);
            longest = longest.max(text.len());
        }
    }
    let precision = int_digits + scale as usize;
    (
        ffi::SQL_C_CHAR,
        ffi::SQL_NUMERIC,
        precision,
        scale,
        longest + 1,
    )
}
