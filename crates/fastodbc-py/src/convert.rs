//! Fetched values to Python objects: one `Converter` per column, chosen once per result set
//! from the column plan (and any output converter the user registered for its SQL type).

use fastodbc_core::types::numeric::{int_of_width, NumberText};
use fastodbc_core::types::{guid, temporal};
use fastodbc_core::{Cell, ColumnPlan, RowBlock, TextCodec, ValueKind};
use fastodbc_pystr::PreparedRows;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{
    PyBool, PyBytes, PyDate, PyDateTime, PyDelta, PyDict, PyFloat, PyInt, PyString, PyTime, PyType,
};

use crate::errors;
use crate::text;

/// Python classes the conversions and `description` need, imported once.
pub struct PyTypes {
    pub decimal: Py<PyType>,
    pub uuid: Py<PyType>,
    pub date: Py<PyType>,
    pub time: Py<PyType>,
    pub datetime: Py<PyType>,
    pub str_: Py<PyType>,
    pub bytearray: Py<PyType>,
    pub bool_: Py<PyType>,
    pub int: Py<PyType>,
    pub float: Py<PyType>,
}

static TYPES: GILOnceCell<PyTypes> = GILOnceCell::new();

pub fn py_types(py: Python<'_>) -> PyResult<&PyTypes> {
    TYPES.get_or_try_init(py, || {
        let get = |m: &str, n: &str| -> PyResult<Py<PyType>> {
            Ok(py
                .import(m)?
                .getattr(n)?
                .downcast_into::<PyType>()?
                .unbind())
        };
        Ok(PyTypes {
            decimal: get("decimal", "Decimal")?,
            uuid: get("uuid", "UUID")?,
            date: get("datetime", "date")?,
            time: get("datetime", "time")?,
            datetime: get("datetime", "datetime")?,
            str_: py.get_type::<PyString>().unbind(),
            bytearray: py.get_type::<pyo3::types::PyByteArray>().unbind(),
            bool_: py.get_type::<PyBool>().unbind(),
            int: py.get_type::<PyInt>().unbind(),
            float: py.get_type::<PyFloat>().unbind(),
        })
    })
}

/// The Python type a column's values have (`description[i][1]`, as pyodbc reports it); GUIDs
/// are `str` unless `native_uuid`.
pub fn type_code<'py>(
    py: Python<'py>,
    kind: ValueKind,
    native_uuid: bool,
) -> PyResult<Bound<'py, PyType>> {
    let t = py_types(py)?;
    let ty = match kind {
        ValueKind::Guid if !native_uuid => &t.str_,
        ValueKind::Text => &t.str_,
        // pyodbc reports bytearray for binary columns (their values are bytes).
        ValueKind::Binary => &t.bytearray,
        ValueKind::Bool => &t.bool_,
        ValueKind::Int => &t.int,
        ValueKind::Float => &t.float,
        ValueKind::Decimal => &t.decimal,
        ValueKind::Date => &t.date,
        ValueKind::Time => &t.time,
        ValueKind::Timestamp => &t.datetime,
        ValueKind::Guid => &t.uuid,
    };
    Ok(ty.bind(py).clone())
}

/// How one column's cells become Python objects.
pub enum Converter {
    Utf8Text,
    Utf16Text,
    /// Narrow text in a codec CPython knows (`setdecoding(..., encoding="latin-1")`). A
    /// `Box<str>`, not a `String`: a `String`'s capacity gives the enum a niche to encode the
    /// other variants in, and telling them apart per value then costs a 64-bit constant and
    /// more where a plain tag is one compare.
    CodecText(Box<str>),
    Binary,
    Bool,
    Int,
    /// An unsigned BIGINT, fetched as `SQL_C_UBIGINT`.
    UInt,
    /// An integer column read as text (`Strategy::plan`: `numbers_as_text`, `integers_as_text`).
    IntText,
    Float,
    /// A floating-point column read as text.
    FloatText,
    Decimal,
    Date,
    Time,
    Timestamp,
    Guid,
    /// A GUID as upper-case text (`fastodbc.native_uuid = False`, as pyodbc's).
    GuidText,
    /// A user's output converter, given the raw bytes of the value.
    User(PyObject),
}

impl Converter {
    /// Converting a value may run Python code: a user's converter, a codec (some are written in
    /// Python), `uuid.UUID`. Such code may let another thread take the GIL.
    pub fn runs_python(&self) -> bool {
        matches!(
            self,
            Converter::User(_) | Converter::CodecText(_) | Converter::Guid
        )
    }

    /// The converter of a column: the user's output converter for its SQL type if there is
    /// one, else the built-in one for its kind (GUIDs as `str` unless `native_uuid`).
    pub fn for_column(plan: &ColumnPlan, user: Option<PyObject>, native_uuid: bool) -> Converter {
        if let Some(f) = user {
            return Converter::User(f);
        }
        match plan.kind {
            ValueKind::Text => match &plan.codec {
                Some(TextCodec::Utf16) => Converter::Utf16Text,
                Some(TextCodec::Narrow(name)) => Converter::CodecText(name.as_str().into()),
                _ => Converter::Utf8Text,
            },
            ValueKind::Binary => Converter::Binary,
            ValueKind::Bool => Converter::Bool,
            ValueKind::Int if plan.codec.is_some() => Converter::IntText,
            ValueKind::Int if plan.c_type == fastodbc_core::ffi::SQL_C_UBIGINT => Converter::UInt,
            ValueKind::Int => Converter::Int,
            ValueKind::Float if plan.codec.is_some() => Converter::FloatText,
            ValueKind::Float => Converter::Float,
            ValueKind::Decimal => Converter::Decimal,
            ValueKind::Date => Converter::Date,
            ValueKind::Time => Converter::Time,
            ValueKind::Timestamp => Converter::Timestamp,
            ValueKind::Guid if native_uuid => Converter::Guid,
            ValueKind::Guid => Converter::GuidText,
        }
    }

    /// Converts the cell of column `col` in row `row` of `block`; `column` names it in errors.
    /// `prepared` is what the fetch thread found about the block when it had time to spare
    /// (`RowsPreparation`): numbers read from their text and the shapes of text values. Else
    /// integers are parsed in place, a word at a time (`NumberText::integer_in_element`);
    /// everything else goes through `convert`.
    #[inline]
    pub fn convert_at(
        &self,
        py: Python<'_>,
        block: &RowBlock,
        prepared: Option<&PreparedRows>,
        col: usize,
        row: usize,
        column: &str,
    ) -> PyResult<PyObject> {
        match self {
            Converter::IntText | Converter::FloatText => {
                // Read on the fetch thread: only the object to build.
                if let Some(n) = prepared.and_then(|p| p.number(col, row)) {
                    return number_object(py, n, &[], column);
                }
                if let (Converter::IntText, Some((element, len))) =
                    (self, block.value_in_element(col, row))
                {
                    return match NumberText::integer_in_element(element, len) {
                        NumberText::Int(v) => Ok(v.into_pyobject(py)?.into_any().unbind()),
                        n => number_object(py, n, element.get(..len).unwrap_or(element), column),
                    };
                }
            }
            // Text whose shape the read-ahead thread found: only the characters to write.
            Converter::Utf8Text | Converter::Utf16Text => {
                // The cell is looked up once the shape is known to be there: without one (a
                // block the fetch thread did not describe) `convert` looks it up itself.
                if let Some((shape, Cell::Value(b))) = prepared
                    .and_then(|p| p.text_shape(col, row))
                    .map(|shape| (shape, block.cell(col, row)))
                {
                    let s = if let Converter::Utf8Text = self {
                        // SAFETY: the block's shape of this very value: valid UTF-8.
                        Some(unsafe { text::str_of_utf8_shape(py, b, shape) })
                    } else {
                        text::str_of_utf16_bytes_shape(py, b, shape)
                    };
                    if let Some(s) = s {
                        return Ok(s?.unbind());
                    }
                }
            }
            _ => {}
        }
        self.convert(py, block.cell(col, row), column)
    }

    /// Converts one cell; `column` names it in errors.
    #[inline]
    pub fn convert(&self, py: Python<'_>, cell: Cell<'_>, column: &str) -> PyResult<PyObject> {
        let b = match cell {
            Cell::Null => return Ok(py.None()),
            Cell::Value(b) => b,
        };
        let bad = |what: &str| {
            errors::data_error(
                py,
                "22018",
                format!("column {column:?}: the driver returned an invalid {what}: {b:?}"),
            )
        };
        Ok(match self {
            Converter::Utf8Text => match text::str_from_utf8(py, b) {
                Ok(s) => s?.unbind(),
                Err(e) => return Err(decode_error(py, column, "UTF-8", e.offset)),
            },
            Converter::Utf16Text => match text::str_from_utf16_bytes(py, b) {
                Ok(s) => s?.unbind(),
                Err(e) => return Err(decode_error(py, column, "UTF-16", e.offset)),
            },
            Converter::CodecText(codec) => PyBytes::new(py, b)
                .call_method1("decode", (&**codec,))?
                .unbind(),
            Converter::Binary => PyBytes::new(py, b).into_any().unbind(),
            Converter::Bool => {
                let bit = *b.first().ok_or_else(|| bad("bit"))?;
                PyBool::new(py, bit != 0).to_owned().into_any().unbind()
            }
            Converter::Int => {
                let v = int_of_width(b).ok_or_else(|| bad("integer"))?;
                v.into_pyobject(py)?.into_any().unbind()
            }
            Converter::UInt => {
                let v = b.first_chunk::<8>().map(|w| u64::from_ne_bytes(*w));
                v.ok_or_else(|| bad("integer"))?
                    .into_pyobject(py)?
                    .into_any()
                    .unbind()
            }
            Converter::IntText => number_object(py, NumberText::integer(b), b, column)?,
            Converter::FloatText => number_object(py, NumberText::float(b), b, column)?,
            Converter::Float => {
                let v = match b.len() {
                    4 => f32::from_ne_bytes(b.try_into().map_err(|_| bad("real"))?) as f64,
                    _ => f64::from_ne_bytes(b.try_into().map_err(|_| bad("double"))?),
                };
                PyFloat::new(py, v).into_any().unbind()
            }
            Converter::Decimal => {
                let s = std::str::from_utf8(b).map_err(|_| bad("decimal"))?;
                // Some drivers pad or use a comma in locales; Decimal() rejects anything odd.
                let s = s.trim();
                py_types(py)?.decimal.bind(py).call1((s,))?.unbind()
            }
            Converter::Date => {
                if b.len() < 6 {
                    return Err(bad("date"));
                }
                let d = temporal::read_date(b);
                let text = || format!("{}-{:02}-{:02}", d.year, d.month, d.day);
                match (u8::try_from(d.month), u8::try_from(d.day)) {
                    (Ok(month), Ok(day)) => PyDate::new(py, d.year.into(), month, day),
                    _ => Err(PyValueError::new_err("month or day out of range")),
                }
                .map_err(|e| unrepresentable(py, e, column, text()))?
                .into_any()
                .unbind()
            }
            Converter::Time => match temporal::parse_time(b) {
                Some((h, m, s, us)) => PyTime::new(py, h, m, s, us, None)?.into_any().unbind(),
                // Outside a day (MariaDB's TIME is a duration, -838:59:59.999999 to
                // 838:59:59.999999; PostgreSQL's 24:00:00): a timedelta, which holds it.
                None => {
                    let us = temporal::parse_duration(b).ok_or_else(|| bad("time"))?;
                    let (days, rest) =
                        (us.div_euclid(86_400_000_000), us.rem_euclid(86_400_000_000));
                    let (secs, micros) = (rest / 1_000_000, rest % 1_000_000);
                    let int = |v: i64| i32::try_from(v).map_err(|_| bad("time"));
                    PyDelta::new(py, int(days)?, int(secs)?, int(micros)?, false)?
                        .into_any()
                        .unbind()
                }
            },
            Converter::Timestamp => {
                if b.len() < 16 {
                    return Err(bad("timestamp"));
                }
                let t = temporal::read_timestamp(b);
                if !t.fraction.is_multiple_of(1000) {
                    return Err(errors::data_error(
                        py,
                        "22008",
                        format!("column {column:?}: timestamp has sub-microsecond precision ({} ns), which datetime cannot hold", t.fraction),
                    ));
                }
                let text = || {
                    format!(
                        "{}-{:02}-{:02} {:02}:{:02}:{:02}",
                        t.year, t.month, t.day, t.hour, t.minute, t.second
                    )
                };
                let fields = [t.month, t.day, t.hour, t.minute, t.second].map(u8::try_from);
                match fields {
                    [Ok(month), Ok(day), Ok(hour), Ok(minute), Ok(second)] => {
                        let us = t.fraction / 1000;
                        PyDateTime::new(
                            py,
                            t.year.into(),
                            month,
                            day,
                            hour,
                            minute,
                            second,
                            us,
                            None,
                        )
                    }
                    _ => Err(PyValueError::new_err("field out of range")),
                }
                .map_err(|e| unrepresentable(py, e, column, text()))?
                .into_any()
                .unbind()
            }
            Converter::Guid | Converter::GuidText if b.len() < 16 => return Err(bad("GUID")),
            Converter::Guid => {
                let raw = guid::guid_to_rfc_bytes(b);
                let kwargs = PyDict::new(py);
                kwargs.set_item("bytes", PyBytes::new(py, &raw))?;
                py_types(py)?
                    .uuid
                    .bind(py)
                    .call((), Some(&kwargs))?
                    .unbind()
            }
            Converter::GuidText => {
                let text = guid::guid_text(&guid::guid_to_rfc_bytes(b));
                // The text is ASCII hex digits and dashes.
                PyString::new(py, std::str::from_utf8(&text).map_err(|_| bad("GUID"))?)
                    .into_any()
                    .unbind()
            }
            Converter::User(f) => f.bind(py).call1((PyBytes::new(py, b),))?.unbind(),
        })
    }
}

/// A date or timestamp from the driver that `datetime` cannot hold (year 0 or past 9999, month
/// or day 0: MariaDB stores them; psqlODBC sends `-infinity` as year -9999) is a `DataError`
/// at its row, not the `ValueError` of Python's constructor.
fn unrepresentable(py: Python<'_>, e: PyErr, column: &str, value: String) -> PyErr {
    if !e.is_instance_of::<PyValueError>(py) {
        return e;
    }
    errors::data_error(
        py,
        "22008",
        format!("column {column:?}: {value} is not a date datetime can hold ({e})"),
    )
}

/// A number column's value read from its text: the number, or the text itself.
#[inline]
fn number_object(py: Python<'_>, n: NumberText, b: &[u8], column: &str) -> PyResult<PyObject> {
    Ok(match n {
        NumberText::Int(v) => v.into_pyobject(py)?.into_any().unbind(),
        NumberText::Float(v) => PyFloat::new(py, v).into_any().unbind(),
        NumberText::Text => match text::str_from_utf8(py, b) {
            Ok(s) => s?.unbind(),
            Err(e) => return Err(decode_error(py, column, "UTF-8", e.offset)),
        },
    })
}

fn decode_error(py: Python<'_>, column: &str, encoding: &'static str, offset: usize) -> PyErr {
    errors::to_py(
        py,
        fastodbc_core::Error::Decode {
            column: column.to_string(),
            encoding,
            offset,
        },
    )
}
