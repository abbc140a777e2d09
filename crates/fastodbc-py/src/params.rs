//! Python parameter objects to `ParamValue`: the bind-direction type table's Python side.
//! `execute` and `executemany` both go through `to_param`.

use fastodbc_core::ffi::{SqlDate, SqlTimestamp};
use fastodbc_core::types::{guid, numeric};
use fastodbc_core::ParamValue;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDate, PyDateAccess, PyDateTime, PyFloat, PyInt, PyList,
    PyMemoryView, PyString, PyTime, PyTimeAccess, PyTuple,
};

use crate::convert::py_types;
use crate::errors;

/// Parameter values refused because the driver or database would change them silently.
#[derive(Debug, Clone, Copy, Default)]
pub struct Refuse {
    /// Text with an embedded NUL, which drivers that cut strings there would store shortened
    /// (`Strategy::refuse_nul`).
    pub nul: bool,
    /// NaN, which the database would store as NULL (`Strategy::refuse_nan`).
    pub nan: bool,
}

/// Converts parameter `index` (0-based) of a row, refusing what `refuse` names.
pub fn to_param(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    index: usize,
    refuse: Refuse,
) -> PyResult<ParamValue> {
    if obj.is_none() {
        return Ok(ParamValue::Null);
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        let s = s.to_str()?;
        if refuse.nul && s.contains('\0') {
            return Err(errors::data_error(
                py,
                "22000",
                format!("parameter {index}: the string contains a NUL character, which this driver would silently truncate"),
            ));
        }
        return Ok(ParamValue::Text(s.to_owned()));
    }
    if let Ok(b) = obj.downcast::<PyBool>() {
        return Ok(ParamValue::Bool(b.is_true()));
    }
    if let Ok(i) = obj.downcast::<PyInt>() {
        return match i.extract::<i64>() {
            Ok(v) => Ok(ParamValue::Int(v)),
            Err(_) => {
                // Beyond 64 bits: exact, as NUMERIC, up to the 38 digits databases accept.
                let text = i.str()?.to_string();
                let digits = text.trim_start_matches('-');
                if digits.len() > 38 {
                    return Err(errors::data_error(
                        py,
                        "22003",
                        format!("parameter {index}: integer {text} has more than 38 digits and fits no SQL numeric type"),
                    ));
                }
                Ok(ParamValue::Decimal {
                    precision: digits.len() as u16,
                    scale: 0,
                    text,
                })
            }
        };
    }
    if let Ok(f) = obj.downcast::<PyFloat>() {
        let v = f.value();
        if refuse.nan && v.is_nan() {
            return Err(errors::data_error(
                py,
                "22000",
                format!("parameter {index}: NaN, which this database would store as NULL; pass None for a NULL"),
            ));
        }
        return Ok(ParamValue::Float(v));
    }
    if let Ok(b) = obj.downcast::<PyBytes>() {
        return Ok(ParamValue::Bytes(b.as_bytes().to_vec()));
    }
    if obj.is_instance_of::<PyByteArray>() {
        // Copied through a buffer export, which makes a resize by another thread fail
        // (BufferError) instead of freeing the bytes being read.
        let view = pyo3::buffer::PyBuffer::<u8>::get(obj)?;
        return Ok(ParamValue::Bytes(view.to_vec(obj.py())?));
    }
    if obj.downcast::<PyMemoryView>().is_ok() {
        let b: Vec<u8> = obj.call_method0("tobytes")?.extract()?;
        return Ok(ParamValue::Bytes(b));
    }
    // datetime before date: datetime is a date subclass.
    if let Ok(dt) = obj.downcast::<PyDateTime>() {
        return Ok(ParamValue::Timestamp(SqlTimestamp {
            year: dt.get_year() as i16,
            month: dt.get_month() as u16,
            day: dt.get_day() as u16,
            hour: dt.get_hour() as u16,
            minute: dt.get_minute() as u16,
            second: dt.get_second() as u16,
            fraction: dt.get_microsecond() * 1000,
        }));
    }
    if let Ok(d) = obj.downcast::<PyDate>() {
        return Ok(ParamValue::Date(SqlDate {
            year: d.get_year() as i16,
            month: d.get_month() as u16,
            day: d.get_day() as u16,
        }));
    }
    if let Ok(t) = obj.downcast::<PyTime>() {
        return Ok(ParamValue::Time(
            t.get_hour(),
            t.get_minute(),
            t.get_second(),
            t.get_microsecond(),
        ));
    }
    let types = py_types(py)?;
    if obj.is_instance(types.decimal().bind(py))? {
        return decimal_param(py, obj, index);
    }
    if obj.is_instance(types.uuid().bind(py))? {
        let raw: [u8; 16] = obj.getattr("bytes")?.extract()?;
        return Ok(ParamValue::Guid(guid::guid_from_rfc_bytes(&raw)));
    }
    if crate::linked::binary_null(py).is_some_and(|b| obj.is(&b)) {
        return Ok(ParamValue::NullBinary);
    }
    Err(errors::programming(
        py,
        format!(
            "Invalid parameter type.  param-index={index} param-type={}",
            obj.get_type().name()?
        ),
    ))
}

fn decimal_param(py: Python<'_>, obj: &Bound<'_, PyAny>, index: usize) -> PyResult<ParamValue> {
    let (negative, digits, exponent) = if obj.get_type().is(py_types(py)?.decimal().bind(py)) {
        // A plain Decimal's str() is exact (C code, no context rounding): read the digits from
        // it. Subclasses may redefine str(), so they take the as_tuple() path.
        let text = obj.str()?;
        numeric::decimal_parts(text.to_str()?).ok_or_else(|| not_numeric(py, obj, index))?
    } else {
        let t = obj.call_method0("as_tuple")?;
        let t = t.downcast::<PyTuple>()?;
        let sign: i64 = t.get_item(0)?.extract()?;
        let Ok(exponent) = t.get_item(2)?.extract::<i32>() else {
            return Err(not_numeric(py, obj, index));
        };
        let digits: Vec<u8> = t.get_item(1)?.extract()?;
        let digits: String = digits.iter().map(|d| (b'0' + d) as char).collect();
        (sign == 1, digits, exponent)
    };
    let (text, precision, scale) = numeric::plain_decimal(negative, &digits, exponent);
    Ok(ParamValue::Decimal {
        text,
        precision,
        scale,
    })
}

/// The error for a Decimal no SQL numeric can hold (NaN, infinities, huge exponents).
fn not_numeric(py: Python<'_>, obj: &Bound<'_, PyAny>, index: usize) -> PyErr {
    let shown = obj
        .str()
        .map_or_else(|_| "the value".to_string(), |s| s.to_string());
    errors::data_error(
        py,
        "22003",
        format!("parameter {index}: {shown} cannot be stored in a SQL numeric"),
    )
}

/// Text and bytes are sequences whose items would each become a parameter: never rows.
fn is_string_like(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
}

fn parameter_type_error(py: Python<'_>, message: String) -> PyErr {
    errors::db_error(py, "ParameterTypeError", "HY000", message)
}

/// executemany's rows must come in order: a sequence (list, tuple, ...), an iterator or a
/// generator. A set or a dict would send them in an arbitrary order, a string one row per
/// character: `ParameterTypeError` (a ProgrammingError, as in pyodbc, and a TypeError).
pub fn check_param_rows(py: Python<'_>, seq: &Bound<'_, PyAny>) -> PyResult<()> {
    if seq.is_instance_of::<PyList>() || seq.is_instance_of::<PyTuple>() {
        return Ok(());
    }
    // SAFETY: plain type checks on a live object, attached.
    let sequence = unsafe { pyo3::ffi::PySequence_Check(seq.as_ptr()) } == 1;
    let iterator = unsafe { pyo3::ffi::PyIter_Check(seq.as_ptr()) } == 1;
    if (sequence && !is_string_like(seq)) || iterator {
        return Ok(());
    }
    Err(parameter_type_error(
        py,
        format!(
            "The second parameter to executemany must be a sequence, iterator, or generator, \
             not {}",
            seq.get_type().name()?
        ),
    ))
}

/// One row of executemany: a sequence of parameters (list, tuple, Row, ...), checked as
/// `check_param_rows` checks the rows.
pub fn check_param_row(py: Python<'_>, row: &Bound<'_, PyAny>, index: usize) -> PyResult<()> {
    if row.is_instance_of::<PyTuple>() || row.is_instance_of::<PyList>() {
        return Ok(());
    }
    // SAFETY: as above.
    let sequence = unsafe { pyo3::ffi::PySequence_Check(row.as_ptr()) } == 1;
    if sequence && !is_string_like(row) {
        return Ok(());
    }
    Err(parameter_type_error(
        py,
        format!(
            "Params must be in a list, tuple, or Row: row {index} is a {}",
            row.get_type().name()?
        ),
    ))
}
