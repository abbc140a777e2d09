//! Fetched values to Python objects: one `Converter` per column, chosen once per result set
//! from the column plan (and any output converter the user registered for its SQL type). The
//! conversions of each type family are in a module of their own (`numbers`, `temporal`,
//! `guid`; text is `crate::text`'s), this file dispatches.

use fastodbc_core::types::numeric::NumberText;
use fastodbc_core::types::registry;
use fastodbc_core::{Cell, ColumnPlan, RowBlock, TextCodec, ValueKind};
use fastodbc_pystr::PreparedRows;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyBytes, PyString, PyType};

use crate::errors;
use crate::text;

mod guid;
mod numbers;
mod temporal;

/// The Python class of each value kind, as the registry names it (`registry::VALUES`),
/// imported once: `description`'s type codes, and the classes conversions build and
/// parameters are recognised by.
pub struct PyTypes {
    by_kind: Vec<Py<PyType>>,
    str_: Py<PyType>,
}

impl PyTypes {
    pub fn of(&self, kind: ValueKind) -> &Py<PyType> {
        // One class per kind, imported in the registry's order (`py_types`).
        &self.by_kind[kind as usize]
    }
    pub fn decimal(&self) -> &Py<PyType> {
        self.of(ValueKind::Decimal)
    }
    pub fn uuid(&self) -> &Py<PyType> {
        self.of(ValueKind::Guid)
    }
}

static TYPES: GILOnceCell<PyTypes> = GILOnceCell::new();

pub fn py_types(py: Python<'_>) -> PyResult<&PyTypes> {
    TYPES.get_or_try_init(py, || {
        let by_kind = registry::values()
            .iter()
            .map(|v| {
                let (module, name) = v.python;
                Ok(py
                    .import(module)?
                    .getattr(name)?
                    .downcast_into::<PyType>()?
                    .unbind())
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyTypes {
            by_kind,
            str_: py.get_type::<PyString>().unbind(),
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
        kind => t.of(kind),
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
                    return numbers::number_object(py, n, &[], column);
                }
                if let (Converter::IntText, Some((element, len))) =
                    (self, block.value_in_element(col, row))
                {
                    return match NumberText::integer_in_element(element, len) {
                        NumberText::Int(v) => Ok(v.into_pyobject(py)?.into_any().unbind()),
                        n => numbers::number_object(
                            py,
                            n,
                            element.get(..len).unwrap_or(element),
                            column,
                        ),
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
                let bit = *b.first().ok_or_else(|| invalid(py, column, "bit", b))?;
                PyBool::new(py, bit != 0).to_owned().into_any().unbind()
            }
            Converter::Int => numbers::int(py, b, column)?,
            Converter::UInt => numbers::uint(py, b, column)?,
            Converter::IntText => numbers::number_object(py, NumberText::integer(b), b, column)?,
            Converter::FloatText => numbers::number_object(py, NumberText::float(b), b, column)?,
            Converter::Float => numbers::float(py, b, column)?,
            Converter::Decimal => numbers::decimal(py, b, column)?,
            Converter::Date => temporal::date(py, b, column)?,
            Converter::Time => temporal::time(py, b, column)?,
            Converter::Timestamp => temporal::timestamp(py, b, column)?,
            Converter::Guid => guid::uuid(py, b, column)?,
            Converter::GuidText => guid::text(py, b, column)?,
            Converter::User(f) => f.bind(py).call1((PyBytes::new(py, b),))?.unbind(),
        })
    }
}

pub(crate) fn decode_error(
    py: Python<'_>,
    column: &str,
    encoding: &'static str,
    offset: usize,
) -> PyErr {
    errors::to_py(
        py,
        fastodbc_core::Error::Decode {
            column: column.to_string(),
            encoding,
            offset,
        },
    )
}

/// The error of a value the driver returned in a form its type cannot have.
fn invalid(py: Python<'_>, column: &str, what: &str, b: &[u8]) -> PyErr {
    errors::data_error(
        py,
        "22018",
        format!("column {column:?}: the driver returned an invalid {what}: {b:?}"),
    )
}
